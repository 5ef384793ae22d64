"""Reading plans: one action per line (``walk_towards character shower``,
``(walk_towards character shower)`` or ``walk_towards(character, shower)``), or JSON (a
list of such strings, of ``[name, arg, ...]`` lists, of ``{"action": ..., "args": [...]}``
objects, or an object holding such a list under ``"plan"``).

Plans written by LLMs come wrapped in prose, code fences and ``[PLAN]`` markers, and
planners write ``(pick-up a) ; cost`` or ``0.000: (pick-up a) [1]``: when any line holds a
parenthesised step, every parenthesised group is a step and the rest of the text is
skipped with a note (:class:`PlanText`); a line that is neither is prose. A step that is
there but malformed (``(pick-up a!)``) is never skipped: it raises
:class:`PlanFormatError`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from planproof.boundary import InputError, loads
from planproof.ltl.errors import check_text_length
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.scanner import NAME_RULE, is_name

PlanStep = tuple[str, tuple[str, ...]]

MAX_LENGTH = 1_000_000
_CALL = re.compile(r"^([^\s(),;#\[\]{}\"']+)\s*\((.*)\)$")  # name(args); the name checked
_GROUP = re.compile(r"\(([^()]*)\)")
_PREFIX = re.compile(r"^\s*(?:step\s*)?\d+(?:\.\d+)?\s*[:.)]\s*", re.IGNORECASE)
_SUFFIX = re.compile(r"\s*\[\d+(?:\.\d+)?\]\s*$")
_MARKER = re.compile(r"^\s*\[[A-Za-z][A-Za-z _-]*\]\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_FILLER = re.compile(r"^[\s\->.,;:0-9\[\]]*$")


class PlanFormatError(PDDLSyntaxError):
    """A plan that cannot be read, with the line (1-based) of the offending step."""


@dataclass(frozen=True)
class PlanText:
    """A plan read from text: its steps, the source line of each, and what the tolerant
    reading skipped or repaired (``notes``), so nothing is dropped silently."""

    steps: tuple[PlanStep, ...]
    lines: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


def _call(text: str) -> re.Match[str] | None:
    """``name(arg, ...)`` when ``name`` is a name."""
    m = _CALL.match(text)
    return m if m and is_name(m.group(1)) else None


def _step(text: str, line: int) -> PlanStep:
    s = text.strip().rstrip(",;")
    s = _PREFIX.sub("", s)  # "0: (walk ...)" / "1. walk ..." / "0.000: (a b)"
    s = _SUFFIX.sub("", s)  # a trailing duration or cost "[1]"
    if s.startswith("(") and s.endswith(")"):
        parts = s[1:-1].replace(",", " ").split()
    elif m := _call(s):
        parts = [m.group(1), *(a.strip() for a in m.group(2).split(",") if a.strip())]
    else:
        parts = s.split()
    if not parts:
        raise PlanFormatError("empty action", line=line, column=1, kind="bad-plan", text=text)
    for p in parts:
        if not is_name(p):
            raise PlanFormatError(
                f"{p!r} is not an action or object name ({NAME_RULE})",
                line=line,
                column=max(1, text.find(p) + 1),
                kind="bad-plan",
                text=text,
            )
    return parts[0], tuple(parts[1:])


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _line_column(where: str | None) -> tuple[int, int]:
    """(line, column) from the boundary's ``line L, column C`` (1, 1 when absent)."""
    m = re.search(r"line (\d+), column (\d+)", where or "")
    return (int(m.group(1)), int(m.group(2))) if m else (1, 1)


def read_plan_text(text: str) -> PlanText:
    """Read a plan tolerantly (see :func:`read_plan`): code fences, ``[PLAN]`` markers,
    prose around parenthesised steps, numbering (``1.``, ``Step 2:``, ``0.000:``) and
    planner comments (``; cost = 6``) are skipped, each with a note; the reading stops at
    a ``[... END]`` marker."""
    check_text_length(
        text, caller="read_plan", what="plan", max_length=MAX_LENGTH, error=PlanFormatError
    )
    stripped = text.strip()
    if stripped.startswith(("[", "{")) and not _MARKER.match(stripped.splitlines()[0]):
        try:  # nesting measured before parsing, without recursion
            doc = loads(stripped, source="plan", allow_surrogates=True)
        except InputError as err:
            at_line, at_column = _line_column(err.where)
            kind = "too-deep" if err.kind == "too-deep" else "bad-json"
            raise PlanFormatError(
                f"invalid JSON: {err.message}", line=at_line, column=at_column, kind=kind
            ) from None
        found = _from_json(doc)
        return PlanText(found, tuple(range(1, len(found) + 1)))
    notes: list[str] = []
    rows: list[tuple[int, str]] = []
    for i, raw in enumerate(text.splitlines(), start=1):
        if _FENCE.match(raw):
            notes.append(f"line {i}: code fence skipped")
            continue
        if _MARKER.match(raw):
            if raw.strip().upper().rstrip("]").endswith("END") and rows:
                notes.append(f"line {i}: {raw.strip()} ends the plan")
                break
            notes.append(f"line {i}: marker {raw.strip()} skipped")
            continue
        line = raw.split(";", 1)[0].split("#", 1)[0].strip().removesuffix("\\").strip()
        if not line:
            continue
        if rows and rows[-1][1].count("(") > rows[-1][1].count(")"):
            rows[-1] = (rows[-1][0], rows[-1][1] + " " + line)
            if not notes or not notes[-1].startswith(f"line {rows[-1][0]}: a step"):
                notes.append(f"line {rows[-1][0]}: a step split over lines joined")
        else:
            rows.append((i, line))
    parenthesised = any(
        _GROUP.search(line) and not _call(_PREFIX.sub("", line)) for _, line in rows
    )
    steps: list[PlanStep] = []
    lines: list[int] = []
    for i, line in rows:
        body = _SUFFIX.sub("", _PREFIX.sub("", line))
        if not parenthesised or _call(body):
            steps.append(_step(line, i))
            lines.append(i)
            continue
        groups = _GROUP.findall(line)
        if not groups and _PREFIX.match(line) and all(is_name(w) for w in body.split()):
            steps.append(_step(line, i))  # a numbered bare step among parenthesised ones
            lines.append(i)
            continue
        if not groups:
            notes.append(f"line {i}: prose skipped: {_short(line)!r}")
            continue
        rest = _GROUP.sub(" ", line)
        if not _FILLER.match(rest):
            notes.append(f"line {i}: text around the step skipped: {_short(rest)!r}")
        for g in groups:
            steps.append(_step(f"({g})", i))
            lines.append(i)
    return PlanText(tuple(steps), tuple(lines), tuple(notes))


def read_plan(text: str) -> tuple[PlanStep, ...]:
    """The steps of a plan given as text or JSON (see the module docstring); blank lines
    and ``;`` or ``#`` comments are skipped. :func:`read_plan_text` also returns what the
    tolerant reading skipped."""
    return read_plan_text(text).steps


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
