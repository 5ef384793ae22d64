"""The executors side by side on the same sweep: the published EAI answers' goal
interpretation, action sequencing and subgoal decomposition cells (``planproof reproduce
eai``'s cells), in this process, on the local process pool and on a local Ray runtime, with
1 and 2 workers. Prints start-up, sweep time, speed-up over the in-process run, the
overhead per task (a no-op task's round trip), whether the results are identical, and the
per-task costs the cluster projection in docs/scale-out.md is computed from (a few
transition-modeling planner calls, PARTNR plans).

    python benchmarks/bench_executor.py [--models 15] [--answers 0] [--tm-tasks 6] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NOOP_TASKS = 200


def _strip(result: dict[str, Any]) -> str:
    """A cell's result without its timing, as bytes to compare."""
    return json.dumps({k: v for k, v in result.items() if k != "seconds"}, sort_keys=True)


def _open(kind: str, workers: int) -> Any:
    if kind == "local":
        from planproof.executor.local import LocalExecutor

        return LocalExecutor(workers)
    from planproof.executor.ray_executor import RayExecutor

    return RayExecutor(workers)


def measure(kind: str, workers: int, cells: list[Any], serial: list[str]) -> dict[str, Any]:
    from planproof.executor.outcome import echo
    from planproof.runs.published_sweep import evaluate_cell

    t0 = time.perf_counter()
    ex = _open(kind, workers)
    ex.map(echo, range(workers))  # the workers exist and answer
    start = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        outcomes = ex.map(evaluate_cell, cells)
        sweep = time.perf_counter() - t0
        t0 = time.perf_counter()
        ex.map(echo, range(NOOP_TASKS))
        noop = (time.perf_counter() - t0) / NOOP_TASKS
    finally:
        t0 = time.perf_counter()
        ex.close()
        stop = time.perf_counter() - t0
    same = [_strip(o.unwrap()) for o in outcomes] == serial
    return {
        "executor": kind,
        "workers": workers,
        "start_s": round(start, 3),
        "sweep_s": round(sweep, 3),
        "stop_s": round(stop, 3),
        "overhead_per_task_ms": round(noop * 1e3, 3),
        "identical": same,
    }


def tm_task_seconds(n: int) -> float | None:
    """Seconds per transition-modeling answer with its planner call (the sweep's engine and
    limit), in this process, from an empty planner cache (a warm one would time cache
    reads, not planning)."""
    if n <= 0:
        return None
    from planproof.pddl.plan_cache import ENV_PATH

    with tempfile.TemporaryDirectory(prefix="planproof-bench-plans-") as tmp:
        before = os.environ.get(ENV_PATH)
        os.environ[ENV_PATH] = str(Path(tmp) / "plans.sqlite3")
        try:
            return _tm_seconds(n)
        finally:
            if before is None:
                del os.environ[ENV_PATH]
            else:
                os.environ[ENV_PATH] = before


def _tm_seconds(n: int) -> float:
    from planproof.data.published import published_files
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl
    from planproof.runs.published_sweep import TM_ENGINE, TM_TIMEOUT

    data = load_eai_pddl("virtualhome")
    f = published_files("transition-modeling", "virtualhome")[0]
    rows = json.loads(Path(f.path).read_text(encoding="utf-8"))
    rows = [r for r in rows if r.get("identifier") in set(data.solved)][:n]
    t0 = time.perf_counter()
    evaluate_responses(data, rows, engine=TM_ENGINE, timeout=TM_TIMEOUT)
    return (time.perf_counter() - t0) / len(rows)


def partnr_plan_seconds() -> float:
    """Seconds per PARTNR plan (the bundled corpus, replay + evaluation functions)."""
    from importlib import resources

    from planproof.commands.evaluate_partnr import _plans, metrics_for
    from planproof.simulators.partnr.world import load_episodes

    root = resources.files("planproof.examples") / "partnr"
    episodes = {
        e.episode_id: e
        for e in load_episodes(json.loads((root / "episodes.json").read_text(encoding="utf-8")))
    }
    plans = _plans(json.loads((root / "plans.json").read_text(encoding="utf-8")))
    jobs = [
        (
            episodes[p["episode_id"]],
            {a: v for a, v in p.items() if a not in ("episode_id", "name", "expect")},
            str(p.get("name", "")),
            False,
        )
        for p in plans
        if p["episode_id"] in episodes
    ]
    metrics_for(jobs[0])
    t0 = time.perf_counter()
    for _ in range(3):
        for j in jobs:
            metrics_for(j)
    return (time.perf_counter() - t0) / (3 * len(jobs))


PARTNR_EPISODES = 100_000
PARTNR_BATCH = 32
MACHINES = (1, 2, 4, 8, 16, 32, 64)
CORES = 2  # per machine, as this one


def full_sweep_work(per_answer: dict[str, float], tm_answer: float) -> tuple[float, float, int]:
    """(serial seconds, largest cell's seconds, cells) of the full EAI VirtualHome sweep:
    every published file of the four modules at the measured cost per answer."""
    from planproof.pddl.eai import load_eai_pddl
    from planproof.runs.published_sweep import published_cells

    solved = set(load_eai_pddl("virtualhome").solved)
    work, largest, cells = 0.0, 0.0, 0
    for c in published_cells():
        rows = json.loads(Path(c.path).read_text(encoding="utf-8"))
        if c.module == "transition-modeling":
            cost = tm_answer * sum(1 for r in rows if r.get("identifier") in solved)
        else:
            cost = per_answer[c.module] * len(rows)
        work, largest, cells = work + cost, max(largest, cost), cells + 1
    return work, largest, cells


