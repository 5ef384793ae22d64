"""BEHAVIOR transition modeling's planner verdicts and plans, task by task, read from two
planner caches: one filled by the code before a change, one after.

    python benchmarks/compare_behavior_plans.py BEFORE.sqlite3 AFTER.sqlite3 [--before-h2]

For every published answer with a planning task it computes the planner cache keys the
code before a change used (``cpu=5`` without the h^2 mark; ``--before-h2`` when the
before run already had it) and uses now, reads both verdicts, and lists every task whose
status or plan differs, the status moves counted per model (``budget -> unsolvable``: the
h^2 test of planproof.pddl.fd_budget). Exits 1 when a plan or any other status changed.
Run both sweeps with ``PLANPROOF_PLAN_CACHE_PATH`` pointing at a fresh file each.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from planproof.data.published import published_files
from planproof.metrics.transition_modeling.evaluate import _model
from planproof.pddl.eai import load_eai_pddl
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.plan_cache import FORMAT, plan_key
from planproof.pddl.planners import export_for_planner
from planproof.pddl.reader import declare_missing_objects
from planproof.pddl.tolerant import read_operators
from planproof.runs.published_sweep import TM_BEHAVIOR_CPU_BUDGET, TM_BEHAVIOR_ENGINE

ALLOWED = {("budget", "unsolvable")}


def _old_key(domain: Any, problem: Any) -> str:
    """The key before the h^2 mark (plan_cache.plan_key of 3eec5cc)."""
    dom, prob, _ = export_for_planner(domain, problem)
    h = hashlib.sha256(f"{FORMAT}\0{TM_BEHAVIOR_ENGINE}\0cpu={TM_BEHAVIOR_CPU_BUDGET:g}\0".encode())
    h.update(dom.encode())
    h.update(b"\0")
    h.update(prob.encode())
    return h.hexdigest()


def _read(con: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    row = con.execute("SELECT result FROM plans WHERE key = ?", (key,)).fetchone()
    return None if row is None else dict(json.loads(row[0]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--before-h2", action="store_true")
    args = ap.parse_args()
    cons = [sqlite3.connect(f"file:{p}?mode=ro", uri=True) for p in (args.before, args.after)]
    bh = load_eai_pddl("behavior")
    moves: dict[str, Counter[tuple[str, str]]] = {}
    bad: list[str] = []
    missing = 0
    plans = 0
    for f in published_files("transition-modeling", "behavior"):
        rows = json.loads(f.path.read_text(encoding="utf-8"))
        count: Counter[tuple[str, str]] = Counter()
        for row in rows:
            ident = str(row.get("identifier", ""))
            if ident not in bh.task_actions or ident not in bh.solved:
                continue
            gold = bh.task_actions[ident]
            params = {n.lower(): bh.gold_operators[n].parameters for n in gold}
            try:
                predicted = read_operators(row.get("llm_output", ""), parameters=params)
            except PDDLSyntaxError:  # an unreadable answer has no planning task
                continue
            model, _ = _model(bh.domain, predicted, {n.lower(): n for n in gold})
            if model is None:
                continue
            problem = declare_missing_objects(bh.domain, bh.problem(ident))
            new_key = plan_key(
                model, problem, TM_BEHAVIOR_ENGINE, cpu_budget=TM_BEHAVIOR_CPU_BUDGET
            )
            old_key = new_key if args.before_h2 else _old_key(model, problem)
            b, a = _read(cons[0], old_key), _read(cons[1], new_key)
            if b is None or a is None:
                missing += 1
                continue
            move = (b["status"], a["status"])
            if move[0] != move[1]:
                count[move] += 1
                if move not in ALLOWED:
                    bad.append(f"{f.model} {ident}: {move[0]} -> {move[1]} ({a['reason']})")
            elif b["plan"] != a["plan"]:
                bad.append(f"{f.model} {ident}: the plan differs")
            plans += b["status"] == "solved"
        moves[f.model] = count
    for model, count in moves.items():
        text = ", ".join(f"{k[0]} -> {k[1]}: {v}" for k, v in sorted(count.items())) or "none"
        print(f"{model}: {text}")
    for line in bad:
        print(line)
    print(f"{plans} plans compared, {len(bad)} differences, {missing} answers not in both caches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
