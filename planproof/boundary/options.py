"""Numbers given on the command line: finite, in range, or a typed error before any work.

``float("nan")`` and ``float("inf")`` parse, and then hang a solver, overflow a
millisecond conversion or compare false everywhere; ``--limit -3`` slices from the end.
The argparse ``type=`` functions here refuse such values with the option's name, and
:func:`check_seconds` does the same for library callers.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from planproof.boundary.errors import InputError
from planproof.boundary.limits import MAX_RLIMIT, MAX_SECONDS, MAX_WORKERS, RLIMIT_PER_SECOND

__all__ = [
    "check_rlimit",
    "check_seconds",
    "count",
    "number_between",
    "positive_count",
    "rlimit",
    "rlimit_for_seconds",
    "seconds",
    "worker_count",
]


def check_seconds(value: float, *, source: str = "timeout") -> float:
    """A time limit: a finite number of seconds in (0, :data:`MAX_SECONDS`]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(
            f"expected a number of seconds, got {type(value).__name__}",
            source=source,
            kind="bad-number",
            hint="give a number such as 10",
        )
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise InputError(
            f"{value!r} is not a time limit",
            source=source,
            kind="bad-number",
            hint=f"give a finite number of seconds above 0 and at most {MAX_SECONDS:g}",
        )
    return float(value)


def check_rlimit(value: int, *, source: str = "rlimit") -> int:
    """A Z3 resource budget: a whole number of units in [1, :data:`MAX_RLIMIT`]."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_RLIMIT:
        raise InputError(
            f"{value!r} is not a resource budget",
            source=source,
            kind="bad-number",
            hint=f"give a whole number of Z3 resource units from 1 to {MAX_RLIMIT}",
        )
    return value


def rlimit_for_seconds(seconds: float) -> int:
    """The resource budget a legacy time limit stands for (:data:`RLIMIT_PER_SECOND`)."""
    check_seconds(seconds)
    return max(1, min(MAX_RLIMIT, round(seconds * RLIMIT_PER_SECOND)))


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def seconds(text: str) -> float:
    """argparse ``type=`` for ``--timeout`` and other time limits."""
    try:
        return check_seconds(_float(text), source="--timeout")
    except InputError as err:
        raise argparse.ArgumentTypeError(f"{err.message}; {err.hint}") from None


def number_between(low: float, high: float) -> Callable[[str], float]:
    """argparse ``type=`` for a finite number in [low, high] (``--top-p``, ``--temperature``)."""

    def parse(text: str) -> float:
        value = _float(text)
        if not low <= value <= high:  # also false for NaN
            raise argparse.ArgumentTypeError(f"{text!r} is not a number from {low:g} to {high:g}")
        return value

    parse.__name__ = f"number_from_{low:g}_to_{high:g}"
    return parse


def _integer(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is below {minimum}; give {minimum} or more")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(
                f"{value} is over the limit of {maximum} (docs/limits.md)"
            )
        return value

    parse.__name__ = f"integer_from_{minimum}"
    return parse


count = _integer(0)
"""argparse ``type=`` for a count that may be zero (``--limit``)."""
positive_count = _integer(1)
"""argparse ``type=`` for a count of at least one (``--max-steps``, ``--concurrency``)."""
rlimit = _integer(1, MAX_RLIMIT)
"""argparse ``type=`` for ``--rlimit``: a Z3 resource budget, 1 to :data:`MAX_RLIMIT` units."""
worker_count = _integer(1, MAX_WORKERS)
"""argparse ``type=`` for ``--workers`` and ``--concurrency``: 1 to :data:`MAX_WORKERS`."""
