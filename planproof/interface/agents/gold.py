"""The ``gold`` agent: the dataset's own answers (the gold goal, the annotated gold script,
the subgoals of the gold script, the gold operators), a sanity baseline for a run: its
scores are what ``planproof evaluate MODULE --gold`` reports."""

from __future__ import annotations

import json

from planproof.interface.agents.base import AgentError, check_module
from planproof.interface.agents.planner import goal_answer, operators_answer, plan_text
from planproof.simulators.core import Task

__all__ = ["GoldAgent"]


class GoldAgent:
    """Answers with the dataset's gold data (stateless, so thread-safe)."""

    name = "gold"

    def answer(self, task: Task, module: str) -> str:
        check_module(module)
        if module == "goal-interpretation":
            return goal_answer(task)
        if module == "transition-modeling":
            return operators_answer(task)
        if not task.gold:
            raise AgentError("no-gold", f"{task.identifier}: the dataset has no gold plan")
        if module == "action-sequencing":
            return plan_text(task, task.gold)
        from planproof.interface.subgoals import subgoals_from_plan
        from planproof.ltl.printer import to_text

        subgoals = subgoals_from_plan(task)
        if not subgoals:
            # e.g. a gold script whose first step is unknown to the world: the evaluator
            # reads an empty list as a parsing error, which is the gold's own score
            return json.dumps({"output": []})
        return json.dumps({"output": [to_text(f) for f in subgoals]})
