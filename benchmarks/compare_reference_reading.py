"""The reference reading of action sequencing against the reference code's own per-task
verdicts on whole files (``planproof/data/reference/whole_files.json``, written by
``benchmarks/reference_whole_files.py`` with ``PYTHONHASHSEED=2``), task by task:
evaluated (its gold test), executable, successful, error type.

    python benchmarks/compare_reference_reading.py [--data PATH] [--models NAME ...]

Prints, per model, the tasks compared and every disagreement with both verdicts and the
reading's correction class (the rule that separates it from planproof's own reading).
The reference's error names are its own (``affordance_error``, ``wrong_temporal_order``,
``hallucination error``, ...); they are mapped to the reading's before comparing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ERRORS = {
    "hallucination error": "hallucination",
    "parsing error": "parsing",
    "parameter error": "argument_count",
    "affordance_error": "affordance",
    "wrong_temporal_order": "wrong_order",
}


def stored_tasks(doc: dict[str, Any], model: str) -> dict[str, dict[str, Any]]:
    """The reference's per-task verdicts of one model's action-sequencing file."""
    out: dict[str, dict[str, Any]] = {}
    cell = doc.get("cells", {}).get("action-sequencing", {}).get(model, {})
    for batch in cell.get("batches", {}).values():
        out.update(batch.get("tasks", {}))
    return out


def verdict(stored: dict[str, Any]) -> tuple[bool, bool, bool, str | None]:
    """(evaluated, executable, successful, error) of a stored task; a plan equal to the gold
    script has no error record there and is executable."""
    if "skipped" in stored:
        return (False, False, False, None)
    err = stored.get("error_type")
    return (
        True,
        bool(stored.get("executable", True)),
        bool(stored.get("success")),
        ERRORS.get(err, err),
    )


def main(argv: list[str] | None = None) -> int:
    from stored_runs import parser, stored_cells

    from planproof.runs.published_sweep import evaluate_cell, published_cells

    args = parser(__doc__).parse_args(argv)
    stored = stored_cells(args, "action-sequencing")
    if stored is None:
        return 2
    doc, _, models = stored
    total = differ = 0
    for model in models:
        stored = stored_tasks(doc, model)
        cells = published_cells(["action-sequencing"], [model], reference_reading=False)
        mine = {t["identifier"]: t for t in evaluate_cell(cells[0])["tasks"]}
        rows = []
        for tid, s in sorted(stored.items()):
            ref = mine[tid]["reference"]
            got = (ref["evaluated"], ref["executable"], ref["success"], ref["error"])
            want = verdict(s)
            if not want[0]:
                got = (ref["evaluated"], False, False, None)
            if got != want:
                fix = mine[tid]["correction"]
                rows.append((tid, want, got, fix["class"] if fix else "-"))
        total += len(stored)
        differ += len(rows)
        print(f"{model}: {len(stored)} tasks, {len(rows)} differ")
        for tid, want, got, cls in rows:
            print(f"  {tid}: reference {want}, reading {got} (correction: {cls})")
    print(f"all: {total} tasks, {differ} differ")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
