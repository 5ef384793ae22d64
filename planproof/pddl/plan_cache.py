"""A persistent cache of planner verdicts, keyed by the exact planning task's content.

Transition modeling plans one problem per answer (4,440 for the 15 published models),
and most of them recur: the same task with the same (often gold-equivalent) operators
across models, and every task again on the next run. The key is the SHA-256 of the domain
and problem text exactly as handed to the planner (:func:`~planproof.pddl.planners.
export_for_planner`) and the engine, so any change in what the planner would see is a
new key. Only deterministic verdicts are kept (solved with its plan, unsolvable,
unsupported, and ``budget``: the builtin search's expansion budget or Fast Downward's CPU
budget spent, which is part of the key); a timeout or an engine error depends on the
machine and its load, and is asked again. The store is one SQLite file in the user cache,
safe for concurrent worker processes; a cache that cannot be opened is skipped (the
planner is then simply called). ``PLANPROOF_PLAN_CACHE=off`` turns it off for a process
and its workers (the test suite does, so that its planner tests always run the planner);
``PLANPROOF_PLAN_CACHE_PATH`` names another file (a benchmark starts from an empty one
without touching the user's).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

from planproof.data.cache import DataUnavailableError, cache_dir
from planproof.pddl.plan_result import PlanResult, PlanStatus
from planproof.pddl.planners import export_for_planner, plan
from planproof.pddl.reader import Problem
from planproof.pddl.schema import Domain

FORMAT = 1
"""Bump when a stored verdict's meaning changes (planner options, plan format): old rows
are then never read."""
FILE_NAME = "planner-cache.sqlite3"
ENV_SWITCH = "PLANPROOF_PLAN_CACHE"
ENV_PATH = "PLANPROOF_PLAN_CACHE_PATH"
KEPT = frozenset(
    {PlanStatus.SOLVED, PlanStatus.UNSOLVABLE, PlanStatus.UNSUPPORTED, PlanStatus.BUDGET}
)


def plan_key(
    domain: Domain,
    problem: Problem,
    engine: str,
    max_expansions: int | None = None,
    cpu_budget: float | None = None,
) -> str:
    """The content key of one planning task (see the module docstring); a search budget
    is part of it (a verdict found within a budget may be ``budget`` under a smaller one),
    and a CPU budget marks the key with the h^2 test that runs before the search."""
    dom, prob, _names = export_for_planner(domain, problem)
    budget = "" if max_expansions is None else f"expansions={max_expansions}\0"
    # a CPU budget is planned by planproof.pddl.fd_budget: the h^2 test answers some
    # tasks an earlier version cached as ``budget``, so its verdicts have their own keys
    budget += "" if cpu_budget is None else f"cpu={cpu_budget:g}\0h2\0"
    h = hashlib.sha256(f"{FORMAT}\0{engine}\0{budget}".encode())
    h.update(dom.encode())
    h.update(b"\0")
    h.update(prob.encode())
    return h.hexdigest()


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, timeout=30.0)
    con.execute("PRAGMA journal_mode=WAL")
    # WAL stays consistent without a sync per verdict; a crash may lose the last few
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE IF NOT EXISTS plans (key TEXT PRIMARY KEY, result TEXT NOT NULL)")
    con.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    return con


def fact_key(kind: str, *texts: str) -> str:
    """The content key of a deterministic fact about planning texts (``kind`` names the
    question, e.g. FD 23.06's negative-goal test: :mod:`planproof.pddl.fd_reading`)."""
    h = hashlib.sha256(f"{FORMAT}\0{kind}".encode())
    for t in texts:
        h.update(b"\0")
        h.update(t.encode())
    return h.hexdigest()


def _encode(res: PlanResult) -> str:
    return json.dumps(
        {
            "engine": res.engine,
            "status": res.status.value,
            "plan": [[n, list(a)] for n, a in res.plan],
            "seconds": res.seconds,
            "reason": res.reason,
            "renamed": res.renamed,
            "expanded": res.expanded,
        }
    )


def _decode(text: str, seconds: float) -> PlanResult:
    d = json.loads(text)
    return PlanResult(
        d["engine"],
        PlanStatus(d["status"]),
        tuple((str(n), tuple(a)) for n, a in d["plan"]),
        seconds,
        d["reason"],
        d["renamed"],
        int(d.get("expanded", 0)),
    )


class PlanCache:
    """``get`` / ``put`` of verdicts by :func:`plan_key`; ``path=None`` means the user
    cache's file. Counts hits and misses for the run's summary."""

    def __init__(self, path: Path | None = None, *, enabled: bool = True) -> None:
        self.hits = 0
        self.misses = 0
        self._con: sqlite3.Connection | None = None
        if not enabled:
            return
        try:
            self.path = path if path is not None else _default_path()
            self._con = _connect(self.path)
        except (OSError, sqlite3.Error, DataUnavailableError):
            self._con = None

    def get(self, key: str) -> PlanResult | None:
        if self._con is None:
            return None
        t0 = time.perf_counter()
        try:
            row = self._con.execute("SELECT result FROM plans WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            row = None
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return _decode(row[0], time.perf_counter() - t0)

    def put(self, key: str, result: PlanResult) -> None:
        if self._con is None or result.status not in KEPT:
            return
        try:
            with self._con:
                self._con.execute(
                    "INSERT OR REPLACE INTO plans (key, result) VALUES (?, ?)",
                    (key, _encode(result)),
                )
        except sqlite3.Error:
            pass  # a full or locked disk costs a re-plan next time, nothing else

    def get_fact(self, key: str) -> str | None:
        """A stored fact (:func:`fact_key`), or None."""
        if self._con is None:
            return None
        try:
            row = self._con.execute("SELECT value FROM facts WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else str(row[0])

    def put_fact(self, key: str, value: str) -> None:
        if self._con is None:
            return
        try:
            with self._con:
                self._con.execute(
                    "INSERT OR REPLACE INTO facts (key, value) VALUES (?, ?)", (key, value)
                )
        except sqlite3.Error:
            pass  # a full or locked disk costs a recomputation next time, nothing else


def _default_path() -> Path:
    other = os.environ.get(ENV_PATH, "").strip()
    return Path(other) if other else cache_dir() / FILE_NAME


_CACHES: dict[Path, PlanCache] = {}


def plan_cache(path: Path | None = None) -> PlanCache:
    """One open cache per process and path (worker processes open their own); the default
    path is read from the environment at each call, so a changed ``PLANPROOF_PLAN_CACHE_PATH``
    opens the store it names."""
    where = path if path is not None else _default_path()
    if where not in _CACHES:
        off = os.environ.get(ENV_SWITCH, "").strip().lower() in {"0", "off", "no", "false"}
        _CACHES[where] = PlanCache(where, enabled=not off)
    return _CACHES[where]


def cached_plan(
    domain: Domain,
    problem: Problem,
    *,
    engine: str = "fast-downward",
    timeout: float = 60.0,
    cache: PlanCache | None = None,
    max_expansions: int | None = None,
    cpu_budget: float | None = None,
) -> tuple[PlanResult, bool]:
    """:func:`~planproof.pddl.planners.plan` through the cache: (verdict, from the cache)."""
    store = cache if cache is not None else plan_cache()
    key = plan_key(domain, problem, engine, max_expansions, cpu_budget)
    hit = store.get(key)
    if hit is not None:
        return hit, True
    res = plan(
        domain,
        problem,
        engine=engine,
        timeout=timeout,
        max_expansions=max_expansions,
        cpu_budget=cpu_budget,
    )
    store.put(key, res)
    return dataclasses.replace(res), False
