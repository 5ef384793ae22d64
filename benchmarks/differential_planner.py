"""Verdicts of planproof's in-process planner (``builtin``) against pyperplan on every
published transition-modeling answer (15 models, VirtualHome), and against the Fast
Downward verdicts kept in the user's planner cache where they exist.

    nice -n 19 python benchmarks/differential_planner.py [--every N] [--out FILE]

Each answer becomes the planning task the sweep asks (the gold domain with the task's
operators replaced by the answer's, from the task's initial state to its goal); tasks
with the same content (:func:`~planproof.pddl.plan_cache.plan_key`) are planned once.
Every plan ``builtin`` finds is replayed under the *predicted* model with planproof's own
validator (``strict``: every precondition held and the goal holds at the end). pyperplan
runs as ``planproof plan --engine pyperplan`` does (a child process, 100 s); its verdicts
already in the user's cache are read, not asked again; the cache is never written.
Prints the counts and every disagreement; writes the per-task table as JSON with
``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

TIMEOUT = 100.0


def planning_tasks(every: int) -> tuple[list[tuple[str, Any, Any]], int, int]:
    """(key, domain, problem) per distinct planning task, the number of answers and of
    planner calls the sweep makes."""
    from planproof.data.published import published_files
    from planproof.metrics.transition_modeling.evaluate import _model
    from planproof.pddl.eai import load_eai_pddl
    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.plan_cache import plan_key
    from planproof.pddl.reader import declare_missing_objects
    from planproof.pddl.tolerant import read_operators

    data = load_eai_pddl("virtualhome")
    wanted = set(data.solved)
    seen: dict[str, tuple[str, Any, Any]] = {}
    answers = calls = 0
    for f in published_files("transition-modeling", "virtualhome"):
        rows = json.loads(f.path.read_text(encoding="utf-8"))[::every]
        for row in rows:
            ident = str(row.get("identifier", ""))
            if ident not in wanted or ident not in data.task_actions:
                continue
            answers += 1
            gold = data.task_actions[ident]
            params = {n.lower(): data.gold_operators[n].parameters for n in gold}
            try:
                predicted = read_operators(str(row.get("llm_output", "")), parameters=params)
            except PDDLSyntaxError:
                continue
            model, _why = _model(data.domain, predicted, {n.lower(): n for n in gold})
            if model is None:
                continue
            calls += 1
            problem = declare_missing_objects(data.domain, data.problem(ident))
            key = plan_key(model, problem, "builtin")
            seen.setdefault(key, (f"{f.model}/{ident}", model, problem))
    return list(seen.values()), answers, calls


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--every", type=int, default=1, help="every n-th answer of each file")
    ap.add_argument("--out", type=Path, help="write the per-task table here (JSON)")
    ap.add_argument(
        "--pyperplan-from",
        type=Path,
        help="read pyperplan's verdicts from an earlier run's --out file (where it has them)",
    )
    args = ap.parse_args()
    earlier: dict[str, str] = {}
    if args.pyperplan_from:
        doc = json.loads(args.pyperplan_from.read_text(encoding="utf-8"))
        earlier = {r["task"]: r["pyperplan"] for r in doc["tasks"]}

    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
    from planproof.pddl.plan_cache import PlanCache, plan_key
    from planproof.pddl.planners import PlanResult, PlanStatus, plan

    stored = PlanCache()  # the user's verdicts: read only
    tasks, answers, calls = planning_tasks(args.every)
    print(f"{answers} answers, {calls} planner calls, {len(tasks)} distinct planning tasks")
    rows: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    seconds = {"builtin": 0.0, "pyperplan": 0.0}
    for n, (name, model, problem) in enumerate(tasks, 1):
        t0 = time.process_time()
        mine = plan(model, problem, engine="builtin", timeout=TIMEOUT)
        seconds["builtin"] += time.process_time() - t0
        other = stored.get(plan_key(model, problem, "pyperplan"))
        if other is None and name in earlier:
            other = PlanResult("pyperplan", PlanStatus(earlier[name]), reason="earlier run")
        if other is None:
            t0 = time.perf_counter()
            other = plan(model, problem, engine="pyperplan", timeout=TIMEOUT)
            seconds["pyperplan"] += time.perf_counter() - t0
        fd = stored.get(plan_key(model, problem, "fast-downward"))
        valid = None
        if mine.status is PlanStatus.SOLVED:
            check = check_plan(pddl_task(model, problem), to_actions(mine.plan))
            valid = check.strict
            counts["builtin plan strictly valid" if valid else "builtin plan INVALID"] += 1
        if other.status is PlanStatus.TIMEOUT and mine.status is not PlanStatus.TIMEOUT:
            # pyperplan's limit is wall-clock time: under nice and load it can run out
            # where it would finish; no verdict is not a different verdict
            counts["pyperplan gave no verdict within its limit"] += 1
            agree = True
        else:
            agree = mine.status is other.status
            counts["agree with pyperplan" if agree else "DIFFER from pyperplan"] += 1
        if fd is not None:
            counts["fast-downward stored"] += 1
            fd_ok = fd.status is mine.status
            counts["agree with fast-downward" if fd_ok else "DIFFER from fast-downward"] += 1
        counts[f"builtin {mine.status.value}"] += 1
        row = {
            "task": name,
            "builtin": mine.status.value,
            "builtin_reason": mine.reason,
            "builtin_plan_length": len(mine.plan),
            "builtin_plan_valid": valid,
            "pyperplan": other.status.value,
            "fast_downward": fd.status.value if fd else None,
        }
        rows.append(row)
        if (
            not agree
            or valid is False
            or other.status is PlanStatus.TIMEOUT
            or (fd is not None and fd.status is not mine.status)
        ):
            print("DISAGREEMENT", json.dumps(row), flush=True)
        if n % 250 == 0:
            print(f"... {n}/{len(tasks)}", flush=True)
    for k, v in sorted(counts.items()):
        print(f"{k}: {v}")
    print(
        f"CPU of builtin: {seconds['builtin']:.1f} s for {len(tasks)} tasks; "
        f"pyperplan (wall, not read from the cache): {seconds['pyperplan']:.1f} s"
    )
    if args.out:
        args.out.write_text(json.dumps({"counts": counts, "tasks": rows}, indent=1))
    bad = counts["DIFFER from pyperplan"] + counts["builtin plan INVALID"]
    bad += counts["DIFFER from fast-downward"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
