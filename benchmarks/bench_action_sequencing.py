"""Action-sequencing evaluation, end to end: planproof against the reference (eai-eval 1.0.5).

Run ``python benchmarks/bench_action_sequencing.py [--runs N] [--reference-runs M]
[--mutated-sample K]``. Each tool evaluates a responses file (the reference's format) as a
subprocess, process start included: ``planproof evaluate action-sequencing --dataset
virtualhome --responses FILE`` against ``reference_as_driver.py`` running the reference's
unmodified ``evaluate_results`` in its own environment (``reference_env.py``, flavour
``action-sequencing``; built on first use). Two files:

- **gold**: the gold responses of all 342 VirtualHome tasks (issue 3's figure). This is
  the reference's cheapest case: a response equal to the gold script is mostly not
  simulated at all (its shortcut, ``docs/reference-differences.md``).
- **mutated**: the ``duplicate_step`` mutation of the differential script on a seeded
  sample of ``--mutated-sample`` tasks (40 by default; 0 = all 342, about 5 minutes per
  reference run): every plan differs from its gold script, so the reference simulates
  every one, and most run to the end.

Each figure is the median of ``--runs`` planproof runs (after one warm-up run) and of
``--reference-runs`` reference runs; the ratio is reference / planproof, both measured in
this run, one after the other (machine load matters). Both tools run with Python's
bytecode cache on, as installed software does (``PYTHONDONTWRITEBYTECODE`` is dropped, the
cache goes to ``PYTHONPYCACHEPREFIX``, by default ``<planproof cache>/pycache``, so the
source tree stays clean). Also printed: planproof in process (tasks loaded once), and
BEHAVIOR's gold plans through the CLI when that dataset is available.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, or imported

from differential_action_sequencing import SAMPLE, planproof_command, response_files
from reference_env import (
    ReferenceUnavailableError,
    ensure_action_sequencing_env,
    run_reference_action_sequencing,
)
from timing import median_ms

from planproof.data import cache_dir

REQUIRED_RATIO = 100.0
"""Issue 3: planproof at least this many times faster than the reference."""
MUTATION = "duplicate_step"
"""The mutated file's mutation: it always applies, and the plan usually still runs."""


@dataclass(frozen=True)
class Figure:
    name: str
    tasks: int
    planproof_s: float
    planproof_runs: int
    reference_s: float | None = None
    reference_inner_s: float | None = None
    reference_runs: int = 0

    @property
    def ratio(self) -> float | None:
        return None if self.reference_s is None else self.reference_s / self.planproof_s


def _bytecode_cache() -> str:
    """Turn Python's bytecode cache on for this process's children (see the docstring)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    return os.environ.setdefault("PYTHONPYCACHEPREFIX", str(cache_dir() / "pycache"))


def _cli(args: list[str]) -> tuple[float, int, str]:
    """Wall seconds, exit code and stderr of one planproof CLI run."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*planproof_command(), *args], capture_output=True, text=True, check=False
    )
    return time.perf_counter() - t0, proc.returncode, proc.stderr.strip()


def _evaluate_args(responses: Path, out: Path) -> list[str]:
    return [
        "evaluate",
        "action-sequencing",
        "--dataset",
        "virtualhome",
        "--responses",
        str(responses),
        "--output",
        str(out),
        "--json",
    ]


def time_planproof(responses: Path, out: Path, runs: int) -> list[float]:
    """Wall seconds of ``runs`` CLI runs after one untimed warm-up (OS file cache,
    bytecode cache, planproof's data cache)."""
    args = _evaluate_args(responses, out)
    _cli(args)
    times = []
    for _ in range(max(1, runs)):
        seconds, code, err = _cli(args)
        if code != 0:
            raise RuntimeError(f"planproof failed (exit {code}): {err}")
        times.append(seconds)
    return times


def time_reference(
    name: str, responses: Path, work: Path, runs: int, python: Path
) -> tuple[list[float], list[float]]:
    """Wall seconds of the reference driver (process start included) and the seconds
    spent inside ``evaluate_results``, per run."""
    walls, inner = [], []
    for i in range(max(1, runs)):
        run = run_reference_action_sequencing(
            {name: responses},
            work / f"ref-{name}-{i}",
            instrument=False,
            python=python,
            timeout=3600,
        )
        walls.append(run.wall_s)
        inner.append(float(run.models[name]["seconds"]))
    return walls, inner


