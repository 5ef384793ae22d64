"""PDDL text → positioned s-expressions, by one regular-expression scan.

The BDDL reader (``planproof.ltl.bddl.reader``) parses with lark, which costs about
50 µs per token: 80 % of the time of checking the 3,609 PlanBench core plans went to
re-reading problems. PDDL's surface syntax is only parentheses, symbols and ``;``
comments, so one scan with a stack builds the same :class:`SAtom` / :class:`SList` trees
(same positions, same error kinds: ``too-long``, ``too-deep``, ``unmatched-paren``,
``unclosed-paren``) about 20 times faster. Nesting is bounded while scanning, so every
later recursion stays shallow.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

from planproof.boundary.limits import MAX_PDDL_CHARS
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList
from planproof.ltl.errors import check_text_length
from planproof.pddl.errors import PDDLSyntaxError

MAX_LENGTH = MAX_PDDL_CHARS
"""Longest text accepted, in characters (the boundary's bound for PDDL files)."""
MAX_DEPTH = 100
"""Deepest parenthesis nesting accepted."""

_TOKEN = re.compile(r"[()]|;[^\n]*|[^\s();]+")

_ASCII_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
NAME_RULE = (
    "a letter (any script), '_' or a symbol such as an emoji, then letters, digits, marks, "
    "symbols, '_', '-' or '.'"
)
"""PDDL names as planproof reads them, in domains, problems and plans alike (one rule for
every reader): PDDL's ``letter {letter | digit | - | _}``, with *letter* and *digit* in any
script (``prendré``, ``拿起``) and symbols outside ASCII (``🤖pick``). ASCII punctuation
other than ``-_.`` (``ch@r``, ``a!``) and control or format characters (a right-to-left
override) are never part of a name."""


def _name_char(c: str, first: bool) -> bool:
    cat = unicodedata.category(c)
    if cat[0] == "L" or c == "_" or (cat[0] == "S" and c > "\x7f"):
        return True
    return not first and (cat[0] in "NM" or c in "-.")


def is_name(token: str) -> bool:
    """Whether ``token`` is a name under :data:`NAME_RULE`."""
    if token.isascii():
        return _ASCII_NAME.fullmatch(token) is not None
    return bool(token) and _name_char(token[0], True) and all(_name_char(c, False) for c in token)


class _Lines:
    def __init__(self, text: str) -> None:
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def position(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1


def scan(
    text: str, *, max_depth: int = MAX_DEPTH, max_length: int = MAX_LENGTH
) -> tuple[SExpr, ...]:
    """Every top-level s-expression of ``text``; raises :class:`PDDLSyntaxError` with the
    line and column of the first problem."""
    check_text_length(
        text, caller="scan", what="PDDL text", max_length=max_length, error=PDDLSyntaxError
    )
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    li, last = 0, len(starts) - 1
    top: list[SExpr] = []
    items = top
    stack: list[tuple[list[SExpr], int, int, int]] = []  # outer items, offset, line, column
    for m in _TOKEN.finditer(text):
        tok, at = m.group(), m.start()
        while li < last and starts[li + 1] <= at:  # tokens come in order: no search
            li += 1
        line, col = li + 1, at - starts[li] + 1
        if tok == "(":
            stack.append((items, at, line, col))
            if len(stack) > max_depth:
                raise PDDLSyntaxError(
                    f"parentheses nest deeper than {max_depth}",
                    line=line, column=col, kind="too-deep", text=text,
                )  # fmt: skip
            items = []
        elif tok == ")":
            if not stack:
                raise PDDLSyntaxError(
                    "unmatched ')'", line=line, column=col, expected=("'('", "a symbol"),
                    kind="unmatched-paren", text=text,
                )  # fmt: skip
            outer, start, sline, scol = stack.pop()
            outer.append(SList(tuple(items), sline, scol, start, m.end()))
            items = outer
        elif tok[0] != ";":
            items.append(SAtom(tok, line, col))
    if stack:
        _, _, line, col = stack[-1]
        raise PDDLSyntaxError(
            "'(' is never closed", line=line, column=col, expected=("')'",),
            kind="unclosed-paren", text=text,
        )  # fmt: skip
    return tuple(top)


def scan_one(text: str, *, max_length: int = MAX_LENGTH) -> SExpr:
    """Exactly one s-expression."""
    items = scan(text, max_length=max_length)
    if len(items) != 1:
        where = items[1] if len(items) > 1 else None
        line, col = (where.line, where.column) if where else _Lines(text).position(len(text))
        raise PDDLSyntaxError(
            f"expected one s-expression, found {len(items)}",
            line=line, column=col, kind="not-one-expression", text=text,
        )  # fmt: skip
    return items[0]
