"""Every size bound on untrusted input, in one place (documented in docs/limits.md, which
a test keeps in step with these numbers).

Inputs beyond a bound are refused up front with the number that was too large, so work
stays bounded by the input's size and not only by a time limit.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_RLIMIT",
    "LOCAL_WORKERS_PER_CPU",
    "MAX_FILE_BYTES",
    "MAX_FORMULA_DEPTH",
    "MAX_JSONL_LINES",
    "MAX_JSON_DEPTH",
    "MAX_PDDL_CHARS",
    "MAX_RLIMIT",
    "MAX_SECONDS",
    "MAX_TEXT_CHARS",
    "MAX_WORKERS",
    "RLIMIT_PER_SECOND",
]

MAX_FILE_BYTES = 50_000_000
"""Largest input file read (bytes); the largest real data file (a BEHAVIOR scene of the
EAI transition-modeling resources) is 7.3 MB."""

MAX_TEXT_CHARS = 200_000
"""Longest single LLM response or formula read (characters)."""

MAX_FORMULA_DEPTH = 200
"""Deepest goal-formula syntax tree parsed (an atom has depth 1)."""

MAX_PDDL_CHARS = 5_000_000
"""Longest PDDL domain or problem file read (the largest EAI problem has 7 kB)."""

MAX_JSON_DEPTH = 200
"""Deepest JSON nesting read (arrays plus objects). Real documents nest fewer than 15
levels; 200 keeps every recursive walk of a decoded document far from Python's
recursion limit."""

MAX_JSONL_LINES = 1_000_000
"""Most lines read from one JSON Lines file."""

MAX_SECONDS = 86_400.0
"""Longest time limit accepted by any ``--timeout`` (one day); solvers take milliseconds
as 32-bit integers, so larger values would overflow them."""

MAX_RLIMIT = 2**32 - 1
"""Largest Z3 resource budget (``--rlimit``, ``rlimit=``): Z3 reads its ``rlimit`` as a
32-bit unsigned count and would silently wrap a larger one to a tiny budget."""

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
:data:`MAX_RLIMIT`). Z3 did 0.7 to 2 M units per CPU second on
the queries of ``benchmarks/bench_smt.py``; the conversion is fixed, so the answer does not
depend on the machine."""

MAX_WORKERS = 1024
"""Largest ``--workers`` or ``--concurrency`` accepted (worker processes, or LLM calls in
flight). The local executor further starts at most ``LOCAL_WORKERS_PER_CPU`` processes per
CPU it may use, whatever is asked: more only costs memory and start-up."""

LOCAL_WORKERS_PER_CPU = 2
"""Local worker processes per usable CPU at most (``--workers``/``--concurrency`` above it
are clamped, not refused: the same command runs on a laptop and on a large machine)."""
