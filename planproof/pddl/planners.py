"""Solving a problem with a classical planner: Fast Downward by default (its driver from
the ``up-fast-downward`` wheel, called directly on planproof's own PDDL export), pyperplan
and planproof's built-in search.

The domain and problem are exported with :func:`~planproof.pddl.writer.export_names`
so that real files with colliding names plan at all, and the plan is mapped back to the
original names. Operators without effects are left out of the export (they can never help
reach a goal, and Fast Downward rejects an empty ``:effect``).

pyperplan reads STRIPS only, so the pyperplan engine first compiles the task with
:mod:`planproof.pddl.ground` (grounding against the static facts, DNF splitting of
preconditions and conditional effects, complement atoms for negative conditions); it has
no time limit of its own, so it runs, grounding included (called directly, not through
unified-planning, whose wrapper costs seconds per grounded task), in a child process that
is killed at the timeout. The built-in engine grounds and searches in the calling process
and looks at the clock while grounding and in every heuristic evaluation.

The timeout is CPU time, not wall-clock time, so that a verdict does not depend on how
loaded the machine is: a child planner process gets it as its ``RLIMIT_CPU`` (each
process it starts, e.g. Fast Downward's translator and search, gets the same), and the
in-process ``builtin`` engine reads :func:`time.process_time`. The wall clock only guards
against a child that hangs without using CPU (:data:`WALL_FACTOR` times the timeout, plus
a minute); a child stopped by it is an ``error``, not a verdict. On an idle machine CPU
time and wall time agree to within a second.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
import time
from typing import TYPE_CHECKING, Any

from planproof.pddl.fd_process import (
    _CPU_LIMIT_SIGNALS,
    _FD_OUT_OF_MEMORY,
    _FD_OUT_OF_TIME,
    _FD_TRANSLATE_UNSOLVABLE,
    _FD_UNSOLVABLE,
    FD_ALIAS,
    _fd_plan,
    _guard_reason,
    _tail,
    _wall_guard,
    fast_downward_script,
)
from planproof.pddl.plan_result import PlanResult, PlanStatus
from planproof.pddl.reader import Problem
from planproof.pddl.schema import Domain
from planproof.pddl.writer import (
    NameMap,
    domain_to_pddl,
    export_names,
    operator_constants,
    problem_to_pddl,
)

if TYPE_CHECKING:
    from planproof.pddl.ground import GroundTask

ENGINES = ("fast-downward", "pyperplan", "builtin")
DEFAULT_TIMEOUT = 60.0
"""CPU seconds per planner call."""


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
    objects = {**problem.constants, **problem.objects}
    constants = {c: objects[c] for c in operator_constants(d) if c in objects}
    return (
        domain_to_pddl(d, names, loose_predicates=True, constants=constants, drop_numeric=True),
        problem_to_pddl(problem, d.name, names, declared=frozenset(constants)),
        names,
    )


def plan(
    domain: Domain,
    problem: Problem,
    *,
    engine: str = "fast-downward",
    timeout: float = DEFAULT_TIMEOUT,
    max_states: int | None = None,
    max_expansions: int | None = None,
    cpu_budget: float | None = None,
) -> PlanResult:
    """Solve ``problem``; never raises for a planner failure (the status and reason say
    what happened). ``max_states`` bounds the builtin engine by stored states and
    ``max_expansions`` (builtin engine only): by a budget of search
    expansions, instead of ``timeout``, so that the verdict does not depend on the
    machine's speed or load (status ``budget`` when it is spent). ``cpu_budget``
    (fast-downward only) is Fast Downward's limit in CPU seconds, as ``timeout`` is, but
    read as a budget: reaching it answers ``budget``, a verdict kept by the planner cache
    under that budget (CPU time is what the machine's load does not inflate; only the
    wall-clock guard against a hung planner still stops it, as an ``error``)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if cpu_budget is not None and engine != "fast-downward":
        raise ValueError(f"a CPU budget is Fast Downward's; the {engine} engine has none")
    t0 = time.perf_counter()
    why = planning_refusal(domain, problem, engine)
    if why:
        res = PlanResult(engine, PlanStatus.UNSUPPORTED, reason=why)
    elif engine == "pyperplan":
        res = _pyperplan(domain, problem, timeout)
    elif engine == "builtin":
        unbounded = max_states is None and max_expansions is None
        deadline = time.process_time() + timeout if unbounded else None
        res = _builtin(domain, problem, deadline, max_states, max_expansions)
    elif cpu_budget is not None:
        from planproof.pddl.fd_budget import fd_under_budget

        res = fd_under_budget(*export_for_planner(domain, problem), cpu_budget)
    else:
        res = _fast_downward(domain, problem, timeout)
    return dataclasses.replace(res, seconds=time.perf_counter() - t0)


