"""PDDL benchmarks on the EAI data: planning time per problem with Fast Downward and
pyperplan (median, max), solved counts with every failure and its reason, validity of the
plans found and of the gold plans under the gold model, and the time of a whole
transition-modeling evaluation.

    python benchmarks/bench_pddl.py              # a sample of 25 tasks per dataset
    python benchmarks/bench_pddl.py --full       # every task with Fast Downward and the
                                                 # transition-modeling evaluation, pyperplan
                                                 # on 10 tasks per dataset
    python benchmarks/bench_pddl.py --full --out results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def _sample(ids: list[str], n: int | None) -> list[str]:
    if n is None or n >= len(ids):
        return ids
    step = len(ids) / n
    return [ids[int(i * step)] for i in range(n)]


def sweep(dataset: str, engine: str, ids: list[str], timeout: float) -> dict[str, Any]:
    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
    from planproof.pddl.eai import load_eai_pddl
    from planproof.pddl.planners import plan
    from planproof.pddl.reader import declare_missing_objects

    data = load_eai_pddl(dataset)
    times: list[float] = []
    failures: dict[str, str] = {}
    invalid: dict[str, str] = {}
    solved = 0
    for ident in ids:
        problem = declare_missing_objects(data.domain, data.problem(ident))
        res = plan(data.domain, problem, engine=engine, timeout=timeout)
        times.append(res.seconds)
        if not res.solved:
            failures[ident] = f"{res.status.value}: {res.reason}"
            continue
        solved += 1
        check = check_plan(pddl_task(data.domain, problem), to_actions(res.plan))
        if not check.valid:
            err = check.replay.first_error
            invalid[ident] = err.message if err else f"goal unmet: {check.unmet_goal}"
    return {
        "dataset": dataset,
        "engine": engine,
        "seconds_per_task": dict(zip(ids, (round(t, 3) for t in times), strict=True)),
        "tasks": len(ids),
        "solved": solved,
        "plans_invalid_under_gold": invalid,
        "failures": failures,
        "median_s": round(statistics.median(times), 3) if times else None,
        "max_s": round(max(times), 3) if times else None,
        "total_s": round(sum(times), 1),
    }


def gold_plans(dataset: str) -> dict[str, Any]:
    """Replay every gold plan under the gold model (what ``planproof verify`` does)."""
    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
    from planproof.pddl.eai import load_eai_pddl
    from planproof.pddl.plan_io import read_plan
    from planproof.pddl.reader import declare_missing_objects

    data = load_eai_pddl(dataset)
    valid = 0
    bad: dict[str, str] = {}
    t0 = time.perf_counter()
    for ident, lines in data.gold_plans.items():
        problem = declare_missing_objects(data.domain, data.problem(ident))
        check = check_plan(pddl_task(data.domain, problem), to_actions(read_plan("\n".join(lines))))
        if check.valid:
            valid += 1
        else:
            err = check.replay.first_error
            bad[ident] = err.message if err else f"goal unmet: {', '.join(check.unmet_goal)}"
    return {
        "dataset": dataset,
        "gold_plans": len(data.gold_plans),
        "valid": valid,
        "invalid": bad,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def tm_evaluation(dataset: str, ids: list[str], timeout: float) -> dict[str, Any]:
    """Evaluate the gold operators as if an LLM had written them (F1 must be 1.0)."""
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl(dataset)
    responses = [{"identifier": i, "llm_output": data.gold_response(i)} for i in ids]
    t0 = time.perf_counter()
    report = evaluate_responses(data, responses, timeout=timeout)
    secs = time.perf_counter() - t0
    s = report.summary()
    return {
        "dataset": dataset,
        "tasks": len(ids),
        "seconds": round(secs, 1),
        "overall": s["overall"],
        "planner_found": s["planner_found"],
        "plan_valid_under_gold": s["plan_valid_under_gold"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--full", action="store_true", help="every task, not a sample")
    ap.add_argument("--sample", type=int, default=25)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--pyperplan-timeout", type=float, default=60.0)
    ap.add_argument(
        "--pyperplan-sample",
        type=int,
        default=10,
        help="tasks per dataset for pyperplan, which is far slower (0: as many as the others)",
    )
    ap.add_argument("--engines", default="fast-downward,pyperplan")
    ap.add_argument("--skip-tm", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    from planproof.pddl.eai import load_eai_pddl

    n = None if args.full else args.sample
    out: dict[str, Any] = {"planning": [], "gold_plans": [], "tm": []}
    for ds in ("virtualhome", "behavior"):
        data = load_eai_pddl(ds)
        ids = _sample(list(data.solved), n)
        out["gold_plans"].append(gold_plans(ds))
        print(json.dumps(out["gold_plans"][-1])[:400], flush=True)
        for engine in args.engines.split(","):
            limit = args.pyperplan_timeout if engine == "pyperplan" else args.timeout
            chosen = ids
            if engine == "pyperplan" and args.pyperplan_sample:
                chosen = _sample(list(data.solved), min(args.pyperplan_sample, len(ids)))
            r = sweep(ds, engine, chosen, limit)
            out["planning"].append(r)
            brief = {k: v for k, v in r.items() if k not in {"failures", "seconds_per_task"}}
            brief["n_failures"] = len(r["failures"])
            print(json.dumps(brief), flush=True)
        if not args.skip_tm:
            out["tm"].append(tm_evaluation(ds, ids, args.timeout))
            print(json.dumps(out["tm"][-1]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(out, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
