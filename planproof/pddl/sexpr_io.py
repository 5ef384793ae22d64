"""PDDL conditions and effects → planproof formulas and effects (writing them back is
:mod:`planproof.pddl.writer`).

Reading goes through the bounded s-expression reader of ``planproof.ltl.bddl`` (length
and nesting are checked before parsing), so operator text written by an LLM fails with a
positioned :class:`PDDLSyntaxError`, never with a crash or a deep recursion.
"""

from __future__ import annotations

from collections.abc import Iterable

from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Binder,
    Const,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Term,
    Var,
)
from planproof.ltl.bddl.reader import read_sexpr
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head, sexpr_to_text
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.schema import Add, Delete, Effect, ForallEffect, Param, When


def _error(message: str, at: SExpr | None, kind: str = "pddl") -> PDDLSyntaxError:
    line, col = (at.line, at.column) if at is not None else (1, 1)
    return PDDLSyntaxError(message, line=line, column=col, kind=kind)


def _as_sexpr(x: str | SExpr) -> SExpr:
    if isinstance(x, str):
        try:
            return read_sexpr(x)
        except PDDLSyntaxError:
            raise
        except Exception as exc:  # BDDLSyntaxError carries the position already
            line = getattr(exc, "line", 1)
            col = getattr(exc, "column", 1)
            raise PDDLSyntaxError(
                getattr(exc, "message", str(exc)),
                line=line,
                column=col,
                kind=getattr(exc, "kind", "pddl"),
                text=x,
            ) from None
    return x


def read_parameters(text: str | SExpr) -> tuple[Param, ...]:
    """``(?a ?b - object ?c - character ?d)`` → typed parameters (untyped means ``object``)."""
    e = _as_sexpr(text)
    if not isinstance(e, SList):
        raise _error("parameters must be a parenthesised list", e, "parameters")
    return _typed_list(e.items, e)


def _typed_list(items: Iterable[SExpr], at: SExpr) -> tuple[Param, ...]:
    out: list[Param] = []
    pending: list[str] = []
    it = iter(items)
    for item in it:
        if not isinstance(item, SAtom):
            raise _error("expected a variable", item, "parameters")
        if item.text == "-":
            typ = next(it, None)
            if not isinstance(typ, SAtom) or not pending:
                raise _error("'-' must follow variables and precede a type", item, "parameters")
            out.extend(Param(v, typ.text.lower()) for v in pending)
            pending = []
        elif item.text.startswith("?") and len(item.text) > 1:
            pending.append(item.text[1:])
        else:
            raise _error(f"expected a ?variable, got {item.text!r}", item, "parameters")
    out.extend(Param(v) for v in pending)
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise _error("a variable is declared twice", at, "parameters")
    return tuple(out)


def _term(a: SExpr, scope: frozenset[str]) -> Term:
    if not isinstance(a, SAtom):
        raise _error("expected a variable or an object name, got a list", a, "argument")
    if a.text.startswith("?"):
        if a.text[1:] not in scope:
            raise _error(f"unknown variable {a.text}", a, "unknown-variable")
        return Var(a.text[1:])
    return Const(a.text)


def _atom(e: SList, scope: frozenset[str]) -> Atom:
    pred = e.items[0]
    assert isinstance(pred, SAtom)
    return Atom(pred.text.lower(), tuple(_term(a, scope) for a in e.items[1:]))


def _binders(e: SExpr, scope: frozenset[str]) -> tuple[tuple[Binder, ...], frozenset[str]]:
    if not isinstance(e, SList):
        raise _error("a quantifier needs a variable list", e, "quantifier")
    params = _typed_list(e.items, e)
    if not params:
        raise _error("a quantifier needs at least one variable", e, "quantifier")
    return tuple(Binder(p.name, p.type) for p in params), scope | {p.name for p in params}


def read_condition(text: str | SExpr, scope: Iterable[str] = ()) -> Formula:
    """A PDDL goal description (and/or/not/imply/exists/forall/=/atoms) as a formula;
    ``scope`` holds the parameter names a ``?x`` may refer to."""
    return _cond(_as_sexpr(text), frozenset(scope))


def _cond(e: SExpr, scope: frozenset[str]) -> Formula:
    if isinstance(e, SAtom):
        raise _error(f"expected a parenthesised condition, got {e.text!r}", e, "condition")
    if not e.items:
        return TRUE
    h = head(e)
    if h is None:
        raise _error("a condition must start with a name", e, "condition")
    args = e.items[1:]
    if h == "and":
        parts = [_cond(a, scope) for a in args]
        return TRUE if not parts else parts[0] if len(parts) == 1 else And(tuple(parts))
    if h == "or":
        parts = [_cond(a, scope) for a in args]
        return FALSE if not parts else parts[0] if len(parts) == 1 else Or(tuple(parts))
    if h == "not":
        if len(args) != 1:
            raise _error("'not' takes exactly one condition", e, "condition")
        return Not(_cond(args[0], scope))
    if h == "imply":
        if len(args) != 2:
            raise _error("'imply' takes exactly two conditions", e, "condition")
        return Implies(_cond(args[0], scope), _cond(args[1], scope))
    if h in {"exists", "forall"}:
        if len(args) != 2:
            raise _error(f"'{h}' takes a variable list and one condition", e, "quantifier")
        bs, inner = _binders(args[0], scope)
        body = _cond(args[1], inner)
        for b in reversed(bs):
            body = Exists(b, body) if h == "exists" else Forall(b, body)
        return body
    if h in {"when", "increase", "decrease", "assign"}:
        raise _error(f"'{h}' is not allowed in a condition", e, "condition")
    return _atom(e, scope)


def read_effect(text: str | SExpr, scope: Iterable[str] = ()) -> tuple[Effect, ...]:
    """A PDDL effect (and/not/when/forall over atoms) as a flat tuple of effects."""
    return _effects(_as_sexpr(text), frozenset(scope))


def _effects(e: SExpr, scope: frozenset[str]) -> tuple[Effect, ...]:
    if isinstance(e, SAtom):
        raise _error(f"expected a parenthesised effect, got {e.text!r}", e, "effect")
    if not e.items:
        return ()
    h = head(e)
    if h is None:
        raise _error("an effect must start with a name", e, "effect")
    args = e.items[1:]
    if h == "and":
        return tuple(x for a in args for x in _effects(a, scope))
    if h == "not":
        if len(args) != 1 or not isinstance(args[0], SList) or head(args[0]) in _CONNECTIVES:
            raise _error("'not' in an effect must wrap one atom", e, "effect")
        return (Delete(_atom(args[0], scope)),)
    if h == "when":
        if len(args) != 2:
            raise _error("'when' takes a condition and an effect", e, "effect")
        return (When(_cond(args[0], scope), _effects(args[1], scope)),)
    if h == "forall":
        if len(args) != 2:
            raise _error("'forall' takes a variable list and an effect", e, "effect")
        bs, inner = _binders(args[0], scope)
        body = _effects(args[1], inner)
        for b in reversed(bs):
            body = (ForallEffect(b, body),)
        return body
    if h in {"or", "exists", "imply"}:
        raise _error(f"'{h}' cannot be executed as an effect", e, "unsupported-effect")
    return (Add(_atom(e, scope)),)


_CONNECTIVES = frozenset({"and", "or", "not", "imply", "exists", "forall", "when"})


__all__ = [
    "read_condition",
    "read_effect",
    "read_parameters",
    "sexpr_to_text",
]
