"""The reference reading of transition modeling's planner success (VirtualHome or
BEHAVIOR) against the reference code's own per-task verdicts on whole files
(``planproof/data/reference/whole_files.json``, virtualhome-eval 0.1.1 with Fast Downward
23.06), task by task: format error, categories, hallucinated operators, the holistic
planner verdict and, with ``--per-operator``, each single-variate test's verdict (the gold
domain with one predicted operator swapped in: no figure reads it, and it costs the
reading about one planning task per predicted operator, ~15 min of CPU per file).

    python benchmarks/compare_tm_reading.py [--dataset virtualhome|behavior]
        [--data PATH] [--models NAME ...] [--per-operator]

Prints, per model, the tasks compared and every disagreement with both sides. ``--data``
reads another copy of the data file (e.g. the one a background run is writing), read only.
A task the reference ran to its wall-time limit (``holistic.over_limit``: its verdict may
be the machine's load, to be re-run idle) is listed apart, "limit", and not counted as a
difference.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TM = "transition-modeling"
MODULES = {"virtualhome": TM, "behavior": "transition-modeling-behavior"}
"""The data file's module key per dataset."""


def differences(rec: Mapping[str, Any], got: Any, per_operator: bool) -> list[str]:
    """How the reading's task (a ``ReferencePlannerTask``) differs from the reference's
    stored record (empty: equal)."""
    out = []
    if (not got.counted) != bool(rec.get("format_wrong")):
        out.append(f"format error: reference {rec.get('format_wrong')}, reading {got.status}")
    if sorted(got.categories) != sorted(rec.get("categories", ())):
        out.append(f"categories: reference {rec.get('categories')}, reading {got.categories}")
    if got.counted and got.hallucinated != rec.get("hallucinated"):
        out.append(f"hallucinated: reference {rec.get('hallucinated')}, {got.hallucinated}")
    if got.counted and got.success != bool(rec.get("planner_success")):
        out.append(
            f"planner: reference {rec.get('planner_success')} {rec.get('holistic', '')}, "
            f"reading {got.status}: {got.reason[:160]}"
        )
    if per_operator and got.counted and dict(got.actions) != dict(rec.get("actions", {})):
        out.append(f"single-variate: reference {rec.get('actions')}, reading {got.actions}")
    return out


def over_limit(rec: Mapping[str, Any]) -> bool:
    """Whether the reference's holistic run reached its wall-time limit."""
    holistic = rec.get("holistic")
    return isinstance(holistic, Mapping) and bool(holistic.get("over_limit"))


def main(argv: list[str] | None = None) -> int:
    from stored_runs import parser, stored_cells

    from planproof.data.published import published_files
    from planproof.metrics.transition_modeling.reference_planner import reference_planner_task
    from planproof.pddl.eai import load_eai_pddl

    ap = parser(__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", choices=sorted(MODULES), default="virtualhome")
    ap.add_argument("--per-operator", action="store_true", help="also each single-variate test")
    args = ap.parse_args(argv)
    stored = stored_cells(args, MODULES[args.dataset])
    if stored is None:
        return 2
    _, cells, models = stored
    files = {f.model: f for f in published_files(TM, args.dataset)}
    data = load_eai_pddl(args.dataset)
    total = differ = operators = limits = 0
    for model in models:
        rows = json.loads(files[model].path.read_text(encoding="utf-8"))
        answers = {str(r["identifier"]): str(r["llm_output"]) for r in rows}
        seen = 0
        for batch in cells[model].get("batches", {}).values():
            for ident, rec in batch.get("tasks", {}).items():
                if "skipped" in rec:  # not in the evaluated set: neither side scores it
                    continue
                got = reference_planner_task(
                    data, ident, answers[ident], per_operator=args.per_operator
                )
                seen += 1
                operators += len(rec.get("actions", {})) if args.per_operator else 0
                for line in differences(rec, got, args.per_operator):
                    if over_limit(rec) and line.startswith("planner:"):
                        limits += 1
                        print(f"  {model} {ident}: limit, to re-run idle: {line}", flush=True)
                        continue
                    differ += 1
                    print(f"  {model} {ident}: {line}", flush=True)
        total += seen
        print(f"{model}: {seen} of {len(rows)} tasks", flush=True)
    extra = f", {operators} single-variate verdicts" if args.per_operator else ""
    print(f"all: {total} tasks{extra}, {differ} differences, {limits} at the reference's limit")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
