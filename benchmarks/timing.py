"""The one timer the benchmark scripts share."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(fn: Callable[[], object], repeat: int, *, warmup: bool = True) -> float:
    """Median wall time of one call of ``fn``, in milliseconds; by default after one
    untimed warm-up call (imports, grammar build, numpy dispatch)."""
    if warmup:
        fn()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(runs)
