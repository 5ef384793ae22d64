"""95 % confidence intervals for the headline figures of an EAI module's summary, from its
per-task results: what ``summary.json`` carries under ``intervals`` and what the terminal
and the HTML report print beside each figure.

Keyed by the figure's dotted path in the summary (``goal_evaluation.task_success_rate``),
in the figure's own unit (percent for the action-sequencing tables, a fraction for
transition modeling's planner figures). A rate of tasks gets a Wilson interval; goal
interpretation's micro-averaged F1 a seeded bootstrap over tasks (the resample count is
``resamples``). See ``docs/report.md`` ("Confidence intervals").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from planproof.metrics.intervals import LEVEL, RESAMPLES, SEED, Interval, bootstrap_micro_f1, wilson

_RATES: dict[str, tuple[tuple[str, str, float], ...]] = {
    "action-sequencing": (
        ("success", "goal_evaluation.task_success_rate", 100.0),
        ("executable", "trajectory_evaluation.execution_success_rate", 100.0),
    ),
    "transition-modeling": (
        ("planner_found", "planner_found", 1.0),
        ("plan_valid_under_gold", "plan_valid_under_gold", 1.0),
    ),
}
_RATES["subgoal-decomposition"] = _RATES["action-sequencing"]


def rate_entry(successes: int, n: int, scale: float = 1.0, level: float = LEVEL) -> dict[str, Any]:
    """The ``intervals`` entry of a rate of ``successes`` in ``n`` (Wilson), in the unit
    ``scale`` (1 for a fraction, 100 for percent)."""
    return _entry(wilson(successes, n, level), scale, n)


def flag_intervals(
    rows: Sequence[Mapping[str, Any]], figures: Mapping[str, str], scale: float = 1.0
) -> dict[str, dict[str, Any]]:
    """``figure path → entry`` for per-row yes/no fields (``figures``: path → field)."""
    out: dict[str, dict[str, Any]] = {}
    for path, key in figures.items():
        flags = [r[key] for r in rows if isinstance(r.get(key), bool)]
        if flags:
            out[path] = rate_entry(sum(flags), len(flags), scale)
    return out


def _entry(iv: Interval, scale: float, n: int) -> dict[str, Any]:
    return {
        "low": round(iv.low * scale, 4),
        "high": round(iv.high * scale, 4),
        "level": iv.level,
        "method": iv.method,
        "n": n,
    }


def summary_intervals(
    module: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> dict[str, dict[str, Any]]:
    """Dotted summary path → ``{low, high, level, method, n}`` for the module's figures
    that ``rows`` (results.jsonl rows) determine; ``{}`` for a module without any."""
    out: dict[str, dict[str, Any]] = {}
    for key, path, scale in _RATES.get(module, ()):
        flags = [r[key] for r in rows if isinstance(r.get(key), bool)]
        if flags:
            out[path] = rate_entry(sum(flags), len(flags), scale, level)
    if module == "goal-interpretation":
        counts = [_gi_counts(r) for r in rows]
        if counts:
            tp, fp, fn = zip(*counts, strict=True)
            iv = bootstrap_micro_f1(tp, fp, fn, level=level, resamples=resamples, seed=seed)
            out["goal_evaluation.overall.f1"] = _entry(iv, 100.0, len(counts))
    return out


def _gi_counts(row: Mapping[str, Any]) -> tuple[int, int, int]:
    """A task's true/false positives and false negatives over every goal category."""
    cats = row.get("counts")
    if not isinstance(cats, Mapping):
        return (0, 0, 0)
    total = [0, 0, 0]
    for c in cats.values():
        if isinstance(c, Mapping):
            for i, k in enumerate(("tp", "fp", "fn")):
                v = c.get(k)
                total[i] += v if isinstance(v, int) else 0
    return (total[0], total[1], total[2])


def interval_text(summary: Mapping[str, Any], path: str, digits: int = 1) -> str:
    """`` [lo, hi]`` for the figure at ``path`` when the summary has its interval, else ``""``."""
    iv = summary.get("intervals", {}).get(path) if isinstance(summary, Mapping) else None
    if not isinstance(iv, Mapping):
        return ""
    low, high = iv.get("low"), iv.get("high")
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        return ""
    return f" [{low:.{digits}f}, {high:.{digits}f}]"
