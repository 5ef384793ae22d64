"""Solving a problem with a classical planner: Fast Downward through unified-planning by
default, pyperplan as the fallback.

unified-planning is imported only here and only when a plan is asked for (its import costs
1–3 s). The domain and problem are exported with :func:`~planproof.pddl.writer.export_names`
so that real files with colliding names plan at all, and the plan is mapped back to the
original names. Operators without effects are left out of the export (they can never help
reach a goal, and Fast Downward rejects an empty ``:effect``).

pyperplan reads STRIPS only, so the pyperplan engine first compiles the task with
:mod:`planproof.pddl.ground` (grounding against the static facts, DNF splitting of
preconditions and conditional effects, complement atoms for negative conditions); it has
no time limit of its own, so it runs (called directly, not through unified-planning,
whose wrapper costs seconds per grounded task) in a child process that is stopped at the timeout.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import multiprocessing
import os
import queue
import tempfile
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from planproof.pddl.reader import Problem
from planproof.pddl.schema import Domain
from planproof.pddl.writer import NameMap, domain_to_pddl, export_names, problem_to_pddl

if TYPE_CHECKING:
    from planproof.pddl.ground import GroundTask

ENGINES = ("fast-downward", "pyperplan", "builtin")
DEFAULT_TIMEOUT = 60.0

PlanStep = tuple[str, tuple[str, ...]]


class PlanStatus(StrEnum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIMEOUT = "timeout"
    BUDGET = "budget"
    """The search budget (expansions) was spent: no verdict, but the same on every machine
    under any load, so it is cached and reported like a verdict."""
    UNSUPPORTED = "unsupported"
    ERROR = "error"


@dataclass(frozen=True)
class PlanResult:
    """What a planner said. ``plan`` uses the original action and object names."""

    engine: str
    status: PlanStatus
    plan: tuple[PlanStep, ...] = ()
    seconds: float = 0.0
    reason: str = ""
    renamed: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    expanded: int = 0
    """States the builtin search expanded (0 for the other engines)."""

    @property
    def solved(self) -> bool:
        return self.status is PlanStatus.SOLVED

    def plan_lines(self) -> list[str]:
        return [" ".join([name, *args]) for name, args in self.plan]

    def to_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "status": self.status.value,
            "plan": self.plan_lines(),
            "seconds": round(self.seconds, 4),
            "reason": self.reason,
            "renamed": self.renamed,
            "expanded": self.expanded,
        }


def planning_domain(domain: Domain) -> Domain:
    """``domain`` without its effect-less operators (see the module docstring)."""
    ops = {k: op for k, op in domain.operators.items() if op.effects}
    if len(ops) == len(domain.operators):
        return domain
    return dataclasses.replace(domain, operators=ops)


def export_for_planner(domain: Domain, problem: Problem) -> tuple[str, str, NameMap]:
    """(domain text, problem text, names) exactly as handed to a planner."""
    d = planning_domain(domain)
    names = export_names(d, problem)
    return (
        domain_to_pddl(d, names, loose_predicates=True),
        problem_to_pddl(problem, d.name, names),
        names,
    )


def plan(
    domain: Domain,
    problem: Problem,
    *,
    engine: str = "fast-downward",
    timeout: float = DEFAULT_TIMEOUT,
    max_expansions: int | None = None,
) -> PlanResult:
    """Solve ``problem``; never raises for a planner failure (the status and reason say
    what happened). ``max_expansions`` (builtin engine only): a budget of search
    expansions instead of ``timeout``, so that the verdict does not depend on the
    machine's speed or load (status ``budget`` when it is spent); the other engines have
    only the wall-clock ``timeout``."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    t0 = time.perf_counter()
    why = planning_refusal(domain, problem)
    if why:
        res = PlanResult(engine, PlanStatus.UNSUPPORTED, reason=why)
    elif engine == "pyperplan":
        res = _pyperplan(domain, problem, timeout)
    elif engine == "builtin":
        deadline = None if max_expansions is not None else t0 + timeout
        res = _builtin(domain, problem, deadline, max_expansions)
    else:
        res = _bounded(_fast_downward, domain, problem, timeout)
    return dataclasses.replace(res, seconds=time.perf_counter() - t0)


MAX_GROUNDING = 20_000_000
"""Most ground actions (the sum over operators of the product of their parameters'
object counts, before any pruning) a problem may have to be planned."""


def grounding_size(domain: Domain, problem: Problem) -> int:
    """The number of ground actions before pruning (see :data:`MAX_GROUNDING`)."""
    counts: dict[str, int] = {}
    objs = {**problem.constants, **problem.objects}
    for t in objs.values():
        for m in domain.members(t):
            for a in domain.ancestors(m) if m in domain.types else (m,):
                counts[a] = counts.get(a, 0) + 1
    total = 0
    for op in domain.operators.values():
        n = 1
        for p in op.params:
            n *= (
                len(objs)
                if p.type == "object"
                else sum(counts.get(m, 0) for m in domain.members(p.type))
            )
        total += n
    return total


