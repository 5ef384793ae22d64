"""One or two lines of a module summary's headline numbers, for terminal output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planproof.metrics.summary_intervals import interval_text

NOTHING = "—"
"""How a rate over nothing (null in the JSON) is shown: never as 0.0."""


def rate(v: Any, *, scale: float = 1.0, unit: str = "") -> str:
    """A rate for a table cell (``scale=100`` for fractions); None is ``—``."""
    return NOTHING if v is None else f"{scale * float(v):.1f}{unit}"


def _pct(v: Any) -> str:
    return rate(v, unit=" %")


def _percent(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The summary with its intervals of fractions shown in percent."""
    ivs = summary.get("intervals", {})
    scaled = {
        k: {**v, "low": 100 * v["low"], "high": 100 * v["high"]}
        for k, v in ivs.items()
        if isinstance(v, Mapping) and isinstance(v.get("low"), int | float)
    }
    return {"intervals": scaled}


def headline(module: str, summary: Mapping[str, Any]) -> list[str]:
    """The numbers a reader looks at first, in the paper's terms, each rate with its 95 %
    confidence interval in brackets when the summary has one (``intervals``)."""
    if module in ("action-sequencing", "subgoal-decomposition"):
        goal = summary.get("goal_evaluation", {})
        traj = summary.get("trajectory_evaluation", {})
        errors = {**traj.get("grammar_error", {}), **traj.get("runtime_error", {})}
        if traj.get("agent_gave_up"):
            errors["agent_gave_up"] = traj["agent_gave_up"]
        worst = sorted(((v, k) for k, v in errors.items() if v), reverse=True)[:3]
        n, sr = summary.get("tasks"), goal.get("task_success_rate")
        of = f" ({round(sr * n / 100)} of {n} tasks)" if n and sr is not None else ""
        ci_sr = interval_text(summary, "goal_evaluation.task_success_rate")
        ci_ex = interval_text(summary, "trajectory_evaluation.execution_success_rate")
        return [
            f"task success {_pct(sr)}{ci_sr}{of}, executable "
            f"{_pct(traj.get('execution_success_rate'))}{ci_ex}, goals met "
            f"{_pct(goal.get('total_goal'))}",
            "most frequent errors: "
            + (", ".join(f"{k.replace('_', ' ')} {v:.1f} %" for v, k in worst) or "none"),
        ]
    if module == "goal-interpretation":
        goal = summary.get("goal_evaluation", {})
        parts = [
            f"{k} F1 {_pct(goal[k]['f1'])}{interval_text(summary, f'goal_evaluation.{k}.f1')}"
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
            f"{_pct(None if found is None else 100 * found)}"
            f"{interval_text(_percent(summary), 'planner_found')}, plans valid under gold "
            f"{_pct(None if valid is None else 100 * valid)}"
            f"{interval_text(_percent(summary), 'plan_valid_under_gold')}"
        ]
    return []
