"""The subgoal search's shortcuts give the plain search's verdicts.

- The shortcuts (lower bounds, the relaxation's pruning, mutually exclusive atoms) are
  sound: the search with them gives the plain breadth-first search's verdict (path and
  expanded count included), except that a goal they prove out of reach is
  ``unreachable`` where the plain search may have stopped at ``limit`` first.
- Successors computed on atom keys, with twin operators (WALK/RUN) sharing one, are the
  states :meth:`World.effects` defines.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import And, Atom, Const, Formula
from planproof.ltl.trace import State
from planproof.simulators.core import Task
from planproof.simulators.core.search import (
    SearchResult,
    _landmark_bound,
    _moves,
    _successors,
    _view,
    focus_objects,
    formula_goal,
    ground_actions,
    search,
)
from planproof.simulators.core.search_bound import NEVER, lower_bound
from planproof.simulators.core.world import World
from planproof.simulators.virtualhome import load_virtualhome_tasks

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]

AGENT = "character.65"


@cache
def _tasks() -> tuple[Task, ...]:
    tasks = load_virtualhome_tasks()
    # small worlds keep the plain searches of this file cheap
    return tuple(t for t in tasks if len(t.world.universe.type_index) <= 10)[:12]


def pruned_and_plain(
    world: World, start: State, f: Formula, depth: int, max_states: int, *, focus: object = None
) -> tuple[SearchResult, SearchResult]:
    """The search for ``f`` with its shortcuts and without (``prune=False``)."""
    runs = [
        search(
            world,
            start,
            formula_goal(world, f),
            depth=depth,
            max_states=max_states,
            heuristic_of=f,
            focus=focus,  # type: ignore[arg-type]
            prune=prune,
        )
        for prune in (True, False)
    ]
    return runs[0], runs[1]


def _verdicts(
    task: Task, f: Formula, depth: int, max_states: int
) -> tuple[SearchResult, SearchResult]:
    world, start = task.world, task.initial
    return pruned_and_plain(
        world, start, f, depth, max_states, focus=focus_objects(world, f, start)
    )


def _objects(task: Task) -> list[str]:
    return sorted(o for o in task.world.universe.type_index if o != AGENT)


def _goals(task: Task, rng: random.Random) -> list[Formula]:
    """Subgoals of the kinds that reach the bound: several objects onto one receptacle,
    two action atoms, the character inside an object that is no room; and random
    conjunctions of the world's fluents."""
    objs = _objects(task)
    on = rng.choice(objs)
    out: list[Formula] = [
        And(tuple(Atom("ontop", (Const(o), Const(on))) for o in objs if o != on)[:4]),
        And((Atom("grab", (Const(objs[0]),)), Atom("grab", (Const(objs[-1]),)))),
        Atom("inside", (Const(AGENT), Const(on))),
    ]
    preds = sorted(task.world.domain.fluents)
    for _ in range(3):
        parts = []
        for _ in range(rng.randint(1, 4)):
            p = rng.choice(preds)
            arity = len(task.world.domain.predicates[p])
            args = [AGENT] + [rng.choice(objs) for _ in range(arity - 1)] if arity else []
            if arity == 1:
                args = [rng.choice(objs)]
            parts.append(Atom(p, tuple(Const(a) for a in args)))
        out.append(And(tuple(parts)) if len(parts) > 1 else parts[0])
    return out


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([3, 4]), st.sampled_from([40, 150]))
def test_pruned_search_gives_the_plain_searchs_verdict(
    seed: int, depth: int, max_states: int
) -> None:
    rng = random.Random(seed)
    task = rng.choice(_tasks())
    for f in _goals(task, rng):
        pruned, plain = _verdicts(task, f, depth, max_states)
        _agree(pruned, plain, f)


def _agree(pruned: object, plain: object, f: Formula) -> None:
    """The contract of the shortcuts (module docstring)."""
    if getattr(pruned, "status", None) == "unreachable":
        assert getattr(plain, "status", None) in ("unreachable", "limit"), f
    else:
        assert pruned == plain, f


def test_the_bound_fires_and_is_exact_on_published_shapes() -> None:
    """The shapes that cost most in the published answers are settled by the bound (so
    the comparison above is not vacuous), with the plain search's verdict."""
    fired = 0
    for task in _tasks()[:6]:
        rng = random.Random(task.identifier)
        for f in _goals(task, rng)[:3]:
            world, start = task.world, task.initial
            focus = focus_objects(world, f, start)
            pool = [b for b in ground_actions(world) if focus.issuperset(b.action.args)]
            if _landmark_bound(world, f, start, pool) > 6:
                fired += 1
                pruned, plain = _verdicts(task, f, 6, 120)
                assert pruned.status == "unreachable"
                assert pruned.expanded == 0  # settled without a search
                assert plain.status in ("limit", "unreachable")
    assert fired >= 6


