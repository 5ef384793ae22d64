"""Temporal plans (durative actions) against VAL: `python benchmarks/bench_temporal.py`.

Without arguments: times planproof's temporal check on every stored case of
``tests/data/temporal/cases.jsonl`` and, when a VAL ``Validate`` binary is named by
``--val`` or ``$VAL``, VAL on the same cases in the same run (one process per plan, as a
script would call it), printing the agreement and the ratio.

``--write --val PATH`` (re)makes the cases: for each problem a plan is found by a small
greedy search over whole durative actions (this script's, not planproof's), written
sequentially (each action 0.01 after the previous one ends) and deordered (each action
starts 0.01 after the last earlier action it shares an atom or fluent with); then mutants
(shifted times, a dropped step, a shortened duration, a duration off within and beyond
the tolerance, two interfering actions moved within the tolerance of each other) and
VAL's verdict and final value on every one, with VAL's commit and command line.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planproof.pddl.numeric import evaluate  # noqa: E402
from planproof.pddl.reader import read_problem  # noqa: E402
from planproof.pddl.temporal import (  # noqa: E402
    _DUR_KEY,
    SNAP,
    TemporalTask,
    _collect,
    _Eval,
    _formula_reads,
    _Use,
    compile_temporal,
    read_temporal_domain,
    read_temporal_plan,
    split_timed_literals,
    validate_temporal,
)
from planproof.pddl.validate import State  # noqa: E402

DATA = ROOT / "tests" / "data" / "temporal"
CASES = DATA / "cases.jsonl"
EPS = 0.01
HAND_ONLY = {"toggles", "tanks"}
"""Domains written for the tests: their hand-written plans only (no search)."""


def load(domain: Path, problem: Path) -> TemporalTask:
    df, durative = read_temporal_domain(domain.read_text())
    text, tils = split_timed_literals(problem.read_text())
    return compile_temporal(df, durative, read_problem(text, fold_case=True), tils)


def _macro(
    tt: TemporalTask, state: State, name: str, env: dict[str, str]
) -> tuple[State, float, _Use] | None:
    """Run a whole durative action from ``state``: start, invariant, end (None if a part
    fails); the duration is the bound of its first constraint."""
    task = tt.task
    da = tt.durative[name]
    ev = _Eval(task, state)
    d = 1.0
    for c in da.constraints:
        d = evaluate(c.value, env, state.values)
        break
    if d <= 0:
        return None
    use = _Use()
    cur = State(state.atoms, {**state.values, _DUR_KEY: d})
    for snap in ("start", "inv", "end"):
        op = task.operators[f"{name}{SNAP}{snap}"]
        ev = _Eval(task, cur)
        if not ev.holds(op.precondition, env):
            return None
        _formula_reads(ev, op.precondition, env, use)
        if snap == "inv":
            continue
        adds: set[Any] = set()
        dels: set[Any] = set()
        numbers: list[Any] = []
        _collect(ev, op.effects, env, adds, dels, numbers)
        from planproof.pddl.numeric import combine, ground_fluent

        values = dict(cur.values)
        for e, eenv in numbers:
            g = ground_fluent(e.fluent, eenv)
            values[g] = combine(e.op, g, values.get(g), evaluate(e.value, eenv, cur.values))
            use.fluent_writes.setdefault(g, set()).add(e.op)
        use.adds |= adds
        use.dels |= dels
        cur = State((cur.atoms - dels) | adds, values)
    values = dict(cur.values)
    values.pop(_DUR_KEY, None)
    return State(cur.atoms, values), d, use


def find_plan(
    tt: TemporalTask, limit: int = 20_000
) -> list[tuple[str, tuple[str, ...], float, _Use]]:
    """Greedy best-first search (unmet goal atoms) over whole durative actions."""
    task = tt.task
    goal = task.problem.goal

    def h(s: State) -> int:
        ev = _Eval(task, s)
        return len(ev.unmet(goal, {}, limit=10_000)) if not ev.holds(goal, {}) else 0

    start = task.initial_state()
    counter = itertools.count()
    frontier: list[Any] = [(h(start), next(counter), start, [])]
    seen = {frozenset(start.atoms)}
    grounds = [
        (name, args)
        for name, da in tt.durative.items()
        for args in itertools.product(*(task.of_type(p.type) for p in da.params))
    ]
    while frontier and len(seen) < limit:
        hv, _, s, path = heapq.heappop(frontier)
        if hv == 0:
            return path
        for name, args in grounds:
            env = {p.name: a for p, a in zip(tt.durative[name].params, args, strict=True)}
            try:
                out = _macro(tt, s, name, env)
            except Exception:
                continue
            if out is None:
                continue
            nxt, d, use = out
            key = frozenset(nxt.atoms) | frozenset(nxt.values.items())
            if key in seen:
                continue
            seen.add(key)
            heapq.heappush(frontier, (h(nxt), next(counter), nxt, [*path, (name, args, d, use)]))
    return []


def _touch(u: _Use) -> tuple[set[Any], set[Any]]:
    reads = set(u.reads) | set(u.fluent_reads)
    writes = set(u.adds) | set(u.dels) | set(u.fluent_writes)
    return reads | writes, writes


def schedule(
    path: list[tuple[str, tuple[str, ...], float, _Use]], parallel: bool, start: float = 0.0
) -> list[tuple[float, str, tuple[str, ...], float]]:
    out: list[tuple[float, str, tuple[str, ...], float]] = []
    ends: list[float] = []
    for i, (name, args, d, use) in enumerate(path):
        if not parallel:
            t = ends[-1] + EPS if ends else start
        else:
            touched, writes = _touch(use)
            t = start
            for j in range(i):
                tj, wj = _touch(path[j][3])
                if touched & wj or writes & tj:
                    t = max(t, ends[j] + EPS)
        t = round(t, 6)
        out.append((t, name, args, d))
        ends.append(round(t + d, 6))
    return out


def plan_text(rows: list[tuple[float, str, tuple[str, ...], float]]) -> str:
    return "".join(
        f"{t:.4f}: ({' '.join([n, *a])}) [{d:.4f}]\n"
        for t, n, a, d in sorted(rows, key=lambda r: r[0])
    )


def mutants(
    rows: list[tuple[float, str, tuple[str, ...], float]], path: list[Any]
) -> dict[str, str]:
    out: dict[str, str] = {}
    n = len(rows)
    out["shift"] = plan_text([(t + 7.5, a, b, d) for t, a, b, d in rows])
    if n > 1:
        k = n // 2
        out["drop-middle"] = plan_text(rows[:k] + rows[k + 1 :])
        out["drop-first"] = plan_text(rows[1:])
    k = n // 2
    t, a, b, d = rows[k]
    out["shorten"] = plan_text([*rows[:k], (t, a, b, d * 0.5), *rows[k + 1 :]])
    out["duration-within-tolerance"] = plan_text([*rows[:k], (t, a, b, d + 0.005), *rows[k + 1 :]])
    out["duration-beyond-tolerance"] = plan_text([*rows[:k], (t, a, b, d + 0.02), *rows[k + 1 :]])
    # an action moved to start within tolerance/10 of the end of the earlier action it
    # depends on (or of its start), and one moved just beyond
    for i in range(1, n):
        touched, writes = _touch(path[i][3])
        deps = [
            j for j in range(i) if touched & _touch(path[j][3])[1] or writes & _touch(path[j][3])[0]
        ]
        if deps:
            j = deps[-1]
            end_j = rows[j][0] + rows[j][3]
            _, ai, bi, di = rows[i]
            out["overlap-end"] = plan_text(
                [*rows[:i], (end_j + 0.0005, ai, bi, di), *rows[i + 1 :]]
            )
            out["overlap-start"] = plan_text(
                [*rows[:i], (rows[j][0] + 0.0005, ai, bi, di), *rows[i + 1 :]]
            )
            out["apart-0.002"] = plan_text([*rows[:i], (end_j + 0.002, ai, bi, di), *rows[i + 1 :]])
            break
    if n > 2:
        swapped = list(rows)
        (t1, *r1), (t2, *r2) = swapped[0], swapped[-1]
        swapped[0], swapped[-1] = (t2, *r1), (t1, *r2)  # type: ignore[assignment]
        out["swap-times"] = plan_text(swapped)
    return out


def run_val(val: str, domain: Path, problem: Path, text: str, tol: float = 0.01) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as fh:
        fh.write(text)
        name = fh.name
    try:
        r = subprocess.run(
            [val, "-t", str(tol), str(domain), str(problem), name],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.unlink(name)
    out = r.stdout
    valid = "Plan valid" in out
    m = re.search(r"Final value: ([-\d.e+]+)", out)
    bad = "Bad plan description" in out or "Bad operator in plan" in out
    return {"valid": valid, "final_value": float(m.group(1)) if m else None, "bad_plan": bad}


def val_commit(val: str) -> str:
    mirror = Path("/work/.mirror/KCL-Planning+VAL/repo")
    if mirror.exists():
        return subprocess.run(
            ["git", "--git-dir", str(mirror), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    return "unknown"


def write(val: str) -> None:
    rows_out = []
    for folder in sorted(p for p in DATA.iterdir() if p.is_dir()):
        domain = folder / "domain.pddl"
        for problem in sorted(folder.glob("instance-*.pddl")):
            plans: dict[str, tuple[str, float]] = {}
            for hand in sorted(folder.glob(f"{problem.stem}.*.plan")):
                label = hand.name[len(problem.stem) + 1 : -len(".plan")]
                tol = float(label.split(".tol", 1)[1]) if ".tol" in label else 0.01
                plans[f"hand-{label}"] = (hand.read_text(), tol)
            if folder.name not in HAND_ONLY:
                tt = load(domain, problem)
                # with timed literals: search as if the first window were open at once,
                # and start the plan when it opens (VAL judges what comes of it)
                opened = frozenset(
                    (t.atom.pred, *(a.name for a in t.atom.args)) for t in tt.tils if t.positive
                )
                start = min((t.time for t in tt.tils if t.positive), default=0.0)
                search = replace(tt, task=replace(tt.task, init=tt.task.init | opened), tils=())
                path = find_plan(search)
                if path:
                    seq = schedule(path, parallel=False, start=start)
                    par = schedule(path, parallel=True, start=start)
                    plans["sequential"] = (plan_text(seq), 0.01)
                    plans["parallel"] = (plan_text(par), 0.01)
                    plans.update(
                        {f"parallel-{k}": (v, 0.01) for k, v in mutants(par, path).items()}
                    )
                else:
                    print(f"{folder.name}/{problem.name}: no plan found", file=sys.stderr)
            for k, (text, tol) in plans.items():
                v = run_val(val, domain, problem, text, tol)
                rows_out.append(
                    {
                        "id": f"{folder.name}/{problem.stem}/{k}",
                        "domain": f"{folder.name}/domain.pddl",
                        "problem": f"{folder.name}/{problem.name}",
                        "plan": text,
                        "tolerance": tol,
                        "val_valid": v["valid"],
                        "val_final_value": v["final_value"],
                        "val_bad_plan": v["bad_plan"],
                    }
                )
            print(
                f"{folder.name}/{problem.name}: {len(path)} actions, {len(plans)} plans",
                file=sys.stderr,
            )
    meta = {
        "val_commit": val_commit(val),
        "val_command": "Validate -t 0.01 DOMAIN PROBLEM PLAN",
        "written_by": "python benchmarks/bench_temporal.py --write --val PATH",
    }
    with CASES.open("w") as fh:
        fh.write(json.dumps({"_meta": meta}) + "\n")
        for r in rows_out:
            fh.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"wrote {len(rows_out)} cases to {CASES}", file=sys.stderr)


def read_cases() -> list[dict[str, Any]]:
    return [c for c in map(json.loads, CASES.read_text().splitlines()) if "_meta" not in c]


def bench(val: str | None) -> int:
    cases = read_cases()
    tasks: dict[tuple[str, str], TemporalTask] = {}
    t0 = time.perf_counter()
    ours: dict[str, bool] = {}
    finals: dict[str, float | None] = {}
    for c in cases:
        key = (c["domain"], c["problem"])
        if key not in tasks:
            tasks[key] = load(DATA / c["domain"], DATA / c["problem"])
        steps, _ = read_temporal_plan(c["plan"])
        v = validate_temporal(tasks[key], steps, tolerance=c.get("tolerance", 0.01))
        ours[c["id"]], finals[c["id"]] = v.valid, v.final_value
    ours_s = time.perf_counter() - t0
    agree = sum(ours[c["id"]] == c["val_valid"] for c in cases)
    same_value = sum(
        c["val_final_value"] is None or abs((finals[c["id"]] or 0) - c["val_final_value"]) < 1e-3
        for c in cases
        if c["val_valid"]
    )
    n_valid = sum(c["val_valid"] for c in cases)
    print(
        f"temporal cases: {len(cases)} ({n_valid} valid per VAL); planproof = VAL's stored "
        f"verdict on {agree}/{len(cases)}; same final value on {same_value}/{n_valid} valid"
    )
    print(
        "planproof temporal verify (batch, wall, domains read once): "
        f"{1000 * ours_s / len(cases):.2f} ms per plan"
    )
    if val:
        t1 = time.perf_counter()
        for c in cases:
            run_val(val, DATA / c["domain"], DATA / c["problem"], c["plan"], c["tolerance"])
        val_s = time.perf_counter() - t1
        print(
            f"VAL, one process per plan (wall): {1000 * val_s / len(cases):.2f} ms per plan; "
            f"ratio VAL / planproof batch = {val_s / max(ours_s, 1e-9):.1f}x (same run)"
        )
    else:
        print("VAL: not given (--val PATH or $VAL); stored verdicts compared only")
    return 0 if agree == len(cases) else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--val", default=os.environ.get("VAL"))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    if args.write:
        if not args.val:
            ap.error("--write needs --val PATH")
        write(args.val)
        return 0
    return bench(args.val)


if __name__ == "__main__":
    sys.exit(main())
