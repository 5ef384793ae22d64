"""Is run A really better than run B on the same tasks? Paired tests over the tasks both
runs scored, from their per-task results rows (``results.jsonl``):

- a yes/no figure per task (``success``, ``executable``, transition modeling's
  ``planner_found`` and ``plan_valid_under_gold``): McNemar's exact test;
- a score per task (goal interpretation's ``f1``): a paired bootstrap of the mean
  difference (seeded; ``resamples`` settable).

Tasks only one run has are counted, not compared (a paired test needs both answers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.metrics.intervals import LEVEL, RESAMPLES, SEED, mcnemar, paired_bootstrap

FLAGS = ("success", "executable", "planner_found", "plan_valid_under_gold")
"""Per-task yes/no figures, compared with McNemar's test."""
SCORES = ("f1",)
"""Per-task scores, compared with a paired bootstrap of the mean difference."""


@dataclass(frozen=True)
class Comparison:
    """The paired tests of two runs: ``tests`` maps a figure to its test's plain data."""

    shared: int
    only_a: int
    only_b: int
    tests: Mapping[str, Mapping[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tasks": {"shared": self.shared, "only_a": self.only_a, "only_b": self.only_b},
            "tests": {k: dict(v) for k, v in self.tests.items()},
        }


def _by_id(rows: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for r in rows:
        ident = r.get("identifier")
        if isinstance(ident, str) and ident:
            out.setdefault(ident, r)
    return out


def _number(v: object) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def compare_rows(
    rows_a: Sequence[Mapping[str, Any]],
    rows_b: Sequence[Mapping[str, Any]],
    *,
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Comparison:
    """Every figure both runs' rows carry, tested on the tasks both scored."""
    a, b = _by_id(rows_a), _by_id(rows_b)
    shared = [i for i in a if i in b]
    tests: dict[str, dict[str, Any]] = {}
    for key in FLAGS:
        raw = [(a[i].get(key), b[i].get(key)) for i in shared]
        if raw and all(isinstance(x, bool) and isinstance(y, bool) for x, y in raw):
            xa, xb = [bool(x) for x, _ in raw], [bool(y) for _, y in raw]
            tests[key] = {
                **mcnemar(xa, xb).as_dict(),
                "rate_a": sum(xa) / len(xa),
                "rate_b": sum(xb) / len(xb),
            }
    for key in SCORES:
        values = [(_number(a[i].get(key)), _number(b[i].get(key))) for i in shared]
        kept = [(x, y) for x, y in values if x is not None and y is not None]
        if kept and len(kept) == len(values):
            xs, ys = [x for x, _ in kept], [y for _, y in kept]
            boot = paired_bootstrap(xs, ys, level=level, resamples=resamples, seed=seed)
            tests[key] = {
                **boot.as_dict(),
                "mean_a": sum(xs) / len(xs),
                "mean_b": sum(ys) / len(ys),
            }
    return Comparison(len(shared), len(a) - len(shared), len(b) - len(shared), tests)
