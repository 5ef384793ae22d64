"""Confidence intervals and paired tests for the rates and means planproof prints.

Pure functions on plain numbers, so every command (``evaluate``, ``run``, ``report``,
``reproduce``, ``compare``) shows the same interval for the same counts:

- a success *rate* (k of n) gets a Wilson score interval (closed form; good coverage
  for small n and rates near 0 or 1, unlike the normal "Wald" interval);
- a *mean* over tasks, or any statistic of per-task rows (micro F1 = ratio of sums),
  gets a seeded percentile bootstrap over tasks;
- two runs on the same tasks are compared with McNemar's exact test (a two-sided
  binomial test on the discordant pairs) for success, and a paired bootstrap of the
  mean difference for per-task scores.

Written with numpy (imported when a bootstrap runs) and the standard library rather
than ``scipy.stats`` because the formulas are a few lines and importing ``scipy.stats``
costs about a second on every command; ``tests/metrics/test_intervals.py`` checks them
against scipy.
Choices are documented in ``docs/report.md`` ("Confidence intervals").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np

LEVEL = 0.95
RESAMPLES = 2000
SEED = 0

T = TypeVar("T")


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval ``[low, high]`` for a value in the same unit."""

    low: float
    high: float
    level: float = LEVEL
    method: str = "wilson"

    def as_dict(self) -> dict[str, float | str]:
        """The JSON form, the same in every command's output."""
        return {"low": self.low, "high": self.high, "level": self.level, "method": self.method}

    def text(self, scale: float = 100.0, digits: int = 1) -> str:
        """``[52.1, 62.4]`` in percent by default (the unit of every rate column)."""
        return f"[{self.low * scale:.{digits}f}, {self.high * scale:.{digits}f}]"


def _z(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def wilson(successes: int, n: int, level: float = LEVEL) -> Interval:
    """Wilson score interval for ``successes`` of ``n``; ``n == 0`` gives ``[0, 1]``
    (nothing is known), so a caller never has to special-case an empty slice."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Interval(0.0, 1.0, level, "wilson")
    z = _z(level)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n))
    # Exact at the ends (the closed form can leave 1e-17 of rounding).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high, level, "wilson")


def _percentile(values: np.ndarray, level: float, method: str) -> Interval:
    import numpy as np

    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha])
    return Interval(float(low), float(high), level, method)


def _indices(n: int, resamples: int, seed: int) -> np.ndarray:
    import numpy as np

    if resamples < 1:
        raise ValueError(f"need at least one resample, got {resamples}")
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def bootstrap_mean(
    values: Sequence[float],
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """Percentile bootstrap interval of the mean over tasks (seeded, so a report
    is reproducible); one value gives a zero-width interval, none gives ``[0, 1]``."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return Interval(0.0, 1.0, level, "bootstrap")
    _z(level)
    means = data[_indices(data.size, resamples, seed)].mean(axis=1)
    return _percentile(means, level, "bootstrap")


def bootstrap(
    rows: Sequence[T],
    statistic: Callable[[Sequence[T]], float],
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """Percentile bootstrap over tasks of any statistic of per-task rows, e.g. a
    micro-averaged F1 (a ratio of sums, which is not a mean of per-task values)."""
    import numpy as np

    if not rows:
        return Interval(0.0, 1.0, level, "bootstrap")
    _z(level)
    draws = _indices(len(rows), resamples, seed)
    stats = np.array([statistic([rows[i] for i in draw]) for draw in draws], dtype=float)
    return _percentile(stats, level, "bootstrap")


def bootstrap_micro_f1(
    tp: Sequence[float],
    fp: Sequence[float],
    fn: Sequence[float],
    *,
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """Percentile bootstrap over tasks of the micro-averaged F1 ``2TP / (2TP + FP + FN)``
    from per-task counts (vectorised: thousands of resamples of 338 tasks in milliseconds).
    A resample with nothing to score counts as F1 0, as the summary does."""
    import numpy as np

    counts = np.asarray([tp, fp, fn], dtype=float)
    if counts.shape[1] == 0:
        return Interval(0.0, 1.0, level, "bootstrap")
    _z(level)
    sums = counts[:, _indices(counts.shape[1], resamples, seed)].sum(axis=2)
    denominator = 2 * sums[0] + sums[1] + sums[2]
    f1 = np.divide(2 * sums[0], denominator, out=np.zeros_like(denominator), where=denominator > 0)
    return _percentile(f1, level, "bootstrap")


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test on paired success: ``a_only`` tasks only A solved,
    ``b_only`` only B solved; ``p_value`` is two-sided."""

    n: int
    both: int
    a_only: int
    b_only: int
    neither: int
    p_value: float

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "test": "mcnemar-exact",
            "n": self.n,
            "both": self.both,
            "a_only": self.a_only,
            "b_only": self.b_only,
            "neither": self.neither,
            "p_value": self.p_value,
        }


def binomial_two_sided(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair coin flips
    (twice the smaller tail, capped at 1), in exact integer arithmetic."""
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1))
    return min(1.0, float(Fraction(2 * tail, 2**n)))


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """McNemar's exact test for two runs' success on the same tasks (same order)."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    both = sum(1 for x, y in zip(a, b, strict=True) if x and y)
    a_only = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    b_only = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    neither = len(a) - both - a_only - b_only
    p = binomial_two_sided(min(a_only, b_only), a_only + b_only)
    return McNemar(len(a), both, a_only, b_only, neither, p)


@dataclass(frozen=True)
class PairedBootstrap:
    """Paired bootstrap of ``mean(a) - mean(b)`` over the tasks both runs have:
    the interval of the difference and a two-sided p-value (twice the share of
    resampled differences on the far side of zero)."""

    n: int
    difference: float
    interval: Interval
    p_value: float
    resamples: int

    def as_dict(self) -> dict[str, object]:
        return {
            "test": "paired-bootstrap",
            "n": self.n,
            "difference": self.difference,
            "interval": self.interval.as_dict(),
            "p_value": self.p_value,
            "resamples": self.resamples,
        }


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> PairedBootstrap:
    """Resample tasks (the same draw for both runs) and look at the mean difference."""
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diff.size == 0:
        return PairedBootstrap(0, 0.0, Interval(0.0, 0.0, level, "bootstrap"), 1.0, resamples)
    _z(level)
    means = diff[_indices(diff.size, resamples, seed)].mean(axis=1)
    observed = float(diff.mean())
    if np.all(diff == 0):
        p = 1.0
    else:
        p = min(1.0, 2.0 * min(float(np.mean(means <= 0.0)), float(np.mean(means >= 0.0))))
    return PairedBootstrap(
        int(diff.size), observed, _percentile(means, level, "bootstrap"), p, resamples
    )


def rate_text(successes: int, n: int, level: float = LEVEL) -> str:
    """``57.3 % [52.1, 62.4]``: a rate with its Wilson interval, for terminal tables."""
    if n == 0:
        return "–"
    return f"{100.0 * successes / n:.1f} % {wilson(successes, n, level).text()}"
