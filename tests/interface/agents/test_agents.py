"""The built-in agents: registry, each module's answer scored by that module's evaluator,
the planner's independence from the gold plan, determinism, thread safety and typed
failures."""

from __future__ import annotations

import dataclasses
import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.interface.agents import (
    AGENTS,
    MODULES,
    AgentError,
    GoldAgent,
    PlannerAgent,
    builtin_agent,
)
from planproof.interface.agents.planner import DEFAULT_MAX_STEPS, gave_up_reason, no_plan_answer
from planproof.interface.agents.planning import action_names, state_goal
from planproof.interface.goals import parse_goal
from planproof.interface.responses import parse_actions
from planproof.interface.subgoals import parse_subgoals, subgoals_from_plan
from planproof.ltl.ast import Atom, Const, walk
from planproof.ltl.options import GoalOptions
from planproof.ltl.printer import to_text
from planproof.metrics.action_sequencing import evaluate_response
from planproof.metrics.goal_interpretation import evaluate_goal_response, summarize
from planproof.metrics.subgoal_decomposition import evaluate_subgoal_response
from planproof.metrics.subgoal_decomposition import gold_response as sd_gold_response
from planproof.simulators.core import Action, GoalParts, Task
from tests.helpers import jumping_clock
from tests.interface.agents.helpers import by_key, key

AS, SD, GI, TM = (
    "action-sequencing",
    "subgoal-decomposition",
    "goal-interpretation",
    "transition-modeling",
)
SLOW = settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _both(vh: tuple[Task, ...], bh: tuple[Task, ...]) -> tuple[Task, ...]:
    return (*vh, *bh)


# -- registry -------------------------------------------------------------------------


def test_registry() -> None:
    assert set(AGENTS) == {"planner", "gold"}
    planner, gold = builtin_agent("planner"), builtin_agent("gold")
    assert isinstance(planner, PlannerAgent) and planner.name == "planner"
    assert isinstance(gold, GoldAgent) and gold.name == "gold"
    assert builtin_agent("planner") is not planner  # a fresh instance per run
    assert builtin_agent("openai/gpt-4o-mini") is None
    assert builtin_agent("Planner") is None


@pytest.mark.data
@pytest.mark.parametrize("module", ["", "action sequencing", "goal_interpretation"])
def test_unknown_module_is_a_typed_error(virtualhome_tasks: tuple[Task, ...], module: str) -> None:
    for agent in (PlannerAgent(), GoldAgent()):
        with pytest.raises(AgentError) as err:
            agent.answer(virtualhome_tasks[0], module)
        assert err.value.kind == "unsupported"
        assert all(m in err.value.message for m in MODULES)


# -- goal interpretation --------------------------------------------------------------


@pytest.mark.data
def test_goal_answers_score_f1_100(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...]
) -> None:
    agent = PlannerAgent()
    for tasks in (virtualhome_tasks, behavior_tasks):
        results = [evaluate_goal_response(t, agent.answer(t, GI), logic=False) for t in tasks]
        summary = summarize(results)["goal_evaluation"]
        assert summary["overall"]["f1"] == 100.0, [
            (r.identifier, r.missed, r.extra) for r in results if r.total.fn or r.total.fp
        ]
        assert summary["perfect_tasks"] == len(tasks)
        assert all(not r.issues and r.parse_error is None for r in results)


@pytest.mark.data
@SLOW
@given(data=st.data())
def test_goal_answer_round_trips_to_the_gold_goal(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...], data: st.DataObject
) -> None:
    """Read back with the goal parser, the answer is the first option of the task's state
    goal and one action per action goal, each an alternative of that goal."""
    task = data.draw(st.sampled_from(_both(virtualhome_tasks, behavior_tasks)))
    answer = PlannerAgent().answer(task, GI)
    assert json.loads(answer)  # plain JSON, as the prompt asks
    parsed = parse_goal(answer, task.world)
    assert parsed.ok and not parsed.issues
    states = [i.candidates[0] for i in parsed.items if i.kind != "action"]
    actions = [i.candidates[0].atom.pred for i in parsed.items if i.kind == "action"]
    parts = task.parts
    world = task.world
    goal = GoalOptions(state_goal(task), world.universe, action_names(world), minimal=True)
    first = next(iter(goal.options()), None)
    assert set(states) == (set(first.literals) if first is not None else set())
    assert len(states) == len(set(states))
    assert len(actions) == len(parts.actions)
    for name, g in zip(actions, parts.actions, strict=True):
        assert name in {a.pred for a in walk(g) if isinstance(a, Atom)}


# -- action sequencing: the planner reads the goal, not the gold ------------------------


