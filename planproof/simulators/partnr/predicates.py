"""The PARTNR predicates on a symbolic world state.

A state is a frozenset of ground atoms (``planproof.ltl.trace.State``) over the vocabulary

    on_top(o, f)  inside(o, f)  in_room(e, r)  on_floor(o)  next_to(a, b)
    clean(o)      filled(o)     powered_on(o)

(other atoms, e.g. ``holding`` or ``is_open``, are ignored). The paper's geometric tests
(raycasts, 25 % of keypoints, 0.5 m between bounding boxes) are what a simulator uses to
*produce* these atoms; here they are facts. ``next_to`` is symmetric and never reflexive.
A predicate's result carries, per entity argument, the set of entities that satisfy it:
the tie constraints compare these sets (docs/partnr.md §3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import State
from planproof.simulators.partnr.model import (
    RELATION_PREDICATES,
    STATE_PREDICATES,
    UNARY_PREDICATES,
    Proposition,
)

Values = tuple[frozenset[str], ...]
_EMPTY: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Result:
    """A proposition's value in one state; ``values[k]`` = the entities of argument ``k``
    that take part in a satisfying assignment (empty when unsatisfied)."""

    satisfied: bool
    values: Values


Checker = Callable[[State], Result]


def evaluate_proposition(prop: Proposition, state: State) -> Result:
    """The proposition's value in the state: OR over the candidate lists, ``number`` as
    a count of distinct entities of the first argument (per second-argument entity when
    ``same``), state negations applied per entity before the OR."""
    return checker(prop)(state)


@lru_cache(maxsize=16_384)
def checker(prop: Proposition) -> Checker:
    """A function of the state for ``prop``, with every ground atom it probes built once
    (states are frozensets of atoms that hash through a precomputed key); kept for the
    most recent propositions, so a dataset's worth of episodes does not pile up."""
    fn = prop.function
    n = prop.count
    if fn in STATE_PREDICATES or fn in UNARY_PREDICATES:
        pred, positive = STATE_PREDICATES.get(fn) or (UNARY_PREDICATES[fn], True)
        probes = tuple((a, atom(pred, a)) for a in prop.groups[0])

        def unary(state: State) -> Result:
            hits = frozenset(a for a, g in probes if (g in state) == positive)
            return Result(True, (hits,)) if len(hits) >= n else Result(False, (_EMPTY,))

        return unary
    if fn in RELATION_PREDICATES:
        return _binary(prop, RELATION_PREDICATES[fn])
    if fn == "is_clustered":
        return _clustered(prop)
    raise ValueError(f"unknown predicate {fn}")  # parse_proposition rejects it first


def _binary(prop: Proposition, pred: str) -> Checker:
    n = prop.count
    objs, others = prop.groups
    probes: list[tuple[str, str, tuple[Atom, ...]]] = []
    for a in objs:
        for b in others:
            if pred != "next_to":
                probes.append((a, b, (atom(pred, a, b),)))
            elif a != b:  # next_to is symmetric and never reflexive
                probes.append((a, b, (atom(pred, a, b), atom(pred, b, a))))
    fail = Result(False, (_EMPTY, _EMPTY))
    if prop.same:

        def same(state: State) -> Result:
            by_b: dict[str, list[str]] = {}
            for a, b, gs in probes:
                if any(g in state for g in gs):
                    by_b.setdefault(b, []).append(a)
            good = {b: as_b for b, as_b in by_b.items() if len(as_b) >= n}
            if not good:
                return fail
            return Result(True, (frozenset(a for v in good.values() for a in v), frozenset(good)))

        return same

    def any_b(state: State) -> Result:
        pairs = [(a, b) for a, b, gs in probes if any(g in state for g in gs)]
        hit_a = frozenset(a for a, _ in pairs)
        if len(hit_a) >= n:
            return Result(True, (hit_a, frozenset(b for _, b in pairs)))
        return fail

    return any_b


def _clustered(prop: Proposition) -> Checker:
    """True iff one connected component of the next-to graph over all listed entities
    holds at least ``number[k]`` entities of every list ``k`` (reference semantics)."""
    counts = prop.number if isinstance(prop.number, tuple) else (prop.number,) * len(prop.groups)
    nodes = sorted(prop.entities())
    edges = [
        (x, y, atom("next_to", x, y), atom("next_to", y, x))
        for i, x in enumerate(nodes)
        for y in nodes[i + 1 :]
    ]
    groups = [frozenset(g) for g in prop.groups]
    fail = Result(False, tuple(_EMPTY for _ in prop.groups))

    def clustered(state: State) -> Result:
        parent = {x: x for x in nodes}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for x, y, g1, g2 in edges:
            if g1 in state or g2 in state:
                rx, ry = find(x), find(y)
                if rx != ry:
                    parent[rx] = ry
        comps: dict[str, set[str]] = {}
        for x in nodes:
            comps.setdefault(find(x), set()).add(x)
        good: set[str] = set()
        for comp in comps.values():
            if all(len(comp & g) >= k for g, k in zip(groups, counts, strict=True)):
                good |= comp
        if not good:
            return fail
        return Result(True, tuple(frozenset(good & g) for g in groups))

    return clustered


def atom(pred: str, *args: str) -> Atom:
    """A state atom of the PARTNR vocabulary."""
    return Atom(pred, tuple(Const(a) for a in args))
