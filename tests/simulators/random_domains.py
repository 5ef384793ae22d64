"""Random tiny worlds and the exhaustive breadth-first search that is their ground truth.

The shortcuts of the subgoal search (the delete relaxation, mutually exclusive atoms)
claim facts about every state actions reach; on a world of two objects and a handful of
predicates every reachable state can be listed, so each claim is checked against the
list. The operators mix what the real domains use: negated preconditions, disjunctions,
quantifiers, equality, conditional and universally quantified effects, deletions.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import State
from planproof.pddl.schema import Domain
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core import World
from planproof.simulators.core.world import Bound

UNARY = ("p", "q", "r")
PREDICATES: dict[str, tuple[str, ...]] = {
    "s": ("obj",),  # never changed: a static property
    **dict.fromkeys(UNARY, ("obj",)),
    "rel": ("obj", "obj"),
}


def _atom_text(draw: st.DrawFn, terms: Sequence[str], fluent_only: bool = False) -> str:
    pred = draw(st.sampled_from(_CHANGED if fluent_only else ("rel", "s", *UNARY)))
    arity = len(PREDICATES[pred])
    return f"({pred} {' '.join(draw(st.sampled_from(terms)) for _ in range(arity))})"


def _formula(draw: st.DrawFn, terms: Sequence[str], depth: int) -> str:
    kind = draw(st.sampled_from(("atom", "not", "eq") if depth == 0 else _KINDS))
    if kind == "atom":
        return _atom_text(draw, terms)
    if kind == "not":
        return f"(not {_atom_text(draw, terms)})"
    if kind == "eq":
        x, y = draw(st.sampled_from(terms)), draw(st.sampled_from(terms))
        return f"(not (= {x} {y}))" if draw(st.booleans()) else f"(= {x} {y})"
    if kind in ("and", "or"):
        n = draw(st.integers(1, 3))
        return f"({kind} {' '.join(_formula(draw, terms, depth - 1) for _ in range(n))})"
    if kind == "imply":
        return f"(imply {_formula(draw, terms, depth - 1)} {_formula(draw, terms, depth - 1)})"
    if kind == "negated":
        return f"(not {_formula(draw, terms, depth - 1)})"
    var = f"?z{depth}"
    return f"({kind} ({var} - obj) {_formula(draw, (*terms, var), depth - 1)})"


_CHANGED = ("rel", *UNARY)
_KINDS = ("atom", "not", "eq", "and", "or", "imply", "negated", "exists", "forall")


def _literal_effect(draw: st.DrawFn, terms: Sequence[str], adds: list[str]) -> str:
    atom = _atom_text(draw, terms, fluent_only=True)
    if draw(st.booleans()):
        return f"(not {atom})"
    if atom.startswith(("(p ", "(q ")) and draw(st.integers(0, 3)) > 0:
        return f"(not {atom})"  # mostly GRAB adds p and q: exclusive pairs stay common
    adds.append(atom)
    return atom


def _effect(draw: st.DrawFn, terms: Sequence[str], adds: list[str]) -> str:
    """An effect; the atoms it adds over the operator's own parameters go to ``adds``."""
    kind = draw(st.sampled_from(("literal", "literal", "when", "forall")))
    if kind == "literal":
        return _literal_effect(draw, terms, adds)
    if kind == "when":
        return f"(when {_formula(draw, terms, 1)} {_literal_effect(draw, terms, adds)})"
    inner = (*terms, "?e")
    body = _literal_effect(draw, inner, [])
    return f"(forall (?e - obj) (when {_formula(draw, inner, 1)} {body}))"


def _operator_text(draw: st.DrawFn, grab: bool = False) -> tuple[str, str]:
    """(precondition, effect). Guarded operators ask in their precondition that some of
    what they add be false (``not (p ?x)``); with ``grab`` the operator is shaped as
    VirtualHome's GRAB: ``p ?x`` or ``q ?x`` by a condition, neither before."""
    terms = ("?x", "?y")
    adds: list[str] = []
    effs: list[str] = []
    pre_parts: list[str] = []
    if grab:
        c = _formula(draw, terms, 0)
        effs = [f"(when {c} (p ?x))", f"(when (not {c}) (q ?x))"]
        pre_parts = ["(not (p ?x))", "(not (q ?x))"]
        if draw(st.booleans()):
            effs.append(_literal_effect(draw, terms, adds))
    else:
        effs = [_effect(draw, terms, adds) for _ in range(draw(st.integers(1, 2)))]
    # an operator without precondition now and then: the worlds are not all stuck
    pre = "()" if draw(st.integers(0, 3)) == 0 else _formula(draw, terms, draw(st.integers(0, 2)))
    guarded: bool = bool(adds) and draw(st.booleans())
    if guarded:
        guards: list[str] = draw(st.lists(st.sampled_from(adds), min_size=1, max_size=3))
        pre_parts += [f"(not {g})" for g in guards]
    if pre_parts:
        pre = f"(and {pre if pre != '()' else ''} {' '.join(pre_parts)})"
    return pre, f"(and {' '.join(effs)})"