@pytest.mark.data
@SLOW
@given(data=st.data())
def test_planner_never_reads_the_gold_plan(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...], data: st.DataObject
) -> None:
    """The same task with its gold plan replaced (dropped, reversed or garbled) gets the
    same action-sequencing and subgoal answers."""
    task = data.draw(st.sampled_from(_both(virtualhome_tasks, behavior_tasks)))
    fake = data.draw(
        st.sampled_from([(), tuple(reversed(task.gold)), (Action("WALK", ("nowhere.0",)),) * 3])
    )
    twin = dataclasses.replace(task, gold=fake)
    try:
        answers = [PlannerAgent().answer(t, m) for t in (task, twin) for m in (AS, SD)]
    except AgentError as exc:
        assert exc.kind == "unsolvable"
        with pytest.raises(AgentError):
            PlannerAgent().answer(twin, AS)
        return
    assert answers[:2] == answers[2:]


@pytest.mark.data
def test_answers_are_deterministic_and_thread_safe(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...]
) -> None:
    """One agent answering from eight threads at once (the runner's pattern) gives what
    a fresh agent gives sequentially, for every module."""
    tasks = [*virtualhome_tasks[::40], *behavior_tasks[::17]]
    jobs = [(t, m) for t in tasks for m in (AS, SD, GI)]

    def safe(agent: PlannerAgent, t: Task, m: str) -> str:
        try:
            return agent.answer(t, m)
        except AgentError as exc:
            return f"error {exc.kind}"

    shared = PlannerAgent()
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(lambda j: safe(shared, *j), jobs))
    fresh = PlannerAgent()
    assert parallel == [safe(fresh, t, m) for t, m in jobs]
    assert not any(a.startswith("error") for a in parallel)


@pytest.mark.data
def test_action_goals_are_performed(virtualhome_tasks: tuple[Task, ...]) -> None:
    """VirtualHome action goals (``lookat or watch`` of anything, ``sleep``) must happen:
    the plan performs one alternative of each, executably."""
    agent = PlannerAgent()
    tasks = [t for t in virtualhome_tasks if t.parts.actions][::6]
    assert tasks
    for t in tasks:
        plan = parse_actions(agent.answer(t, AS), "virtualhome").actions
        done = {a.name.lower() for a in plan}
        for g in t.parts.actions:
            assert done & {a.pred for a in walk(g) if isinstance(a, Atom)}, key(t)
        assert evaluate_response(t, agent.answer(t, AS), "virtualhome").success


@pytest.mark.data
def test_goal_already_true_gets_one_harmless_action(virtualhome_tasks: tuple[Task, ...]) -> None:
    """An empty plan is no answer (a parsing error); a task whose goal already holds gets
    one executable action that keeps it."""
    trivial = [t for t in virtualhome_tasks if not len(t.parts)]
    assert trivial
    for t in trivial:
        text = PlannerAgent().answer(t, AS)
        result = evaluate_response(t, text, "virtualhome")
        assert result.success and result.steps == 1, (key(t), text)


# -- typed failures ---------------------------------------------------------------------


@pytest.mark.data
def test_impossible_goal_is_unsolvable(virtualhome_tasks: tuple[Task, ...]) -> None:
    task = by_key(virtualhome_tasks, "27_2")
    room = next(o for o in task.world.universe.names if "room" in task.world.universe.types_of(o))
    impossible = dataclasses.replace(
        task,
        parts=GoalParts(states=(Atom("open", (Const(room),)),)),
        goal=Atom("open", (Const(room),)),
    )
    agent = PlannerAgent()
    for module in (AS, SD):
        with pytest.raises(AgentError) as err:
            agent.answer(impossible, module)
        assert err.value.kind == "unsolvable"
        assert task.identifier in err.value.message


@pytest.mark.data
def test_a_small_budget_gives_up_and_the_answer_says_so(behavior_tasks: tuple[Task, ...]) -> None:
    """The planner's limit is work (simulated steps), so a tiny budget gives up on the
    same task every time, and its answer is the "gave up" answer, never a plan."""
    task = by_key(behavior_tasks, "packing_picnics")
    with pytest.raises(AgentError) as err:
        PlannerAgent(max_steps=3).answer(task, AS)
    assert err.value.kind == "gave-up"
    assert "more than 3 simulated steps" in err.value.message
    answer = no_plan_answer(AS, err.value.message)
    assert gave_up_reason(answer) == err.value.message
    assert gave_up_reason(PlannerAgent().answer(task, AS)) is None
    with pytest.raises(ValueError):
        PlannerAgent(max_steps=0)


