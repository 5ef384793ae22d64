"""The probe of the subgoal search (``search._probe``, after ``PROBE_EXPANSIONS``
expansions) keeps the plain search's verdict: same status, path, states and expanded
count, except ``unreachable`` where the plain search says ``limit`` or ``unreachable``.

The goals here are chosen to outlast the probe's threshold (random conjunctions over
random tiny worlds; on VirtualHome, atoms of states three or four actions away and two
hands holding one object); each test counts the probes that ran and the verdicts they
gave, so that the comparison is not vacuous.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import planproof.simulators.core.search as search_module
from planproof.ltl.ast import And, Atom, Const, Formula, Not
from planproof.pddl.schema import Domain
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core.replay import action_atom
from planproof.simulators.core.search import (
    PROBE_EXPANSIONS,
    SearchResult,
    focus_objects,
)
from planproof.simulators.core.world import World
from tests.simulators.random_domains import Toy, fluent_atoms, reachable, toys
from tests.simulators.test_search_speed import pruned_and_plain

AGENT = "character.65"


@contextmanager
def _counting_probes() -> Iterator[list[Any]]:
    """Every verdict ``_probe`` returns while the block runs (the real function runs)."""
    real: Callable[..., Any] = search_module._probe
    seen: list[Any] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        seen.append(out[1])
        return out

    search_module._probe = counted
    try:
        yield seen
    finally:
        search_module._probe = real


def _agree(pruned: SearchResult, plain: SearchResult, f: Formula) -> None:
    if pruned.status == "unreachable":
        assert plain.status in ("unreachable", "limit"), (f, pruned, plain)
    else:
        assert pruned == plain, f


def _toy_goal(toy: Toy, rng: random.Random) -> Formula:
    """A conjunction of 1-4 literals: atoms new in one of the farthest states the world
    reaches (mostly), random fluent atoms, static properties, negations of atoms of the
    start, an action atom or its negation now and then (the negation of the action that
    led to the chosen state: met one step later by any action)."""
    r = reachable(toy.world, toy.start, toy.pool, max_states=300)
    deepest = max(r.depth.values())
    far = sorted(
        (s for s, d in r.depth.items() if d >= deepest - 1), key=lambda s: sorted(map(str, s))
    )
    chosen = rng.choice(far)
    source = sorted(chosen - toy.start, key=str)
    into = sorted(
        {toy.pool[i].action for s, i, nxt in r.edges if nxt == chosen and s != chosen}, key=str
    )
    atoms = fluent_atoms(toy.world)
    statics = [Atom("s", (Const(o),)) for o in sorted(toy.world.universe.type_index)]
    old = sorted(toy.start, key=str)
    parts: list[Formula] = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.5 and source:
            parts.append(rng.choice(source))
        elif roll < 0.6:
            parts.append(rng.choice(atoms))
        elif roll < 0.7:
            parts.append(rng.choice(statics))
        elif roll < 0.8 and old:
            parts.append(Not(rng.choice(old)))
        elif roll < 0.9 and into:
            parts.append(Not(action_atom(rng.choice(into))))
        elif toy.pool:
            act = action_atom(rng.choice(toy.pool).action)
            parts.append(act if rng.random() < 0.5 else Not(act))
    if not parts:
        parts.append(rng.choice(atoms))
    return And(tuple(parts)) if len(parts) > 1 else parts[0]


def _compare_on_random_worlds(examples: int) -> tuple[list[str], set[str]]:
    """The probe's verdicts (``search on`` when it left the goal to the search) and the
    plain search's statuses where the probe ran, over ``examples`` random worlds and
    goals."""
    verdicts: list[str] = []
    statuses: set[str] = set()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
    )
    @given(
        toys(objects=3, free=3),
        st.integers(0, 10_000),
        st.integers(4, 7),
        st.sampled_from([60, 300]),
    )
    def check(toy: Toy, seed: int, depth: int, max_states: int) -> None:
        f = _toy_goal(toy, random.Random(seed))
        with _counting_probes() as seen:
            pruned, plain = pruned_and_plain(toy.world, toy.start, f, depth, max_states)
        _agree(pruned, plain, f)
        if seen:  # the probe ran: the plain search expanded at least as many states
            assert plain.expanded >= PROBE_EXPANSIONS
            statuses.add(plain.status)
            verdicts.extend(v.status if v is not None else "search on" for v in seen)

    check()
    return verdicts, statuses


def test_probe_keeps_the_plain_verdict_on_random_worlds() -> None:
    verdicts, statuses = _compare_on_random_worlds(examples=150)
    # the probe ran often, settled some goals and left others to the search
    assert len(verdicts) >= 15, verdicts
    assert "unreachable" in verdicts and "search on" in verdicts, verdicts
    assert "reached" in statuses, statuses


# --------------------------------------------------------------------- VirtualHome


def _tasks() -> tuple[Any, ...]:
    from tests.simulators.test_search_speed import _tasks as small_tasks

    return small_tasks()


def _far_goals(task: Any, rng: random.Random) -> list[Formula]:
    """Atoms that first hold together three or four actions from the start (focus on
    one object, so the exhaustive listing stays small), and the same object in both
    hands (mutually exclusive)."""
    world, start = task.world, task.initial
    objs = sorted(o for o in world.universe.type_index if o != AGENT)
    obj = rng.choice(objs)
    pool = tuple(
        b
        for b in search_module.ground_actions(world)
        if set(b.action.args) <= {obj, rng.choice(objs)}
    )
    r = reachable(world, start, pool, max_depth=4, max_states=3000)
    far = [s for s, d in r.depth.items() if d >= 3]
    out: list[Formula] = []
    for s in rng.sample(far, min(2, len(far))):
        new = sorted(s - start, key=str)
        out.append(And(tuple(rng.sample(new, min(len(new), 3)))))
    grabbable = sorted(a.args[0].name for a in world.static if a.pred == "grabbable")
    if grabbable:
        o = Const(rng.choice(grabbable))
        out.append(And((Atom("holds_rh", (Const(AGENT), o)), Atom("holds_lh", (Const(AGENT), o)))))
    return out


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_probe_keeps_the_plain_verdict_on_virtualhome() -> None:
    probes: list[Any] = []
    compared = 0

    for seed in range(16):
        rng = random.Random(seed)
        depth, max_states = rng.choice([4, 6]), rng.choice([60, 300])
        task = rng.choice(_tasks())
        for f in _far_goals(task, rng):
            focus = focus_objects(task.world, f, task.initial)
            with _counting_probes() as seen:
                pruned, plain = pruned_and_plain(
                    task.world, task.initial, f, depth, max_states, focus=focus
                )
            _agree(pruned, plain, f)
            probes.extend(seen)
            compared += 1
    assert compared >= 15
    assert len(probes) >= 8, probes
    assert any(p is None for p in probes)  # goals left to the search
    assert any(p is not None and p.status == "unreachable" for p in probes)  # and settled


# ------------------------------------------------------------------- last level


def test_a_negated_action_literal_is_met_by_any_next_move() -> None:
    """``p(a) and not set(a)``: ``set(a)`` makes ``p(a)`` true, but the goal then fails
    as ``set(a)`` is the last action; ``look(a)``, which changes nothing, satisfies it
    next. The plain search finds [set(a), look(a)] within depth 2."""
    ops = [
        operator("set", "(?x - obj)", eff="(p ?x)"),
        operator("look", "(?x - obj)", pre="(p ?x)"),
    ]
    domain = Domain("t", {"obj": None}, {"p": ("obj",)}, {o.name: o for o in ops})
    world = World(domain, {"a": frozenset({"obj"})})
    a = Const("a")
    f = And((Atom("p", (a,)), Not(Atom("set", (a,)))))
    pruned, plain = pruned_and_plain(world, frozenset(), f, 2, 50)
    assert plain.status == "reached"
    assert [x.name for x in plain.actions] == ["set", "look"]
    assert pruned == plain


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_a_goal_naming_its_action_twice_is_reached() -> None:
    """Task 11_1: "the lamp on, and touched, and touched" is find, switchon, touch; the
    plain search reaches it after 13 expansions, and the probe must not call it
    unreachable."""
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    task = next(t for t in load_virtualhome_tasks() if t.identifier == "11_1")
    lamp = (Const("floor_lamp.1000"),)
    f = And((Atom("on", lamp), Atom("touch", lamp), Atom("touch", lamp)))
    pruned, plain = pruned_and_plain(task.world, task.initial, f, 6, 500)
    assert [a.name for a in plain.actions] == ["find", "switchon", "touch"]
    assert pruned == plain
