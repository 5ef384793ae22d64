"""Reading plans: one action per line (``walk_towards character shower``,
``(walk_towards character shower)`` or ``walk_towards(character, shower)``), or JSON (a
list of such strings, of ``[name, arg, ...]`` lists, of ``{"action": ..., "args": [...]}``
objects, or an object holding such a list under ``"plan"``)."""

from __future__ import annotations

import json
import re
from typing import Any

from planproof.ltl.errors import check_text_length
from planproof.pddl.errors import PDDLSyntaxError

PlanStep = tuple[str, tuple[str, ...]]

MAX_LENGTH = 1_000_000
_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")
_CALL = re.compile(r"^([A-Za-z_][\w.\-]*)\s*\((.*)\)$")


class PlanFormatError(PDDLSyntaxError):
    """A plan that cannot be read, with the line (1-based) of the offending step."""


def _step(text: str, line: int) -> PlanStep:
    s = text.strip().rstrip(",;")
    s = re.sub(r"^\d+\s*[:.)]\s*", "", s)  # "0: (walk ...)" / "1. walk ..."
    s = re.sub(r"\s*\[\d+(\.\d+)?\]$", "", s)  # a trailing duration or cost "[1]"
    if s.startswith("(") and s.endswith(")"):
        parts = s[1:-1].split()
    elif m := _CALL.match(s):
        parts = [m.group(1), *(a.strip() for a in m.group(2).split(",") if a.strip())]
    else:
        parts = s.split()
    if not parts:
        raise PlanFormatError("empty action", line=line, column=1, kind="bad-plan", text=text)
    for p in parts:
        if not _NAME.match(p):
            raise PlanFormatError(
                f"{p!r} is not an action or object name",
                line=line,
                column=max(1, text.find(p) + 1),
                kind="bad-plan",
                text=text,
            )
    return parts[0], tuple(parts[1:])


def read_plan(text: str) -> tuple[PlanStep, ...]:
    """The steps of a plan given as text or JSON (see the module docstring); blank lines
    and ``;`` or ``#`` comments are skipped."""
    check_text_length(
        text, caller="read_plan", what="plan", max_length=MAX_LENGTH, error=PlanFormatError
    )
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise PlanFormatError(
                f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno, kind="bad-json"
            ) from None
        return _from_json(doc)
    out: list[PlanStep] = []
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].split("#", 1)[0].strip()
        if line:
            out.append(_step(line, i))
    return tuple(out)


def _from_json(doc: Any) -> tuple[PlanStep, ...]:
    if isinstance(doc, dict):
        for key in ("plan", "actions", "output"):
            if key in doc:
                return _from_json(doc[key])
        raise PlanFormatError(
            'a JSON plan object needs a "plan" list', line=1, column=1, kind="bad-plan"
        )
    if not isinstance(doc, list):
        raise PlanFormatError("a JSON plan is a list of steps", line=1, column=1, kind="bad-plan")
    out: list[PlanStep] = []
    for i, item in enumerate(doc, start=1):
        if isinstance(item, str):
            out.append(_step(item, i))
        elif isinstance(item, list) and item and all(isinstance(x, str) for x in item):
            out.append(_step(" ".join(item), i))
        elif isinstance(item, dict) and isinstance(item.get("action", item.get("name")), str):
            name = item.get("action", item.get("name"))
            args = item.get("args", item.get("arguments", []))
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise PlanFormatError(
                    f"step {i}: args must be a list of names", line=i, column=1, kind="bad-plan"
                )
            out.append(_step(" ".join([str(name), *args]), i))
        else:
            raise PlanFormatError(
                f"step {i}: expected a string, a list of names or an action object",
                line=i,
                column=1,
                kind="bad-plan",
            )
    return tuple(out)