@dataclass(frozen=True)
class Toy:
    """A random world, its start state and the pool of every ground action."""

    world: World
    start: State
    pool: tuple[Bound, ...]


@st.composite
def toys(draw: st.DrawFn, objects: int = 2, free: int = 0) -> Toy:
    """A world of ``objects`` objects (``a``, ``b``, ``c``...), 1-4 operators of two
    parameters and a start state; plus ``free`` operators without precondition (each a
    literal effect or two), which make the reachable states many."""
    names = tuple("abcdef"[:objects])
    ops = []
    grab = draw(st.booleans())
    for i in range(draw(st.integers(1, 4))):
        pre, eff = _operator_text(draw, grab=grab and i == 0)
        ops.append(operator(f"op{i}", "(?x - obj ?y - obj)", pre=pre, eff=eff))
    for i in range(free):
        effs = " ".join(
            _literal_effect(draw, ("?x", "?y"), []) for _ in range(draw(st.integers(1, 2)))
        )
        ops.append(operator(f"free{i}", "(?x - obj ?y - obj)", eff=f"(and {effs})"))
    domain = Domain("toy", {"obj": None}, PREDICATES, {o.name: o for o in ops})
    static = frozenset(
        Atom("s", (Const(o),)) for o in names if draw(st.booleans())
    )  # s is in no effect
    world = World(domain, {o: frozenset({"obj"}) for o in names}, static)
    start = frozenset(a for a in fluent_atoms(world) if draw(st.integers(0, 2)) == 0)
    if grab:  # GRAB's invariant holds at the start
        start = start - {Atom("q", (Const(o),)) for o in names if Atom("p", (Const(o),)) in start}
    from planproof.simulators.core.search import ground_actions

    return Toy(world, start, ground_actions(world))


def fluent_atoms(world: World) -> list[Atom]:
    """Every ground atom of a predicate some effect changes."""
    objs = sorted(world.universe.type_index)
    out = []
    for pred in sorted(world.domain.fluents):
        if len(PREDICATES[pred]) == 1:
            out += [Atom(pred, (Const(o),)) for o in objs]
        else:
            out += [Atom(pred, (Const(x), Const(y))) for x in objs for y in objs]
    return out


@dataclass(frozen=True)
class Reachable:
    """Every state actions of a pool reach from a start (``depth``: its fewest actions)
    and, for each action of the pool (by position), the fewest actions before a state
    where it applies. ``complete``: the search ran out of states, not of budget."""

    depth: dict[State, int]
    applicable: dict[int, int]
    edges: list[tuple[State, int, State]]
    complete: bool


def reachable(
    world: World, start: State, pool: Sequence[Bound], max_states: int = 5000, max_depth: int = 50
) -> Reachable:
    """The exhaustive breadth-first search, on the interpreter (``World.effects``): the
    ground truth the shortcuts are checked against."""
    depth = {start: 0}
    applicable: dict[int, int] = {}
    edges: list[tuple[State, int, State]] = []
    frontier: deque[State] = deque([start])
    complete = True
    while frontier:
        s = frontier.popleft()
        d = depth[s]
        if d >= max_depth:
            complete = False
            continue
        for i, b in enumerate(pool):
            if not world.precondition_holds(b, s):
                continue
            applicable.setdefault(i, d)
            adds, dels, _ = world.effects(b, s)
            nxt = (s - dels) | adds
            edges.append((s, i, nxt))
            if nxt not in depth:
                if len(depth) >= max_states:
                    complete = False
                    continue
                depth[nxt] = d + 1
                frontier.append(nxt)
    return Reachable(depth, applicable, edges, complete)


def first_depth(r: Reachable, holds: Callable[[State], bool]) -> int | None:
    """The fewest actions to a state where ``holds``, None if no listed state."""
    found = [d for s, d in r.depth.items() if holds(s)]
    return min(found, default=None)
