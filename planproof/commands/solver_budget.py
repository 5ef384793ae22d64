"""``--rlimit`` and ``--timeout`` of the commands that ask Z3: one resource budget.

A Z3 query is bounded by a budget in Z3's deterministic resource units, never by the wall
clock (see :mod:`planproof.ltl.smt`). ``--timeout`` is kept for scripts that passed
seconds: it now gives the same budget in nominal seconds (``RLIMIT_PER_SECOND`` units per
second), so ``--timeout 10`` means 10,000,000 units on every machine and under any load.
"""

from __future__ import annotations

import argparse

from planproof.boundary.limits import DEFAULT_RLIMIT, RLIMIT_PER_SECOND
from planproof.boundary.options import rlimit, rlimit_for_seconds, seconds


def add_budget_arguments(parser: argparse.ArgumentParser) -> None:
    """``--rlimit N`` or (legacy) ``--timeout SECONDS``, not both."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--rlimit",
        type=rlimit,
        default=None,
        help=f"Z3 resource budget per query, in its deterministic units (default "
        f"{DEFAULT_RLIMIT:,}); a query that spends it is reported as 'budget', never as a "
        "verdict, the same under any load",
    )
    group.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        help=f"legacy: the same budget in nominal seconds ({RLIMIT_PER_SECOND:,} units a "
        "second); not a wall-clock limit",
    )


def budget_of(args: argparse.Namespace) -> int:
    """The budget the options name (the default when neither is given)."""
    if args.rlimit is not None:
        return int(args.rlimit)
    if args.timeout is not None:
        return rlimit_for_seconds(args.timeout)
    return DEFAULT_RLIMIT