def time_behavior(work: Path) -> str:
    """BEHAVIOR's 100 gold plans through the CLI: median of 3 runs after a warm-up."""
    args = ["evaluate", "action-sequencing", "--dataset", "behavior", "--gold"]
    args += ["--output", str(work / "behavior"), "--json"]
    runs = [_cli(args) for _ in range(4)]
    code, err = runs[0][1], runs[0][2]
    if code != 0:
        reason = err.splitlines()[-1] if err else f"exit {code}"
        return f"BEHAVIOR: skipped (planproof exit {code}: {reason[:200]})"
    summary = json.loads((work / "behavior" / "summary.json").read_text())
    seconds = statistics.median(r[0] for r in runs[1:])
    return (
        f"planproof CLI, {summary['tasks']} BEHAVIOR gold plans: {seconds:.2f} s "
        "(median of 3, process start included; no reference run)"
    )


def _line(f: Figure) -> str:
    pp = (
        f"{f.name} ({f.tasks} VirtualHome responses): planproof {f.planproof_s:.3f} s "
        f"(median of {f.planproof_runs})"
    )
    if f.reference_s is None or f.ratio is None:
        return pp
    verdict = "meets" if f.ratio >= REQUIRED_RATIO else "does NOT meet"
    return (
        f"{pp}, reference {f.reference_s:.1f} s (median of {f.reference_runs}; "
        f"evaluate_results itself {f.reference_inner_s:.1f} s): ratio {f.ratio:.0f}x "
        f"({verdict} {REQUIRED_RATIO:.0f}x)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="planproof CLI runs per file")
    parser.add_argument("--reference-runs", type=int, default=1, help="reference runs per file")
    parser.add_argument(
        "--mutated-sample",
        type=int,
        default=SAMPLE,
        help=f"tasks in the mutated file (default {SAMPLE}; 0: all 342)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    print(f"bytecode cache: {_bytecode_cache()}")

    from planproof.interface.responses import render_virtualhome
    from planproof.metrics.action_sequencing import evaluate_response
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    tasks = load_virtualhome_tasks()
    with tempfile.TemporaryDirectory(prefix="planproof-bench-as-") as tmp:
        work = Path(tmp)
        (work / "all").mkdir()
        (work / "sample").mkdir()
        gold = response_files(tasks, work / "all", sample=0)["gold"]
        mutated = response_files(tasks, work / "sample", sample=args.mutated_sample)[MUTATION]
        files = {"gold": gold, f"mutated ({MUTATION})": mutated}

        figures: dict[str, Figure] = {}
        for name, path in files.items():
            n = len(json.loads(path.read_text(encoding="utf-8")))
            times = time_planproof(path, work / f"pp-{len(figures)}", args.runs)
            figures[name] = Figure(name, n, statistics.median(times), len(times))
            print(_line(figures[name]), flush=True)

        rows = [(t, render_virtualhome(t.gold)) for t in tasks]
        in_ms = median_ms(lambda: [evaluate_response(t, x, "virtualhome") for t, x in rows], 5)
        print(
            f"planproof in process: {in_ms:.0f} ms for {len(tasks)} gold responses, "
            f"{1e3 * in_ms / len(tasks):.0f} µs per task (median of 5, tasks loaded)"
        )

        try:
            python = ensure_action_sequencing_env()
            for i, (name, path) in enumerate(files.items()):
                walls, inner = time_reference(f"f{i}", path, work, args.reference_runs, python)
                f = figures[name]
                figures[name] = Figure(
                    f.name,
                    f.tasks,
                    f.planproof_s,
                    f.planproof_runs,
                    statistics.median(walls),
                    statistics.median(inner),
                    len(walls),
                )
                print(_line(figures[name]), flush=True)
        except ReferenceUnavailableError as exc:
            print(f"reference: unavailable ({exc})")
            return 1
        print(time_behavior(work))
    if args.json is not None:
        args.json.write_text(
            json.dumps({k: {**vars(f), "ratio": f.ratio} for k, f in figures.items()}, indent=2)
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
