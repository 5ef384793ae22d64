"""Mutually exclusive atoms (``planproof.simulators.core.mutex``): a yes is never wrong.

``exclusive(p, q, start, pool)`` answering True claims that no state the pool's actions
reach from ``start`` holds both; the exhaustive breadth-first search of random tiny worlds
and of small real VirtualHome worlds (depth-bounded there) looks for such a state.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import And, Atom, Const
from planproof.simulators.core import Task
from planproof.simulators.core.mutex import exclusive, mutex_pair
from planproof.simulators.core.search import ground_actions
from tests.simulators.random_domains import Toy, fluent_atoms, reachable, toys
from tests.simulators.test_search_speed import pruned_and_plain

AGENT = "character.65"


@settings(max_examples=200, deadline=None)
@given(toys(), st.integers(0, 1000))
def test_exclusive_atoms_never_hold_together_on_random_worlds(toy: Toy, seed: int) -> None:
    """Fluent atoms and the static property ``s`` of each object (true in every state
    or in none): a pair called exclusive never holds together in a reachable state."""
    r = reachable(toy.world, toy.start, toy.pool)
    assert r.complete
    static = toy.world.static
    atoms = fluent_atoms(toy.world) + [
        Atom("s", (Const(o),)) for o in sorted(toy.world.universe.type_index)
    ]
    holding = [s | static for s in r.depth]
    together = {(p, q) for s in holding for p in s for q in s}
    for i, p in enumerate(atoms):
        for q in atoms[i + 1 :]:
            if exclusive(p, q, toy.start | static, toy.pool):
                assert (p, q) not in together, (p, q)
    rng = random.Random(seed)
    for _ in range(5):
        pos = rng.sample(atoms, min(len(atoms), rng.randint(2, 4)))
        if mutex_pair(pos, toy.start, toy.pool, static=static):
            assert not any(s.issuperset(pos) for s in holding), pos


def test_exclusive_says_yes_on_random_worlds() -> None:
    """The property above is not vacuous: over the same kind of worlds, some pairs of
    atoms that are each reachable are proven exclusive."""
    found = 0

    @settings(max_examples=150, deadline=None, database=None, derandomize=True)
    @given(toys())
    def count(toy: Toy) -> None:
        nonlocal found
        r = reachable(toy.world, toy.start, toy.pool)
        seen = frozenset().union(*r.depth)
        atoms = sorted(seen, key=str)
        for i, p in enumerate(atoms):
            for q in atoms[i + 1 :]:
                found += exclusive(p, q, toy.start, toy.pool)

    count()
    assert found >= 10


def _holds(hand: str, obj: str) -> Atom:
    return Atom(hand, (Const(AGENT), Const(obj)))


@cache
def _two_controllers() -> Task:
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    return next(t for t in load_virtualhome_tasks() if t.identifier == "160_1")


CONTROLLERS = ("controller.1000", "controller.1001")


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_one_object_in_both_hands_is_exclusive_two_objects_are_not() -> None:
    """The motivating case: GRAB puts an object in one hand only, so the same remote is
    never in both; one remote per hand is reachable (the search below finds it in four
    actions), and ``exclusive`` must say no."""
    task = _two_controllers()
    world, start = task.world, task.initial
    pool = tuple(b for b in ground_actions(world) if set(b.action.args) <= set(CONTROLLERS))
    a, b = CONTROLLERS
    assert exclusive(_holds("holds_rh", a), _holds("holds_lh", a), start, pool)
    assert mutex_pair(
        [_holds("holds_rh", a), _holds("holds_lh", a)],
        start,
        ground_actions(world),
        static=world.static,
    )
    r = reachable(world, start, pool, max_depth=4)
    for p, q in (
        (_holds("holds_rh", a), _holds("holds_lh", b)),
        (_holds("holds_rh", b), _holds("holds_lh", a)),
    ):
        assert any(p in s and q in s for s in r.depth)  # reachable
        assert not exclusive(p, q, start, pool)
        assert not mutex_pair([p, q], start, ground_actions(world), static=world.static)
    assert not any(
        _holds("holds_rh", o) in s and _holds("holds_lh", o) in s
        for s in r.depth
        for o in CONTROLLERS
    )


@cache
def _grab_tasks() -> tuple[Task, ...]:
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    out = []
    for t in load_virtualhome_tasks():
        grabbable = [a for a in t.world.static if a.pred == "grabbable"]
        if len(grabbable) >= 2 and len(t.world.universe.type_index) <= 10:
            out.append(t)
    return tuple(out[:10])


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000))
def test_no_pair_seen_together_is_called_exclusive_on_virtualhome(seed: int) -> None:
    """Every pair of atoms that hold together in a state within three actions of the
    start (actions over two grabbable objects and a receptacle) is not exclusive."""
    rng = random.Random(seed)
    task = rng.choice(_grab_tasks())
    world, start = task.world, task.initial
    objs = sorted(a.args[0].name for a in world.static if a.pred == "grabbable")
    keep = set(rng.sample(objs, 2)) | {rng.choice(sorted(world.universe.type_index))}
    pool = tuple(b for b in ground_actions(world) if keep.issuperset(b.action.args))
    r = reachable(world, start, pool, max_depth=3)
    assert len(r.depth) > 10  # not a trivial space (seed 8436 gives 20 states)
    pairs = sorted({(p, q) for s in r.depth for p in s - start for q in s if p != q}, key=str)
    assert pairs
    for p, q in rng.sample(pairs, min(len(pairs), 300)):
        assert not exclusive(p, q, start, pool), (p, q)
        assert not exclusive(q, p, start, pool), (q, p)


# ------------------------------------------------------------ static properties


@cache
def _lamp_task() -> Task:
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    return next(t for t in load_virtualhome_tasks() if t.identifier == "11_1")


LAMP = "floor_lamp.1000"


def _lamp(pred: str) -> Atom:
    return Atom(pred, (Const(LAMP),))


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_two_static_properties_are_not_exclusive() -> None:
    """``has_switch`` and ``movable`` of the floor lamp are static facts of task 11_1:
    they hold in every state, together."""
    task = _lamp_task()
    p, q = _lamp("has_switch"), _lamp("movable")
    assert p in task.world.static and q in task.world.static
    assert not mutex_pair(
        [p, q], task.initial, ground_actions(task.world), static=task.world.static
    )


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_a_subgoal_naming_static_properties_is_reached_with_the_shortcuts() -> None:
    """Task 11_1: "the lamp on, the character in the bathroom, the lamp has a switch and
    is movable" is three actions away (find, switchon, find); the plain search reaches it
    after 28 expansions, the search with shortcuts must too."""
    task = _lamp_task()
    world = task.world
    f = And(
        (
            _lamp("on"),
            Atom("inside", (Const(AGENT), Const("bathroom.1"))),
            _lamp("has_switch"),
            _lamp("movable"),
        )
    )
    pruned, plain = pruned_and_plain(world, task.initial, f, 6, 500)
    assert plain.status == "reached" and len(plain.actions) == 3
    assert pruned == plain


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_a_subgoal_with_an_action_atom_and_a_static_property_is_reached() -> None:
    """Task 11_1: "the lamp on, has a switch, and touched" is find, switchon, touch; the
    plain search reaches it after 13 expansions."""
    task = _lamp_task()
    world = task.world
    f = And((_lamp("on"), _lamp("has_switch"), _lamp("touch")))
    pruned, plain = pruned_and_plain(world, task.initial, f, 6, 500)
    assert [a.name for a in plain.actions] == ["find", "switchon", "touch"]
    assert pruned == plain


def test_an_action_atom_beside_a_static_fact_on_a_tiny_world() -> None:
    """The smallest case the random comparison found: ``rel(c, c)``, ``rel(c, b)``, the
    last action ``op0(b, c)`` and the static ``s(c)``, three actions away."""
    from planproof.ltl.ast import Not
    from planproof.pddl.schema import Domain
    from planproof.pddl.sexpr_io import operator
    from planproof.simulators.core import World

    def a(pred: str, *xs: str) -> Atom:
        return Atom(pred, tuple(Const(x) for x in xs))

    ops = [
        operator("op0", "(?x - obj ?y - obj)", eff="(rel ?x ?x)"),
        operator("free0", "(?x - obj ?y - obj)", eff="(rel ?x ?x)"),
        operator("free1", "(?x - obj ?y - obj)", eff="(rel ?x ?y)"),
        operator("free2", "(?x - obj ?y - obj)", eff="(p ?x)"),
    ]
    preds = {"s": ("obj",), "p": ("obj",), "rel": ("obj", "obj")}
    domain = Domain("t", {"obj": None}, preds, {o.name: o for o in ops})
    world = World(domain, {o: frozenset({"obj"}) for o in "abc"}, frozenset({a("s", "c")}))
    start = frozenset(
        {a("rel", "a", "a"), a("rel", "a", "b"), a("rel", "a", "c"), a("rel", "b", "a")}
        | {a("rel", "b", "c"), a("p", "a"), a("p", "b"), a("p", "c")}
    )
    f = And((a("rel", "c", "c"), a("rel", "c", "b"), a("op0", "b", "c"), a("s", "c")))
    assert not isinstance(f, Not)
    pruned, plain = pruned_and_plain(world, start, f, 4, 60)
    assert plain.status == "reached" and len(plain.actions) == 3
    assert pruned == plain
