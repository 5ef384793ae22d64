"""PDDL conditions and effects → planproof formulas and effects (writing them back is
:mod:`planproof.pddl.writer`).

Reading goes through the bounded s-expression scanner (:mod:`planproof.pddl.scanner`:
length and nesting are checked while scanning), so operator text written by an LLM fails with a
positioned :class:`PDDLSyntaxError`, never with a crash or a deep recursion.
"""

from __future__ import annotations

import math
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
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head, sexpr_to_text
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.numeric import (
    ASSIGNMENTS,
    COMPARATORS,
    OPERATORS,
    BinOp,
    Comparison,
    FluentRef,
    Num,
    NumericEffect,
    NumExpr,
    comparison_atom,
    expr_vars,
)
from planproof.pddl.scanner import scan_one
from planproof.pddl.schema import Add, Delete, Effect, ForallEffect, Operator, Param, When

MAX_FRAGMENT = 1_000_000
"""Longest condition or effect text accepted, in characters."""

NumericTable = dict[str, Comparison]
"""Collects the comparisons a formula's reserved ``#`` atoms stand for (see
:mod:`planproof.pddl.numeric`); ``None`` where numbers are not allowed (EAI operators)."""


def _error(message: str, at: SExpr | None, kind: str = "pddl") -> PDDLSyntaxError:
    line, col = (at.line, at.column) if at is not None else (1, 1)
    return PDDLSyntaxError(message, line=line, column=col, kind=kind)


def _as_sexpr(x: str | SExpr) -> SExpr:
    return scan_one(x, max_length=MAX_FRAGMENT) if isinstance(x, str) else x


def read_parameters(text: str | SExpr) -> tuple[Param, ...]:
    """``(?a ?b - object ?c - character ?d)`` → typed parameters (untyped means ``object``)."""
    e = _as_sexpr(text)
    if not isinstance(e, SList):
        raise _error("parameters must be a parenthesised list", e, "parameters")
    return _typed_list(e.items, e)


def type_name(typ: SExpr | None) -> str | None:
    """A type after ``-``: a name, or ``(either a b ...)`` as the name ``(either a b)``
    (see :meth:`planproof.pddl.schema.Domain.members`); None when it is neither."""
    if isinstance(typ, SAtom):
        return typ.text.lower()
    if (
        isinstance(typ, SList)
        and head(typ) == "either"
        and len(typ.items) > 1
        and all(isinstance(t, SAtom) for t in typ.items[1:])
    ):
        names = sorted({t.text.lower() for t in typ.items[1:] if isinstance(t, SAtom)})
        return names[0] if len(names) == 1 else "(either " + " ".join(names) + ")"
    return None


def _typed_list(items: Iterable[SExpr], at: SExpr) -> tuple[Param, ...]:
    out: list[Param] = []
    pending: list[str] = []
    it = iter(items)
    for item in it:
        if not isinstance(item, SAtom):
            raise _error("expected a variable", item, "parameters")
        if item.text == "-":
            t = type_name(next(it, None))
            if t is None or not pending:
                raise _error("'-' must follow variables and precede a type", item, "parameters")
            out.extend(Param(v, t) for v in pending)
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


def read_condition(
    text: str | SExpr, scope: Iterable[str] = (), numeric: NumericTable | None = None
) -> Formula:
    """A PDDL goal description (and/or/not/imply/exists/forall/=/atoms) as a formula;
    ``scope`` holds the parameter names a ``?x`` may refer to. With a ``numeric`` table,
    comparisons of numeric expressions are read too (and recorded there)."""
    return _cond(_as_sexpr(text), frozenset(scope), numeric)


def _numeric_comparison(e: SList) -> bool:
    """``(= ?a ?b)`` between objects is equality; with a number or a function term on
    either side it is a numeric comparison."""
    h = head(e)
    if h not in COMPARATORS or len(e.items) != 3:
        return False
    if h != "=":
        return True
    return any(isinstance(a, SList) or read_number(a) is not None for a in e.items[1:])


