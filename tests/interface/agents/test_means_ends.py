"""Properties of the means-ends planner's building blocks on real worlds and reachable
states: its compiled truth test agrees with the simulator's formula interpreter, a repair
is empty exactly when the formula holds and otherwise names only false fluent literals,
and any plan it returns for a random subset of a task's goals replays to that subset."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from planproof.interface.agents import AgentError, PlannerAgent
from planproof.interface.agents.means_ends import MeansEnds, key_of
from planproof.interface.agents.planning import goal_reached
from planproof.interface.responses import parse_actions
from planproof.ltl.ast import Atom, Formula
from planproof.ltl.trace import State
from planproof.simulators.core import GoalParts, Task, replay
from planproof.testing import Vocabulary, state_formulas
from tests.interface.agents.helpers import by_key

PROPERTY = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _vocabulary(task: Task, states: tuple[State, ...]) -> Vocabulary:
    """Predicates and objects that the task's reachable states actually use, so that
    random formulas over them are true and false in interesting proportions."""
    d = task.world.domain
    fluents = {a.pred for s in states for a in s}
    statics = sorted({a.pred for a in task.world.static})[:2]
    preds = tuple(
        sorted(
            (p, len(d.predicates[p]))
            for p in fluents | set(statics)
            if 1 <= len(d.predicates[p]) <= 2
        )
    )
    named = sorted({t.name for s in states[-1:] for a in s for t in a.args})[:5]
    u = task.world.universe
    objects = tuple(
        (o, "object" if i % 2 else sorted(u.types_of(o) - {"object"} or {"object"})[0])
        for i, o in enumerate(named)
    )
    return Vocabulary(predicates=preds, actions=(), objects=objects, variables=("x0", "x1"))


@pytest.fixture(scope="module")
def worlds(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...]
) -> list[tuple[Task, tuple[State, ...], Vocabulary]]:
    """A few tasks with the states along their planned plans."""
    out = []
    for task in (
        by_key(virtualhome_tasks, "27_2"),
        by_key(virtualhome_tasks, "180_1"),
        by_key(behavior_tasks, "bottling_fruit"),
        by_key(behavior_tasks, "chopping_vegetables"),
    ):
        plan = parse_actions(PlannerAgent().answer(task, "action-sequencing"), task.dataset)
        states = replay(task.world, task.initial, plan.actions).trace.states
        out.append((task, states, _vocabulary(task, states)))
    return out


def _case(
    data: st.DataObject, worlds: list[tuple[Task, tuple[State, ...], Vocabulary]]
) -> tuple[Task, State, Formula]:
    task, states, vocab = data.draw(st.sampled_from(worlds))
    state = data.draw(st.sampled_from(states))
    f = data.draw(state_formulas(vocab, counting=False, pairs=False, max_depth=3))
    return task, state, f


@pytest.mark.data
@PROPERTY
@given(data=st.data())
def test_truth_agrees_with_the_interpreter(
    worlds: list[tuple[Task, tuple[State, ...], Vocabulary]], data: st.DataObject
) -> None:
    task, state, f = _case(data, worlds)
    me = MeansEnds(task.world)
    assert me.truth(f, {}, state) == task.world.facts(state).holds(f, {})


@pytest.mark.data
@PROPERTY
@given(data=st.data())
def test_repair_is_empty_exactly_when_the_formula_holds(
    worlds: list[tuple[Task, tuple[State, ...], Vocabulary]], data: st.DataObject
) -> None:
    task, state, f = _case(data, worlds)
    me = MeansEnds(task.world)
    options = me.repair(f, {}, state)
    holds = task.world.facts(state).holds(f, {})
    assert (options == [()]) == holds
    keys = {key_of(a) for a in state}
    fluents = task.world.domain.fluents
    for option in options:
        assert len(set(option)) == len(option)
        for (pred, args), positive in option:
            assert pred in fluents
            assert ((pred, args) in keys) != positive  # only literals that do not hold


@pytest.mark.data
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_plans_for_goal_subsets_replay_to_them(
    virtualhome_tasks: tuple[Task, ...], data: st.DataObject
) -> None:
    """Soundness and (on these easy goals) completeness: a random non-empty subset of a
    task's node and edge goals gets a plan, which executes and reaches that subset."""
    task = data.draw(st.sampled_from([t for t in virtualhome_tasks if len(t.parts) > 1]))
    goals = (*task.parts.states, *task.parts.relations)
    if not goals:
        return
    chosen = data.draw(st.sets(st.sampled_from(goals), min_size=1))
    preds = {g.pred for g in chosen if isinstance(g, Atom)}
    # Known incompleteness (docs/agents.md): a left-hand hold needs the right hand filled.
    assume(not ("holds_lh" in preds and "holds_rh" not in preds))
    sub = dataclasses.replace(
        task,
        parts=GoalParts(states=tuple(g for g in goals if g in chosen)),
        goal=task.goal,
    )
    try:
        text = PlannerAgent().answer(sub, "action-sequencing")
    except AgentError as exc:  # only the task whose whole goal is impossible
        assert task.identifier == "688_1", exc
        return
    plan = parse_actions(text, "virtualhome").actions
    assert goal_reached(sub, replay(sub.world, sub.initial, plan))


@pytest.mark.data
@pytest.mark.xfail(strict=True, reason="means-ends never fills the right hand to free the left")
def test_a_left_hand_hold_alone_is_not_found(virtualhome_tasks: tuple[Task, ...]) -> None:
    """The incompleteness the property test above leaves out, pinned: holding 491_2's
    toothpaste in the left hand alone has a plan (grab the toothbrush, then the toothpaste),
    which the planner does not find. The day it does, this test fails: drop the assume."""
    task = next(t for t in virtualhome_tasks if t.identifier == "491_2")
    lh = tuple(g for g in task.parts.states if isinstance(g, Atom) and g.pred == "holds_lh")
    assert lh
    sub = dataclasses.replace(task, parts=GoalParts(states=lh), goal=task.goal)
    text = PlannerAgent().answer(sub, "action-sequencing")
    assert goal_reached(
        sub, replay(sub.world, sub.initial, parse_actions(text, "virtualhome").actions)
    )
