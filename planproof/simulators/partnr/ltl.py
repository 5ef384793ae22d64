"""Compiling a PARTNR evaluation function to planproof's goal logic.

Each (unrolled) proposition ``i`` becomes a formula ``C_i`` that holds on a state trace iff
the engine counts ``i`` (satisfied and valid under every constraint); percent complete
is the fraction of ``C_i`` that hold and success is their conjunction. The formulas use
only ``then`` and the Boolean connectives, read on segments (docs/ltl-semantics.md §4):

* OR-lists are quantifiers over per-argument types (``exists x - p0_0. ...``); counts are
  ``forn`` (at least ``n`` = an ``or`` of exact counts);
* ``LEN1`` = ``not (true then true)`` holds on one-position segments, so
  ``last(p) = (p and LEN1) or (true then (p and LEN1))`` reads ``p`` at a segment's last
  position and ``X then LEN1`` reads ``X`` on the segment minus its last position;
* the recorded value of ``i`` at the end of a prefix, ``H_i``, is ``last(p_i)`` and, when
  dependencies gate ``i``, the gate read on the prefix minus its last position (the
  reference code gates on the states *before* the current one);
* "has been satisfied" is ``E_i = H_i or (H_i then true)``; a temporal edge ``a → i`` is
  "some prefix has ``E_a`` but not ``E_i``": first satisfaction strictly earlier;
* a terminal constraint is ``H_i`` on the whole trace: the record in the final state.

Tie constraints compare *which* entity satisfied a proposition at its first satisfaction
and are not compiled (:class:`CompileError`); docs/partnr.md §5 explains why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Binder,
    Exists,
    Formula,
    ForN,
    Not,
    Or,
    Then,
    Var,
)
from planproof.ltl.evaluate import TraceEvaluator
from planproof.ltl.trace import State, Trace, Universe
from planproof.simulators.partnr.errors import CompileError
from planproof.simulators.partnr.model import (
    RELATION_PREDICATES,
    STATE_PREDICATES,
    UNARY_PREDICATES,
    Dependency,
    EvaluationFunction,
    Proposition,
    TerminalConstraint,
    TieConstraint,
)
from planproof.simulators.partnr.predicates import atom

MAX_CLUSTER_ENTITIES = 6

LEN1: Formula = Not(Then((TRUE, TRUE)))


def _and(*fs: Formula) -> Formula:
    parts = [f for f in fs if f != TRUE]
    if any(f == FALSE for f in parts):
        return FALSE
    return parts[0] if len(parts) == 1 else (And(tuple(parts)) if parts else TRUE)


def _or(*fs: Formula) -> Formula:
    parts = [f for f in fs if f != FALSE]
    if any(f == TRUE for f in parts):
        return TRUE
    return parts[0] if len(parts) == 1 else (Or(tuple(parts)) if parts else FALSE)


def last(p: Formula) -> Formula:
    """``p`` at the last position of the segment."""
    at = _and(p, LEN1)
    return _or(at, Then((TRUE, at)))


def drop_last(x: Formula) -> Formula:
    """``x`` on the segment without its last position (false on one position)."""
    return Then((x, LEN1))


def some_prefix(x: Formula) -> Formula:
    """``x`` on some non-empty prefix of the segment."""
    return _or(x, Then((x, TRUE)))


_STEP = Atom("step", ())


def states_trace(states: Sequence[State]) -> Trace:
    """A trace of bare states (each transition labelled ``step()``)."""
    return Trace(tuple(states), (_STEP,) * (len(states) - 1))


@dataclass(frozen=True)
class CompiledEvaluation:
    """One formula per unrolled proposition, and the universe whose synthetic types
    (``p<i>_<k>`` = candidates of argument ``k`` of proposition ``i``) the quantifiers
    range over."""

    function: EvaluationFunction
    counted: tuple[Formula, ...]
    universe: Universe

    @property
    def success(self) -> Formula:
        return _and(*self.counted) if self.counted else FALSE

    def evaluate(self, trace: Trace | Sequence[State]) -> tuple[bool, ...]:
        """Which propositions count on ``trace`` (or on bare states), by the LTL evaluator."""
        if not isinstance(trace, Trace):
            trace = states_trace(trace)
        ev = TraceEvaluator(trace, self.universe)
        return tuple(ev.holds(f) for f in self.counted)

    def percent_complete(self, trace: Trace | Sequence[State]) -> float:
        c = self.evaluate(trace)
        return sum(c) / len(c) if c else 0.0


def proposition_formula(p: Proposition, index: int) -> Formula:
    """The state formula of one proposition (then-free)."""
    fn = p.function
    n = p.count
    x, y = Var("x"), Var("y")

    def binder(var: str, k: int) -> Binder:
        return Binder(var, f"p{index}_{k}")

    def at_least(k: int, b: Binder, body: Formula, size: int) -> Formula:
        if k <= 1:
            return Exists(b, body)
        return _or(*(ForN(m, b, body) for m in range(k, size + 1)))

    if fn in STATE_PREDICATES or fn in UNARY_PREDICATES:
        if fn in STATE_PREDICATES:
            pred, positive = STATE_PREDICATES[fn]
        else:
            pred, positive = UNARY_PREDICATES[fn], True
        a: Formula = Atom(pred, (x,))
        return at_least(n, binder("x", 0), a if positive else Not(a), len(p.groups[0]))
    if fn in RELATION_PREDICATES:
        pred = RELATION_PREDICATES[fn]
        rel: Formula = Atom(pred, (x, y))
        if pred == "next_to":
            rel = Or((rel, Atom(pred, (y, x))))
        size = len(p.groups[0])
        if p.same:
            return Exists(binder("y", 1), at_least(n, binder("x", 0), rel, size))
        return at_least(n, binder("x", 0), Exists(binder("y", 1), rel), size)
    if fn == "is_clustered":
        return _clustered(p)
    raise CompileError(f"unknown predicate {fn}")


def _edge(u: str, v: str) -> Formula:
    return Or((atom("next_to", u, v), atom("next_to", v, u)))


def _clustered(p: Proposition) -> Formula:
    """Some set of listed entities meeting every count induces a connected next-to graph:
    for every cut of the set some edge crosses it."""
    nodes = sorted(p.entities())
    if len(nodes) > MAX_CLUSTER_ENTITIES:
        raise CompileError(
            f"is_clustered over {len(nodes)} entities: the LTL form enumerates subsets and "
            f"is limited to {MAX_CLUSTER_ENTITIES}"
        )
    counts = p.number if isinstance(p.number, tuple) else (p.number,) * len(p.groups)
    options: list[Formula] = []
    for size in range(1, len(nodes) + 1):
        for subset in combinations(nodes, size):
            s = set(subset)
            if not all(len(s.intersection(g)) >= k for g, k in zip(p.groups, counts, strict=True)):
                continue
            head, rest = subset[0], subset[1:]
            cuts: list[Formula] = []
            for m in range(len(rest)):
                for extra in combinations(rest, m):
                    side = {head, *extra}
                    other = [v for v in subset if v not in side]
                    cuts.append(_or(*(_edge(u, v) for u in sorted(side) for v in other)))
            options.append(_and(*cuts))
    return _or(*options)


class _Compiler:
    def __init__(self, ev: EvaluationFunction) -> None:
        self.ev = ev
        self.p = [proposition_formula(q, i) for i, q in enumerate(ev.propositions)]
        self.gates: list[list[Dependency]] = [[] for _ in ev.propositions]
        for d in ev.dependencies:
            for i in d.proposition_indices:
                self.gates[i].append(d)
        self._h: dict[int, Formula] = {}
        self._active: set[int] = set()

    def record(self, i: int) -> Formula:
        """``H_i``: proposition ``i`` is recorded true at the last position of a prefix."""
        if i in self._h:
            return self._h[i]
        if i in self._active:
            raise CompileError(f"proposition {i} depends on itself through its dependencies")
        self._active.add(i)
        h = last(self.p[i])
        if self.gates[i]:
            at_start = all(_gate_on_empty(d) for d in self.gates[i])
            gate = _and(*(self._relation(d) for d in self.gates[i]))
            h = _and(h, _or(LEN1 if at_start else FALSE, drop_last(gate)))
        self._active.discard(i)
        self._h[i] = h
        return h

    def ever(self, i: int) -> Formula:
        return some_prefix(self.record(i))

    def _relation(self, d: Dependency) -> Formula:
        parts: list[Formula] = []
        for k in d.depends_on:
            match d.relation:
                case "while_satisfied":
                    parts.append(self.record(k))
                case "after_satisfied":
                    parts.append(self.ever(k))
                case "after_unsatisfied":
                    h = self.record(k)
                    parts.append(some_prefix(_and(Not(h), drop_last(h))))
                case _:
                    parts.append(Not(self.ever(k)))
        return _and(*parts) if d.mode == "all" else _or(*parts)

    def counted(self, i: int, ancestors: Sequence[int], terminal: bool) -> Formula:
        sat = self.p[i] if not self.gates[i] else self.ever(i)
        parts = [sat]
        for a in sorted(ancestors):
            parts.append(some_prefix(_and(self.ever(a), Not(self.ever(i)))))
        if terminal:
            parts.append(self.record(i))
        return _and(*parts)


def _gate_on_empty(d: Dependency) -> bool:
    """The dependency's value before any state was recorded (reference semantics)."""
    vals = [d.relation == "before_satisfied"] * len(d.depends_on)
    return all(vals) if d.mode == "all" else any(vals)