def count_text(n: int) -> str:
    """A count for a person: ``20,000,001``, or ``about 1.0e+1001`` when the exact
    number (which a 64-parameter operator easily reaches) would fill the screen."""
    if n < 10**15:
        return f"{n:,}"
    digits = str(n)
    return f"about {digits[0]}.{digits[1]}e+{len(digits) - 1}"


def planning_refusal(domain: Domain, problem: Problem) -> str:
    """Why the planners cannot take this task ("" when they can): numeric conditions
    and derived predicates have no planning form here (action costs are dropped: the
    plan found is valid, not necessarily cheapest), and tasks over
    :data:`MAX_GROUNDING` ground actions are refused up front."""
    if domain.numeric or problem.numeric:
        return "numeric conditions are not supported by the planners (action costs are)"
    if domain.derived:
        return "derived predicates are not supported by the planners"
    n = grounding_size(domain, problem)
    if n > MAX_GROUNDING:
        return f"{count_text(n)} ground actions, over the limit of {MAX_GROUNDING:,}"
    return ""


def _bounded(solve: Any, domain: Domain, problem: Problem, timeout: float) -> PlanResult:
    """``solve(domain, problem, timeout)`` in a child process in its own process group,
    killed with everything it started once ``timeout`` seconds have passed: building the
    model and the planner's translator count against the limit too."""
    import signal

    ctx: Any = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    q: Any = ctx.Queue()
    proc = ctx.Process(target=_bounded_child, args=(solve, domain, problem, timeout, q))
    proc.start()
    try:
        res: PlanResult = q.get(timeout=timeout + 1.0)
    except queue.Empty:
        res = PlanResult("fast-downward", PlanStatus.TIMEOUT, reason=f"no plan within {timeout} s")
    finally:
        if proc.is_alive() and proc.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.join(5)
        q.close()
        q.join_thread()
    return res


def _bounded_child(solve: Any, domain: Domain, problem: Problem, timeout: float, q: Any) -> None:
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    try:
        q.put(solve(domain, problem, timeout))
    except Exception as exc:  # reported to the parent as a typed status
        q.put(PlanResult("fast-downward", PlanStatus.ERROR, reason=_short(exc)))


def _up(module: str) -> Any:
    """A unified-planning module, imported on first use (it has no type information)."""
    import importlib

    return importlib.import_module(f"unified_planning.{module}")


def _up_env() -> Any:
    env = _up("shortcuts").get_environment()
    env.credits_stream = None
    return env


