"""The bounded reader: BDDL text → positioned s-expressions.

Length and nesting are checked by a linear scan before lark's LALR parser runs, so bad
input fails fast with an exact position and every later recursion stays shallow.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError

from planproof.ltl.bddl.errors import BDDLSyntaxError, error_at
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head
from planproof.ltl.errors import check_text_length

MAX_LENGTH = 1_000_000
"""Longest BDDL text accepted, in characters."""
MAX_DEPTH = 100
"""Deepest parenthesis nesting accepted (keeps every later recursion shallow)."""

_GRAMMAR = r"""
start: _item*
_item: group | ATOM
group: LPAR _item* RPAR
LPAR: "("
RPAR: ")"
ATOM: /[^\s();]+/
COMMENT: /;[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""


def _sx(item: Any) -> SExpr:
    if isinstance(item, Token):
        return SAtom(str(item), item.line or 1, item.column or 1)
    assert isinstance(item, SList)
    return item


class _Build(Transformer[Token, Any]):
    """Builds :class:`SList` nodes during the LALR parse (no recursion, no parse tree)."""

    def group(self, items: list[Any]) -> SList:
        lpar, rpar = items[0], items[-1]
        return SList(
            tuple(_sx(i) for i in items[1:-1]),
            lpar.line or 1,
            lpar.column or 1,
            lpar.start_pos or 0,
            rpar.end_pos or 0,
        )

    def start(self, items: list[Any]) -> tuple[SExpr, ...]:
        return tuple(_sx(i) for i in items)


_lock = threading.Lock()


@functools.cache
def _get_parser() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", lexer="contextual", transformer=_Build())


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _check_parens(text: str, max_depth: int) -> None:
    """Reject unbalanced or too deeply nested parentheses with an exact position (a
    linear scan that skips ``;`` comments), so the parser only sees well-formed input."""
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == ";":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if ch == "(":
            opened.append(i)
            if len(opened) > max_depth:
                line, col = _position(text, i)
                raise BDDLSyntaxError(
                    f"parentheses nest deeper than {max_depth}",
                    line=line,
                    column=col,
                    kind="too-deep",
                    text=text,
                )
        elif ch == ")":
            if not opened:
                line, col = _position(text, i)
                raise BDDLSyntaxError(
                    "unmatched ')'",
                    line=line,
                    column=col,
                    expected=("'('", "a symbol"),
                    kind="unmatched-paren",
                    text=text,
                )
            opened.pop()
        i += 1
    if opened:
        line, col = _position(text, opened[-1])
        raise BDDLSyntaxError(
            "'(' is never closed",
            line=line,
            column=col,
            expected=("')'",),
            kind="unclosed-paren",
            text=text,
        )


def read_sexprs(
    text: str, *, max_depth: int = MAX_DEPTH, max_length: int = MAX_LENGTH
) -> tuple[SExpr, ...]:
    """Read every top-level s-expression in ``text`` (``;`` starts a comment)."""
    check_text_length(
        text,
        caller="read_sexprs",
        what="BDDL text",
        max_length=max_length,
        error=BDDLSyntaxError,
    )
    _check_parens(text, max_depth)
    with _lock:
        try:
            result: tuple[SExpr, ...] = _get_parser().parse(text)  # type: ignore[assignment]
        except LarkError as exc:  # pragma: no cover - balanced input always parses
            raise BDDLSyntaxError(str(exc), line=1, column=1, text=text) from None
    return result


def read_sexpr(text: str, *, max_depth: int = MAX_DEPTH, max_length: int = MAX_LENGTH) -> SExpr:
    """Read exactly one s-expression."""
    items = read_sexprs(text, max_depth=max_depth, max_length=max_length)
    if len(items) != 1:
        where = items[1] if len(items) > 1 else None
        line, col = (where.line, where.column) if where else _position(text, len(text))
        raise BDDLSyntaxError(
            f"expected one s-expression, found {len(items)}",
            line=line,
            column=col,
            kind="not-one-expression",
            text=text,
        )
    return items[0]


def read_goal(goal: SExpr | str) -> tuple[SExpr, str]:
    """Accept a formula or a whole ``(:goal F)`` section, as text or s-expression;
    returns the formula and the source text errors point into (empty for an
    s-expression)."""
    text = goal if isinstance(goal, str) else ""
    e = read_sexpr(goal) if isinstance(goal, str) else goal
    if head(e) == ":goal":
        assert isinstance(e, SList)
        if len(e.items) != 2:
            raise error_at("(:goal ...) must hold one formula", e, text, "bad-goal")
        e = e.items[1]
    return e, text
