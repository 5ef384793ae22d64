"""``planproof verify`` start-up and ``planproof plan`` per engine against Fast Downward
called directly, measured in one run (so the ratios share the machine's load):

* single-call ``verify``: median wall time of ``planproof verify`` (a fresh process) on a
  blocksworld plan, against ``python -c pass`` (the interpreter alone) and, with
  ``--val PATH/Validate``, VAL on the same files;
* ``plan``: each engine (a fresh ``planproof plan`` process, the whole call) on 10 IPC
  problems of tests/data/ipc, against Fast Downward's driver run directly on the same
  files with the same configuration (``--alias lama-first``);
* timeouts: a generated 300-block problem with ``--timeout 5`` for every engine: the
  status and the wall time of the whole call (the limit holds when it is ``timeout``
  within about a second of the limit plus start-up).

    python benchmarks/bench_plan_engines.py [--repeat 5] [--val PATH/Validate] [--json OUT]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IPC = ROOT / "tests" / "data" / "ipc"
ENGINES = ("fast-downward", "builtin", "pyperplan")

PROBLEMS = (
    ("gripper", "domain.pddl", "prob01.pddl"),
    ("blocks", "domain.pddl", "probBLOCKS-10-0.pddl"),
    ("logistics00", "domain.pddl", "probLOGISTICS-10-0.pddl"),
    ("depot", "domain.pddl", "p01.pddl"),
    ("driverlog", "domain.pddl", "p01.pddl"),
    ("rovers", "domain.pddl", "p01.pddl"),
    ("satellite", "domain.pddl", "p01-pfile1.pddl"),
    ("zenotravel", "domain.pddl", "p01.pddl"),
    ("miconic-simpleadl", "domain.pddl", "s1-0.pddl"),
    ("airport-adl", "domain.pddl", "p01-airport1-p1.pddl"),
)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _wall(
    cmd: list[str], cwd: Path | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=_env(), check=False)
    return time.perf_counter() - t0, done


def _median(cmd: list[str], repeat: int) -> float:
    return statistics.median(_wall(cmd)[0] for _ in range(repeat))


def startup(repeat: int, val: str | None) -> dict[str, float]:
    blocks = IPC / "blocks"
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as work:
        plan = Path(work) / "plan.txt"
        plan.write_text("(unstack d c)\n(put-down d)\n")
        args = ["--domain", str(blocks / "domain.pddl"), "--problem"]
        args += [str(blocks / "probBLOCKS-10-0.pddl"), "--plan", str(plan)]
        out = {
            "python -c pass": _median([sys.executable, "-c", "pass"], repeat),
            "planproof verify": _median(
                [sys.executable, "-m", "planproof.cli", "verify", *args], repeat
            ),
        }
        if val:
            cmd = [
                val,
                str(blocks / "domain.pddl"),
                str(blocks / "probBLOCKS-10-0.pddl"),
                str(plan),
            ]
            out["VAL"] = _median(cmd, repeat)
    return {k: round(v * 1000, 1) for k, v in out.items()}


def fast_downward_direct(domain: Path, problem: Path) -> tuple[float, bool]:
    from planproof.pddl.planners import FD_ALIAS, fast_downward_script

    script = fast_downward_script()
    assert script is not None, "up-fast-downward is not installed"
    with tempfile.TemporaryDirectory(prefix="bench-fd-") as work:
        cmd = [sys.executable, script, "--plan-file", "plan", "--alias", FD_ALIAS]
        seconds, done = _wall([*cmd, str(domain), str(problem)], cwd=Path(work))
        return seconds, done.returncode == 0 and (Path(work) / "plan").exists()


def planproof_plan(domain: Path, problem: Path, engine: str, timeout: float) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "planproof.cli", "plan", "--domain", str(domain)]
    cmd += ["--problem", str(problem), "--engine", engine, "--timeout", str(timeout), "--json"]
    seconds, done = _wall(cmd)
    try:
        status = str(json.loads(done.stdout)["status"])
    except (ValueError, KeyError):
        status = f"exit {done.returncode}"
    return seconds, status


def engines(timeout: float) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name, dom, prob in PROBLEMS:
        domain, problem = IPC / name / dom, IPC / name / prob
        fd, solved = fast_downward_direct(domain, problem)
        row: dict[str, object] = {"problem": f"{name}/{problem.name}", "fd_direct_s": round(fd, 2)}
        row["fd_direct_solved"] = solved
        for engine in ENGINES:
            seconds, status = planproof_plan(domain, problem, engine, timeout)
            row[engine] = {
                "s": round(seconds, 2),
                "status": status,
                "ratio": round(seconds / fd, 2),
            }
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def blocks_problem(n: int) -> str:
    blocks = [f"b{i}" for i in range(n)]
    init = [f"(ontable {blocks[0]})", f"(clear {blocks[-1]})", "(handempty)"]
    init += [f"(on {blocks[i + 1]} {blocks[i]})" for i in range(n - 1)]
    goal = [f"(on {blocks[i]} {blocks[i + 1]})" for i in range(n - 1)]
    return (
        f"(define (problem tower{n}) (:domain blocks) (:objects {' '.join(blocks)}) "
        f"(:init {' '.join(init)}) (:goal (and {' '.join(goal)})))"
    )


def timeouts(limit: float) -> list[dict[str, object]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-timeout-") as work:
        problem = Path(work) / "tower300.pddl"
        problem.write_text(blocks_problem(300))
        for engine in ENGINES:
            seconds, status = planproof_plan(IPC / "blocks" / "domain.pddl", problem, engine, limit)
            row = {
                "engine": engine,
                "limit_s": limit,
                "wall_s": round(seconds, 2),
                "status": status,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0, help="per plan call")
    ap.add_argument("--val", help="VAL's Validate binary, for the start-up comparison")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    up = startup(args.repeat, args.val)
    print(f"load average {load:.1f}; single-call start-up (median ms): {json.dumps(up)}")
    rows = engines(args.timeout)
    for engine in ENGINES:
        ratios = [r[engine]["ratio"] for r in rows]  # type: ignore[index]
        solved = sum(r[engine]["status"] == "solved" for r in rows)  # type: ignore[index]
        print(
            f"{engine}: solved {solved}/{len(rows)}, time / Fast Downward direct: median "
            f"{statistics.median(ratios):.2f}x, max {max(ratios):.2f}x"
        )
    held = timeouts(5.0)
    out = {"load": load, "startup_ms": up, "engines": rows, "timeouts": held}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    ok = all(r["status"] == "timeout" and float(r["wall_s"]) < 5.0 + 3.0 for r in held)
    print("timeouts held" if ok else "a timeout was NOT held")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
