"""The published reference evaluator (virtualhome-eval 0.1.1) on one answer at a time, for
the differential fuzzers ``fuzz_tm_reading.py`` and ``fuzz_gi_reading.py``.

Executed by the interpreter of a reference venv (``reference_env.py``); never imports
planproof. Each case is one call of the module's unmodified ``evaluate_results`` on a
one-row responses file, with the per-task facts read from its log as
``reference_published_driver.py`` reads them (same handler), so that an answer on which
the reference raises loses that case only (the reference would lose the whole file).

    python fuzz_reference_driver.py JOB.json OUT.jsonl

Job::

    {"module": "transition_modeling" | "goal_interpretation", "workdir": "...",
     "action_tests": false,
     "cases": [{"key": "...", "identifier": "...", "llm_output": "..."}, ...]}

One JSON line per case is appended to ``OUT.jsonl``; a case whose key is already there is
not run again (resumable). Each line: ``key``, ``identifier``, ``task`` (the log handler's
record, e.g. ``planner_success`` / ``format_wrong`` / the TP/FP/FN counts), ``raised``
(the exception the evaluator's *task loop* raised, else null: an exception after the loop
is its summary of a one-task file, e.g. a division by a zero goal count, and changes no
per-task fact), ``fd`` (transition modeling: the status of each Fast Downward call,
``solved`` / ``unsolvable`` / ``unreadable`` / ``crash``, its wall seconds and its
error lines).

``action_tests`` false (the default): the evaluator's per-operator "Action test" planner
calls fail at once instead of running Fast Downward (they change neither the holistic
verdict nor the counts; they take three quarters of its time).
"""

from __future__ import annotations

import inspect
import json
import logging
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference_published_driver as rpd

CURRENT: dict[str, Any] = {"id": "", "fd": []}


def fd_status(output: str) -> str:
    """Fast Downward's answer from its driver's output (as ``tests/test_fd_reading.py``)."""
    if "Solution found!" in output:
        return "solved"
    if "Traceback" in output:
        return "crash"
    if "translate exit code: 30" in output:
        return "unreadable"
    return "unsolvable"


def _patch_planner(action_tests: bool) -> None:
    fd = __import__(
        "virtualhome_eval.simulation.evolving_graph.pddlgym_planners.fd", fromlist=["FD"]
    )
    real_plan = fd.FD.plan_from_pddl
    real_getoutput = subprocess.getoutput

    def plan(self: Any, dom_file: str, prob_file: str, *args: Any, **kwargs: Any) -> Any:
        if not action_tests and Path(dom_file).name != f"{CURRENT['id']}.pddl":
            raise RuntimeError("action test skipped by fuzz_reference_driver")
        return real_plan(self, dom_file, prob_file, *args, **kwargs)

    def getoutput(cmd: str) -> str:
        t0 = time.perf_counter()
        out = real_getoutput(cmd)
        if "--cleanup" not in cmd:
            status = fd_status(out)
            lines = [x for x in out.splitlines() if "rror" in x or "exit code" in x]
            why = "" if status == "solved" else " | ".join(lines[-3:])[:300]
            CURRENT["fd"].append([status, round(time.perf_counter() - t0, 2), why])
        return out

    fd.FD.plan_from_pddl = plan
    subprocess.getoutput = getoutput  # type: ignore[assignment]


def _loop_end(module: Any) -> int:
    """The first line of ``evaluate_results`` after its per-task loop."""
    lines, start = inspect.getsourcelines(module.evaluate_results)
    inside = False
    for k, line in enumerate(lines):
        if line.strip().startswith("for output_dict in llm_response"):
            inside, indent = True, len(line) - len(line.lstrip())
            continue
        text = line.strip()
        if (
            inside
            and text
            and not text.startswith("#")
            and len(line) - len(line.lstrip()) <= indent
        ):
            return start + k
    raise RuntimeError("evaluate_results has no per-task loop")


def _raised_in_loop(exc: BaseException, end: int) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "evaluate_results":
            return tb.tb_lineno < end
        tb = tb.tb_next
    return True


def run_case(module: str, case: dict[str, Any], workdir: Path, end: int) -> dict[str, Any]:
    ident = str(case["identifier"])
    rows = [{"identifier": ident, "llm_output": case["llm_output"]}]
    model = f"fuzz_{module}"
    logger = logging.getLogger(rpd._module(module).__name__)
    handler = rpd.LogTasks(module, rows)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    logger.addHandler(handler)
    CURRENT["id"], CURRENT["fd"] = ident, []
    raised = None
    t0 = time.perf_counter()
    try:
        rpd._evaluate(module, model, rows, workdir, "virtualhome")
    except Exception as exc:  # the reference's own failure on this answer: recorded
        if _raised_in_loop(exc, end):
            raised = f"{type(exc).__name__}: {exc}"[:300]
            print(traceback.format_exc(), file=sys.stderr)
    finally:
        logger.removeHandler(handler)
    return {
        "key": case["key"],
        "identifier": ident,
        "task": handler.tasks.get(ident),
        "raised": raised,
        "fd": list(CURRENT["fd"]),
        "seconds": round(time.perf_counter() - t0, 2),
    }


def main(argv: list[str]) -> int:
    job = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    out = Path(argv[2])
    module = job["module"]
    done = set()
    if out.is_file():
        done = {json.loads(line)["key"] for line in out.read_text().splitlines() if line}
    if module == "transition_modeling":
        _patch_planner(bool(job.get("action_tests", False)))
    end = _loop_end(rpd._module(module))
    workdir = Path(job["workdir"])
    for case in job["cases"]:
        if case["key"] in done:
            continue
        rec = run_case(module, case, workdir / "runs", end)
        with out.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