MAX_GROUNDING = 20_000_000
"""Most ground actions whose static preconditions hold a problem may have to be planned
by the engines planproof grounds for (``builtin``, ``pyperplan``)."""


def grounding_size(domain: Domain, problem: Problem) -> int:
    """The ground actions grounding will enumerate: instances whose top-level static
    preconditions hold (an untyped logistics operator over 10 cities and 40 packages
    counts its packages, trucks and places, not every object in each position; see
    :func:`planproof.pddl.ground.count_instances`)."""
    from planproof.pddl.ground import count_instances

    return count_instances(domain, problem, MAX_GROUNDING)


def count_text(n: int) -> str:
    """A count for a person: ``20,000,001``, or ``about 1.0e+1001`` when the exact
    number (which a 64-parameter operator easily reaches) would fill the screen."""
    if n < 10**15:
        return f"{n:,}"
    digits = str(n)
    return f"about {digits[0]}.{digits[1]}e+{len(digits) - 1}"


def planning_refusal(domain: Domain, problem: Problem, engine: str = "builtin") -> str:
    """Why the planners cannot take this task ("" when they can): numeric conditions
    have no planning form here (action costs are dropped: the plan found is valid, not
    necessarily cheapest), derived predicates only Fast Downward's, and tasks over
    :data:`MAX_GROUNDING` ground actions are refused up front by the engines that
    planproof grounds for (not Fast Downward, which grounds by reachability itself)."""
    if domain.numeric or problem.numeric:
        return "numeric conditions are not supported by the planners (action costs are)"
    if engine == "fast-downward":
        return ""  # Fast Downward takes derived predicates and grounds for itself
    if domain.derived:
        return (
            f"derived predicates are not supported by the {engine} engine "
            "(use --engine fast-downward)"
        )
    n = grounding_size(domain, problem)
    if n > MAX_GROUNDING:
        return f"{count_text(n)} ground actions, over the limit of {MAX_GROUNDING:,}"
    return ""


def _limit_cpu(seconds: float) -> None:
    """In a child planner process: at most ``seconds`` of CPU time (SIGXCPU, then SIGKILL
    a few seconds later), inherited by every process it starts."""
    import math
    import resource

    soft = max(1, math.ceil(seconds))
    with contextlib.suppress(ValueError, OSError):
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        cap = soft + 5 if hard == resource.RLIM_INFINITY else min(soft + 5, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (min(soft, cap), cap))


