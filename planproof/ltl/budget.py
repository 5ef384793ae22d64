"""The resource budget of a Z3 query, in Z3's deterministic units (``rlimit``).

Kept apart from :mod:`planproof.ltl.smt` so that the command line can name the defaults
without loading the encoder. Why a budget and not a time limit: see that module.
"""

from __future__ import annotations

from planproof.boundary import check_seconds
from planproof.boundary.limits import MAX_RLIMIT

__all__ = ["BUDGET", "DEFAULT_RLIMIT", "RLIMIT_PER_SECOND", "rlimit_for_seconds"]

DEFAULT_RLIMIT = 10_000_000
"""Z3 resource units (``rlimit``) one query may spend before it is reported as ``budget``:
the old default time limit of ``ltl sat`` (10 s) at :data:`RLIMIT_PER_SECOND`, so that a
hostile formula costs about as much as before. Today's queries spend far less
(``benchmarks/bench_smt_budget.py``, units are counts): goal interpretation on all 15
published files, 13,674 queries, at most 2,147 units; transition modeling's checks and
operator comparison on 30 published files, 30,692 queries, at most 18,614; every query of
the Z3 test files at most 21,153; compare-domains on the IPC domains and their mutations
at most 1,922; the hardest row of ``benchmarks/bench_smt.py`` (a 32 x 32 pairing proof)
562,901. The margin is 18x over that stress query and over 450x over every query on real
data (docs/limits.md)."""

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
