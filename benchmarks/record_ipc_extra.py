"""Record plans and VAL's verdicts for tests/data/ipc_extra (IPC domains with derived
predicates and action costs never given a value) and the hand-written feature files.

For each problem, Fast Downward's driver (from the ``up-fast-downward`` wheel, run
directly: planproof's own planners do not take derived predicates) finds a plan; the
drop / swap / wrong-argument mutants of ``bench_ipc.py`` are derived from it; VAL judges
them all; with ``--write`` the plans and VAL's verdicts go to tests/data/ipc_extra/plans,
which tests/pddl/test_ipc_extra.py checks planproof against.

    python benchmarks/record_ipc_extra.py --val PATH/Validate [--write]
    python benchmarks/record_ipc_extra.py --val PATH/Validate --folder DIR   # every
        # DOMAIN/domain.pddl + DOMAIN/*.pddl under DIR (a wider sample), never written

VAL (KCL-Planning/VAL) is not on any package registry; build it from source.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ipc import Step, load, mutants, text, val_verdicts

ROOT = Path(__file__).resolve().parents[1]
EXTRA = ROOT / "tests" / "data" / "ipc_extra"
FEATURES = ROOT / "tests" / "data" / "pddl_features"

CASES = (
    (EXTRA / "philosophers" / "domain.pddl", EXTRA / "philosophers" / "p01-phil2.pddl"),
    (EXTRA / "philosophers" / "domain.pddl", EXTRA / "philosophers" / "p02-phil3.pddl"),
    (EXTRA / "optical-telegraphs" / "domain.pddl", EXTRA / "optical-telegraphs" / "p01-opt2.pddl"),
    (EXTRA / "psr-middle" / "domain.pddl", EXTRA / "psr-middle" / "p01-s17-n2-l2-f30.pddl"),
    (EXTRA / "psr-middle" / "domain.pddl", EXTRA / "psr-middle" / "p02-s23-n2-l3-f70.pddl"),
    (EXTRA / "settlers-sat18-adl" / "domain.pddl", EXTRA / "settlers-sat18-adl" / "p01.pddl"),
    (FEATURES / "reach-domain.pddl", FEATURES / "reach-problem.pddl"),
)
HAND_PLANS: dict[str, list[Step]] = {}
"""Plans written by hand, by problem file name, for problems Fast Downward cannot take
(numeric conditions)."""


def fd_plan(domain: Path, problem: Path, timeout: float) -> list[Step]:
    from planproof.pddl.planners import FD_ALIAS, fast_downward_script

    script = fast_downward_script()
    assert script is not None, "up-fast-downward is not installed"
    with tempfile.TemporaryDirectory(prefix="record-fd-") as work:
        cmd = [sys.executable, script, "--plan-file", "plan", "--alias", FD_ALIAS]
        proc = subprocess.Popen(
            [*cmd, str(domain), str(problem)],
            cwd=work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # the driver starts the search: kill them together
        )
        try:
            code = proc.wait(timeout=timeout)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if code != 0:
            raise subprocess.CalledProcessError(code, cmd)
        lines = (Path(work) / "plan").read_text().splitlines()
    steps: list[Step] = []
    for line in lines:
        if line.startswith("("):
            name, *args = line.strip("()").split()
            steps.append((name.lower(), tuple(a.lower() for a in args)))
    return steps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--val", required=True, help="VAL's Validate binary")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--folder", type=Path, help="check these folders' problems instead")
    args = ap.parse_args()
    cases = list(CASES)
    if args.folder is not None:
        args.write = False
        cases = [
            (d / "domain.pddl", p)
            for d in sorted(x for x in args.folder.iterdir() if (x / "domain.pddl").exists())
            for p in sorted(d.glob("*.pddl"))
            if p.name != "domain.pddl"
        ]
    from planproof.pddl.validate import compile_task, validate

    agree = total = 0
    for dom, prob in cases:
        domain, problem = load(dom, prob)
        hand = HAND_PLANS.get(prob.name)
        try:
            plan = hand if hand is not None else fd_plan(dom, prob, args.timeout)
        except (subprocess.SubprocessError, OSError) as exc:
            print(f"{dom.parent.name}/{prob.name}: no plan ({type(exc).__name__})", flush=True)
            continue
        objects = {**problem.constants, **problem.objects}
        plans = {"plan": plan, **mutants(plan, objects, f"{dom.parent.name}/{prob.name}")}
        theirs, why = val_verdicts(args.val, dom, prob, plans)
        task = compile_task(domain, problem)
        ours = {k: validate(task, p).valid for k, p in plans.items()}
        same = sum(theirs.get(k) == v for k, v in ours.items())
        agree, total = agree + same, total + len(ours)
        print(f"{dom.parent.name}/{prob.name}: {same}/{len(ours)} agree with VAL", flush=True)
        if args.write:
            out = EXTRA / "plans"
            out.mkdir(exist_ok=True)
            doc = {
                "domain": str(dom.relative_to(ROOT / "tests" / "data")),
                "problem": str(prob.relative_to(ROOT / "tests" / "data")),
                "engine": "by hand"
                if hand is not None
                else "fast-downward (driver run directly, lama-first)",
                "plans": {k: text(p) for k, p in plans.items()},
                "val": theirs,
                "val_detail": why,
            }
            name = f"{dom.parent.name}--{prob.stem}.json"
            (out / name).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{agree}/{total} verdicts agree with VAL")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