@pytest.mark.data
def test_the_verdict_does_not_depend_on_the_clock(
    behavior_tasks: tuple[Task, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine so loaded that a minute passes between two reads of the clock: the
    planner's answers (a plan, or giving up under a small budget) are the same."""
    tasks = [by_key(behavior_tasks, k) for k in ("packing_picnics", "cleaning_the_pool")]

    def answers() -> list[str]:
        out = []
        for t in tasks:
            for budget in (5, DEFAULT_MAX_STEPS):
                try:
                    out.append(PlannerAgent(max_steps=budget).answer(t, AS))
                except AgentError as exc:
                    out.append(f"{exc.kind}: {exc.message}")
        return out

    idle = answers()
    slow = jumping_clock(monkeypatch, 60.0)
    assert answers() == idle
    assert slow[0] > 0  # the slowed clock was read
    assert any(a.startswith("gave-up") for a in idle)
    assert any(gave_up_reason(a) is None and not a.startswith("gave-up") for a in idle)


# -- subgoal decomposition --------------------------------------------------------------


@pytest.mark.data
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_subgoals_come_from_the_planned_plan_and_succeed(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...], data: st.DataObject
) -> None:
    """The subgoal answer is the state trajectory of the action-sequencing plan, reads
    back without error, and refines to a successful plan wherever that plan succeeds."""
    task = data.draw(st.sampled_from(_both(virtualhome_tasks, behavior_tasks)))
    agent = PlannerAgent()
    try:
        plan_text = agent.answer(task, AS)
    except AgentError:
        with pytest.raises(AgentError):
            agent.answer(task, SD)
        return
    answer = agent.answer(task, SD)
    plan = parse_actions(plan_text, task.dataset).actions
    assert json.loads(answer) == {"output": [to_text(f) for f in subgoals_from_plan(task, plan)]}
    assert parse_subgoals(answer, task.world).ok
    assert evaluate_subgoal_response(task, answer).trajectory.success


# -- transition modeling ----------------------------------------------------------------


@pytest.mark.data
def test_operator_answers_are_the_gold_operators(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...]
) -> None:
    from planproof.metrics.transition_modeling.evaluate import evaluate_task
    from planproof.pddl.eai import load_eai_pddl

    agent = PlannerAgent()
    for tasks in (virtualhome_tasks, behavior_tasks):
        data = load_eai_pddl(tasks[0].dataset)
        covered = [t for t in tasks if t.identifier in data.task_actions]
        for t in covered[::25]:
            answer = agent.answer(t, TM)
            assert answer == GoldAgent().answer(t, TM)
            result = evaluate_task(data, t.identifier, answer, run_planner=False)
            assert not result.format_error and not result.hallucinated
            assert all(s.fp == s.fn == 0 for s in result.scores), t.identifier
        missing = [t for t in tasks if t.identifier not in data.task_actions]
        for t in missing[:3]:
            with pytest.raises(AgentError) as err:
                agent.answer(t, TM)
            assert err.value.kind == "unsupported"


# -- the gold agent -------------------------------------------------------------------


@pytest.mark.data
def test_gold_agent_answers_with_the_gold(
    virtualhome_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...]
) -> None:
    gold = GoldAgent()
    for t in (*virtualhome_tasks[::30], *behavior_tasks[::10]):
        plan = parse_actions(gold.answer(t, AS), t.dataset)
        assert plan.error is None
        assert [(a.name.upper(), a.args) for a in plan.actions] == [
            (a.name.upper(), a.args) for a in t.gold
        ]
        assert gold.answer(t, SD) == sd_gold_response(t)
        assert gold.answer(t, GI) == PlannerAgent().answer(t, GI)
    no_gold = dataclasses.replace(virtualhome_tasks[0], gold=())
    with pytest.raises(AgentError) as err:
        gold.answer(no_gold, AS)
    assert err.value.kind == "no-gold"


_DIGEST = """
import hashlib, sys
from planproof.interface.agents import AgentError, PlannerAgent
from planproof.simulators.behavior.tasks import load_behavior_tasks

tasks = load_behavior_tasks()[::12]
h = hashlib.sha256()
for t in tasks:
    for m in ("action-sequencing", "subgoal-decomposition"):
        try:
            h.update(PlannerAgent().answer(t, m).encode())
        except AgentError as exc:
            h.update(exc.kind.encode())
print(h.hexdigest())
"""


@pytest.mark.data
def test_answers_do_not_depend_on_the_hash_seed(eai_wheel: object) -> None:
    """Set iteration order changes with ``PYTHONHASHSEED``; the answers must not."""
    import os
    import subprocess
    import sys

    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _DIGEST],
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            text=True,
        )
        for seed in ("1", "2")
    ]
    outs = [r.communicate(timeout=120)[0].strip() for r in runs]
    assert all(r.returncode == 0 for r in runs)
    assert outs[0] == outs[1] and len(outs[0]) == 64
