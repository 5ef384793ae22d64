"""Every per-task verdict of the published sweep, saved once and compared after a change.

    python benchmarks/compare_published_verdicts.py --save /tmp/before.json
    python benchmarks/compare_published_verdicts.py --against /tmp/before.json

Scores every cell of goal interpretation, action sequencing (both readings of repeated
keys) and subgoal decomposition by default; with ``--modules transition-modeling``,
VirtualHome transition modeling (with the planner; each
task's verdict in planproof's reading and in the reference reading, ``reference``) for the
15 published models (``published_cells``,
``evaluate_job``: the code ``planproof reproduce eai`` runs, without its cell cache) on
``--workers`` local processes, and keeps per cell its summary and every task's verdict.
With ``--against`` it lists every cell, task and summary field that differs from the saved
run and exits 1 if anything does: a speed change must leave it empty.

``--modules transition-modeling --datasets behavior`` covers BEHAVIOR transition modeling
with its planner (both readings are in each cell's summary; each task's planner status);
set ``PLANPROOF_PLAN_CACHE_PATH`` to a fresh file in a temporary directory so the user's
planner cache is neither read nor changed. ``--allow-status A:B`` accepts a task whose
planner status moved from A to B (a documented status improvement) and lists those moves
per cell instead of counting them as differences. The CPU time of the run (this process
and its workers, Fast Downward included) is printed at the end.

Transition modeling plans through the persistent planner cache: run it with
``PLANPROOF_PLAN_CACHE_PATH`` naming a fresh file (a cold cache) or ``PLANPROOF_PLAN_CACHE=off``.
Its summary's ``planner_cache_hits`` is left out of the comparison: how many planning tasks
one worker found already planned by another depends on the workers' timing, not on a
verdict.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from planproof.executor import ExecutorConfig, open_executor
from planproof.runs.published_sweep import (
    Cell,
    Shard,
    evaluate_job,
    merge_shards,
    published_cells,
    sharded,
    shards,
)

MODULES = ("goal-interpretation", "action-sequencing", "subgoal-decomposition")
CHOICES = (*MODULES, "transition-modeling")
UNCOMPARED = frozenset({"planner_cache_hits"})
"""Summary fields that count the cache's work, not a verdict (module docstring)."""


def cell_key(cell: dict[str, Any]) -> str:
    where = "" if cell["dataset"] == "virtualhome" else f"-{cell['dataset']}"
    return f"{cell['module']}{where}/{cell['model']}/{cell['repeated']}"


def score(
    modules: list[str], models: list[str] | None, workers: int, datasets: list[str]
) -> dict[str, Any]:
    """Cell key → {summary, figures, tasks} for every selected cell. Transition modeling
    is scored as ``reproduce`` scores it (VirtualHome in task slices merged per cell);
    the other modules cell by cell."""
    cells: list[Cell] = published_cells(modules, models, datasets=datasets)
    tm = [c for c in cells if c.module == "transition-modeling" and sharded(c)]
    whole = [c for c in cells if c not in tm]
    jobs: list[Cell | Shard] = [*shards(tm), *whole]
    out: dict[str, Any] = {}
    with open_executor(ExecutorConfig("local", workers), tasks=len(jobs)) as ex:
        results = ex.map(evaluate_job, jobs)
    values: list[dict[str, Any]] = []
    parts: list[list[dict[str, Any]]] = [[] for _ in tm]
    for job, res in zip(jobs, results, strict=True):
        if res.value is None:
            raise SystemExit(f"job {job} failed: {res.failure}")
        if isinstance(job, Shard):
            for j, part in enumerate(res.value):
                if "error" in part:
                    raise SystemExit(f"cell {tm[j]} failed: {part['error']}")
                parts[j].append(part)
        else:
            values.append(res.value)
    values += [merge_shards(cell, p) for cell, p in zip(tm, parts, strict=True)]
    for v in values:
        out[cell_key(v["cell"])] = {k: v[k] for k in ("summary", "figures", "tasks")}
    return out


def _status_moved(b: Any, a: Any, allowed: set[tuple[str, str]]) -> bool:
    """The two task verdicts differ only in an allowed planner-status move."""
    if not isinstance(b, dict) or not isinstance(a, dict) or set(b) != set(a):
        return False
    if any(b[k] != a[k] for k in b if k != "planner_status"):
        return False
    return (str(b.get("planner_status")), str(a.get("planner_status"))) in allowed


_STATUS_COUNTS = ("planner_budget_spent", "planner_statuses", "planner_unsolvable")


def differences(
    before: dict[str, Any],
    after: dict[str, Any],
    allowed: set[tuple[str, str]] | None = None,
    moves: dict[str, list[str]] | None = None,
) -> list[str]:
    """Human-readable differences between two saved runs (cells present in both; a cell
    present in one only is a difference too). Task verdicts that differ only by an
    ``allowed`` planner-status move go to ``moves`` (cell key → identifiers), and then the
    summary's status counters (which count them) are not compared for that cell."""
    allowed = allowed or set()
    out: list[str] = []
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            out.append(f"{key}: only in {'after' if key in after else 'before'}")
            continue
        b, a = before[key], after[key]
        bt = {t["identifier"]: t for t in b["tasks"]}
        at = {t["identifier"]: t for t in a["tasks"]}
        moved: list[str] = []
        for ident in sorted(set(bt) | set(at)):
            if bt.get(ident) != at.get(ident):
                if _status_moved(bt.get(ident), at.get(ident), allowed):
                    moved.append(ident)
                    continue
                out.append(f"{key} {ident}: {bt.get(ident)} -> {at.get(ident)}")
        if moved and moves is not None:
            moves[key] = moved
        for part in ("summary", "figures"):
            if b[part] != a[part]:
                for field in sorted((set(b[part]) | set(a[part])) - UNCOMPARED):
                    if moved and field in _STATUS_COUNTS:
                        continue
                    if b[part].get(field) != a[part].get(field):
                        out.append(f"{key} {part}.{field} differs")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path, help="write this run's verdicts here")
    group.add_argument("--against", type=Path, help="compare this run with a saved one")
    ap.add_argument("--modules", nargs="+", choices=CHOICES, default=list(MODULES))
    ap.add_argument("--datasets", nargs="+", default=["virtualhome"])
    ap.add_argument("--models", nargs="+", help="file stems (default: all 15)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--allow-status", action="append", default=[], metavar="FROM:TO")
    args = ap.parse_args()
    t0 = time.perf_counter()
    now = score(args.modules, args.models, args.workers, args.datasets)
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    print(
        f"scored {len(now)} cells in {time.perf_counter() - t0:.1f} s wall, {cpu:.1f} s CPU",
        flush=True,
    )
    if args.save is not None:
        args.save.write_text(json.dumps(now, sort_keys=True), encoding="utf-8")
        print(f"saved to {args.save}")
        return 0
    saved = json.loads(args.against.read_text(encoding="utf-8"))
    saved = {k: v for k, v in saved.items() if k in now}
    allowed = {tuple(a.split(":", 1)) for a in args.allow_status if ":" in a}
    moves: dict[str, list[str]] = {}
    diff = differences(saved, now, {(a, b) for a, b in allowed}, moves)
    for key, idents in sorted(moves.items()):
        print(f"{key}: {len(idents)} allowed status moves: {', '.join(idents)}")
    for line in diff:
        print(line)
    tasks = sum(len(v["tasks"]) for v in now.values())
    print(f"{len(diff)} differences over {len(now)} cells, {tasks} task verdicts")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