def test_two_action_atoms_never_hold_together() -> None:
    task = _tasks()[0]
    objs = _objects(task)
    world = task.world
    acts = frozenset(n for n in world.domain.operators if n not in world.domain.predicates)
    pos = [Atom("grab", (Const(objs[0]),)), Atom("grab", (Const(objs[1]),))]
    assert lower_bound(world, pos, task.initial, ground_actions(world), acts, above=6) == NEVER


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_successors_are_the_effects_next_states(seed: int) -> None:
    """Along a random walk, every successor the search computes (twins included) is
    ``(state - deletions) | additions`` of :meth:`World.effects`, and exactly the
    actions whose precondition holds have one."""
    rng = random.Random(seed)
    task = rng.choice(_tasks())
    world = task.world
    pool = ground_actions(world)
    moves = _moves(world, pool)
    assert any(m[5] is not None for m in moves)  # WALK/RUN twins are exercised
    state = task.initial
    for _ in range(3):
        got = {m[0].action: nxt for m, nxt in _successors(world, state, moves)}
        want = {}
        for b in pool:
            if world.precondition_holds(b, state):
                adds, dels, _ = world.effects(b, state)
                want[b.action] = state if adds <= state and not dels else (state - dels) | adds
        assert got == want
        state = rng.choice(list(got.values()))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_carried_key_views_are_the_states_views(seed: int) -> None:
    """Along a random walk, the key view the search carries from a state to its successor
    (:func:`_view`) has the keys and the predicate index :meth:`World.key_facts` builds
    afresh, and the successors computed on it are the same."""
    from planproof.simulators.core.logic import KeyFacts, atom_key

    rng = random.Random(seed)
    task = rng.choice(_tasks())
    world = task.world
    moves = _moves(world, ground_actions(world))
    views: dict[State, KeyFacts] = {}
    before, state = None, task.initial
    for _ in range(6):
        carried = _view(world, state, before, views)
        fresh = KeyFacts(
            {atom_key(a) for a in state} | world.static_keys,
            world.universe,
        )
        assert carried.keys == fresh.keys
        # a predicate whose last atom went keeps an empty entry: with_pred reads it alike
        assert {p: ks for p, ks in carried.index().items() if ks} == fresh.index()
        assert all(carried.with_pred(p) == fresh.with_pred(p) for p in carried.index())
        got = [(m[0].action, nxt) for m, nxt in _successors(world, state, moves, carried)]
        assert got == [(m[0].action, nxt) for m, nxt in _successors(world, state, moves)]
        changed = [nxt for _, nxt in got if nxt != state]
        if not changed:
            break
        before, state = state, rng.choice(changed)


def test_goal_test_of_literals_matches_the_interpreter() -> None:
    """The literal fast path of :func:`formula_goal` reads atoms as ``Facts.holds`` does,
    action atoms included."""
    from planproof.ltl.ast import Not
    from planproof.simulators.core.logic import Facts

    task = _tasks()[0]
    world = task.world
    objs = _objects(task)
    acts = frozenset(n for n in world.domain.operators if n not in world.domain.predicates)
    atoms = [*sorted(task.initial, key=str)[:4], Atom("grab", (Const(objs[0]),))]
    lasts: list[Atom | None] = [
        None,
        Atom("grab", (Const(objs[0]),)),
        Atom("walk", (Const(objs[1]),)),
    ]
    for i in range(1 << len(atoms)):
        f = And(tuple(a if i >> k & 1 else Not(a) for k, a in enumerate(atoms)))
        test = formula_goal(world, f)
        for last in lasts:
            s = task.initial | {last} if last is not None and last.pred in acts else task.initial
            assert test(task.initial, last) == Facts(s, world.static, world.universe).holds(f, {})


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_the_bound_never_exceeds_a_known_path(seed: int) -> None:
    """Soundness: atoms that hold after ``k`` steps of the gold plan are reachable in ``k``
    actions, so the bound for any set of them is at most ``k``."""
    from planproof.simulators.core import replay

    rng = random.Random(seed)
    task = rng.choice(load_virtualhome_tasks())
    world = task.world
    acts = frozenset(n for n in world.domain.operators if n not in world.domain.predicates)
    states = replay(world, task.initial, task.gold).trace.states
    pool = ground_actions(world)
    for k, state in enumerate(states):
        new = sorted(state - task.initial, key=str)
        if not new:
            continue
        goal = rng.sample(new, min(len(new), rng.randint(1, 6)))
        assert lower_bound(world, goal, task.initial, pool, acts, above=0) <= k, goal


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_witness_gives_z3s_verdict(seed: int) -> None:
    """The witness that spares the Z3 query never hides an unsatisfiable subgoal: with
    and without it, :func:`unsatisfiable` answers the same, on conjunctions of the
    exclusive and exhaustive VirtualHome states (the axioms' atoms) and other fluents."""
    from planproof.ltl.ast import Not, Or
    from planproof.metrics.subgoal_decomposition import unsatisfiable

    rng = random.Random(seed)
    task = rng.choice(_tasks())
    objs = _objects(task)
    states = ["closed", "open", "on", "off", "plugged_in", "plugged_out", "clean", "dirty"]

    def conjunction() -> Formula:
        parts: list[Formula] = []
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.7:
                a = Atom(rng.choice(states), (Const(rng.choice(objs)),))
            else:
                a = Atom("next_to", (Const(AGENT), Const(rng.choice(objs))))
            parts.append(Not(a) if rng.random() < 0.3 else a)
        return And(tuple(parts)) if len(parts) > 1 else parts[0]

    f = conjunction()
    if rng.random() < 0.3:  # the witness reads a disjunction of conjunctions too
        f = Or((f, conjunction()))
    assert unsatisfiable(task, f, near=task.initial) == unsatisfiable(task, f)


def test_witness_leaves_unsatisfiable_subgoals_to_z3() -> None:
    from planproof.metrics.subgoal_decomposition import unsatisfiable

    task = _tasks()[0]
    o = Const(_objects(task)[0])
    both = And((Atom("on", (o,)), Atom("off", (o,))))
    assert unsatisfiable(task, both, near=task.initial)
    assert not unsatisfiable(task, Atom("on", (o,)), near=task.initial)
