"""The IPC sample (tests/data/ipc: 19 domains x 3 problems): plan every problem with
``planproof plan``'s planner, check every plan with ``planproof verify``'s validator, and
derive drop / swap / wrong-argument mutants; with ``--val`` also ask VAL about every plan
and mutant and count agreement.

    python benchmarks/bench_ipc.py                        # plan + verify + mutants
    python benchmarks/bench_ipc.py --val PATH/Validate    # ... and VAL's verdicts
    python benchmarks/bench_ipc.py --val PATH/Validate --write   # store plans and VAL's
                                                          # verdicts in tests/data/ipc/plans

VAL (KCL-Planning/VAL) is not on any package registry; build it from source to pass
``--val``. ``--write`` is how tests/data/ipc/plans was made.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
IPC = ROOT / "tests" / "data" / "ipc"
PLANS = IPC / "plans"

Step = tuple[str, tuple[str, ...]]


def problems() -> list[tuple[str, Path, Path]]:
    out = []
    for d in sorted(p for p in IPC.iterdir() if p.is_dir() and p.name != "plans"):
        for prob in sorted(d.glob("*.pddl")):
            if "domain" in prob.name:
                continue
            own = d / f"{prob.name.split('-')[0].removesuffix('.pddl')}-domain.pddl"
            out.append((d.name, own if own.exists() else d / "domain.pddl", prob))
    return out


def load(domain: Path, problem: Path) -> tuple[Any, Any]:
    from planproof.pddl.reader import read_domain_file, read_problem

    df = read_domain_file(domain.read_text(), fold_case=True)
    prob = read_problem(problem.read_text(), fold_case=True)
    return df.domain, replace(prob, constants=dict(df.constants))


def mutants(plan: list[Step], objects: dict[str, str], seed: str) -> dict[str, list[Step]]:
    """Drop a step, swap two neighbours, replace an argument by another object of the
    same type: at the first, middle and last step."""
    rng = random.Random(seed)
    n = len(plan)
    out: dict[str, list[Step]] = {}
    for k in sorted({0, n // 2, n - 1}) if n else []:
        out[f"drop-{k + 1}"] = plan[:k] + plan[k + 1 :]
        if k + 1 < n:
            out[f"swap-{k + 1}"] = [*plan[:k], plan[k + 1], plan[k], *plan[k + 2 :]]
        name, args = plan[k]
        if args:
            j = rng.randrange(len(args))
            same = sorted(
                o for o, t in objects.items() if t == objects.get(args[j]) and o != args[j]
            )
            if same:
                new = (*args[:j], rng.choice(same), *args[j + 1 :])
                out[f"argument-{k + 1}"] = [*plan[:k], (name, new), *plan[k + 1 :]]
    return out


def text(plan: list[Step]) -> str:
    return "".join("(" + " ".join([n, *a]) + ")\n" for n, a in plan)


def val_verdicts(
    val: str, domain: Path, problem: Path, plans: dict[str, list[Step]]
) -> tuple[dict[str, bool], dict[str, dict[str, Any]]]:
    """VAL's verdict on each plan, all plans in one call (``Validate -v D P plan1 ...``),
    and for each failed plan what VAL's repair advice says: the failing step (VAL's
    "time" of a sequential plan) and the literals to set (``(Set (p a) to true)`` →
    ``(p a)``; ``to false`` → ``(not (p a))``), or ``step`` None for an unmet goal."""
    with tempfile.TemporaryDirectory(prefix="planproof-val-") as work:
        files = {}
        for name, plan in plans.items():
            f = Path(work) / f"{name}.plan"
            f.write_text(text(plan))
            files[str(f)] = name
        out = subprocess.run(
            [val, "-v", str(domain), str(problem), *files],
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
        ).stdout
    verdict: dict[str, bool] = {}
    detail: dict[str, dict[str, Any]] = {}
    section = None
    current = ""
    for line in out.splitlines():
        if line.startswith("Checking plan: "):
            current = files.get(line.removeprefix("Checking plan: ").strip(), "")
        elif current and (m := re.search(r"unsatisfied precondition at time (\d+)", line)):
            detail.setdefault(current, {"step": None, "unmet": []})["step"] = int(m.group(1))
        elif current and (m := re.match(r"\s*\(Set (\(.*\)) to (true|false)\)", line)):
            lit = m.group(1) if m.group(2) == "true" else f"(not {m.group(1)})"
            detail.setdefault(current, {"step": None, "unmet": []})["unmet"].append(lit)
        if line.startswith("Successful plans:"):
            section, current = True, ""
        elif line.startswith("Failed plans:"):
            section, current = False, ""
        elif section is not None:
            for word in line.split():  # VAL lists failed plans on one line
                if word in files:
                    verdict[files[word]] = section
    return verdict, detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--val", help="path to VAL's Validate binary")
    ap.add_argument("--write", action="store_true", help="store plans and verdicts in tests/data")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument(
        "--reuse", action="store_true", help="check the stored plans instead of planning again"
    )
    ap.add_argument("--out", type=Path, help="write the summary as JSON")
    args = ap.parse_args(argv)

    from planproof.pddl.plan_io import read_plan
    from planproof.pddl.planners import PlanResult, PlanStatus
    from planproof.pddl.planners import plan as solve
    from planproof.pddl.validate import compile_task, validate

    rows: list[dict[str, Any]] = []
    plan_s: list[float] = []
    agree = disagree = 0
    counts = {"steps": 0, "same_step": 0, "same_unmet": 0, "val_unmet_first_in_ours": 0}
    disagreements: list[str] = []
    for dname, dom, prob in problems():
        domain, problem = load(dom, prob)
        stored = PLANS / f"{dname}--{prob.stem}.json"
        if args.reuse and stored.exists():  # the plan found before, read back
            found = read_plan(json.loads(stored.read_text())["plans"]["plan"])
            res = PlanResult("stored", PlanStatus.SOLVED, found)
        else:
            res = solve(domain, problem, timeout=args.timeout)
        plan_s.append(res.seconds)
        row: dict[str, Any] = {
            "domain": dname,
            "problem": prob.name,
            "status": res.status.value,
            "plan_seconds": round(res.seconds, 2),
            "reason": res.reason,
        }
        print(f"{dname}/{prob.name}: {res.status.value} in {res.seconds:.1f} s", file=sys.stderr)
        if res.solved:
            task = compile_task(domain, problem)
            plan = [(n.lower(), tuple(a.lower() for a in args_)) for n, args_ in res.plan]
            objects = {**problem.constants, **problem.objects}
            plans = {"plan": plan, **mutants(plan, objects, f"{dname}/{prob.name}")}
            checked = {k: validate(task, p) for k, p in plans.items()}
            ours = {k: v.valid for k, v in checked.items()}
            row.update(steps=len(plan), plan_valid=ours["plan"], ours=ours)
            if args.val:
                theirs, why = val_verdicts(args.val, dom, prob, plans)
                row["val"], row["val_detail"] = theirs, why
                for k, d in why.items():
                    v = checked[k]
                    step = v.failure.step if v.failure else None
                    unmet = list(v.failure.unmet) if v.failure else list(v.unmet_goal)
                    counts["steps"] += 1
                    counts["same_step"] += step == d["step"]
                    counts["same_unmet"] += sorted(unmet) == sorted(d["unmet"])
                    # VAL's advice names the first unmet literal it meets; ours lists
                    # every unmet literal, in the precondition's order
                    counts["val_unmet_first_in_ours"] += bool(
                        unmet and d["unmet"] and unmet[0] == d["unmet"][0]
                    ) and set(d["unmet"]) <= set(unmet)
                for k, v in ours.items():
                    if theirs.get(k) == v:
                        agree += 1
                    else:
                        disagree += 1
                        disagreements.append(
                            f"{dname}/{prob.name}/{k}: ours {v}, VAL {theirs.get(k)}"
                        )
            if args.write:
                PLANS.mkdir(exist_ok=True)
                engine = json.loads(stored.read_text())["engine"] if args.reuse else res.engine
                doc = {"domain": dom.name, "problem": prob.name, "engine": engine,
                       "plans": {k: text(p) for k, p in plans.items()},
                       "val": row.get("val"), "val_detail": row.get("val_detail")}  # fmt: skip
                (PLANS / f"{dname}--{prob.stem}.json").write_text(
                    json.dumps(doc, indent=1, sort_keys=True) + "\n"
                )
        rows.append(row)
    solved = [r for r in rows if r["status"] == "solved"]
    summary = {
        "problems": len(rows),
        "solved": len(solved),
        "plans_valid": sum(bool(r.get("plan_valid")) for r in solved),
        "mutants": sum(len(r["ours"]) - 1 for r in solved),
        "mutants_rejected": sum(not v for r in solved for k, v in r["ours"].items() if k != "plan"),
        "plan_seconds_median": round(statistics.median(plan_s), 2),
        "plan_seconds_max": round(max(plan_s), 2),
        "val_agree": agree if args.val else None,
        "val_failures_compared": counts if args.val else None,
        "val_disagree": disagreements if args.val else None,
        "failures": {
            f"{r['domain']}/{r['problem']}": r["reason"] for r in rows if r["status"] != "solved"
        },
    }
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
