"""Run virtualhome-eval 0.1.1's subgoal-decomposition evaluator on single answers, each as a
fresh process would see it.

Executed by the interpreter of the reference's ``published`` environment
(``benchmarks/reference_env.py``); planproof never imports virtualhome-eval and this script
never imports planproof. Arguments: a JSON file of jobs ``[{"key", "tid", "text"}, ...]``
and a JSON-lines file the results are appended to (one line per job, flushed at once, so
an interrupted run keeps every finished answer; jobs whose key is already there are
skipped).

Per job: ``random.seed(123)`` (what importing the evaluator's ``utils`` does once per
process, so each answer draws its disjuncts as the first answer of a fresh process would),
then the unmodified ``subgoal_sim_utils.evaluate_task`` (what ``simulate_llm_response``
calls, with the arguments ``evaluate_results`` gives it). Result line::

    {"key": str, "tid": str, "success": bool, "info": str(report), "cpu_s": float}

or ``"timeout": true`` when the answer used more than ``CPU_LIMIT`` seconds of CPU (the
reference's runtime search is unbounded; such an answer is left out of the comparison).
"""

from __future__ import annotations

import json
import random
import signal
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

CPU_LIMIT = 120
"""CPU seconds one answer may take before it is given up (reported, not compared)."""


class _OutOfTime(BaseException):
    """Raised by the CPU timer: not an ``Exception``, so the evaluator's catch-all does
    not turn it into a ``NotParseable`` report."""


def _alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime


def main(jobs_path: str, out_path: str) -> int:
    from virtualhome_eval.evaluation.subgoal_decomposition import subgoal_sim_utils as su

    package = Path(str(su.__file__)).resolve().parents[2]  # .../virtualhome_eval
    args = SimpleNamespace(
        mode="evaluate_results",
        eval_type="subgoal_decomposition",
        dataset="virtualhome",
        scene_id=1,
        resource_dir=str(package / "resources"),
        dataset_dir=str(package / "dataset"),
        evaluation_dir=str(package / "evaluation"),
        output_dir="",
    )
    vocab = str(package / "resources" / "vocabulary.json")
    jobs = json.loads(Path(jobs_path).read_text(encoding="utf-8"))
    out = Path(out_path)
    done = set()
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                done.add(json.loads(line)["key"])
    signal.signal(signal.SIGPROF, _alarm)
    with out.open("a", encoding="utf-8") as sink:
        for job in jobs:
            if job["key"] in done:
                continue
            random.seed(123)
            t0 = time.process_time()
            row: dict[str, Any] = {"key": job["key"], "tid": job["tid"]}
            signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT)
            try:
                report = su.evaluate_task(vocab, 1, job["tid"], job["text"], args)
            except (_OutOfTime, UnboundLocalError):
                # the evaluator's ``finally: return report`` turns the timer's exception
                # into an UnboundLocalError
                row["timeout"] = True
            else:
                row["success"] = report[0] == "Correct"
                row["info"] = str(report)
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            row["cpu_s"] = round(time.process_time() - t0, 3)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
