"""Typed formula → BDDL goal text, the inverse of :mod:`.to_ltl` on ``then``-free
formulas."""

from __future__ import annotations

from planproof.ltl import ast
from planproof.ltl.bddl.names import bddl_category, bddl_object
from planproof.ltl.errors import UnsupportedFormulaError


def _bddl_term(t: ast.Term) -> str:
    return f"?{t.name}" if isinstance(t, ast.Var) else bddl_object(t.name)


def _bddl_binder(b: ast.Binder) -> str:
    return f"(?{b.var})" if b.type is None else f"(?{b.var} - {bddl_category(b.type)})"


def ltl_to_bddl(f: ast.Formula) -> str:
    """Write a ``then``-free formula as a BDDL goal (one line). True and false become
    ``(and)`` and ``(or)``; an untyped binder is written ``(?x)``."""
    match f:
        case ast.Atom(pred, args):
            return "(" + " ".join([pred, *(_bddl_term(a) for a in args)]) + ")"
        case ast.Top():
            return "(and)"
        case ast.Bottom():
            return "(or)"
        case ast.Not(body):
            return f"(not {ltl_to_bddl(body)})"
        case ast.And(cs) | ast.Or(cs):
            word = "and" if isinstance(f, ast.And) else "or"
            return f"({word} " + " ".join(ltl_to_bddl(c) for c in cs) + ")"
        case ast.Implies(left, right):
            return f"(imply {ltl_to_bddl(left)} {ltl_to_bddl(right)})"
        case ast.Forall(b, body):
            return f"(forall {_bddl_binder(b)} {ltl_to_bddl(body)})"
        case ast.Exists(b, body):
            return f"(exists {_bddl_binder(b)} {ltl_to_bddl(body)})"
        case ast.ForN(n, b, body):
            return f"(forn ({n}) {_bddl_binder(b)} {ltl_to_bddl(body)})"
        case ast.ForPairs(b1, b2, body):
            return f"(forpairs {_bddl_binder(b1)} {_bddl_binder(b2)} {ltl_to_bddl(body)})"
        case ast.ForNPairs(n, b1, b2, body):
            return f"(fornpairs ({n}) {_bddl_binder(b1)} {_bddl_binder(b2)} {ltl_to_bddl(body)})"
        case ast.Then():
            raise UnsupportedFormulaError("BDDL goals have no 'then'")
    raise TypeError(f"not a formula: {f!r}")
