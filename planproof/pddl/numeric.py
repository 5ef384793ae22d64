"""Numeric fluents (PDDL 2.1 level 2): expressions, comparisons, numeric effects, the metric.

Conditions are formulas of the goal logic (``planproof.ltl.ast``), which has no numbers, so
a comparison such as ``(> (fuel ?a) 0)`` stands in a formula as a reserved atom whose
predicate is ``#`` followed by the comparison's text and whose arguments are the
comparison's variables (``Atom("#(> (fuel ?a) 0)", (Var("a"),))``): every formula walker,
substitution and printer keeps working, and :class:`Comparison` tables on the domain and
problem give the atom its meaning. Numeric effects are a kind of effect of their own
(:class:`NumericEffect`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from planproof.ltl.ast import Atom, Const, Term, Var

NUMERIC_PREFIX = "#"
"""Predicates starting with this character are numeric comparisons (see the docstring)."""

COMPARATORS = ("<", "<=", "=", ">=", ">")
OPERATORS = ("+", "-", "*", "/")
ASSIGNMENTS = ("assign", "increase", "decrease", "scale-up", "scale-down")


@dataclass(frozen=True, slots=True)
class Num:
    """A number written in the file."""

    value: float


@dataclass(frozen=True, slots=True)
class FluentRef:
    """A function term ``(name arg ...)``."""

    name: str
    args: tuple[Term, ...] = ()


@dataclass(frozen=True, slots=True)
class BinOp:
    """``(op left right)`` for ``+ - * /``; unary minus is ``(- 0 x)``."""

    op: str
    left: NumExpr
    right: NumExpr


NumExpr: TypeAlias = Num | FluentRef | BinOp


@dataclass(frozen=True, slots=True)
class Comparison:
    """``(op left right)``; ``params`` names the variables, in the order the reserved atom
    carries them."""

    op: str
    left: NumExpr
    right: NumExpr
    params: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NumericEffect:
    """``(increase (total-cost) 2)`` and the other assignments of PDDL 2.1."""

    op: str
    fluent: FluentRef
    value: NumExpr


@dataclass(frozen=True)
class Metric:
    """``(:metric minimize EXPR)``."""

    direction: str
    expression: NumExpr
    text: str


GroundFluent = tuple[str, tuple[str, ...]]
Values = Mapping[GroundFluent, float]


class NumericError(ValueError):
    """A numeric expression cannot be evaluated: an undefined fluent, a division by zero,
    an infinite value. ``kind`` is ``undefined-fluent`` or ``arithmetic``."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def is_numeric_atom(atom: Atom) -> bool:
    return atom.pred.startswith(NUMERIC_PREFIX)


def expr_vars(e: NumExpr) -> list[str]:
    """The variables of ``e`` in first-occurrence order."""
    out: list[str] = []
    stack: list[NumExpr] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, FluentRef):
            out.extend(a.name for a in x.args if isinstance(a, Var) and a.name not in out)
        elif isinstance(x, BinOp):
            stack.extend((x.right, x.left))
    return out


def expr_text(e: NumExpr) -> str:
    if isinstance(e, Num):
        v = e.value
        return str(int(v)) if v.is_integer() else repr(v)
    if isinstance(e, FluentRef):
        args = "".join(" " + (f"?{a.name}" if isinstance(a, Var) else a.name) for a in e.args)
        return f"({e.name}{args})"
    return f"({e.op} {expr_text(e.left)} {expr_text(e.right)})"


def comparison_atom(c: Comparison) -> Atom:
    """The reserved atom that stands for ``c`` in a formula."""
    text = f"({c.op} {expr_text(c.left)} {expr_text(c.right)})"
    return Atom(NUMERIC_PREFIX + text, tuple(Var(p) for p in c.params))


def ground_fluent(f: FluentRef, env: Mapping[str, str]) -> GroundFluent:
    return f.name, tuple(env[a.name] if isinstance(a, Var) else a.name for a in f.args)


def fluent_text(g: GroundFluent) -> str:
    return "(" + " ".join([g[0], *g[1]]) + ")"


_ARITH: dict[str, Callable[[float, float], float]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "=": lambda a, b: a == b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}


def evaluate(e: NumExpr, env: Mapping[str, str], values: Values) -> float:
    """The value of ``e``; raises :class:`NumericError` for an undefined fluent (PDDL
    leaves fluents without an initial value undefined), a division by zero or an
    overflow."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, FluentRef):
        g = ground_fluent(e, env)
        v = values.get(g)
        if v is None:
            raise NumericError(f"{fluent_text(g)} has no value", "undefined-fluent")
        return v
    a, b = evaluate(e.left, env, values), evaluate(e.right, env, values)
    if e.op == "/" and b == 0:
        raise NumericError(f"division by zero in {expr_text(e)}", "arithmetic")
    r = _ARITH[e.op](a, b)
    if math.isinf(r) or math.isnan(r):
        raise NumericError(f"{expr_text(e)} overflows", "arithmetic")
    return r


def compare(c: Comparison, env: Mapping[str, str], values: Values) -> bool:
    return _COMPARE[c.op](evaluate(c.left, env, values), evaluate(c.right, env, values))


def combine(op: str, g: GroundFluent, old: float | None, v: float) -> float:
    """The new value of ``g`` after ``op`` by ``v`` (``v`` read before the action, as
    PDDL 2.1 says every effect reads the old state)."""
    if op == "assign":
        return v
    if old is None:
        raise NumericError(f"{fluent_text(g)} has no value to {op}", "undefined-fluent")
    if op == "scale-down" and v == 0:
        raise NumericError(f"scale-down of {fluent_text(g)} by zero", "arithmetic")
    new = {
        "increase": old + v,
        "decrease": old - v,
        "scale-up": old * v,
        "scale-down": old / v if v else 0.0,
    }[op]
    if math.isinf(new) or math.isnan(new):
        raise NumericError(f"{op} of {fluent_text(g)} by {v} is not finite", "arithmetic")
    return new


def const_args(args: tuple[str, ...]) -> tuple[Const, ...]:
    return tuple(Const(a) for a in args)
