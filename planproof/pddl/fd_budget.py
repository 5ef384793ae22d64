"""Fast Downward under a budget of CPU seconds, its translator and search called directly,
with a sound unsolvability test between them.

BEHAVIOR transition modeling plans about 1,300 distinct tasks with Fast Downward
(lama-first) under a budget of 5 CPU seconds each (docs/reproduce.md, "Planner budget").
Through its driver each task cost three Python start-ups (planproof's call, the driver,
the translator) and 127 tasks spent the whole budget in the search. Here:

- the translator (``python -S -m fast_downward.translate``, as the driver starts it, minus
  the ``site`` import it does not need) and the search binary are run directly, each with
  the CPU seconds left of the budget as its ``RLIMIT_CPU``, rounded down to whole seconds
  as the driver rounds them: the budget is the translator's and the search's CPU time
  together, as under the driver (which also charged its own start-up, about 0.1 s);
- between them the translated task is read back (:mod:`planproof.pddl.sas`) and tested
  with h^2 reachability (:mod:`planproof.pddl.h2`): when two goal facts (or one) can
  never hold together, no plan exists, and the answer is ``unsolvable`` without a search.
  On the published answers that is most of the tasks whose search spent the budget: an
  operator needing two objects in reach, or holding without full hands, can never apply.

The search configuration is the driver's ``lama-first`` alias, spelled out
(:data:`LAMA_FIRST`; a test compares it with the installed driver's), so plans are the
driver's. Statuses and exit codes are read as :func:`planproof.pddl.planners._fast_downward`
reads the driver's (both from :mod:`planproof.pddl.fd_process`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import signal
import subprocess
import sys
import tempfile

from planproof.pddl.fd_process import (
    _CPU_LIMIT_SIGNALS,
    _FD_OUT_OF_MEMORY,
    _FD_OUT_OF_TIME,
    _FD_TRANSLATE_UNSOLVABLE,
    _FD_UNSOLVABLE,
    _fd_plan,
    _guard_reason,
    _tail,
    _wall_guard,
    fast_downward_script,
)
from planproof.pddl.plan_result import PlanResult, PlanStatus
from planproof.pddl.writer import NameMap

ENGINE = "fast-downward"
LAMA_FIRST = (
    "let(hlm, eval_modify_costs(landmark_sum(lm_factory=lm_reasonable_orders_hps(lm_rhw()),"
    "pref=false),cost_type=one),let(hff, eval_modify_costs(ff(),cost_type=one),"
    "lazy_greedy([hff,hlm],preferred=[hff,hlm],cost_type=one,reopen_closed=false)))"
)
"""Fast Downward 23.06's ``lama-first`` alias (its driver's ``aliases.py``)."""
H2_REASON = "no plan exists (h^2: the goal's facts never hold together; no search run)"


def _bin_dir() -> str | None:
    script = fast_downward_script()
    if script is None:
        return None
    return os.path.join(os.path.dirname(script), "builds", "release", "bin")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _whole_seconds(left: float) -> int:
    """The driver's rounding of a time limit: down to whole seconds, up within 1 ms."""
    return int(left + 0.001)


def _run(
    cmd: list[str],
    cwd: str,
    seconds: int,
    guard: float,
    *,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> tuple[int | None, str]:
    """(exit status, output) of ``cmd`` under ``seconds`` of CPU; None when the wall-clock
    guard stopped it."""
    with contextlib.ExitStack() as stack:
        fin = stack.enter_context(open(stdin, "rb")) if stdin else subprocess.DEVNULL
        limit = functools.partial(resource.setrlimit, resource.RLIMIT_CPU, (seconds, seconds + 1))
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=fin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            # in the child before it runs: ``seconds`` of CPU (SIGXCPU), SIGKILL a second
            # later, as the driver sets them; one C call, no lock taken after the fork
            preexec_fn=limit,  # noqa: PLW1509
        )
        try:
            out, _ = proc.communicate(timeout=guard)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, ""
    return proc.returncode, out.decode("utf-8", "replace")


