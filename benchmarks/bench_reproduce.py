"""Speed of re-scoring the published EAI answers: goal interpretation + action sequencing
+ subgoal decomposition for all 15 models, planproof vs the reference, in one run.

    python benchmarks/bench_reproduce.py [--every 30] [--workers 2]

planproof: ``planproof reproduce eai --modules goal-interpretation action-sequencing
subgoal-decomposition --no-cache`` in a subprocess (process start, data loading and the
json.loads reading of action sequencing included); wall time and the CPU time of the
process tree (the machine is shared, so CPU time is the steadier figure).

The reference (virtualhome-eval 0.1.1, its own venv) needs minutes per file, so it is
measured in the same run on a sample — every ``--every``-th task of one model's file
(GPT-4o) for goal interpretation and action sequencing — and extrapolated linearly per
task to 15 files of 342 tasks (its per-task cost does not depend on the other tasks: it
evaluates a file in one loop, building a planner per task). Subgoal decomposition's
reference is not run here (~25-30 min per model on this machine, the issue's figure);
the ratio for the three modules uses the measured GI and AS per-task costs plus that
figure, and says so.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_env import run_reference_published

from planproof.data.published import MODELS, published_files

SD_REFERENCE_S_PER_MODEL = 27.5 * 60
"""Subgoal decomposition, virtualhome-eval 0.1.1, per model (the issue: 25-30 min)."""


def planproof_seconds(workers: int, out: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "planproof.cli",
            "--json",
            "reproduce",
            "eai",
            "--modules",
            "goal-interpretation",
            "action-sequencing",
            "subgoal-decomposition",
            "--no-cache",
            "--workers",
            str(workers),
            "--output",
            str(out),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def reference_per_task(module: str, every: int, tmp: Path) -> tuple[float, int]:
    f = next(x for x in published_files(module, "virtualhome") if x.model == "gpt-4o-2024-05-13")
    rows = json.loads(f.path.read_text(encoding="utf-8"))[::every]
    sample = tmp / f"{module}.json"
    sample.write_text(json.dumps(rows), encoding="utf-8")
    run = run_reference_published(module, {f.model: sample}, tmp / module)
    return run.models[f.model]["seconds"] / len(rows), len(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--every", type=int, default=30)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="keep planproof's reproduce output here")
    args = ap.parse_args()
    n_models, n_tasks = len(MODELS), 342
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu = planproof_seconds(args.workers, args.keep or Path(tmp) / "out")
        per = {
            m: reference_per_task(m, args.every, Path(tmp))
            for m in ("goal-interpretation", "action-sequencing")
        }
    ref = {m: s * n_tasks * n_models for m, (s, _) in per.items()}
    ref_sd = SD_REFERENCE_S_PER_MODEL * n_models
    total = sum(ref.values()) + ref_sd
    lines = [
        f"planproof, GI + AS (both readings) + SD, {n_models} models: {wall:.1f} s wall, "
        f"{cpu:.1f} s CPU ({args.workers} workers)",
    ]
    for m, (s, k) in per.items():
        lines.append(
            f"reference {m}: {s:.2f} s/task measured on {k} tasks -> {ref[m] / 60:.0f} min "
            f"for {n_models} x {n_tasks} tasks"
        )
    lines.append(f"reference subgoal-decomposition: {ref_sd / 60:.0f} min (not measured here)")
    lines.append(
        f"ratio, three modules: {total / wall:.0f}x wall ({total / 60:.0f} min vs {wall:.1f} s); "
        f"GI + AS only, measured: {sum(ref.values()) / wall:.0f}x"
    )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
