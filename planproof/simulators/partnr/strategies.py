"""Hypothesis strategies for PARTNR evaluation functions and state traces.

    from hypothesis import given
    from planproof.simulators.partnr.strategies import evaluations, traces

    @given(evaluations(), traces())
    def test_my_evaluator(ev, states): ...

Entities come from one small fixed pool (four objects, three pieces of furniture, two
rooms) so that random propositions and random states share atoms. ``compilable=True``
draws functions the LTL compiler accepts (no tie constraints, dependencies that point to
earlier propositions only). Needs the ``testing`` extra (hypothesis).
"""

from __future__ import annotations

from hypothesis import strategies as st

from planproof.ltl.ast import Atom
from planproof.ltl.trace import State
from planproof.simulators.partnr.model import (
    RELATIONS,
    Constraint,
    Dependency,
    EvaluationFunction,
    Proposition,
    TemporalConstraint,
    TerminalConstraint,
    TieConstraint,
    signatures,
)
from planproof.simulators.partnr.predicates import atom

OBJECTS = ("o0", "o1", "o2", "o3")
FURNITURE = ("f0", "f1", "f2")
ROOMS = ("r0", "r1")

__all__ = ["FURNITURE", "OBJECTS", "ROOMS", "evaluations", "propositions", "states", "traces"]


def _subset(pool: tuple[str, ...], max_size: int = 3) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(st.sampled_from(pool), min_size=1, max_size=max_size, unique=True).map(tuple)


@st.composite
def propositions(draw: st.DrawFn) -> Proposition:
    """One proposition over the pool, with counts up to the size of its first list."""
    fn = draw(st.sampled_from(sorted(signatures())))
    if fn == "is_clustered":
        groups = tuple(draw(st.lists(_subset(OBJECTS, 2), min_size=2, max_size=3)))
        counts = tuple(draw(st.integers(1, len(g))) for g in groups)
        return Proposition(fn, groups, counts)
    first = draw(_subset(OBJECTS))
    number = draw(st.integers(1, len(first)))
    if fn in ("is_on_top", "is_inside"):
        return Proposition(fn, (first, draw(_subset(FURNITURE))), number, draw(st.booleans()))
    if fn == "is_in_room":
        return Proposition(fn, (first, draw(_subset(ROOMS, 2))), number, draw(st.booleans()))
    if fn == "is_next_to":
        second = draw(_subset((*OBJECTS, *FURNITURE)))
        return Proposition(fn, (first, second), number, draw(st.booleans()))
    return Proposition(fn, (first,), number)


@st.composite
def evaluations(
    draw: st.DrawFn, *, max_propositions: int = 4, compilable: bool = False
) -> EvaluationFunction:
    """A random evaluation function: propositions, dependencies, constraints."""
    props = tuple(draw(st.lists(propositions(), min_size=1, max_size=max_propositions)))
    n = len(props)
    ix = st.integers(0, n - 1)
    deps: list[Dependency] = []
    for _ in range(draw(st.integers(0, 2))):
        if compilable:
            if n < 2:
                break
            cut = draw(st.integers(1, n - 1))
            gated = draw(st.lists(st.integers(cut, n - 1), min_size=1, max_size=2, unique=True))
            on = draw(st.lists(st.integers(0, cut - 1), min_size=1, max_size=2, unique=True))
        else:
            gated = draw(st.lists(ix, min_size=1, max_size=2, unique=True))
            on = draw(st.lists(ix, min_size=1, max_size=2, unique=True))
        deps.append(
            Dependency(
                tuple(gated),
                tuple(on),
                draw(st.sampled_from(RELATIONS)),
                draw(st.sampled_from(("all", "any"))),
            )
        )
    cons: list[Constraint] = []
    if n >= 2 and draw(st.booleans()):
        edges = draw(
            st.lists(
                st.tuples(ix, ix).filter(lambda e: e[0] < e[1]).map(lambda e: (e[0], e[1])),
                max_size=3,
                unique=True,
            )
        )
        cons.append(TemporalConstraint(tuple(edges)))
    if draw(st.booleans()):
        cons.append(TerminalConstraint(tuple(draw(st.lists(ix, max_size=n, unique=True)))))
    if not compilable and n >= 2 and draw(st.booleans()):
        members = draw(st.lists(ix, min_size=2, max_size=3, unique=True))
        args = tuple(draw(st.integers(0, len(props[i].groups) - 1)) for i in members)
        cons.append(TieConstraint(tuple(members), args, draw(st.booleans())))
    return EvaluationFunction(props, tuple(deps), tuple(cons))


def _ground_atoms() -> list[Atom]:
    out: list[Atom] = []
    for o in OBJECTS:
        out += [atom("on_top", o, f) for f in FURNITURE]
        out += [atom("inside", o, f) for f in FURNITURE]
        out += [atom("in_room", o, r) for r in ROOMS]
        out += [atom(p, o) for p in ("on_floor", "clean", "filled", "powered_on")]
    ents = (*OBJECTS, *FURNITURE)
    out += [atom("next_to", a, b) for a in ents for b in ents if a < b]
    return out


ATOMS: tuple[Atom, ...] = tuple(_ground_atoms())


def states(max_atoms: int = 12) -> st.SearchStrategy[State]:
    """A random state over the pool's vocabulary (no reflexive ``next_to``)."""
    return st.frozensets(st.sampled_from(ATOMS), max_size=max_atoms)


@st.composite
def traces(draw: st.DrawFn, *, max_length: int = 7) -> tuple[State, ...]:
    """A trace of states in which each step toggles a few atoms (or none: a Wait), as a
    world would."""
    s = draw(states())
    out = [s]
    for _ in range(draw(st.integers(0, max_length - 1))):
        flips = draw(st.frozensets(st.sampled_from(ATOMS), max_size=3))
        s = s ^ flips
        out.append(s)
    return tuple(out)
