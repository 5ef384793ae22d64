"""Tolerant reading of LLM action-sequencing responses (EAI VirtualHome and BEHAVIOR).

An LLM answer is untrusted text. :func:`parse_actions` turns it into a tuple of
:class:`~planproof.simulators.core.Action` or a typed :class:`ResponseError`; it never
raises on bad text and never evaluates it. Every repair it makes (a markdown fence
stripped, single quotes read, a wrapper unwrapped, prose ignored) is listed in
``ParsedResponse.notes`` so nothing is changed silently. Whether an action or object
exists, and whether the argument count fits, is the simulator's grammar check
(:func:`planproof.simulators.core.check_grammar`), not the parser's.

See ``docs/responses.md`` for the accepted forms and the choices made.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias

from planproof import boundary
from planproof.interface.errors import ResponseError, ResponsesFileError
from planproof.simulators.core import Action, ErrorKind

__all__ = [
    "MAX_DEPTH",
    "MAX_RESPONSES_FILE_BYTES",
    "MAX_RESPONSE_CHARS",
    "Dataset",
    "ParsedResponse",
    "ResponseEntry",
    "ResponsesFile",
    "parse_actions",
    "read_responses",
    "read_responses_text",
    "render_behavior",
    "render_virtualhome",
    "render_virtualhome_script",
]

Dataset: TypeAlias = Literal["virtualhome", "behavior"]

MAX_RESPONSE_CHARS = boundary.limits.MAX_TEXT_CHARS
"""Longer responses are refused outright (an action plan is a few kilobytes)."""
MAX_DEPTH = 32
"""Deepest bracket nesting read; a plan needs four levels (wrapper, list, object, args)."""
MAX_RESPONSES_FILE_BYTES = boundary.limits.MAX_FILE_BYTES
_MAX_CANDIDATES = 64  # JSON values tried per response before giving up
_SCAN_BUDGET = 400_000  # bracket/quote steps of the hand-written scanner per response
_LITERAL_BUDGET = 2 * MAX_RESPONSE_CHARS  # characters handed to ast.parse per response


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class ParsedResponse:
    """A response read as a plan: ``actions`` (non-empty) and no ``error``, or no actions
    and an ``error``. ``notes`` lists every repair made; ``form`` names what was read
    (``json``, ``python-literal``, ``script``) or is empty on error."""

    actions: tuple[Action, ...] = ()
    error: ResponseError | None = None
    notes: tuple[str, ...] = ()
    form: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "actions": [{"name": a.name, "args": list(a.args)} for a in self.actions],
            "error": self.error.to_dict() if self.error else None,
            "notes": list(self.notes),
            "form": self.form,
        }


# ------------------------------------------------------------------- JSON-ish values


@dataclass(frozen=True, slots=True)
class _Obj:
    """A JSON object with its members in written order, repeated keys kept (VirtualHome
    plans are objects whose repeated keys are successive actions)."""

    pairs: tuple[tuple[object, object], ...]


def _pairs_hook(pairs: list[tuple[str, object]]) -> _Obj:
    return _Obj(tuple(pairs))


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_hook)


class _NotLiteral(Exception):
    """An ast node that is not a JSON/Python literal (a call, an operator, ...)."""


_CONSTANT_NAMES: dict[str, object] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
}


def _from_ast(node: ast.expr, names: list[str], depth: int = 0) -> object:
    """The literal value of ``node``. Only literal nodes are accepted: nothing is
    evaluated. A bare name other than a JSON/Python constant is read as a string (LLMs
    write ``{WALK: [kitchen, 205]}``); every name read is added to ``names`` for the notes."""
    if depth > MAX_DEPTH:
        raise _NotLiteral(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool | int | float | str) or node.value is None:
            return node.value
        raise _NotLiteral(f"unsupported constant {type(node.value).__name__}")
    if isinstance(node, ast.Name):
        names.append(node.id)
        return _CONSTANT_NAMES.get(node.id, node.id)
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) in (int, float)
    ):
        value = node.operand.value
        assert isinstance(value, int | float)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.List | ast.Tuple):
        return [_from_ast(e, names, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict):
        pairs: list[tuple[object, object]] = []
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise _NotLiteral("'**' in an object")
            pairs.append((_from_ast(k, names, depth + 1), _from_ast(v, names, depth + 1)))
        return _Obj(tuple(pairs))
    raise _NotLiteral(f"a Python {type(node).__name__} expression, not a literal")


def _too_deep(value: object) -> bool:
    """Whether ``value`` nests deeper than :data:`MAX_DEPTH` (iteratively: no recursion)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if d > MAX_DEPTH:
            return True
        if isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
        elif isinstance(v, _Obj):
            stack.extend((x, d + 1) for _, x in v.pairs)
    return False


