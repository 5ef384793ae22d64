"""The delete relaxation (``planproof.simulators.core.relaxed``) against the exhaustive
breadth-first search, on random tiny worlds and on small real VirtualHome worlds:

- ``Layers.distance`` is a lower bound on the actions to a state where the atoms hold
  (``NEVER`` only for what no path reaches), action atoms included;
- every action applicable in a state ``k`` actions away is in ``Layers.applicable`` with a
  first layer of at most ``k``; ``live_actions`` keeps every action that ever applies;
- ``relax(nnf(f))`` is implied by ``f`` and monotone in the fluents; ``nnf`` keeps the
  meaning.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import State
from planproof.pddl.schema import Domain, When, all_effects
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core import Task
from planproof.simulators.core.logic import Facts
from planproof.simulators.core.relaxed import NEVER, live_actions, nnf, relax, relaxed_layers
from planproof.simulators.core.replay import action_atom
from planproof.simulators.core.search import ground_actions
from planproof.simulators.core.world import Bound, World
from tests.simulators.random_domains import Reachable, Toy, fluent_atoms, reachable, toys


def _acts(world: World) -> frozenset[str]:
    return frozenset(n for n in world.domain.operators if n not in world.domain.predicates)


def _check_layers(
    world: World,
    start: State,
    pool: tuple[Bound, ...],
    r: Reachable,
    *,
    layers: int,
    rng: random.Random,
    edges: int = 1000,
) -> int:
    """Claim (b) for every listed state, claim (a) for goals read off ``edges`` of its
    steps (sampled); returns how many goals were checked."""
    lay = relaxed_layers(world, start, pool, layers=layers)
    acts = _acts(world)
    for i, k in r.applicable.items():
        if k < layers:
            assert i in lay.applicable and lay.applicable[i] <= k, (pool[i].action, k)
    checked = 0
    for s, i, nxt in rng.sample(r.edges, min(edges, len(r.edges))):
        k = r.depth[s] + 1  # nxt is at most k actions away, its action atom too
        facts = sorted(nxt | world.static, key=str)
        pos = rng.sample(facts, min(len(facts), rng.randint(1, 4)))
        goals = [pos, [*pos, action_atom(pool[i].action)], [action_atom(pool[i].action)]]
        for g in goals:
            assert lay.distance(g, pool, acts) <= k, (g, k)
            checked += 1
    return checked


@settings(max_examples=150, deadline=None)
@given(toys(), st.integers(1, 6), st.integers(0, 1000))
def test_distance_is_a_lower_bound_on_random_worlds(toy: Toy, layers: int, seed: int) -> None:
    r = reachable(toy.world, toy.start, toy.pool)
    assert r.complete
    _check_layers(toy.world, toy.start, toy.pool, r, layers=layers, rng=random.Random(seed))


@settings(max_examples=150, deadline=None)
@given(toys())
def test_live_actions_keep_every_action_that_ever_applies(toy: Toy) -> None:
    r = reachable(toy.world, toy.start, toy.pool)
    assert r.complete
    live = live_actions(toy.world, toy.start, toy.pool)
    assert {toy.pool[i].action for i in r.applicable} <= {b.action for b in live}
    # and an atom the relaxation never reaches is in no reachable state
    lay = relaxed_layers(toy.world, toy.start, toy.pool, layers=1 << 20)
    assert lay.settled
    acts = _acts(toy.world)
    for s in r.depth:
        for a in s:
            assert lay.distance([a], toy.pool, acts) < NEVER


def _random_state(world: World, rng: random.Random) -> State:
    return frozenset(a for a in fluent_atoms(world) if rng.random() < 0.4)


@settings(max_examples=150, deadline=None)
@given(toys(), st.integers(0, 1000))
def test_relaxed_conditions_are_implied_and_monotone(toy: Toy, seed: int) -> None:
    """Every precondition (and effect condition) of the operators, bound to every pair of
    objects, in random states: ``nnf`` keeps its truth, ``relax(nnf(f))`` holds where
    ``f`` does, and still holds once more fluents are added."""
    world, rng = toy.world, random.Random(seed)
    fluents = world.domain.fluents
    universe = world.universe
    every = fluent_atoms(world)
    for b in toy.pool:
        conds = [b.operator.precondition] + [
            e.condition for e in all_effects(b.operator.effects) if isinstance(e, When)
        ]
        for f in conds:
            relaxed = relax(nnf(f), fluents)
            for _ in range(4):
                s = _random_state(world, rng)
                more = s | frozenset(a for a in every if rng.random() < 0.5)
                env = dict(b.env) | {"e": rng.choice(sorted(universe.type_index))}
                here, bigger = Facts(s, world.static, universe), Facts(more, world.static, universe)
                truth = here.holds(f, env)
                assert here.holds(nnf(f), env) == truth
                assert here.holds(nnf(f, positive=False), env) == (not truth)
                if truth:
                    assert here.holds(relaxed, env), (f, relaxed, s)
                if here.holds(relaxed, env):
                    assert bigger.holds(relaxed, env), (relaxed, s, more)


# --------------------------------------------------------------------- VirtualHome


@cache
def _small_tasks() -> tuple[Task, ...]:
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    # worlds of six objects: every state actions reach (a few hundred) can be listed
    tasks = [t for t in load_virtualhome_tasks() if len(t.world.universe.type_index) <= 6]
    by_objects: dict[frozenset[str], Task] = {}
    for t in tasks:
        by_objects.setdefault(frozenset(t.world.universe.type_index), t)
    return tuple(by_objects.values())[:6]


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 7))
def test_distance_and_live_actions_on_virtualhome(seed: int, layers: int) -> None:
    rng = random.Random(seed)
    tasks = _small_tasks()
    assert len(tasks) >= 3
    task = rng.choice(tasks)
    world, start = task.world, task.initial
    pool = ground_actions(world)
    r = reachable(world, start, pool)
    assert r.complete and len(r.depth) > 100  # the whole space, and not a trivial one
    assert _check_layers(world, start, pool, r, layers=layers, rng=rng, edges=300) == 900
    live = {b.action for b in live_actions(world, start, pool)}
    assert {pool[i].action for i in r.applicable} <= live
    assert len(live) < len(pool)  # the pruning prunes: PUTBACK onto a room never applies


def test_distance_of_an_atom_no_action_adds_is_never() -> None:
    """A hand-made case: ``q(b)`` needs ``p(b)``, which nothing adds."""

    ops = [operator("mk", "(?x - obj)", pre="(p ?x)", eff="(q ?x)")]
    domain = Domain("t", {"obj": None}, {"p": ("obj",), "q": ("obj",)}, {o.name: o for o in ops})
    # p(a) a static property, p(b) false
    world = World(
        domain,
        {"a": frozenset({"obj"}), "b": frozenset({"obj"})},
        frozenset({Atom("p", (Const("a"),))}),
    )
    start: State = frozenset()
    pool = ground_actions(world)
    lay = relaxed_layers(world, start, pool, layers=10)
    acts = _acts(world)
    assert lay.settled
    assert lay.distance([Atom("q", (Const("a"),))], pool, acts) == 1
    assert lay.distance([Atom("q", (Const("b"),))], pool, acts) == NEVER
    assert lay.distance([Atom("mk", (Const("a"),))], pool, acts) == 1
    assert lay.distance([Atom("mk", (Const("b"),))], pool, acts) == NEVER


def test_a_repeated_action_atom_is_one_action() -> None:
    """``mk(a)`` twice in a goal is ``mk(a)`` once: one action away."""
    ops = [operator("mk", "(?x - obj)", pre="(p ?x)", eff="(q ?x)")]
    domain = Domain("t", {"obj": None}, {"p": ("obj",), "q": ("obj",)}, {o.name: o for o in ops})
    world = World(domain, {"a": frozenset({"obj"})}, frozenset({Atom("p", (Const("a"),))}))
    pool = ground_actions(world)
    lay = relaxed_layers(world, frozenset(), pool, layers=10)
    mk = Atom("mk", (Const("a"),))
    assert lay.distance([mk], pool, _acts(world)) == 1
    assert lay.distance([mk, mk], pool, _acts(world)) == 1
