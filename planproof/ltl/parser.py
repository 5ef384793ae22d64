"""Text → :mod:`planproof.ltl.ast`, with typed errors and bounded cost.

The grammar (``ltl.lark``) is LALR(1), and the AST is built by callbacks during the
parse itself, so neither parsing nor tree building recurses: a 10 000-deep input is
rejected by the depth bound with a :class:`LTLLimitError`, never a ``RecursionError``.
Bound variables are resolved while parsing (a name bound by an enclosing quantifier is a
:class:`Var`, any other argument a :class:`Const`) with a scope stack: LALR reduces a
quantifier's binder before its body and the quantifier node after it.
"""

from __future__ import annotations

import threading
from functools import cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from planproof.boundary.limits import MAX_FORMULA_DEPTH, MAX_TEXT_CHARS
from planproof.ltl import ast
from planproof.ltl.errors import LTLLimitError, LTLSyntaxError, check_text_length

MAX_LENGTH = MAX_TEXT_CHARS
"""Longest text accepted, in characters."""
MAX_DEPTH = MAX_FORMULA_DEPTH
"""Deepest syntax tree accepted (an atom has depth 1)."""

_TERMINAL_NAMES = {
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "DOT": "'.'",
    "MINUS": "'-'",
    "NAME": "a name",
    "NAME_ID": "a name with id (cup.1)",
    "INT": "a number",
    "_THEN": "'then'",
    "_IMPLIES": "'=>'",
    "_OR": "'or'",
    "_AND": "'and'",
    "_NOT": "'not'",
    "_FORALL": "'forall'",
    "_EXISTS": "'exists'",
    "_FORN": "'forn'",
    "_FORPAIRS": "'forpairs'",
    "_FORNPAIRS": "'fornpairs'",
    "_TRUE": "'true'",
    "_FALSE": "'false'",
    "$END": "end of input",
}


class _Builder(Transformer[Token, ast.Formula]):
    """Builds AST nodes on each LALR reduction; holds per-parse state (scope, depths)."""

    def __init__(self) -> None:
        super().__init__()
        self.reset(MAX_DEPTH)

    def reset(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.scope: list[str] = []
        self._depth: dict[int, int] = {}
        self._keep: list[object] = []

    def _node(self, node: ast.Formula, *subs: ast.Formula) -> ast.Formula:
        d = 1 + max((self._depth.get(id(s), 1) for s in subs), default=0)
        if d > self.max_depth:
            raise _TooDeep(d)
        self._depth[id(node)] = d
        self._keep.append(node)  # ids stay unique while the parse runs
        return node

    # leaves
    def term(self, items: list[Token]) -> ast.Term:
        name = str(items[0])
        return ast.Var(name) if name in self.scope else ast.Const(name)

    def atom(self, items: list[Any]) -> ast.Formula:
        args = tuple(a for a in items[1:] if a is not None)
        return self._node(ast.Atom(str(items[0]), args))

    def true(self, _: list[Any]) -> ast.Formula:
        return self._node(ast.TRUE)

    def false(self, _: list[Any]) -> ast.Formula:
        return self._node(ast.FALSE)

    def count(self, items: list[Token]) -> int:
        return int(items[0])

    def binder(self, items: list[Token]) -> ast.Binder:
        b = ast.Binder(str(items[0]), str(items[1]) if len(items) > 1 else None)
        self.scope.append(b.var)
        return b

    # connectives
    def not_(self, items: list[ast.Formula]) -> ast.Formula:
        return self._node(ast.Not(items[0]), items[0])

    def and_(self, items: list[ast.Formula]) -> ast.Formula:
        return self._node(ast.And(tuple(items)), *items)

    def or_(self, items: list[ast.Formula]) -> ast.Formula:
        return self._node(ast.Or(tuple(items)), *items)

    def then_(self, items: list[ast.Formula]) -> ast.Formula:
        return self._node(ast.Then(tuple(items)), *items)

    def implies(self, items: list[ast.Formula]) -> ast.Formula:
        return self._node(ast.Implies(items[0], items[1]), *items)

    # quantifiers: pop the binders pushed when they were reduced
    def _unbind(self, n: int) -> None:
        del self.scope[-n:]

    def forall(self, items: list[Any]) -> ast.Formula:
        self._unbind(1)
        return self._node(ast.Forall(items[0], items[1]), items[1])

    def exists(self, items: list[Any]) -> ast.Formula:
        self._unbind(1)
        return self._node(ast.Exists(items[0], items[1]), items[1])

    def forn(self, items: list[Any]) -> ast.Formula:
        self._unbind(1)
        return self._node(ast.ForN(items[0], items[1], items[2]), items[2])

    def forpairs(self, items: list[Any]) -> ast.Formula:
        self._unbind(2)
        return self._node(ast.ForPairs(items[0], items[1], items[2]), items[2])

    def fornpairs(self, items: list[Any]) -> ast.Formula:
        self._unbind(2)
        return self._node(ast.ForNPairs(items[0], items[1], items[2], items[3]), items[3])


class _TooDeep(Exception):
    def __init__(self, depth: int) -> None:
        self.depth = depth


_lock = threading.Lock()
_builder = _Builder()


@cache
def _get_parser() -> Lark:
    grammar = resources.files("planproof.ltl").joinpath("ltl.lark").read_text()
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        transformer=_builder,
        maybe_placeholders=True,
    )


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _paren_depth_violation(text: str, max_depth: int) -> int | None:
    """Offset where parentheses nest deeper than ``max_depth`` (cheap pre-check)."""
    level = 0
    for i, ch in enumerate(text):
        if ch == "(":
            level += 1
            if level > max_depth:
                return i
        elif ch == ")":
            level -= 1
    return None


