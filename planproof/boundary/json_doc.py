"""Text to JSON values: the parsing half of the input boundary.

``json.loads`` recurses once per nesting level and raises ``RecursionError`` somewhere
near 1,000 levels; a document's nesting is therefore measured first, without recursion
and at C speed, and anything deeper than :data:`MAX_JSON_DEPTH` is refused with the
place where it gets too deep. Decoded strings that hold lone surrogates (``"\\ud800"``
escapes) are refused too, so no later write to UTF-8 fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from planproof.boundary.errors import InputError
from planproof.boundary.limits import MAX_FILE_BYTES, MAX_JSON_DEPTH, MAX_JSONL_LINES
from planproof.boundary.text import line_column, read_text, surrogate_at

__all__ = [
    "JsonLine",
    "check_depth",
    "json_documents",
    "json_lines",
    "loads",
    "read_json",
    "surrogate_path",
]

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_OPEN = frozenset("[{")


def _max_depth(text: str) -> int:
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    return max(accumulate(1 if c in _OPEN else -1 for c in brackets))


def check_depth(
    text: str, *, source: str, max_depth: int = MAX_JSON_DEPTH, where: str | None = None
) -> None:
    """Refuse JSON text nested deeper than ``max_depth`` (arrays and objects)."""
    if _max_depth(text) <= max_depth:
        return
    depth = 0
    for m in _TOKEN.finditer(text):
        c = m.group()
        if c in _OPEN:
            depth += 1
            if depth > max_depth:
                raise InputError(
                    f"JSON nested more than {max_depth} levels deep",
                    source=source,
                    kind="too-deep",
                    where=_place(where, line_column(text, m.start())),
                    hint="flatten the document (limits are listed in docs/limits.md)",
                )
        elif c in "]}":
            depth -= 1


def _place(prefix: str | None, place: str) -> str:
    return f"{prefix}, {place}" if prefix else place


def surrogate_path(value: object) -> str | None:
    """The JSON path (``$[2].llm_output``) of the first string or key in ``value`` that
    holds a lone surrogate, or None. Iterative: no recursion on deep values."""
    stack: list[tuple[str, object]] = [("$", value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, str):
            if surrogate_at(v) is not None:
                return path
        elif isinstance(v, dict):
            for k, item in reversed(list(v.items())):
                if surrogate_at(k) is not None:
                    return path
                stack.append((f"{path}.{k}", item))
        elif isinstance(v, list):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(v))))
    return None


def loads(
    text: str,
    *,
    source: str,
    max_depth: int = MAX_JSON_DEPTH,
    where: str | None = None,
    allow_surrogates: bool = False,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> object:
    """One JSON value from untrusted text, or a typed error saying where it is bad.
    ``where`` prefixes the place (e.g. ``line 7`` of a JSON Lines file)."""

    check_depth(text, source=source, max_depth=max_depth, where=where)
    try:
        value = json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON: {exc.msg}",
            source=source,
            kind="not-json",
            where=_place(where, f"line {exc.lineno}, column {exc.colno}"),
            hint="fix the JSON syntax",
        ) from None
    except (ValueError, RecursionError) as exc:  # e.g. a number of more than 4,300 digits
        raise InputError(
            f"not JSON: {exc}",
            source=source,
            kind="not-json",
            where=where,
            hint="fix the JSON",
        ) from None
    if not allow_surrogates and _SURROGATE_ESCAPE.search(text):
        path = surrogate_path(value)
        if path is not None:
            raise InputError(
                "a string holds a lone surrogate (an unpaired \\ud800-\\udfff escape)",
                source=source,
                kind="surrogate",
                where=_place(where, path),
                hint="remove the escape or write the whole character",
            )
    return value


def read_json(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES) -> object:
    """The JSON value in a UTF-8 file (bounded size and depth; typed errors)."""
    return loads(read_text(path, max_bytes=max_bytes), source=str(path))


@dataclass(frozen=True, slots=True)
class JsonLine:
    """One non-blank line of a JSON Lines text: its value, or why it could not be read."""

    line: int
    value: object = None
    error: InputError | None = None


def json_lines(text: str, *, source: str, max_lines: int = MAX_JSONL_LINES) -> Iterator[JsonLine]:
    """The non-blank lines of a JSON Lines text, each read on its own so one bad line
    does not lose the others; more than ``max_lines`` lines is a typed error up front."""
    lines = text.splitlines()
    if len(lines) > max_lines:
        raise InputError(
            f"{len(lines)} lines, over the limit of {max_lines}",
            source=source,
            kind="too-large",
            hint="split the file (limits are listed in docs/limits.md)",
        )
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield JsonLine(n, loads(line, source=source, where=f"line {n}"))
        except InputError as err:
            yield JsonLine(n, error=err)


def json_documents(text: str, *, source: str) -> list[object]:
    """The values of one JSON document (a list gives its items) or, when the text is not
    one JSON value but several lines, of its JSON Lines; the first bad line is a typed
    error. The reading of every "JSON, JSON list or JSON Lines" input file."""
    try:
        doc = loads(text, source=source)
    except InputError as whole:
        if whole.kind != "not-json" or sum(1 for ln in text.splitlines() if ln.strip()) < 2:
            raise
        out: list[object] = []
        for line in json_lines(text, source=source):
            if line.error is not None:
                raise line.error from None
            out.append(line.value)
        return out
    return doc if isinstance(doc, list) else [doc]
