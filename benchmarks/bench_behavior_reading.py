"""The cost of BEHAVIOR's reference reading of planner success, cold, and its verdicts.

Runs :func:`~planproof.metrics.transition_modeling.reference_planner.reference_planner_tasks`
on the published BEHAVIOR transition-modeling files (all 15 by default) through an empty
planner cache in a temporary directory, and prints the CPU seconds of the process and its
children per file. ``--own`` first scores each file in planproof's own reading (as
``reproduce`` does, its CPU printed apart) and lets the reference reading reuse its
definitive verdicts where the models are the same (the count printed). ``--out FILE``
writes every task's verdict (counted, success, status, hallucinated) as JSON, so that two
versions of the code can be compared task by task (``--compare FILE``: every difference
printed, exit 1 if any). ``--profile FILE`` writes a cProfile of the run (the children's
CPU is not in it: the translator and search show as time waiting on them).

    nice -n 19 python benchmarks/bench_behavior_reading.py [--models NAME ...]
        [--own] [--plan-cache FILE] [--out FILE] [--compare FILE] [--profile FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
from pathlib import Path
from typing import Any


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run(models: list[str] | None, own: bool = False) -> dict[str, dict[str, Any]]:
    """Every file's verdicts, keyed by model then task; prints CPU seconds per file."""
    from planproof.data.published import published_files
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.metrics.transition_modeling.reference_planner import reference_planner_tasks
    from planproof.pddl.eai import load_eai_pddl
    from planproof.runs.published_sweep import (
        TM_BEHAVIOR_CPU_BUDGET,
        TM_BEHAVIOR_ENGINE,
        TM_TIMEOUT,
    )

    data = load_eai_pddl("behavior")
    out: dict[str, dict[str, Any]] = {}
    start = _cpu()
    for f in published_files("transition-modeling", "behavior"):
        if models and f.model not in models:
            continue
        rows = json.loads(f.path.read_text(encoding="utf-8"))
        mine: list[Any] = []
        if own:
            before = _cpu()
            mine = evaluate_responses(
                data,
                rows,
                engine=TM_BEHAVIOR_ENGINE,
                timeout=TM_TIMEOUT,
                cpu_budget=TM_BEHAVIOR_CPU_BUDGET,
            ).tasks
            print(f"{f.model}: own reading {_cpu() - before:.1f} CPU s", flush=True)
        before = _cpu()
        tasks = reference_planner_tasks(data, rows, own=mine)
        out[f.model] = {
            t.identifier: {
                "counted": t.counted,
                "success": t.success,
                "status": t.status,
                "hallucinated": t.hallucinated,
            }
            for t in tasks
        }
        reused = sum(t.reused for t in tasks)
        print(
            f"{f.model}: {len(tasks)} tasks ({reused} reused), {_cpu() - before:.1f} CPU s",
            flush=True,
        )
    print(f"all: {sum(map(len, out.values()))} tasks, {_cpu() - start:.1f} CPU s", flush=True)
    return out


def compare(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> int:
    """Print every task whose verdict differs (or is missing on one side); their count."""
    n = 0
    for model in sorted(set(old) | set(new)):
        a, b = old.get(model, {}), new.get(model, {})
        for ident in sorted(set(a) | set(b)):
            if a.get(ident) != b.get(ident):
                n += 1
                print(f"  {model} {ident}: {a.get(ident)} -> {b.get(ident)}")
    total = sum(map(len, new.values()))
    print(f"compared {total} tasks: {n} differences")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="*", help="file stems (default: all 15)")
    ap.add_argument("--own", action="store_true", help="planproof's own reading first")
    ap.add_argument("--plan-cache", type=Path, help="planner cache file (default: a new one)")
    ap.add_argument("--out", type=Path, help="write the verdicts here (JSON)")
    ap.add_argument("--compare", type=Path, help="verdicts of an earlier run to compare")
    ap.add_argument("--profile", type=Path, help="write a cProfile here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="planproof-bench-") as tmp:
        os.environ["PLANPROOF_PLAN_CACHE"] = "on"
        cache = args.plan_cache or Path(tmp) / "plans.sqlite3"
        os.environ["PLANPROOF_PLAN_CACHE_PATH"] = str(cache)
        if args.profile:
            import cProfile

            prof = cProfile.Profile()
            got = prof.runcall(run, args.models, args.own)
            prof.dump_stats(str(args.profile))
        else:
            got = run(args.models, args.own)
    if args.out:
        args.out.write_text(json.dumps(got, indent=1, sort_keys=True), encoding="utf-8")
    if args.compare:
        return 1 if compare(json.loads(args.compare.read_text(encoding="utf-8")), got) else 0
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main())
