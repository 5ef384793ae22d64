"""The ``planner`` agent: answers every module with planproof's own symbolic machinery and
no model, as the upper-bound baseline of a run.

* goal interpretation: the task's goal in the prompt's JSON answer form (node, edge and
  action goals of its first goal option);
* action sequencing: a plan found by planning from the initial state to the goal in the
  world's own operator schemas (:func:`planproof.interface.agents.planning.plan_task`;
  never the gold script), rendered in the dataset's response format;
* subgoal decomposition: the subgoals of that planned plan's state trajectory
  (:func:`planproof.interface.subgoals.subgoals_from_plan`);
* transition modeling: the dataset's gold operators for the task.

Plans are cached per task object, so the subgoal answer reuses the action-sequencing plan;
the cache is guarded by a lock (the runner calls :meth:`PlannerAgent.answer` from worker
threads) and planning itself shares nothing between calls.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence

from planproof.interface.agents.base import AgentError, check_module
from planproof.interface.agents.planning import PlanningFailed, PlanOutcome, plan_task
from planproof.simulators.core import Action, Task

__all__ = [
    "DEFAULT_MAX_STEPS",
    "NO_PLAN",
    "PlannerAgent",
    "gave_up_reason",
    "goal_answer",
    "no_plan_answer",
    "operators_answer",
    "plan_text",
]

DEFAULT_MAX_STEPS = 2000
"""Simulated steps per task before the planner gives up (the longest successful search on
the EAI tasks takes under 200; an impossible goal fails within a second or two). A work
budget, never wall-clock time: ``planproof run --agent-budget N`` sets it."""

NO_PLAN = "No plan found (the planner agent gave up): "
"""How a no-plan answer starts (:func:`no_plan_answer`, :func:`gave_up_reason`)."""
_LEGACY_NO_PLAN = "No plan exists: "
"""The same answer as cached by planproof before 0.x named it "gave up"."""


def no_plan_answer(module: str, reason: str) -> str:
    """The planner's answer when it finds no plan within its budget: the marker, the
    reason, then the empty answer of the module's format. It is an answer, not a failed
    call: the runner caches it (a rerun with the same budget does not ask again) and
    counts the task as "agent gave up" -- its own category, never a parsing error and
    never a proof that no plan exists (the search is incomplete)."""
    empty = json.dumps({"output": []}) if module == "subgoal-decomposition" else "{}"
    return f"{NO_PLAN}{reason}\n{empty}"


def gave_up_reason(answer: str) -> str | None:
    """The reason if ``answer`` is the planner's no-plan answer, else None."""
    for marker in (NO_PLAN, _LEGACY_NO_PLAN):
        if answer.startswith(marker):
            return answer[len(marker) :].split("\n", 1)[0]
    return None


def goal_answer(task: Task) -> str:
    """The task's goal as the goal-interpretation prompt asks for it (the JSON of its
    worked example: node goals, edge goals and, in VirtualHome, action goals)."""
    from planproof.interface.prompts.build import goal_json
    from planproof.ltl.errors import LTLError

    try:
        return json.dumps(goal_json(task))
    except LTLError as exc:
        raise AgentError("unsupported", f"{task.identifier}: goal: {exc}") from None


def operators_answer(task: Task) -> str:
    """The dataset's gold operators of the task's actions, as a transition-modeling answer
    (``{"output": "(:action ...)..."}``)."""
    from planproof.data.cache import DataUnavailableError
    from planproof.pddl.eai import load_eai_pddl

    try:
        data = load_eai_pddl(task.dataset)
    except (DataUnavailableError, ValueError) as exc:
        raise AgentError("no-gold", f"{task.dataset}: {exc}") from None
    if task.identifier not in data.task_actions:
        raise AgentError(
            "unsupported",
            f"{task.identifier}: the {task.dataset} data has no transition-modeling problem",
        )
    return data.gold_response(task.identifier)


def plan_text(task: Task, actions: Sequence[Action]) -> str:
    """A plan in the dataset's action-sequencing response format."""
    from planproof.interface.responses import render_behavior, render_virtualhome

    if task.dataset == "virtualhome":
        return render_virtualhome(actions)
    return render_behavior(actions)


class PlannerAgent:
    """Answers with planproof's own machinery (see the module docstring)."""

    name = "planner"

    def __init__(self, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        if max_steps < 1:
            raise ValueError("the planner's budget must be at least one simulated step")
        self.max_steps = max_steps
        self._lock = threading.Lock()
        self._plans: dict[int, tuple[Task, PlanOutcome | AgentError]] = {}

    def plan(self, task: Task) -> PlanOutcome:
        """The plan for ``task`` (planned once per task object); raises
        :class:`AgentError` (``unsolvable`` / ``gave-up``) when there is none."""
        with self._lock:
            hit = self._plans.get(id(task))
        if hit is not None and hit[0] is task:
            result = hit[1]
        else:
            try:
                result = plan_task(task, max_steps=self.max_steps)
            except PlanningFailed as exc:
                result = AgentError(exc.kind, exc.message)
            with self._lock:
                self._plans[id(task)] = (task, result)  # the task is kept: ids stay unique
        if isinstance(result, AgentError):
            raise AgentError(result.kind, result.message)
        return result

    def answer(self, task: Task, module: str) -> str:
        check_module(module)
        if module == "goal-interpretation":
            return goal_answer(task)
        if module == "transition-modeling":
            return operators_answer(task)
        outcome = self.plan(task)
        if module == "action-sequencing":
            return plan_text(task, outcome.actions)
        from planproof.interface.subgoals import subgoals_from_plan
        from planproof.ltl.printer import to_text

        subgoals = subgoals_from_plan(task, outcome.actions)
        if not subgoals:
            raise AgentError("unsolvable", f"{task.identifier}: the plan changes nothing")
        return json.dumps({"output": [to_text(f) for f in subgoals]})