# strings as whole tokens (so nothing inside them counts), trailing commas, comments,
# Python constants
_LITERAL_MARKS = re.compile(
    r""""(?:[^"\\\n]|\\.)*"|(?P<single>'(?:[^'\\\n]|\\.)*')|(?P<trailing>,\s*[\]})])"""
    r"|(?P<comment>#)|(?<![\w.])(?P<constant>True|False|None)(?![\w.])"
)


def _literal_notes(segment: str, names: Sequence[str]) -> list[str]:
    """What made ``segment`` a Python literal rather than JSON, for the notes (one regex
    pass; ``tokenize`` would be ten times slower on a long response)."""
    marks = {m.lastgroup for m in _LITERAL_MARKS.finditer(segment)}
    notes = []
    if "single" in marks:
        notes.append("read single-quoted strings")
    if "trailing" in marks:
        notes.append("ignored trailing commas")
    if "comment" in marks:
        notes.append("ignored comments")
    if "constant" in marks:
        notes.append("read Python constants True/False/None")
    bare = list(dict.fromkeys(n for n in names if n not in _CONSTANT_NAMES))
    if bare:
        notes.append(f"read unquoted words as strings: {', '.join(bare[:5])}")
    return notes or ["read as a Python literal"]


# ------------------------------------------------------------------ finding the plan


_FENCE = re.compile(r"```[^\n`]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_FENCE_MARK = re.compile(r"```[^\n`]*")
_OPENERS = re.compile(r"[\[{]")
_SCAN = re.compile(r"[\"'\[\]{}()\n]")
_STRING_END = {
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"'),
    "'": re.compile(r"(?:[^'\\\n]|\\.)*'"),
}
_CLOSER = {"[": "]", "{": "}", "(": ")"}


@dataclass(frozen=True, slots=True)
class _Value:
    """A JSON-ish value read at ``[start, end)`` of the response."""

    value: object
    start: int
    end: int
    form: str
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Failure:
    """Why a candidate failed; ``span`` ranks failures (the larger, the more plan-like)."""

    error: ResponseError
    span: int


