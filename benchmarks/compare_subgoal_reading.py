"""The reference reading of subgoal decomposition against the reference code's own per-task
verdicts on whole files (``planproof/data/reference/whole_files.json``, written batch by
batch by ``benchmarks/reference_whole_files.py``), task by task: category, executable,
successful (:mod:`planproof.runs.subgoal_reference_check`).

    python benchmarks/compare_subgoal_reading.py [--data PATH] [--models NAME ...]

Prints, per model, the tasks compared and every disagreement with both verdicts and the
reading's actions; for a cell the reference ran on every task, the reading's figures
against the reference's whole-file figures (differences above 0.1). ``--data`` reads another
copy of the data file (e.g. the one a background run is writing), read only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SD = "subgoal-decomposition"


def main(argv: list[str] | None = None) -> int:
    from stored_runs import parser, stored_cells

    from planproof.data.published import published_files
    from planproof.runs.modules import load_tasks
    from planproof.runs.subgoal_reference_check import (
        compare_cell,
        stored_verdicts,
        whole_file_figures,
    )

    args = parser(__doc__.split("\n\n")[0]).parse_args(argv)
    stored = stored_cells(args, SD)
    if stored is None:
        return 2
    doc, cells, models = stored
    files = {f.model: f for f in published_files(SD, "virtualhome")}
    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    total = differ = 0
    for model in models:
        cell = cells.get(model, {})
        rows = json.loads(files[model].path.read_text(encoding="utf-8"))
        batch = int(cell.get("batch_size", 13))
        got = compare_cell(model, stored_verdicts(doc, model), rows, tasks, batch)
        total += got.compared
        differ += len(got.differences)
        print(f"{model}: {got.compared} of {len(rows)} tasks, {len(got.differences)} differ")
        for d in got.differences:
            print(f"  {d.identifier}: reference {d.reference}, reading {d.reading}")
            print(f"    reading's actions: {', '.join(d.actions) or '-'}")
        if cell.get("whole") and cell.get("figures"):
            mine = whole_file_figures(rows, tasks, batch)
            for name, ref in sorted(cell["figures"].items()):
                if name in mine and abs(mine[name] - float(ref)) > 0.1:
                    print(f"  figure {name}: reference {ref:.2f}, reading {mine[name]:.2f}")
    print(f"all: {total} tasks, {differ} differ")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