def _fast_downward(domain: Domain, problem: Problem, timeout: float) -> PlanResult:
    from planproof.pddl.up_model import up_problem as build

    S = _up("engines").PlanGenerationResultStatus
    OneshotPlanner = _up("shortcuts").OneshotPlanner

    d = planning_domain(domain)
    names = export_names(d, problem)
    try:
        up_problem = build(d, problem, names)
    except Exception as exc:  # unified-planning raises many kinds on unsupported input
        return PlanResult("fast-downward", PlanStatus.UNSUPPORTED, reason=_short(exc))
    # Fast Downward's driver writes its intermediate output.sas into the working
    # directory, so concurrent runs in one directory overwrite each other's task: run
    # each in a private one.
    with (
        tempfile.TemporaryDirectory(prefix="planproof-fd-") as work,
        contextlib.chdir(work),
        OneshotPlanner(name="fast-downward") as planner,
        contextlib.redirect_stdout(io.StringIO()),
    ):
        try:
            result = planner.solve(up_problem, timeout=timeout)
        except Exception as exc:  # a crash of the engine or of reading its plan back
            return PlanResult("fast-downward", PlanStatus.ERROR, reason=_short(exc))
    status = result.status
    if status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY):
        steps = tuple(
            (
                names.original_action(a.action.name),
                tuple(names.original_object(str(p)) for p in a.actual_parameters),
            )
            for a in result.plan.actions
        )
        return PlanResult("fast-downward", PlanStatus.SOLVED, steps, renamed=names.renamed)
    if status in (S.UNSOLVABLE_PROVEN, S.UNSOLVABLE_INCOMPLETELY):
        return PlanResult(
            "fast-downward", PlanStatus.UNSOLVABLE, reason="no plan exists (search exhausted)"
        )
    if status is S.TIMEOUT:
        return PlanResult("fast-downward", PlanStatus.TIMEOUT, reason=f"no plan within {timeout} s")
    logs = " ".join(m.message for m in result.log_messages or ())
    return PlanResult("fast-downward", PlanStatus.ERROR, reason=f"{status.name}: {_tail(logs)}")


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def _tail(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text[-n:]


# --- the built-in search -----------------------------------------------------------------


def _grounded(engine: str, domain: Domain, problem: Problem) -> GroundTask | PlanResult:
    """The grounded STRIPS task, or the verdict when grounding alone gives it."""
    from planproof.pddl.ground import GroundingLimitError, ground_task

    try:
        task = ground_task(planning_domain(domain), problem)
    except GroundingLimitError as exc:
        return PlanResult(engine, PlanStatus.UNSUPPORTED, reason=str(exc))
    if task.trivially_unsolvable:
        return PlanResult(engine, PlanStatus.UNSOLVABLE, reason=task.trivially_unsolvable)
    return task


def _builtin(
    domain: Domain, problem: Problem, deadline: float | None, max_expansions: int | None = None
) -> PlanResult:
    """Ground with :mod:`planproof.pddl.ground` and search in this process
    (:mod:`planproof.pddl.strips_search`): no process start, no PDDL text to re-read."""
    from planproof.pddl.strips_search import Action, search

    task = _grounded("builtin", domain, problem)
    if isinstance(task, PlanResult):
        return task
    actions = [Action(a.name, a.pre, a.adds, a.dels) for a in task.actions]
    out = search(
        task.init,
        frozenset({task.goal}),
        actions,
        deadline=deadline,
        max_expansions=max_expansions,
    )
    n = out.expanded
    if out.status == "budget":
        return PlanResult("builtin", PlanStatus.BUDGET, reason=out.reason, expanded=n)
    if out.status == "limit":
        return PlanResult("builtin", PlanStatus.TIMEOUT, reason=out.reason, expanded=n)
    if out.status == "unsolvable":
        return PlanResult(
            "builtin", PlanStatus.UNSOLVABLE, reason="no plan exists (search exhausted)", expanded=n
        )
    origins = (task.actions[i].origin for i in out.plan)
    steps = tuple(o for o in origins if o is not None)
    return PlanResult("builtin", PlanStatus.SOLVED, steps, expanded=n)


# --- pyperplan ---------------------------------------------------------------------------


def _pyperplan(domain: Domain, problem: Problem, timeout: float) -> PlanResult:
    from planproof.pddl.ground import strips_text

    grounded = _grounded("pyperplan", domain, problem)
    if isinstance(grounded, PlanResult):
        return grounded
    task = strips_text(grounded)
    ctx: Any = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    q: Any = ctx.Queue()
    proc = ctx.Process(target=_pyperplan_child, args=(task.domain_text, task.problem_text, q))
    proc.start()
    try:
        kind, payload = q.get(timeout=timeout)
    except queue.Empty:
        kind, payload = "timeout", f"no plan within {timeout} s"
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(5)
        q.close()
        q.join_thread()
    if kind == "timeout":
        return PlanResult("pyperplan", PlanStatus.TIMEOUT, reason=payload)
    if kind == "error":
        return PlanResult("pyperplan", PlanStatus.ERROR, reason=payload)
    if payload is None:
        return PlanResult(
            "pyperplan", PlanStatus.UNSOLVABLE, reason="no plan exists (search exhausted)"
        )
    steps = tuple(task.actions[name] for name in payload if name in task.actions)
    return PlanResult("pyperplan", PlanStatus.SOLVED, steps)


def _pyperplan_child(domain_text: str, problem_text: str, q: Any) -> None:
    try:
        q.put(("ok", run_pyperplan(domain_text, problem_text)))
    except Exception as exc:  # reported to the parent as a typed status
        q.put(("error", _short(exc)))


def run_pyperplan(domain_text: str, problem_text: str) -> list[str] | None:
    """Solve a grounded STRIPS task with pyperplan (greedy best-first search with the hFF
    heuristic); the names of the plan's actions, or None when there is no plan.

    pyperplan is called directly: its unified-planning wrapper re-reads and converts the
    grounded task, which costs seconds per problem where the search itself takes a
    fraction of one."""
    import importlib
    import logging

    grounding = importlib.import_module("pyperplan.grounding")
    hff = importlib.import_module("pyperplan.heuristics.relaxation").hFFHeuristic
    parser_class = importlib.import_module("pyperplan.pddl.parser").Parser
    gbfs = importlib.import_module("pyperplan.search").greedy_best_first_search

    logging.getLogger().setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="planproof-pyperplan-") as work:
        d, p = os.path.join(work, "domain.pddl"), os.path.join(work, "problem.pddl")
        with open(d, "w", encoding="utf-8") as fh:
            fh.write(domain_text)
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(problem_text)
        parser = parser_class(d, p)
        task = grounding.ground(parser.parse_problem(parser.parse_domain()))
    solution = gbfs(task, hff(task))
    if solution is None:
        return None
    return [op.name.strip("()").split()[0] for op in solution]