def projection(
    work: float, largest: float, tasks: int, overhead: float, start: float
) -> dict[int, float]:
    """Seconds on N machines of CORES workers: the work and the per-task overhead shared
    out, Ray's start-up once, and never less than the largest task (a cell runs on one
    worker)."""
    return {
        n: round(start + max(largest, (work + tasks * overhead) / (n * CORES)), 1) for n in MACHINES
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=2, help="published models in the sweep (2)")
    ap.add_argument(
        "--answers", type=int, default=0, help="cut each published file to N answers (0: all)"
    )
    ap.add_argument("--tm-tasks", type=int, default=6, help="TM answers timed with the planner")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from planproof.runs.published_sweep import evaluate_cell, published_cells

    modules = ("goal-interpretation", "action-sequencing", "subgoal-decomposition")
    all_cells = published_cells(modules)
    models = sorted({c.model for c in all_cells})[: args.models]
    cells = [c for c in all_cells if c.model in models]
    if args.answers > 0:
        import dataclasses

        tmp = Path(tempfile.mkdtemp(prefix="planproof-bench-"))
        for i, c in enumerate(cells):
            rows = json.loads(Path(c.path).read_text(encoding="utf-8"))[: args.answers]
            path = tmp / f"{i}.json"
            path.write_text(json.dumps(rows), encoding="utf-8")
            cells[i] = dataclasses.replace(c, path=str(path))
    t0 = time.perf_counter()
    evaluate_cell(cells[0])  # this process loads the datasets once, as each worker will
    print(f"data loaded and one cell scored: {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    t0 = time.perf_counter()
    serial_results = [evaluate_cell(c) for c in cells]
    serial_s = time.perf_counter() - t0
    serial = [_strip(r) for r in serial_results]
    per_module: dict[str, list[float]] = {}
    per_answer_lists: dict[str, list[float]] = {}
    for r in serial_results:
        per_module.setdefault(r["cell"]["module"], []).append(r["seconds"])
        n = max(1, int(r["summary"].get("tasks") or 1))
        per_answer_lists.setdefault(r["cell"]["module"], []).append(r["seconds"] / n)
    per_answer = {m: sum(v) / len(v) for m, v in per_answer_lists.items()}

    print(f"in this process: {len(cells)} cells in {serial_s:.2f} s", file=sys.stderr)
    rows = []
    for kind in ("local", "ray"):
        for w in (1, 2):
            rows.append(measure(kind, w, cells, serial))
            print(rows[-1], file=sys.stderr, flush=True)
    for r in rows:
        r["speed_up"] = round(serial_s / r["sweep_s"], 2)
    out = {
        "load_average_1min": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(),
        "cells": len(cells),
        "models": len(models),
        "serial_s": round(serial_s, 3),
        "cell_seconds_by_module": {
            m: round(sum(v) / len(v), 3) for m, v in sorted(per_module.items())
        },
        "executors": rows,
        "seconds_per_answer_by_module": {m: round(v, 5) for m, v in sorted(per_answer.items())},
        "tm_seconds_per_answer_with_planner": tm_task_seconds(args.tm_tasks),
        "partnr_seconds_per_plan": partnr_plan_seconds(),
    }
    ray2 = next(r for r in rows if r["executor"] == "ray" and r["workers"] == 2)
    overhead, start = ray2["overhead_per_task_ms"] / 1e3, ray2["start_s"]
    tm = out["tm_seconds_per_answer_with_planner"] or 0.0
    work, largest, n_cells = full_sweep_work(per_answer, tm)
    out["eai_sweep"] = {
        "cells": n_cells,
        "serial_s": round(work, 1),
        "largest_cell_s": round(largest, 1),
        "seconds_on_n_machines": projection(work, largest, n_cells, overhead, start),
    }
    p = out["partnr_seconds_per_plan"]
    out["partnr_100k"] = {
        "serial_s": round(PARTNR_EPISODES * p, 1),
        "seconds_on_n_machines": projection(
            PARTNR_EPISODES * p,
            PARTNR_BATCH * p,
            -(-PARTNR_EPISODES // PARTNR_BATCH),
            overhead,
            start,
        ),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"sweep: {len(cells)} cells ({len(models)} models × GI, AS ×2 readings, SD)")
    print(f"in this process: {serial_s:.2f} s (load average {out['load_average_1min']} on "
          f"{out['cpus']} CPUs at the end)")  # fmt: skip
    print(f"{'executor':<8} {'workers':>7} {'start s':>8} {'sweep s':>8} {'speed-up':>8} "
          f"{'overhead/task ms':>17} identical")  # fmt: skip
    for r in rows:
        print(
            f"{r['executor']:<8} {r['workers']:>7} {r['start_s']:>8.2f} {r['sweep_s']:>8.2f} "
            f"{r['speed_up']:>8.2f} {r['overhead_per_task_ms']:>17.2f} {r['identical']}"
        )
    print("mean seconds per cell:", out["cell_seconds_by_module"])
    print("TM seconds per answer (Fast Downward):", out["tm_seconds_per_answer_with_planner"])
    print("PARTNR seconds per plan:", out["partnr_seconds_per_plan"])
    print("seconds per answer:", out["seconds_per_answer_by_module"])
    print(f"projection, machines of {CORES} workers on Ray (start-up and overhead as measured):")
    print("  full EAI sweep:", out["eai_sweep"])
    print("  100,000 PARTNR episodes:", out["partnr_100k"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
