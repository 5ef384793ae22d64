"""A module summary's figures under the paper's metric names, in percent: the one
mapping from planproof's (and the reference's) summary keys to the paper's tables, read
by the published sweep, the reference readings and the reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["TM_CATEGORIES", "figures"]

TM_CATEGORIES: tuple[str, ...] = (
    "object_states",
    "object_orientation",
    "object_affordance",
    "spatial_relations",
    "non_spatial_relations",
)
"""Transition-modeling categories as the paper's tables name them (planproof's data
spell the last ``non-spatial_relations``)."""


def _pct(value: object, scale: float = 1.0) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return round(float(value) * scale, 4)


def _dig(doc: Mapping[str, Any], *path: str) -> object:
    cur: object = doc
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


_TRAJECTORY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("task_success", ("goal_evaluation", "task_success_rate")),
    ("execution_success", ("trajectory_evaluation", "execution_success_rate")),
    ("parsing", ("trajectory_evaluation", "grammar_error", "parsing")),
    ("hallucination", ("trajectory_evaluation", "grammar_error", "hallucination")),
    ("argument_count", ("trajectory_evaluation", "grammar_error", "predicate_argument_number")),
    ("wrong_order", ("trajectory_evaluation", "runtime_error", "wrong_order")),
    ("missing_step", ("trajectory_evaluation", "runtime_error", "missing_step")),
    ("affordance", ("trajectory_evaluation", "runtime_error", "affordance_error")),
    ("additional_step", ("trajectory_evaluation", "runtime_error", "additional_step")),
    ("goal_state", ("goal_evaluation", "state_goal")),
    ("goal_relation", ("goal_evaluation", "relation_goal")),
    ("goal_action", ("goal_evaluation", "action_goal")),
    ("goal_total", ("goal_evaluation", "total_goal")),
)
"""Paper metric name ← path in an action-sequencing / subgoal-decomposition summary
(the same keys the reference's ``summary.json`` uses)."""


def figures(module: str, summary: Mapping[str, Any]) -> dict[str, float]:
    """A module summary's figures under the paper's metric names
    (:mod:`planproof.data.paper_eai`), in percent; absent figures are left out."""
    out: dict[str, float | None] = {}
    if module == "goal-interpretation":
        for kind in ("state", "relation", "action", "overall"):
            for m in ("precision", "recall", "f1"):
                out[f"{kind}_{m}"] = _pct(_dig(summary, "goal_evaluation", kind, m))
    elif module in ("action-sequencing", "subgoal-decomposition"):
        for name, path in _TRAJECTORY:
            out[name] = _pct(_dig(summary, *path))
    elif module == "transition-modeling":
        for cat in TM_CATEGORIES:
            raw = cat.replace("non_spatial", "non-spatial")
            for m in ("precision", "recall", "f1"):
                out[f"{cat}_{m}"] = _pct(_dig(summary, "by_category", raw, m), 100.0)
            out[f"{cat}_planner_success"] = _pct(
                _dig(summary, "planner_by_category", raw, "planner_found"), 100.0
            )
    return {k: v for k, v in out.items() if v is not None}
