"""How Fast Downward is run as a child process: where its driver is, its exit codes, the
wall-clock guard and its plan file — shared by the driver call
(:mod:`planproof.pddl.planners`) and the budgeted call without the driver
(:mod:`planproof.pddl.fd_budget`)."""

from __future__ import annotations

import os

from planproof.pddl.plan_result import PlanStep
from planproof.pddl.writer import NameMap

WALL_FACTOR = 20.0
"""A child planner that has neither answered nor died after ``WALL_FACTOR * timeout + 60``
wall seconds is stopped (it is not using its CPU budget: blocked, or starved). That is an
``error`` (no verdict, never cached), not a ``timeout``: a timeout is CPU time spent."""


FD_ALIAS = "lama-first"
"""The Fast Downward configuration (unified-planning's default for one plan)."""

# Fast Downward driver exit codes (driver/returncodes.py): unsolvable, out of time/memory.
_FD_UNSOLVABLE = {11, 12}
_FD_TRANSLATE_UNSOLVABLE = 10
_FD_OUT_OF_TIME = {21, 23, 24}
_FD_OUT_OF_MEMORY = {22, 24}
_CPU_LIMIT_SIGNALS = {-24, 256 - 24, -9, 256 - 9}
"""A process of the driver stopped by its CPU limit (SIGXCPU, then SIGKILL at the hard
limit): the driver passes the translator's signal on as its own exit status (-24 or
232)."""


def fast_downward_script() -> str | None:
    """The path of Fast Downward's driver shipped in the ``up-fast-downward`` wheel, found
    without importing the package (which would import unified-planning)."""
    import importlib.util

    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = os.path.join(base, "downward", "fast-downward.py")
        if os.path.exists(path):
            return path
    return None


def _wall_guard(timeout: float) -> float:
    """Wall seconds after which a child planner is stopped although its CPU budget is not
    spent (it hangs, or the machine starves it)."""
    return WALL_FACTOR * timeout + 60.0


def _guard_reason(timeout: float) -> str:
    return (
        f"stopped after {_wall_guard(timeout):g} wall seconds without spending its "
        f"{timeout:g} CPU s (hung, or starved by the machine's load): no verdict"
    )


def _fd_plan(text: str, names: NameMap) -> tuple[PlanStep, ...]:
    """Fast Downward's plan file (``(name arg ...)`` lines, ``;`` comments) in the
    original names."""
    steps: list[PlanStep] = []
    for raw in text.splitlines():
        line = raw.split(";", 1)[0].strip()
        if not line.startswith("("):
            continue
        name, *args = line.strip("()").split()
        steps.append((names.original_action(name), tuple(names.original_object(a) for a in args)))
    return tuple(steps)


def _tail(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text[-n:]
