"""``planproof verify`` on the whole PlanBench corpus (23,890 LLM-written plans with the
verdict VAL gave when PlanBench scored them): agreement with VAL, every disagreement with
its reason, and speed against unified-planning's validator and VAL measured in the same
run.

    python benchmarks/bench_planbench.py                     # agreement (core + ext) and speed
    python benchmarks/bench_planbench.py --up-sample 300     # unified-planning on 300 core cases
    python benchmarks/bench_planbench.py --val PATH/Validate # VAL's time per plan too

The corpus is read from ``$PLANPROOF_PLANBENCH`` or the first ``shared/data/planbench``
above the repository (not part of it: 25 MB); tests/data/planbench holds a 440-case subset. VAL
(KCL-Planning/VAL) is not on any package registry: build it from source for ``--val``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.pddl.test_planbench import known_disagreement  # noqa: E402


def corpus_dir() -> Path:
    env = os.environ.get("PLANPROOF_PLANBENCH")
    if env:
        return Path(env)
    found = [p / "shared" / "data" / "planbench" for p in ROOT.parents]
    return next((p for p in found if p.is_dir()), found[0])


def agreement(base: Path, name: str) -> dict[str, Any]:
    """Verdicts of the whole tier file, in one process (domains and problems read once)."""
    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.plan_io import read_plan_text
    from planproof.pddl.reader import read_domain_file, read_problem
    from planproof.pddl.validate import compile_task, validate

    cases = [json.loads(line) for line in (base / name).open(encoding="utf-8")]
    tasks: dict[tuple[str, str], Any] = {}
    domains: dict[str, Any] = {}
    agree = 0
    reasons: Counter[str] = Counter()
    unexplained: list[str] = []
    t_check = 0.0
    t0 = time.perf_counter()
    for c in cases:
        key = (c["domain"], c["problem"])
        if key not in tasks:
            if c["domain"] not in domains:
                text = (base / c["domain"]).read_text()
                domains[c["domain"]] = read_domain_file(text, fold_case=True).domain
            d = domains[c["domain"]]
            tasks[key] = compile_task(
                d, read_problem((base / c["problem"]).read_text(), fold_case=True)
            )
        t1 = time.perf_counter()
        try:
            plan = read_plan_text(c["plan"])
        except PDDLSyntaxError:
            t_check += time.perf_counter() - t1
            # an unreadable plan is rejected: it agrees with VAL exactly when VAL rejected it
            if c["expected"]:
                unexplained.append(c["id"])
            else:
                agree += 1
                reasons["agree: unreadable plan text, rejected by both"] += 1
            continue
        v = validate(tasks[key], plan.steps)
        t_check += time.perf_counter() - t1
        if v.valid == c["expected"]:
            agree += 1
            continue
        why = known_disagreement(c, v, plan.notes)
        if why:
            reasons[why] += 1
        else:
            unexplained.append(c["id"])
    total = time.perf_counter() - t0
    return {
        "file": name,
        "cases": len(cases),
        "agree": agree,
        "disagree_explained": dict(reasons),
        "disagree_unexplained": unexplained,
        "seconds_total": round(total, 2),
        "ms_per_plan_check": round(1000 * t_check / len(cases), 3),
        "ms_per_plan_total": round(1000 * total / len(cases), 3),
    }


def up_validator(base: Path, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """unified-planning's sequential plan validator on the same cases (problems parsed
    once per file, as planproof's batch does; the time per plan is parse-plan +
    validate)."""
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator, get_environment

    get_environment().credits_stream = None
    problems: dict[tuple[str, str], Any] = {}
    times: list[float] = []
    agree = errors = 0
    with PlanValidator(name="sequential_plan_validator") as validator:
        for c in cases:
            key = (c["domain"], c["problem"])
            if key not in problems:
                reader = PDDLReader()
                problems[key] = (
                    reader,
                    reader.parse_problem(str(base / c["domain"]), str(base / c["problem"])),
                )
            reader, problem = problems[key]
            t0 = time.perf_counter()
            try:
                plan = reader.parse_plan_string(problem, c["plan"])
                valid = validator.validate(problem, plan).status.name == "VALID"
            except Exception:  # UP raises on unknown actions/objects: count as invalid
                valid, errors = False, errors + 1
            times.append(time.perf_counter() - t0)
            agree += valid == c["expected"]
    return {
        "cases": len(cases),
        "agree": agree,
        "raised": errors,
        "ms_per_plan": round(1000 * statistics.mean(times), 3),
    }


def val_times(val: str, base: Path, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """VAL as researchers call it: one process per plan; and all plans of a problem in
    one call (``Validate D P plan1 plan2 ...``)."""
    per_call: list[float] = []
    agree = 0
    with tempfile.TemporaryDirectory(prefix="planproof-val-") as work:
        files = []
        for i, c in enumerate(cases):
            f = Path(work) / f"{i}.plan"
            f.write_text(c["plan"])
            files.append(f)
            t0 = time.perf_counter()
            out = subprocess.run(
                [val, str(base / c["domain"]), str(base / c["problem"]), str(f)],
                check=False,
                capture_output=True,
                text=True,
                timeout=60,
            ).stdout
            per_call.append(time.perf_counter() - t0)
            agree += ("Plan valid" in out) == c["expected"]
        groups: dict[tuple[str, str], list[Path]] = {}
        for c, f in zip(cases, files, strict=True):
            groups.setdefault((c["domain"], c["problem"]), []).append(f)
        t0 = time.perf_counter()
        for (d, p), fs in groups.items():
            subprocess.run(
                [val, str(base / d), str(base / p), *map(str, fs)],
                check=False,
                capture_output=True,
                timeout=600,
            )
        batched = time.perf_counter() - t0
    return {
        "cases": len(cases),
        "agree": agree,
        "ms_per_plan_one_process_each": round(1000 * statistics.mean(per_call), 3),
        "ms_per_plan_median_one_process_each": round(1000 * statistics.median(per_call), 3),
        "ms_per_plan_batched_per_problem": round(1000 * batched / len(cases), 3),
    }


def planproof_cli_time(base: Path, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """``planproof verify`` as one process per plan, the way VAL is usually called."""
    times = []
    with tempfile.TemporaryDirectory(prefix="planproof-cli-") as work:
        for i, c in enumerate(cases):
            f = Path(work) / f"{i}.plan"
            f.write_text(c["plan"])
            t0 = time.perf_counter()
            cmd = [sys.executable, "-m", "planproof.cli", "verify", "--no-repair"]
            cmd += ["--domain", str(base / c["domain"]), "--problem", str(base / c["problem"])]
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            cmd += ["--plan", str(f)]
            subprocess.run(cmd, check=False, capture_output=True, timeout=120, env=env)
            times.append(time.perf_counter() - t0)
    return {
        "cases": len(cases),
        "ms_per_plan_one_process_each": round(1000 * statistics.mean(times), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=None, help="PlanBench corpus folder")
    ap.add_argument(
        "--up-sample", type=int, default=300, help="core cases for unified-planning (0: none)"
    )
    ap.add_argument("--val", help="path to VAL's Validate binary")
    ap.add_argument("--val-sample", type=int, default=300)
    ap.add_argument(
        "--cli-sample", type=int, default=20, help="one-process-per-plan planproof calls"
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    base = args.data or corpus_dir()
    out: dict[str, Any] = {
        "core": agreement(base, "cases.jsonl"),
        "ext": agreement(base, "cases_ext.jsonl"),
    }
    core = [json.loads(line) for line in (base / "cases.jsonl").open(encoding="utf-8")]
    rng = random.Random(14)
    if args.up_sample:
        out["unified_planning"] = up_validator(
            base, rng.sample(core, min(args.up_sample, len(core)))
        )
    if args.val:
        out["val"] = val_times(args.val, base, rng.sample(core, min(args.val_sample, len(core))))
    if args.cli_sample:
        out["planproof_cli"] = planproof_cli_time(
            base, rng.sample(core, min(args.cli_sample, len(core)))
        )
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
