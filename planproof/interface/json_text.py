"""Finding one JSON(-ish) value in LLM text, for readers other than the action reader.

A public face for the tolerant search of :mod:`planproof.interface.responses` (markdown
fences, prose around the value, Python literals with single quotes or trailing commas,
bounded work): the goal and subgoal readers reuse it instead of duplicating it. Objects
come back as :class:`JsonObject` (members in written order, repeated keys kept) so a
caller can tell ``{"a": 1, "a": 2}`` from ``{"a": 2}``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from planproof.interface.errors import ResponseError
from planproof.interface.responses import MAX_RESPONSE_CHARS, _Obj, _Reader, _Value

__all__ = ["FoundJson", "JsonObject", "find_json", "plain"]


@dataclass(frozen=True, slots=True)
class JsonObject:
    """A JSON object with its members in written order (repeated keys kept)."""

    pairs: tuple[tuple[object, object], ...]

    def get(self, key: str) -> object | None:
        """The first member whose key equals ``key`` ignoring case, spaces, ``_`` and ``-``."""
        want = _norm_key(key)
        for k, v in self.pairs:
            if isinstance(k, str) and _norm_key(k) == want:
                return v
        return None

    def names(self) -> tuple[str, ...]:
        return tuple(str(k) for k, _ in self.pairs)


def _norm_key(k: str) -> str:
    return "".join(c for c in k.lower() if c.isalnum())


@dataclass(frozen=True, slots=True)
class FoundJson:
    """A value found in a response, with the repairs made to read it."""

    value: object
    notes: tuple[str, ...]
    form: str


def plain(value: object) -> object:
    """``value`` with every internal object turned into :class:`JsonObject`."""
    if isinstance(value, _Obj):
        return JsonObject(tuple((k, plain(v)) for k, v in value.pairs))
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _values(reader: _Reader) -> Iterator[_Value]:
    consumed: list[tuple[int, int]] = []
    for tried, start in enumerate(reader.candidates()):
        if tried >= 64:
            return
        if any(lo <= start < hi for lo, hi in consumed):
            continue
        found = reader.value_at(start)
        if isinstance(found, _Value):
            consumed.append((found.start, found.end))
            yield found
        else:
            reader.failures.append(found)


def find_json(text: str, accept: Callable[[object], bool]) -> FoundJson | ResponseError:
    """The first JSON or Python-literal value in ``text`` that ``accept`` takes (given
    its :func:`plain` form); a typed error if none is. Never raises on bad text."""
    if len(text) > MAX_RESPONSE_CHARS:
        return ResponseError(
            f"the response is {len(text)} characters long, over the limit of {MAX_RESPONSE_CHARS}"
        )
    reader = _Reader(text, "virtualhome")
    rejected = 0
    for found in _values(reader):
        value = plain(found.value)
        if accept(value):
            notes = list(found.notes)
            if text[: found.start].strip().strip("`").strip():
                notes.append("ignored text before the JSON value")
            if text[found.end :].strip().strip("`").strip():
                notes.append("ignored text after the JSON value")
            return FoundJson(value, tuple(dict.fromkeys(notes)), found.form)
        rejected += 1
    if rejected:
        return ResponseError(f"found {rejected} JSON value(s), none of the expected shape")
    if reader.failures:
        return max(reader.failures, key=lambda f: f.span).error
    if not text.strip():
        return ResponseError("the response is empty")
    return ResponseError("no JSON value found in the response")
