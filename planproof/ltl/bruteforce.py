"""A deliberately naive, literal transcription of the trace semantics.

It exists only as an oracle for tests and a baseline for benchmarks: it recurses on the
formula, grounds quantifiers by substitution, tries every split point of every ``then``
and every matching of the pair quantifiers by permutation. Exponential in the worst case;
use :mod:`planproof.ltl.evaluate` for real work.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from itertools import combinations, permutations

from planproof.ltl import ast
from planproof.ltl.ast import Atom, Formula, free_vars, is_temporal, substitute
from planproof.ltl.errors import GroundingError
from planproof.ltl.trace import Trace, Universe

__all__ = ["brute_evaluate"]

_Pred = Callable[[Formula], bool]


def brute_evaluate(
    f: Formula,
    trace: Trace,
    universe: Universe | None = None,
    actions: Set[str] | None = None,
    *,
    final: bool = False,
) -> bool:
    """``f`` holds on the segment ``[0, N)``; ``final=True`` is the final-state reading."""
    if free_vars(f):
        raise GroundingError(f"free variable(s) {sorted(free_vars(f))}")
    ctx = _Ctx(
        trace,
        trace.universe() if universe is None else universe,
        None if actions is None else frozenset(a.lower() for a in actions),
        final,
    )
    return ctx.on_segment(f, 0, len(trace))


class _Ctx:
    def __init__(
        self, trace: Trace, universe: Universe, actions: frozenset[str] | None, final: bool
    ) -> None:
        self.trace = trace
        self.universe = universe
        self.actions = actions
        self.final = final

    # -- one position ------------------------------------------------------------
    def at(self, f: Formula, k: int) -> bool:
        """Point semantics of a then-free ground formula at position ``k``."""
        match f:
            case Atom():
                in_state = f in (self.trace.final if self.final else self.trace.states[k])
                is_action = f == self.trace.action_at(k)
                if self.actions is None:
                    return in_state or is_action
                return is_action if f.pred in self.actions else in_state
            case ast.Top():
                return True
            case ast.Bottom():
                return False
            case ast.Not(body):
                return not self.at(body, k)
            case ast.And(cs):
                return all(self.at(c, k) for c in cs)
            case ast.Or(cs):
                return any(self.at(c, k) for c in cs)
            case ast.Implies(a, b):
                return (not self.at(a, k)) or self.at(b, k)
        return self.quantify(f, lambda g: self.at(g, k))

    # -- a segment [i, j) ---------------------------------------------------------
    def on_segment(self, f: Formula, i: int, j: int) -> bool:
        assert i < j
        if not is_temporal(f):
            return any(self.at(f, k) for k in range(i, j))  # "eventually"
        match f:
            case ast.Then(cs):
                return self.splits(cs, i, j)
            case ast.Not(body):
                return not self.on_segment(body, i, j)
            case ast.And(cs):
                return all(self.on_segment(c, i, j) for c in cs)
            case ast.Or(cs):
                return any(self.on_segment(c, i, j) for c in cs)
            case ast.Implies(a, b):
                return (not self.on_segment(a, i, j)) or self.on_segment(b, i, j)
        return self.quantify(f, lambda g: self.on_segment(g, i, j))

    def splits(self, parts: tuple[Formula, ...], i: int, j: int) -> bool:
        """Every way of cutting [i, j) into len(parts) consecutive non-empty segments."""
        if len(parts) == 1:
            return self.on_segment(parts[0], i, j)
        return any(
            self.on_segment(parts[0], i, k) and self.splits(parts[1:], k, j)
            for k in range(i + 1, j)
        )

    # -- quantifiers, by substitution ------------------------------------------------
    def quantify(self, f: Formula, holds: _Pred) -> bool:
        match f:
            case ast.Forall(b, body):
                return all(holds(substitute(body, {b.var: o})) for o in self.dom(b))
            case ast.Exists(b, body):
                return any(holds(substitute(body, {b.var: o})) for o in self.dom(b))
            case ast.ForN(n, b, body):
                return sum(holds(substitute(body, {b.var: o})) for o in self.dom(b)) == n
            case ast.ForPairs(b1, b2, _):
                return self.some_matching(f, min(len(self.dom(b1)), len(self.dom(b2))), holds)
            case ast.ForNPairs(n, _, _, _):
                return self.some_matching(f, n, holds)
        raise TypeError(f"not a formula: {f!r}")

    def dom(self, b: ast.Binder) -> tuple[str, ...]:
        return self.universe.of_type(b.type)

    def some_matching(self, f: ast.ForPairs | ast.ForNPairs, size: int, holds: _Pred) -> bool:
        """Is there a set of ``size`` pairs, no object of either domain used twice, each of
        two distinct objects satisfying the body?"""
        b1, b2 = f.first, f.second

        def ok(x: str, y: str) -> bool:
            return x != y and holds(substitute(f.body, {b1.var: x, b2.var: y}))

        return any(
            all(ok(x, y) for x, y in zip(left, right, strict=True))
            for left in combinations(self.dom(b1), size)
            for right in permutations(self.dom(b2), size)
        )