def fd_under_budget(
    domain_text: str, problem_text: str, names: NameMap, budget: float
) -> PlanResult:
    """Plan the exported task (see the module docstring): ``solved``, ``unsolvable`` (by
    the translator, the h^2 test or the search), ``budget`` when the translator and the
    search spent ``budget`` CPU seconds together, ``error`` otherwise (no verdict)."""
    from planproof.pddl.h2 import h2_unreachable_goal
    from planproof.pddl.sas import SasFormatError, read_sas

    bin_dir = _bin_dir()
    if bin_dir is None:
        return PlanResult(ENGINE, PlanStatus.ERROR, reason="up-fast-downward is not installed")
    spent = f"its budget of {_whole_seconds(budget)} CPU s spent"
    guard = _wall_guard(budget)
    with tempfile.TemporaryDirectory(prefix="planproof-fd-") as work:
        for name, text in (("domain.pddl", domain_text), ("problem.pddl", problem_text)):
            with open(os.path.join(work, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        env = dict(os.environ)
        env["PYTHONPATH"] = f"{bin_dir}:{env.get('PYTHONPATH', '')}".strip(":")
        translate = [sys.executable, "-S", "-m", "fast_downward.translate"]
        translate += ["domain.pddl", "problem.pddl", "--sas-file", "output.sas"]
        before = _children_cpu()
        code, log = _run(translate, work, _whole_seconds(budget), guard, env=env)
        if code is None:
            return PlanResult(ENGINE, PlanStatus.ERROR, reason=_guard_reason(budget))
        if code != 0:
            return _translator_verdict(code, log, spent)
        left = _whole_seconds(budget - (_children_cpu() - before))
        sas_path = os.path.join(work, "output.sas")
        try:
            with open(sas_path, encoding="utf-8") as fh:
                if h2_unreachable_goal(read_sas(fh.read())):
                    return PlanResult(ENGINE, PlanStatus.UNSOLVABLE, reason=H2_REASON)
        except (OSError, SasFormatError):
            pass  # no test: the search decides
        if left <= 0:
            return PlanResult(ENGINE, PlanStatus.BUDGET, reason=f"after translating: {spent}")
        search = [os.path.join(bin_dir, "downward"), "--search", LAMA_FIRST]
        search += ["--internal-plan-file", "plan"]
        code, log = _run(search, work, left, guard, stdin=sas_path)
        if code is None:
            return PlanResult(ENGINE, PlanStatus.ERROR, reason=_guard_reason(budget))
        plan_path = os.path.join(work, "plan")
        if code == 0 and os.path.exists(plan_path):
            with open(plan_path, encoding="utf-8") as fh:
                steps = _fd_plan(fh.read(), names)
            return PlanResult(ENGINE, PlanStatus.SOLVED, steps, renamed=names.renamed)
    return _search_verdict(code, log, spent)


def _translator_verdict(code: int, log: str, spent: str) -> PlanResult:
    if code == _FD_TRANSLATE_UNSOLVABLE:
        return PlanResult(ENGINE, PlanStatus.UNSOLVABLE, reason="no plan exists (search exhausted)")
    if code in _FD_OUT_OF_TIME or code in _CPU_LIMIT_SIGNALS:
        return PlanResult(ENGINE, PlanStatus.BUDGET, reason=f"exit {code}: {spent}")
    if code in _FD_OUT_OF_MEMORY:
        return PlanResult(ENGINE, PlanStatus.ERROR, reason=f"exit {code}: out of memory")
    # the driver reports a translator's crash (exit 1) as its critical error, 30
    shown = 30 if code == 1 else code
    return PlanResult(ENGINE, PlanStatus.ERROR, reason=f"exit {shown}: {_tail(log)}")


def _search_verdict(code: int, log: str, spent: str) -> PlanResult:
    if code in _FD_UNSOLVABLE:
        return PlanResult(ENGINE, PlanStatus.UNSOLVABLE, reason="no plan exists (search exhausted)")
    if code in _FD_OUT_OF_TIME or code in _CPU_LIMIT_SIGNALS:
        return PlanResult(ENGINE, PlanStatus.BUDGET, reason=f"exit {code}: {spent}")
    if code in _FD_OUT_OF_MEMORY:
        return PlanResult(ENGINE, PlanStatus.ERROR, reason=f"exit {code}: out of memory")
    return PlanResult(ENGINE, PlanStatus.ERROR, reason=f"exit {code}: {_tail(log)}")