def _fast_downward(domain: Domain, problem: Problem, timeout: float) -> PlanResult:
    """planproof's own PDDL export handed to Fast Downward's driver, in a private working
    directory (the driver writes ``output.sas`` there) and its own process group, killed
    with everything it started when the wall-clock guard passes. ``timeout`` is the
    driver's ``--overall-time-limit``, which Fast Downward enforces as CPU time of the
    translator and the search together. (A CPU *budget* is planned without the driver:
    :mod:`planproof.pddl.fd_budget`.) No unified-planning: building its model
    and importing it cost ~10x the planner itself on small tasks."""
    import math
    import signal
    import subprocess
    import sys

    script = fast_downward_script()
    if script is None:
        return PlanResult(
            "fast-downward", PlanStatus.ERROR, reason="up-fast-downward is not installed"
        )
    domain_text, problem_text, names = export_for_planner(domain, problem)
    with tempfile.TemporaryDirectory(prefix="planproof-fd-") as work:
        for name, text in (("domain.pddl", domain_text), ("problem.pddl", problem_text)):
            with open(os.path.join(work, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        limit = f"{max(1, math.ceil(timeout))}s"
        cmd = [sys.executable, script, "--plan-file", "plan", "--alias", FD_ALIAS]
        cmd += ["--overall-time-limit", limit]
        cmd += ["domain.pddl", "problem.pddl"]
        proc = subprocess.Popen(
            cmd,
            cwd=work,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = proc.communicate(timeout=_wall_guard(timeout))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return PlanResult("fast-downward", PlanStatus.ERROR, reason=_guard_reason(timeout))
        code = proc.returncode
        log = out.decode("utf-8", "replace")
        plan_path = os.path.join(work, "plan")
        if code == 0 and os.path.exists(plan_path):
            with open(plan_path, encoding="utf-8") as fh:
                steps = _fd_plan(fh.read(), names)
            return PlanResult("fast-downward", PlanStatus.SOLVED, steps, renamed=names.renamed)
    if code in _FD_UNSOLVABLE or code == _FD_TRANSLATE_UNSOLVABLE:
        return PlanResult(
            "fast-downward", PlanStatus.UNSOLVABLE, reason="no plan exists (search exhausted)"
        )
    if code in _FD_OUT_OF_TIME or code in _CPU_LIMIT_SIGNALS:
        return PlanResult("fast-downward", PlanStatus.TIMEOUT, reason=f"exit {code}: out of time")
    if code in _FD_OUT_OF_MEMORY:
        return PlanResult("fast-downward", PlanStatus.ERROR, reason=f"exit {code}: out of memory")
    return PlanResult("fast-downward", PlanStatus.ERROR, reason=f"exit {code}: {_tail(log)}")


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:300]}"


# --- the built-in search -----------------------------------------------------------------


def _grounded(
    engine: str, domain: Domain, problem: Problem, deadline: float | None = None
) -> GroundTask | PlanResult:
    """The grounded STRIPS task, or the verdict when grounding alone gives it (a
    timeout when ``deadline`` passes while grounding)."""
    from planproof.pddl.ground import GroundingLimitError, GroundingTimeout, ground_task

    try:
        task = ground_task(planning_domain(domain), problem, deadline=deadline)
    except GroundingLimitError as exc:
        return PlanResult(engine, PlanStatus.UNSUPPORTED, reason=str(exc))
    except GroundingTimeout as exc:
        return PlanResult(engine, PlanStatus.TIMEOUT, reason=str(exc))
    if task.trivially_unsolvable:
        return PlanResult(engine, PlanStatus.UNSOLVABLE, reason=task.trivially_unsolvable)
    return task


def _builtin(
    domain: Domain,
    problem: Problem,
    deadline: float | None,
    max_states: int | None = None,
    max_expansions: int | None = None,
) -> PlanResult:
    """Ground with :mod:`planproof.pddl.ground` and search in this process
    (:mod:`planproof.pddl.strips_search`): no process start, no PDDL text to re-read."""
    from planproof.pddl.strips_search import MAX_STATES, Action, search

    task = _grounded("builtin", domain, problem, deadline)
    if isinstance(task, PlanResult):
        return task
    actions = [Action(a.name, a.pre, a.adds, a.dels) for a in task.actions]
    out = search(
        task.init,
        frozenset({task.goal}),
        actions,
        deadline=deadline,
        max_states=max_states or MAX_STATES,
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
    """Ground and search in a child process (pyperplan has no time limit, and grounding
    a large task takes long too) with ``timeout`` CPU seconds, killed when it is over."""
    import multiprocessing
    import queue

    ctx: Any = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    q: Any = ctx.Queue()
    proc = ctx.Process(target=_pyperplan_child, args=(domain, problem, timeout, q))
    proc.start()
    res: PlanResult | None = None
    guard = time.monotonic() + _wall_guard(timeout)
    try:
        while res is None:
            try:
                res = q.get(timeout=0.25)
            except queue.Empty:
                if not proc.is_alive():  # its CPU budget ran out (or an answer just came)
                    with contextlib.suppress(queue.Empty):
                        res = q.get(timeout=0.5)
                    break
                if time.monotonic() > guard:  # hung or starved: an error, not a verdict
                    res = PlanResult("pyperplan", PlanStatus.ERROR, reason=_guard_reason(timeout))
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        q.close()
        q.join_thread()
    if res is None:
        reason = f"no plan within {timeout:g} CPU s"
        return PlanResult("pyperplan", PlanStatus.TIMEOUT, reason=reason)
    return res


def _pyperplan_child(domain: Domain, problem: Problem, timeout: float, q: Any) -> None:
    _limit_cpu(timeout)
    try:
        q.put(_pyperplan_solve(domain, problem))
    except Exception as exc:  # reported to the parent as a typed status
        q.put(PlanResult("pyperplan", PlanStatus.ERROR, reason=_short(exc)))


def _pyperplan_solve(domain: Domain, problem: Problem) -> PlanResult:
    from planproof.pddl.ground import strips_text

    grounded = _grounded("pyperplan", domain, problem)
    if isinstance(grounded, PlanResult):
        return grounded
    task = strips_text(grounded)
    names = run_pyperplan(task.domain_text, task.problem_text)
    if names is None:
        return PlanResult(
            "pyperplan", PlanStatus.UNSOLVABLE, reason="no plan exists (search exhausted)"
        )
    steps = tuple(task.actions[name] for name in names if name in task.actions)
    return PlanResult("pyperplan", PlanStatus.SOLVED, steps)


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