def _expected(names: set[str] | frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted({_TERMINAL_NAMES.get(n, n) for n in names}))


def parse(text: str, *, max_depth: int = MAX_DEPTH, max_length: int = MAX_LENGTH) -> ast.Formula:
    """Parse a goal formula. Raises :class:`LTLSyntaxError` (or its subclass
    :class:`LTLLimitError`) with line, column and the expected tokens; never anything else
    for a ``str`` input."""
    check_text_length(text, caller="parse", what="formula text", max_length=max_length)
    if not text.strip():
        raise LTLSyntaxError(
            "empty formula", line=1, column=1, expected=("a formula",), kind="empty", text=text
        )
    bad = _paren_depth_violation(text, max_depth)
    if bad is not None:
        line, col = _position(text, bad)
        raise LTLLimitError(
            f"parentheses nest deeper than {max_depth}",
            line=line,
            column=col,
            kind="too-deep",
            text=text,
        )
    with _lock:
        parser = _get_parser()
        _builder.reset(max_depth)
        try:
            result: ast.Formula = parser.parse(text)  # type: ignore[assignment]
            return result
        except _TooDeep as exc:
            raise LTLLimitError(
                f"formula nests deeper than {max_depth} (reached {exc.depth})",
                line=1,
                column=1,
                kind="too-deep",
                text=text,
            ) from None
        except UnexpectedCharacters as exc:
            raise LTLSyntaxError(
                f"unexpected character {text[exc.pos_in_stream or 0]!r}",
                line=exc.line,
                column=exc.column,
                expected=_expected(exc.allowed or set()),
                kind="unexpected-character",
                text=text,
            ) from None
        except UnexpectedToken as exc:
            tok = exc.token
            if tok.type == "$END":
                line, col = _position(text, len(text))
                raise LTLSyntaxError(
                    "unexpected end of formula",
                    line=line,
                    column=col,
                    expected=_expected(exc.expected),
                    kind="unexpected-end",
                    text=text,
                ) from None
            raise LTLSyntaxError(
                f"unexpected {str(tok)!r}",
                line=tok.line or 1,
                column=tok.column or 1,
                expected=_expected(exc.expected),
                kind="unexpected-token",
                text=text,
            ) from None
        except UnexpectedEOF as exc:
            line, col = _position(text, len(text))
            raise LTLSyntaxError(
                "unexpected end of formula",
                line=line,
                column=col,
                expected=_expected(set(exc.expected)),
                kind="unexpected-end",
                text=text,
            ) from None
        except (UnexpectedInput, LarkError) as exc:  # pragma: no cover - defensive
            raise LTLSyntaxError(str(exc), line=1, column=1, text=text) from None
        finally:
            _builder.reset(max_depth)
