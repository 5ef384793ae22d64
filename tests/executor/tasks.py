"""Task functions for the executor tests: module-level, so worker processes (spawned or
Ray's) import them by name."""

from __future__ import annotations

import os
from pathlib import Path


class Refused(Exception):
    kind = "refused"


def square(x: int) -> int:
    if x < 0:
        raise Refused(f"negative: {x}")
    return x * x


def die_once(arg: tuple[str, int]) -> int:
    """Kills its worker the first time it runs for a marker path, then answers."""
    marker, value = Path(arg[0]), arg[1]
    if not marker.exists():
        marker.write_text("died once", encoding="utf-8")
        os._exit(3)
    return value


def die_always(_: int) -> int:
    os._exit(4)


def count_attempts(path: str) -> int:
    """Appends a line per run, so a test sees how often a task was tried."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("run\n")
    raise ValueError("deterministic failure")


def plan_through_cache(arg: tuple[str, str, str]) -> tuple[str, bool]:
    """Plans a PDDL problem through the planner cache at a given file: (status, cached)."""
    from planproof.pddl.plan_cache import PlanCache, cached_plan
    from planproof.pddl.reader import read_domain, read_problem

    cache, domain, problem = arg
    result, cached = cached_plan(
        read_domain(Path(domain).read_text(encoding="utf-8")),
        read_problem(Path(problem).read_text(encoding="utf-8")),
        cache=PlanCache(Path(cache)),
    )
    return result.status.value, cached
