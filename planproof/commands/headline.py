"""One or two lines of a module summary's headline numbers, for terminal output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NOTHING = "—"
"""How a rate over nothing (null in the JSON) is shown: never as 0.0."""


def rate(v: Any, *, scale: float = 1.0, unit: str = "") -> str:
    """A rate for a table cell (``scale=100`` for fractions); None is ``—``."""
    return NOTHING if v is None else f"{scale * float(v):.1f}{unit}"


def _pct(v: Any) -> str:
    return rate(v, unit=" %")


def headline(module: str, summary: Mapping[str, Any]) -> list[str]:
    """The numbers a reader looks at first, in the paper's terms."""
    if module in ("action-sequencing", "subgoal-decomposition"):
        goal = summary.get("goal_evaluation", {})
        traj = summary.get("trajectory_evaluation", {})
        errors = {**traj.get("grammar_error", {}), **traj.get("runtime_error", {})}
        if traj.get("agent_gave_up"):
            errors["agent_gave_up"] = traj["agent_gave_up"]
        worst = sorted(((v, k) for k, v in errors.items() if v), reverse=True)[:3]
        n, sr = summary.get("tasks"), goal.get("task_success_rate")
        of = f" ({round(sr * n / 100)} of {n} tasks)" if n and sr is not None else ""
        return [
            f"task success {_pct(sr)}{of}, executable "
            f"{_pct(traj.get('execution_success_rate'))}, goals met "
            f"{_pct(goal.get('total_goal'))}",
            "most frequent errors: "
            + (", ".join(f"{k.replace('_', ' ')} {v:.1f} %" for v, k in worst) or "none"),
        ]
    if module == "goal-interpretation":
        goal = summary.get("goal_evaluation", {})
        parts = [
            f"{k} F1 {_pct(goal[k]['f1'])}"
            for k in ("state", "relation", "action", "overall")
            if isinstance(goal.get(k), Mapping) and goal[k].get("tp", 0) + goal[k].get("fn", 0)
        ]
        return [", ".join(parts) or "no goals scored"]
    if module == "transition-modeling":
        overall = summary.get("overall", {})
        f1 = overall.get("f1")
        found = summary.get("planner_found")
        valid = summary.get("plan_valid_under_gold")
        return [
            f"logic-form F1 {_pct(None if f1 is None else 100 * f1)}, planner success "
            f"{_pct(None if found is None else 100 * found)}, plans valid under gold "
            f"{_pct(None if valid is None else 100 * valid)}"
        ]
    return []