def compile_evaluation(function: EvaluationFunction, *, unroll: bool = True) -> CompiledEvaluation:
    """One LTL formula per unrolled proposition; raises :class:`CompileError` on tie
    constraints, large clusters or cyclic dependencies."""
    ev = function.unrolled() if unroll else function
    for c in ev.constraints:
        if isinstance(c, TieConstraint):
            raise CompileError(
                f"{c.type_name} compares the entities that satisfied propositions at their "
                "first satisfaction; it has no LTL form here (docs/partnr.md §5)"
            )
    comp = _Compiler(ev)
    ancestors = ev.ancestors()
    terminal = {
        i
        for c in ev.constraints
        if isinstance(c, TerminalConstraint)
        for i in c.proposition_indices
    }
    counted = tuple(
        comp.counted(i, tuple(ancestors.get(i, ())), i in terminal)
        for i in range(len(ev.propositions))
    )
    types: dict[str, set[str]] = {}
    for i, q in enumerate(ev.propositions):
        for k, g in enumerate(q.groups):
            for e in g:
                types.setdefault(e, set()).add(f"p{i}_{k}")
    return CompiledEvaluation(ev, counted, Universe.of(types))


__all__ = [
    "LEN1",
    "CompiledEvaluation",
    "compile_evaluation",
    "drop_last",
    "last",
    "proposition_formula",
    "some_prefix",
    "states_trace",
]
