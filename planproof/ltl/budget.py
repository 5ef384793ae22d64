"""The resource budget of a Z3 query, in Z3's deterministic units (``rlimit``).

Kept apart from :mod:`planproof.ltl.smt` so that the command line can name the defaults
without loading the encoder. Why a budget and not a time limit: see that module.
"""

from __future__ import annotations

from planproof.boundary import check_seconds
from planproof.boundary.limits import MAX_RLIMIT

__all__ = ["BUDGET", "DEFAULT_RLIMIT", "RLIMIT_PER_SECOND", "rlimit_for_seconds"]

DEFAULT_RLIMIT = 500_000_000
"""Z3 resource units (``rlimit``) one query may spend before it is reported as ``budget``.
The largest of today's queries (the LTL tests, compare-domains on the IPC domains and their
mutations, goal interpretation, subgoal decomposition and transition modeling on every
published answer, Housekeep, TEACh) spends under 1.7 M units
(``benchmarks/bench_smt_budget.py``); this leaves a margin of over 250x. It is about half a
minute to ten minutes of solving, depending on the query."""

RLIMIT_PER_SECOND = 1_000_000
"""Nominal rate that turns a legacy time limit in seconds (``timeout=``, ``--timeout``)
into a resource budget: ``seconds * RLIMIT_PER_SECOND`` units (at most
:data:`~planproof.boundary.limits.MAX_RLIMIT`). Z3 did 0.7 to 2 M units per CPU second on
the queries of ``benchmarks/bench_smt.py``; the conversion is fixed, so the answer does not
depend on the machine."""

BUDGET = "budget"
"""``reason`` of a result whose query spent its resource budget."""


def rlimit_for_seconds(seconds: float) -> int:
    """The resource budget a legacy time limit stands for (:data:`RLIMIT_PER_SECOND`)."""
    check_seconds(seconds)
    return max(1, min(MAX_RLIMIT, round(seconds * RLIMIT_PER_SECOND)))