class _PlanError(Exception):
    """A value that is not a plan. ``strong`` means it is plan-shaped (so its error is
    about the plan itself); a weak one is some other JSON value (e.g. ``["note"]``)."""

    def __init__(
        self,
        message: str,
        *,
        strong: bool = True,
        kind: ErrorKind = ErrorKind.PARSING,
        step: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.strong = strong
        self.kind = kind
        self.step = step


@dataclass
class _Reader:
    """One response being read: the candidate search with its work budgets."""

    text: str
    dataset: Dataset
    scan_budget: int = _SCAN_BUDGET
    literal_budget: int = _LITERAL_BUDGET
    failures: list[_Failure] = field(default_factory=list)

    # -- one candidate -------------------------------------------------------------

    def value_at(self, start: int) -> _Value | _Failure:
        """The JSON (or, failing that, Python-literal) value starting at ``start``."""
        text = self.text
        try:
            value, end = _DECODER.raw_decode(text, start)
            if _too_deep(value):
                return self._fail(
                    start, end, f"JSON value nested more than {MAX_DEPTH} levels deep"
                )
            return _Value(value, start, end, "json", ())
        except json.JSONDecodeError as exc:
            json_error: ResponseError = ResponseError.at(
                text, exc.pos, f"not valid JSON: {exc.msg}"
            )
        except RecursionError:
            json_error = ResponseError.at(
                text, start, f"JSON value nested more than {MAX_DEPTH} levels deep"
            )
        except ValueError as exc:  # e.g. an integer of more than 4300 digits
            json_error = ResponseError.at(text, start, f"not valid JSON: {exc}")
        end_or_failure = self.balanced_end(start)
        if isinstance(end_or_failure, _Failure):
            return end_or_failure
        end = end_or_failure
        # Fallback: the standard library has no lenient JSON mode, and hand-written
        # quote/comma repair goes wrong on apostrophes inside strings. What LLMs emit
        # instead of JSON is almost always a Python literal (single quotes, trailing
        # commas, True/None), so the segment is parsed -- never evaluated -- by ``ast``
        # and only literal nodes are accepted. The bracket scan above bounds its depth.
        segment = text[start:end]
        if len(segment) > self.literal_budget:
            return _Failure(json_error, end - start)
        self.literal_budget -= len(segment)
        try:
            tree = ast.parse(segment, mode="eval")
            names: list[str] = []
            value = _from_ast(tree.body, names)
        except (SyntaxError, ValueError, RecursionError, MemoryError, _NotLiteral):
            return _Failure(json_error, end - start)
        return _Value(value, start, end, "python-literal", tuple(_literal_notes(segment, names)))

    def balanced_end(self, start: int) -> int | _Failure:
        """The end of the bracketed segment opened at ``start``: strings (either quote,
        one line long) are skipped, nesting is bounded, and the work is budgeted."""
        text = self.text
        stack: list[str] = []
        pos = start
        while True:
            self.scan_budget -= 1
            if self.scan_budget < 0:
                return self._fail(start, len(text), "the response is too irregular to search")
            m = _SCAN.search(text, pos)
            if m is None:
                return self._fail(
                    start,
                    len(text),
                    f"the {text[start]!r} opened here is never closed (was the response cut off?)",
                )
            c, i = m.group(), m.start()
            pos = i + 1
            if c in "\"'":
                s = _STRING_END[c].match(text, pos)
                if s is not None:  # else a stray apostrophe in prose: an ordinary character
                    pos = s.end()
            elif c in _CLOSER:
                stack.append(_CLOSER[c])
                if len(stack) > MAX_DEPTH:
                    return self._fail(
                        start, len(text), f"brackets nested more than {MAX_DEPTH} levels deep", i
                    )
            elif c in ")]}":
                if not stack or stack[-1] != c:
                    want = f"{stack[-1]!r}" if stack else "nothing"
                    return self._fail(start, i + 1, f"unexpected {c!r} (expected {want})", i)
                stack.pop()
                if not stack:
                    return i + 1

    def _fail(self, start: int, end: int, message: str, at: int | None = None) -> _Failure:
        return _Failure(
            ResponseError.at(self.text, start if at is None else at, message), end - start
        )

    # -- the search ----------------------------------------------------------------

    def candidates(self) -> Iterator[int]:
        """Openers inside markdown fences first (the plan is usually fenced), then all."""
        fenced = [m.span(1) for m in _FENCE.finditer(self.text)]
        seen: set[int] = set()
        for lo, hi in [*fenced, (0, len(self.text))]:
            for m in _OPENERS.finditer(self.text, lo, hi):
                if m.start() not in seen:
                    seen.add(m.start())
                    yield m.start()

    def read(self) -> ParsedResponse:
        text = self.text
        consumed: list[tuple[int, int]] = []
        tried = 0
        for start in self.candidates():
            if any(lo <= start < hi for lo, hi in consumed):
                continue
            tried += 1
            if tried > _MAX_CANDIDATES:
                break
            found = self.value_at(start)
            if isinstance(found, _Failure):
                self.failures.append(found)
                continue
            consumed.append((found.start, found.end))
            notes: list[str] = list(found.notes)
            try:
                actions = _read_plan(found.value, self.dataset, notes)
            except _PlanError as exc:
                err = ResponseError.at(text, found.start, exc.message, kind=exc.kind, step=exc.step)
                # a weak failure (some other JSON value) is reported only if nothing else is
                self.failures.append(_Failure(err, found.end - found.start if exc.strong else -1))
                continue
            end = found.end
            if isinstance(found.value, _Obj):
                end = self.join_following(end, actions, notes)
            return self.success(actions, found, end, notes)
        if self.dataset == "virtualhome":
            script = _read_script(text)
            if script is not None:
                return script
        return ParsedResponse(error=self.best_error())

    def join_following(self, end: int, actions: list[Action], notes: list[str]) -> int:
        """Objects written one after another (``{..}\\n{..}``, JSON lines) are one plan."""
        joined = 0
        skip = re.compile(r"[\s,]*")
        while True:  # ends: every round consumes at least one object of the bounded text
            pos = skip.match(self.text, end).end()  # type: ignore[union-attr]
            if not self.text.startswith("{", pos):
                break
            found = self.value_at(pos)
            if isinstance(found, _Failure) or not isinstance(found.value, _Obj):
                break
            more: list[str] = list(found.notes)
            try:
                actions.extend(_read_plan(found.value, self.dataset, more))
            except _PlanError:
                break
            notes.extend(n for n in more if n not in notes)
            end = found.end
            joined += 1
        if joined:
            notes.append(f"joined {joined + 1} consecutive JSON objects into one plan")
        return end

    def success(
        self, actions: list[Action], found: _Value, end: int, notes: list[str]
    ) -> ParsedResponse:
        text = self.text
        if any(lo <= found.start < hi for lo, hi in (m.span(1) for m in _FENCE.finditer(text))):
            notes.insert(0, "stripped markdown fence")
        before = _prose(text[: found.start])
        after = _prose(text[end:])
        if before:
            notes.append(f"ignored {len(before)} characters of text before the plan")
        if after:
            notes.append(f"ignored {len(after)} characters of text after the plan")
        if self.failures:
            notes.append(
                f"skipped {len(self.failures)} earlier bracketed text(s) that are not a plan"
            )
        return ParsedResponse(tuple(actions), None, tuple(dict.fromkeys(notes)), found.form)

    def best_error(self) -> ResponseError:
        if not self.failures:
            if not self.text.strip():
                return ResponseError("the response is empty")
            return ResponseError(
                "no JSON object or list of actions found in the response"
                + (
                    " (nor lines like '[WALK] <kitchen> (205)')"
                    if self.dataset == "virtualhome"
                    else ""
                )
            )
        best = max(self.failures, key=lambda f: f.span)  # max keeps the first of equals
        return best.error


def _prose(s: str) -> str:
    """``s`` without whitespace and fence markers: the text a note should mention."""
    return "".join(_FENCE_MARK.sub("", s).split())


# ---------------------------------------------------------------- reading the plan


_WRAPPERS = frozenset(
    {
        "output",
        "outputs",
        "actions",
        "action",
        "plan",
        "action_sequence",
        "action_commands",
        "commands",
        "response",
        "answer",
        "result",
        "steps",
        "sequence",
    }
)
_RECORD_NAME = "action"
_RECORD_ARGS = ("object", "objects", "args", "arguments", "params", "parameters")


def _describe(value: object) -> str:
    if isinstance(value, _Obj):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {_short(value)!r}"
    if value is None:
        return "null"
    return f"{type(value).__name__} {value!r}"


def _short(s: str, n: int = 40) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _key(k: object) -> str:
    return k.strip().lower() if isinstance(k, str) else ""


def _record_key(k: object) -> str:
    """``action``/``object``/... as a record member name; an all-capitals key (``OBJECT``)
    is an action name, as action names are written in capitals."""
    key = _key(k)
    if isinstance(k, str) and k.isupper():
        return ""
    return key if key == _RECORD_NAME or key in _RECORD_ARGS else ""


def _is_record(obj: _Obj) -> bool:
    """``{"action": "GRASP", "object": "cup_1"}`` rather than ``{"GRASP": [...]}``."""
    return any(_record_key(k) for k, _ in obj.pairs)


def _unwrap(value: object, notes: list[str]) -> object:
    """``{"output": plan}`` (possibly beside string members such as a ``reasoning``) is
    the plan; up to three levels."""
    for _ in range(3):
        if not isinstance(value, _Obj) or _is_record(value):
            return value
        inner = [(k, v) for k, v in value.pairs if _key(k) in _WRAPPERS and _wraps(k, v)]
        rest = [(k, v) for k, v in value.pairs if _key(k) not in _WRAPPERS]
        # other members may only be remarks (``"reasoning": "..."``), never argument lists
        if len(inner) != 1 or any(isinstance(v, _Obj | list) for _, v in rest):
            return value
        others = [k for k, _ in rest]
        name, value = inner[0]
        note = f"read the {name!r} member of the outer object"
        if others:
            note += f" (ignored {', '.join(repr(o) for o in others[:5])})"
        notes.append(note)
    return value


def _wraps(key: object, value: object) -> bool:
    """A wrapper member holds an object or a list; an all-capitals key holding a list of
    no objects (``{"PLAN": ["a", 1]}``) is an action with its arguments."""
    if isinstance(value, _Obj):
        return True
    if not isinstance(value, list):
        return False
    return not (isinstance(key, str) and key.isupper()) or any(isinstance(x, _Obj) for x in value)


def _steps(value: object, notes: list[str]) -> list[tuple[object, object]]:
    """(name, raw arguments) per step, in written order."""
    value = _unwrap(value, notes)
    if isinstance(value, _Obj):
        if _is_record(value):
            notes.append("read a single action object")
            return [_record(value, 0, notes)]
        return list(value.pairs)
    if not isinstance(value, list):
        raise _PlanError(
            f"expected a JSON object or list of actions, got {_describe(value)}", strong=False
        )
    if not value:
        return []
    if not any(isinstance(item, _Obj) for item in value):
        raise _PlanError(
            f"expected a list of action objects, got a list of {_describe(value[0])}", strong=False
        )
    out: list[tuple[object, object]] = []
    for i, item in enumerate(value):
        if not isinstance(item, _Obj):
            raise _PlanError(
                f"item {i + 1} of the plan is {_describe(item)}, not an action object",
                step=len(out),
            )
        if _is_record(item):
            out.append(_record(item, len(out), notes))
        else:
            out.extend(item.pairs)
    return out


def _record(obj: _Obj, step: int, notes: list[str]) -> tuple[object, object]:
    """``{"action": name, "object": args}`` (extra members ignored, with a note)."""
    name: object = None
    args: object = None
    has_args = False
    extra: list[str] = []
    for k, v in obj.pairs:
        key = _record_key(k)
        if key == _RECORD_NAME and name is None:
            name = v
        elif key in _RECORD_ARGS and not has_args:
            args, has_args = v, True
        else:
            extra.append(str(k))
    if extra:
        notes.append(f"step {step + 1}: ignored member(s) {', '.join(map(repr, extra[:5]))}")
    if name is None:
        raise _PlanError(f"step {step + 1}: the action object has no 'action' member", step=step)
    if not has_args:
        notes.append(f"step {step + 1}: no 'object' member, read as no arguments")
    return name, args


def _read_plan(value: object, dataset: Dataset, notes: list[str]) -> list[Action]:
    if (
        dataset == "virtualhome"
        and isinstance(value, list)
        and value
        and all(isinstance(v, str) and _SCRIPT_LINE.fullmatch(v) for v in value)
    ):
        notes.append("read a list of script lines")
        return [_script_action(str(v), i, notes) for i, v in enumerate(value)]
    steps = _steps(value, notes)
    if not steps:
        raise _PlanError("no actions: the plan is empty")
    actions: list[Action] = []
    for i, (raw_name, raw_args) in enumerate(steps):
        name = _action_name(raw_name, i, notes)
        if dataset == "virtualhome":
            args = _vh_args(name, raw_args, i, notes)
        else:
            args = _behavior_args(name, raw_args, i, notes)
        actions.append(Action(name, args))
    return actions


def _action_name(raw: object, step: int, notes: list[str]) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise _PlanError(
            f"step {step + 1}: the action name must be a non-empty string, got {_describe(raw)}",
            step=step,
        )
    name = raw.strip()
    if len(name) > 2 and name[0] == "[" and name[-1] == "]":
        name = name[1:-1].strip()
        notes.append(f"step {step + 1}: removed brackets around action name {name!r}")
    return name


_ID = re.compile(r"\s*(\d+)\s*")
_EMBEDDED = (
    re.compile(r"<?\s*([^<>()]*?[^<>()\s])\s*>?\s*\(\s*(\d+)\s*\)"),  # <soap> (1002)
    re.compile(r"(.*[^.\s])\.(\d+)"),  # soap.1002
    re.compile(r"(.*[^_\s])_(\d+)"),  # soap_1002
)


def _is_id(item: object) -> str | None:
    if isinstance(item, int) and not isinstance(item, bool) and item >= 0:
        return str(item)
    if isinstance(item, str):
        if item.isdecimal():  # what ``\d+`` matches, without the regex
            return item
        m = _ID.fullmatch(item)
        if m:
            return m.group(1)
    return None


def _vh_name(item: str) -> str:
    name = item.strip()
    if len(name) > 2 and name[0] == "<" and name[-1] == ">":
        name = name[1:-1].strip()
    return name


def _vh_args(action: str, raw: object, step: int, notes: list[str]) -> tuple[str, ...]:
    """VirtualHome arguments: object name/id pairs, ``name.id`` objects.

    Each name followed by an id is one object; a name with an id written into it
    (``<soap> (1002)``, ``soap.1002``, ``soap_1002``) is one object; a name without an
    id is kept as written (the simulator reports it as an unknown object). An id with
    no name before it means the list cannot be read as name/id pairs: ARGUMENT_COUNT.
    """
    where = f"step {step + 1} ({action})"
    items: list[object]
    if raw is None:
        notes.append(f"{where}: null arguments read as none")
        items = []
    elif isinstance(raw, str):
        items = list[object](raw.split(",")) if raw.strip() else []
        notes.append(f"{where}: arguments written as a string")
    elif isinstance(raw, list):
        items = list(raw)
    elif _is_id(raw) is not None:
        items = [raw]
    else:
        raise _PlanError(f"{where}: arguments must be a list, got {_describe(raw)}", step=step)
    out: list[str] = []
    i = 0
    while i < len(items):
        item = items[i]
        ident = _is_id(item)
        if ident is not None:
            raise _PlanError(
                f"{where}: the argument list {_render_items(items)} cannot be read as "
                f"object name/id pairs: id {ident} (item {i + 1}) has no object name before it",
                kind=ErrorKind.ARGUMENT_COUNT,
                step=step,
            )
        if not isinstance(item, str):
            raise _PlanError(
                f"{where}: argument {i + 1} must be an object name or id, got {_describe(item)}",
                step=step,
            )
        name = _vh_name(item)
        if not name:
            notes.append(f"{where}: dropped an empty argument")
            i += 1
            continue
        nxt = _is_id(items[i + 1]) if i + 1 < len(items) else None
        if nxt is not None:
            out.append(f"{name}.{nxt}")
            i += 2
            continue
        for pattern in _EMBEDDED:
            m = pattern.fullmatch(name)
            if m:
                out.append(f"{_vh_name(m.group(1))}.{m.group(2)}")
                break
        else:
            out.append(name)
            notes.append(f"{where}: object {_short(name)!r} has no id")
        i += 1
    return tuple(out)


def _render_items(items: list[object]) -> str:
    return _short(json.dumps(items, default=str), 80)


def _behavior_args(action: str, raw: object, step: int, notes: list[str]) -> tuple[str, ...]:
    """BEHAVIOR arguments: ``"obj"`` or ``"obj1,obj2"`` (names kept as written)."""
    where = f"step {step + 1} ({action})"
    parts: list[str]
    if raw is None:
        return ()
    if isinstance(raw, str):
        parts = raw.split(",")
    elif isinstance(raw, list) and all(isinstance(p, str) for p in raw):
        parts = [str(p) for p in raw]
        notes.append(f"{where}: objects written as a list")
    else:
        raise _PlanError(
            f'{where}: \'object\' must be a string such as "apple_0" or "apple_0,table_1", '
            f"got {_describe(raw)}",
            step=step,
        )
    out = tuple(p.strip() for p in parts if p.strip())
    if len(out) != len(parts) and raw != "":
        notes.append(f"{where}: dropped empty object name(s)")
    return out


# ------------------------------------------------------------------- script lines


_SCRIPT_LINE = re.compile(
    r"\s*(?:(?:\d+\s*[.):]|[-*•])\s*)?\[\s*([A-Za-z][A-Za-z0-9_ ]*?)\s*\]\s*(.*?)\s*"
)
_SCRIPT_ARG = re.compile(r"\s*,?\s*<\s*([^<>]*?)\s*>(?:\s*\(\s*(\d+)\s*\))?")


def _script_action(line: str, step: int, notes: list[str] | None = None) -> Action:
    m = _SCRIPT_LINE.fullmatch(line)
    if m is None:  # pragma: no cover - callers match first
        raise _PlanError(f"step {step + 1}: not an action line", step=step)
    name, rest = m.group(1), m.group(2)
    args: list[str] = []
    pos = 0
    while pos < len(rest):
        a = _SCRIPT_ARG.match(rest, pos)
        if a is None or a.end() == pos:
            raise _PlanError(
                f"step {step + 1} ({name}): cannot read {_short(rest[pos:])!r} as "
                "arguments '<name> (id)'",
                step=step,
            )
        if not a.group(1):
            raise _PlanError(f"step {step + 1} ({name}): empty object name", step=step)
        if a.group(2) is None:
            args.append(a.group(1))
            if notes is not None:
                notes.append(f"step {step + 1} ({name}): object {a.group(1)!r} has no id")
        else:
            args.append(f"{a.group(1)}.{a.group(2)}")
        pos = a.end()
    return Action(name, tuple(args))


def _read_script(text: str) -> ParsedResponse | None:
    """VirtualHome script lines ``[WALK] <dining_room> (201)``, one per line; other lines
    (prose, fences) are skipped with a note. None when there is no such line."""
    actions: list[Action] = []
    notes: list[str] = []
    skipped = 0
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if _SCRIPT_LINE.fullmatch(body) and body.strip().lower() not in (
            "[true]",
            "[false]",
            "[null]",
        ):
            try:
                actions.append(_script_action(body, len(actions), notes))
            except _PlanError as exc:
                err = ResponseError.at(text, offset, exc.message, kind=exc.kind, step=exc.step)
                return ParsedResponse(error=err)
        elif body.strip() and not body.strip().startswith("```"):
            skipped += 1
        offset += len(line)
    if not actions:
        return None
    if skipped:
        notes.append(f"ignored {skipped} line(s) that are not actions")
    return ParsedResponse(tuple(actions), None, tuple(dict.fromkeys(notes)), "script")


# ------------------------------------------------------------------------ the API


def parse_actions(text: str, dataset: Dataset) -> ParsedResponse:
    """Read an LLM action-sequencing response as a plan.

    Accepts what LLMs emit: a JSON object with repeated action keys in order
    (VirtualHome), a list of single-key objects or of ``{"action", "object"}`` records
    (BEHAVIOR), markdown fences, prose around the JSON, single quotes, trailing commas,
    Python constants, ``{"output": ...}`` wrappers and, for VirtualHome, script lines.
    Never raises on bad text: the result has actions or a typed error.
    """
    if dataset not in ("virtualhome", "behavior"):
        raise ValueError(f"dataset must be 'virtualhome' or 'behavior', not {dataset!r}")
    if not isinstance(text, str):
        raise TypeError(f"parse_actions() takes a str, not {type(text).__name__}")
    if len(text) > MAX_RESPONSE_CHARS:
        return ParsedResponse(
            error=ResponseError(
                f"the response is {len(text)} characters long, over the limit of "
                f"{MAX_RESPONSE_CHARS}"
            )
        )
    return _Reader(text, dataset).read()


# ------------------------------------------------------------------ rendering plans


def _vh_pair(arg: str) -> list[str]:
    name, sep, ident = arg.rpartition(".")
    return [name, ident] if sep and ident.isdigit() else [arg]


def render_virtualhome(actions: Sequence[Action], *, indent: int | None = None) -> str:
    """The EAI VirtualHome response format: one JSON object, repeated keys in order,
    ``soap.1002`` written as ``"soap", "1002"``; the inverse of :func:`parse_actions`."""
    sep = "\n" + " " * indent if indent else ""
    members = [
        f"{json.dumps(a.name)}: {json.dumps([p for arg in a.args for p in _vh_pair(arg)])}"
        for a in actions
    ]
    if not indent:
        return "{" + ", ".join(members) + "}"
    return "{" + sep + ("," + sep).join(members) + "\n}"


def render_virtualhome_script(actions: Sequence[Action]) -> str:
    """VirtualHome script lines: ``[PUTBACK] <soap> (1002) <sink> (5)``."""
    lines = []
    for a in actions:
        parts = [f"[{a.name}]"]
        for arg in a.args:
            pair = _vh_pair(arg)
            parts.append(f"<{pair[0]}> ({pair[1]})" if len(pair) == 2 else f"<{arg}>")
        lines.append(" ".join(parts))
    return "\n".join(lines)


def render_behavior(actions: Sequence[Action], *, indent: int | None = None) -> str:
    """The EAI BEHAVIOR response format: a list of ``{"action", "object"}`` records."""
    return json.dumps(
        [{"action": a.name, "object": ",".join(a.args)} for a in actions], indent=indent
    )


# ------------------------------------------------------------------ responses files


@dataclass(frozen=True, slots=True)
class ResponseEntry:
    """One entry of a responses file: ``index`` counts entries (0-based), ``line`` is the
    1-based line of a JSON-lines entry. A malformed entry has ``error`` and no text."""

    index: int
    identifier: str | None
    text: str | None
    error: ResponseError | None = None
    line: int | None = None

    def parse(self, dataset: Dataset) -> ParsedResponse:
        """The entry's response read as a plan (its own error if the entry is malformed)."""
        if self.error is not None or self.text is None:
            return ParsedResponse(error=self.error or ResponseError("no llm_output"))
        return parse_actions(self.text, dataset)


@dataclass(frozen=True, slots=True)
class ResponsesFile:
    """A responses file read entry by entry. ``entries`` holds, in file order, the first
    entry of each identifier and every malformed entry; later entries with an identifier
    already seen are in ``duplicates`` (each also described in ``notes``)."""

    entries: tuple[ResponseEntry, ...]
    duplicates: tuple[ResponseEntry, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def errors(self) -> tuple[ResponseEntry, ...]:
        return tuple(e for e in self.entries if e.error is not None)

    def by_identifier(self) -> dict[str, ResponseEntry]:
        return {e.identifier: e for e in self.entries if e.identifier is not None}


def read_responses(path: str | Path) -> ResponsesFile:
    """Read a responses file: the EAI format (a JSON list of ``{"identifier": ...,
    "llm_output": ...}``) or JSON lines of the same objects. Raises
    :class:`ResponsesFileError` only when the file as a whole cannot be read."""
    p = Path(path)
    try:
        text = boundary.read_text(p, max_bytes=MAX_RESPONSES_FILE_BYTES)
    except boundary.InputError as exc:
        raise ResponsesFileError(str(exc)) from exc
    return read_responses_text(text, name=str(p))


def read_responses_text(text: str, *, name: str = "<responses>") -> ResponsesFile:
    """:func:`read_responses` on text already in memory."""
    body = text.lstrip("\ufeff").strip()
    if not body:
        raise ResponsesFileError(f"{name}: the file is empty")
    raw: list[tuple[int | None, object | ResponseError]] = []
    if body.startswith("["):
        try:
            data = boundary.loads(body, source=name, allow_surrogates=True)
        except boundary.InputError as exc:
            raise ResponsesFileError(f"not a JSON list of responses: {exc}") from exc
        if not isinstance(data, list):  # pragma: no cover - starts with '['
            raise ResponsesFileError(f"{name}: not a JSON list")
        raw = [(None, item) for item in data]
    elif body.startswith("{"):
        try:
            lines = list(boundary.json_lines(text, source=name))
        except boundary.InputError as exc:
            raise ResponsesFileError(str(exc)) from exc
        for ln in lines:
            if ln.error is None:
                raw.append((ln.line, ln.value))
                continue
            bad = f"line {ln.line}: not a JSON object ({ln.error.message}; {ln.error.where})"
            raw.append((ln.line, ResponseError(bad, line=ln.line)))
    else:
        raise ResponsesFileError(
            f"{name}: expected a JSON list of responses or JSON lines, starting with "
            f"{_short(body, 20)!r}"
        )
    entries: list[ResponseEntry] = []
    duplicates: list[ResponseEntry] = []
    notes: list[str] = []
    first: dict[str, int] = {}
    for index, (line_no, item) in enumerate(raw):
        entry = _entry(index, line_no, item)
        ident = entry.identifier
        if ident is not None and ident in first:
            duplicates.append(entry)
            where = f"line {line_no}" if line_no else f"entry {index + 1}"
            kept = first[ident]
            notes.append(
                f"identifier {ident!r} repeated at {where}; kept the first (entry {kept + 1})"
            )
            continue
        if ident is not None:
            first[ident] = index
        entries.append(entry)
    return ResponsesFile(tuple(entries), tuple(duplicates), tuple(notes))


def _entry(index: int, lineno: int | None, item: object) -> ResponseEntry:
    where = f"line {lineno}" if lineno else f"entry {index + 1}"
    if isinstance(item, ResponseError):
        return ResponseEntry(index, None, None, item, lineno)
    if not isinstance(item, dict):
        err = ResponseError(f"{where}: expected an object, got {type(item).__name__}", line=lineno)
        return ResponseEntry(index, None, None, err, lineno)
    ident_raw = item.get("identifier")
    ident = (
        str(ident_raw)
        if isinstance(ident_raw, str | int) and not isinstance(ident_raw, bool)
        else None
    )
    output = item.get("llm_output")
    problem = None
    if ident is not None and boundary.surrogate_at(ident) is not None:
        ident, problem = None, f"{where}: 'identifier' holds a lone surrogate (a broken \\u escape)"
    elif ident is None:
        problem = f"{where}: no string 'identifier'"
    elif not isinstance(output, str):
        problem = f"{where} ({ident}): 'llm_output' must be a string, got " + (
            "nothing" if output is None else type(output).__name__
        )
    elif boundary.surrogate_at(output) is not None:
        problem = f"{where} ({ident}): 'llm_output' holds a lone surrogate (a broken \\u escape)"
    if problem is not None:
        return ResponseEntry(index, ident, None, ResponseError(problem, line=lineno), lineno)
    assert isinstance(output, str)
    return ResponseEntry(index, ident, output, None, lineno)
