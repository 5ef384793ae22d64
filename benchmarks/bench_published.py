"""Speed on the published answers: planproof scores all four VirtualHome modules for all 15
models, and the published reference (virtualhome-eval 0.1.1) is timed in the same run on
a subset, extrapolated to the whole.

``python benchmarks/bench_published.py [--workers 2] [--reference-tasks 12]``

planproof: each of the 60 files goes through its ``planproof evaluate <module>`` command,
in this process (``planproof.cli.main``; the planner calls of transition modeling in
``--workers`` worker processes). Transition modeling is timed twice: with the planner
cache off (every problem planned: a cold first run) and with it on (the verdicts kept in
the user cache; a second run, or any run after the first). The reference: its goal
interpretation on one whole file (GPT-4o), and its other three evaluators on the first
``--reference-tasks`` GPT-4o answers (plus, for transition modeling, one task of each
predicate category: its summary needs every category); seconds per task × tasks × 15
models is the extrapolation. The load average is printed, since the machine is shared.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_env import run_reference_published

from planproof.cli import main as cli
from planproof.data.published import published_files

MODULES = (
    "goal-interpretation",
    "action-sequencing",
    "subgoal-decomposition",
    "transition-modeling",
)
GPT4O = "gpt-4o-2024-05-13"


def _planproof(module: str, workers: int, out: Path, extra: list[str]) -> tuple[float, int]:
    """Seconds to score every model's file of ``module``, and the tasks scored."""
    tasks = 0
    t0 = time.perf_counter()
    for f in published_files(module, "virtualhome"):
        argv = ["evaluate", module, "--dataset", "virtualhome", "--responses", str(f.path)]
        argv += ["--json", "--output", str(out / module / f.model), *extra]
        if module == "transition-modeling":
            # pyperplan: the same verdict as Fast Downward on every published GPT-4o task
            # (tests/pddl/test_published_planner_verdicts.py), a tenth of the CPU time
            argv += ["--workers", str(workers), "--engine", "pyperplan", "--timeout", "100"]
        if module == "goal-interpretation":
            argv += ["--no-logic"]  # Table 9 needs no Z3 verdicts
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            code = cli(argv)
        if code != 0:
            raise SystemExit(f"planproof {' '.join(argv)} exited {code}")
        tasks += int(json.loads(buf.getvalue()).get("tasks", 0))
    return time.perf_counter() - t0, tasks


def _subset(module: str, n: int) -> list[dict[str, Any]]:
    f = next(x for x in published_files(module, "virtualhome") if x.model == GPT4O)
    rows: list[dict[str, Any]] = json.loads(f.path.read_text(encoding="utf-8"))
    if module != "transition-modeling":
        return rows[:n]
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl("virtualhome")
    picked = [r for r in rows if r["identifier"] in data.solved][:n]
    seen = {c for r in picked for c in data.task_categories.get(r["identifier"], ())}
    for r in rows:
        cats = set(data.task_categories.get(r["identifier"], ()))
        if r["identifier"] in data.solved and cats - seen:
            picked.append(r)
            seen |= cats
    return picked


def _reference(module: str, n: int, tmp: Path) -> tuple[float, int, int]:
    """(seconds, tasks evaluated, tasks in the whole file) for the reference."""
    f = next(x for x in published_files(module, "virtualhome") if x.model == GPT4O)
    whole = len(json.loads(f.path.read_text(encoding="utf-8")))
    if module == "goal-interpretation":
        src = f.path
        count = whole
    else:
        rows = _subset(module, n)
        src = tmp / f"{module}-{GPT4O}.json"
        src.write_text(json.dumps(rows), encoding="utf-8")
        count = len(rows)
    run = run_reference_published(module, {GPT4O: src}, tmp / "ref" / module)
    return float(run.models[GPT4O]["seconds"]), count, whole


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reference-tasks", type=int, default=12)
    ap.add_argument("--skip-reference", action="store_true")
    ap.add_argument("--module", action="append", choices=MODULES, help="default: all four")
    args = ap.parse_args(argv)
    modules = args.module or list(MODULES)
    print(f"load average at start: {os.getloadavg()}")
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="planproof-bench-") as tmp_s:
        tmp = Path(tmp_s)
        total = 0.0
        for module in modules:
            runs: list[tuple[str, list[str]]] = [("", [])]
            if module == "transition-modeling":
                runs = [(" (planner cache off)", ["--no-plan-cache"]), (" (cache on)", [])]
            for label, extra in runs:
                s, n = _planproof(module, args.workers, tmp / "pp", extra)
                print(f"planproof {module}{label}: 15 models, {n} tasks, {s:.1f} s", flush=True)
                rows[module + label] = {"planproof_s": s, "tasks": n}
            total += rows[module + runs[0][0]]["planproof_s"]
        print(f"planproof, {len(modules)} module(s) x 15 models, cold planner: {total:.1f} s")
        if args.skip_reference:
            return 0
        ref_total = 0.0
        for module in modules:
            s, n, whole = _reference(module, args.reference_tasks, tmp)
            per_model = s / n * whole
            ref_total += per_model * 15
            print(
                f"reference {module}: {n} GPT-4o tasks in {s:.1f} s -> {per_model:.0f} s per "
                f"model, {per_model * 15 / 60:.0f} min for 15 models (extrapolated)",
                flush=True,
            )
        print(
            f"reference, all four x 15 (extrapolated): {ref_total / 60:.0f} min; "
            f"ratio {ref_total / total:.0f}x"
        )
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