def read_number(a: SExpr) -> float | None:
    if not isinstance(a, SAtom):
        return None
    try:
        v = float(a.text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_expression(e: SExpr, scope: frozenset[str]) -> NumExpr:
    """A numeric expression: a number, a function term ``(f ?x c)``, ``(+ a b)``,
    ``(- a b)``, ``(- a)``, ``(* a b)``, ``(/ a b)``."""
    if isinstance(e, SAtom):
        v = read_number(e)
        if v is None:
            # a 0-ary function may be written without parentheses by some generators
            if e.text.startswith("?"):
                raise _error(f"expected a number or a function, got {e.text!r}", e, "numeric")
            return FluentRef(e.text.lower())
        return Num(v)
    h = head(e)
    if h is None:
        raise _error("a numeric expression must start with a name", e, "numeric")
    args = e.items[1:]
    if h in OPERATORS:
        if h == "-" and len(args) == 1:
            return BinOp("-", Num(0.0), read_expression(args[0], scope))
        if len(args) < 2:
            raise _error(f"'{h}' takes two numeric expressions", e, "numeric")
        out = read_expression(args[0], scope)
        for a in args[1:]:
            out = BinOp(h, out, read_expression(a, scope))
        return out
    return FluentRef(h, tuple(_term(a, scope) for a in args))


def _cond(e: SExpr, scope: frozenset[str], numeric: NumericTable | None = None) -> Formula:
    if isinstance(e, SAtom):
        raise _error(f"expected a parenthesised condition, got {e.text!r}", e, "condition")
    if not e.items:
        return TRUE
    h = head(e)
    if h is None:
        raise _error("a condition must start with a name", e, "condition")
    args = e.items[1:]
    if h == "and":
        parts = [_cond(a, scope, numeric) for a in args]
        return TRUE if not parts else parts[0] if len(parts) == 1 else And(tuple(parts))
    if h == "or":
        parts = [_cond(a, scope, numeric) for a in args]
        return FALSE if not parts else parts[0] if len(parts) == 1 else Or(tuple(parts))
    if h == "not":
        if len(args) != 1:
            raise _error("'not' takes exactly one condition", e, "condition")
        return Not(_cond(args[0], scope, numeric))
    if h == "imply":
        if len(args) != 2:
            raise _error("'imply' takes exactly two conditions", e, "condition")
        return Implies(_cond(args[0], scope, numeric), _cond(args[1], scope, numeric))
    if h in {"exists", "forall"}:
        if len(args) != 2:
            raise _error(f"'{h}' takes a variable list and one condition", e, "quantifier")
        bs, inner = _binders(args[0], scope)
        body = _cond(args[1], inner, numeric)
        for b in reversed(bs):
            body = Exists(b, body) if h == "exists" else Forall(b, body)
        return body
    if h in {"when", *ASSIGNMENTS}:
        raise _error(f"'{h}' is not allowed in a condition", e, "condition")
    if _numeric_comparison(e):
        if numeric is None:
            raise _error(f"numeric comparison {sexpr_to_text(e)} is not supported here", e)
        left, right = read_expression(args[0], scope), read_expression(args[1], scope)
        params = [*expr_vars(left), *(v for v in expr_vars(right) if v not in expr_vars(left))]
        c = Comparison(h, left, right, tuple(params))
        atom = comparison_atom(c)
        numeric[atom.pred] = c
        return atom
    return _atom(e, scope)


def read_effect(
    text: str | SExpr, scope: Iterable[str] = (), numeric: NumericTable | None = None
) -> tuple[Effect, ...]:
    """A PDDL effect (and/not/when/forall over atoms) as a flat tuple of effects; with a
    ``numeric`` table, numeric effects (``increase`` ...) and comparisons in ``when``
    conditions are read too."""
    return _effects(_as_sexpr(text), frozenset(scope), numeric)


def _effects(e: SExpr, scope: frozenset[str], numeric: NumericTable | None) -> tuple[Effect, ...]:
    if isinstance(e, SAtom):
        raise _error(f"expected a parenthesised effect, got {e.text!r}", e, "effect")
    if not e.items:
        return ()
    h = head(e)
    if h is None:
        raise _error("an effect must start with a name", e, "effect")
    args = e.items[1:]
    if h == "and":
        return tuple(x for a in args for x in _effects(a, scope, numeric))
    if h == "not":
        if len(args) != 1 or not isinstance(args[0], SList) or head(args[0]) in _CONNECTIVES:
            raise _error("'not' in an effect must wrap one atom", e, "effect")
        return (Delete(_atom(args[0], scope)),)
    if h == "when":
        if len(args) != 2:
            raise _error("'when' takes a condition and an effect", e, "effect")
        return (When(_cond(args[0], scope, numeric), _effects(args[1], scope, numeric)),)
    if h == "forall":
        if len(args) != 2:
            raise _error("'forall' takes a variable list and an effect", e, "effect")
        bs, inner = _binders(args[0], scope)
        body = _effects(args[1], inner, numeric)
        for b in reversed(bs):
            body = (ForallEffect(b, body),)
        return body
    if h in ASSIGNMENTS:
        if numeric is None:
            raise _error(f"numeric effect '{h}' is not supported here", e, "unsupported-effect")
        if len(args) != 2 or not isinstance(args[0], SList) or head(args[0]) is None:
            raise _error(f"'{h}' takes a function term and a value", e, "effect")
        target = read_expression(args[0], scope)
        assert isinstance(target, FluentRef)
        return (NumericEffect(h, target, read_expression(args[1], scope)),)
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


def operator(
    name: str,
    params: str,
    *,
    pre: str = "()",
    eff: str = "()",
    implicit: Iterable[str] = (),
    description: str = "",
) -> Operator:
    """Build an operator from PDDL text: ``params`` like ``"(?c - character ?o - object)"``,
    ``pre``/``eff`` a PDDL condition and effect. Names are written without ``?`` in
    ``implicit``."""
    ps = read_parameters(params)
    scope = {p.name for p in ps}
    return Operator(
        name=name,
        params=ps,
        precondition=read_condition(pre, scope),
        effects=read_effect(eff, scope),
        implicit=tuple(implicit),
        description=description,
    )
