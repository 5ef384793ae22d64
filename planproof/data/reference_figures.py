"""The published reference evaluator's figures on the published LLM answers, as data.

``benchmarks/differential_published.py --write-figures`` runs virtualhome-eval 0.1.1's
own evaluators (in their own virtual environment, minutes per file) on every published
file and records their summary figures here, per module and model, with how they were
produced; ``planproof reproduce eai`` shows them as the "reference code" column without
that environment. A cell the script has not run is absent, never guessed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIGURES_PATH = Path(__file__).resolve().parent / "reference" / "published_reference.json"
WHOLE_FILES_PATH = Path(__file__).resolve().parent / "reference" / "whole_files.json"
"""Per-task verdicts of the reference's whole-file runs (benchmarks/reference_whole_files.py)."""


def reference_figures() -> dict[str, Any]:
    """``{"produced_by": {...}, "modules": {module: {model: {"figures": {name: value},
    "seconds": float}}}}``; figure names as planproof's (``overall_f1``,
    ``state_precision``, ``object_states_planner_success_rate`` ...)."""
    doc: dict[str, Any] = json.loads(FIGURES_PATH.read_text(encoding="utf-8"))
    return doc


def reference_figure(module: str, model: str, name: str) -> float | None:
    """One figure, or ``None`` when the reference was not run on that cell."""
    cell = reference_figures()["modules"].get(module, {}).get(model)
    if cell is None:
        return None
    value = cell["figures"].get(name)
    return None if value is None else float(value)


def _samples(doc: dict[str, Any] | None, key: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(module, model) → the stored cell's sample under ``key``, for the cells that have one."""
    modules = (reference_figures() if doc is None else doc).get("modules", {})
    return {
        (module, model): c[key]
        for module, cells in modules.items()
        for model, c in cells.items()
        if isinstance(c, dict) and isinstance(c.get(key), dict)
    }


def sampled_cells(doc: dict[str, Any] | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """(module, model) → the sample (``{"every", "tasks", "of"}``) of every stored cell the
    reference ran on only part of its file."""
    return _samples(doc, "sample")


PLANNER_FIGURE = "_planner_success_rate"
"""The suffix of the transition-modeling figures that come from the reference's planner."""


def planner_samples(doc: dict[str, Any] | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """(module, model) → the sample of the reference's planner-success figures, for the
    transition-modeling cells whose logic-form figures are the whole file's (a run with
    the planner disabled, ``"planner": false``) and whose planner was run on every n-th
    task only (``"planner_sample"``: it needs minutes per file)."""
    return _samples(doc, "planner_sample")


def is_sampled(module: str, model: str, figure: str, doc: dict[str, Any] | None = None) -> bool:
    """Whether the stored reference figure ``figure`` of (module, model) is on a sample of
    the file (its cell is a sample, or it is a planner figure of a planner sample)."""
    doc = reference_figures() if doc is None else doc
    if (module, model) in sampled_cells(doc):
        return True
    planner = figure.replace("non_spatial", "non-spatial").removesuffix("_rate") + "_rate"
    return planner.endswith(PLANNER_FIGURE) and (module, model) in planner_samples(doc)


def partial_cells() -> dict[str, str]:
    """Module → why its stored reference figures are not the whole file's everything:
    cells run on a sample of each file's tasks (``"sample"``), transition modeling run with
    the reference's planner disabled (``"planner": false``). Empty when every stored cell
    is a whole-file, full run."""
    out: dict[str, str] = {}
    doc = reference_figures()
    samples = sampled_cells(doc)
    for module, cells in doc.get("modules", {}).items():
        sampled = {model: s for (m, model), s in samples.items() if m == module}
        if sampled:
            kinds = sorted(
                {f"every {s['every']}th task ({s['tasks']} of {s['of']})" for s in sampled.values()}
            )
            whole = len(cells) - len(sampled)
            out[module] = (
                f"the reference code's {module} figures marked * are on a SAMPLE of the file "
                f"({len(sampled)} models: {'; '.join(kinds)}), not the whole file"
                + (f"; {whole} models on the whole file" if whole else "")
            )
        if any(isinstance(c, dict) and c.get("planner") is False for c in cells.values()):
            out[module] = _planner_note(module, cells, doc)
    return out


def _planner_note(module: str, cells: dict[str, Any], doc: dict[str, Any]) -> str:
    """The note for transition-modeling cells whose logic-form figures come from a run
    without the reference's planner: where its planner-success figures come from."""
    planned = {model: s for (m, model), s in planner_samples(doc).items() if m == module}
    whole = [
        model
        for model, c in cells.items()
        if isinstance(c, dict)
        and model not in planned
        and any(k.endswith(PLANNER_FIGURE) for k in c.get("figures", {}))
    ]
    empty = len(cells) - len(planned) - len(whole)
    kinds = sorted(
        {f"every {s['every']}th task ({s['tasks']} of {s['of']})" for s in planned.values()}
    )
    head = (
        f"the reference code's {module} logic-form figures are on the whole file, run with "
        "its planner disabled; "
    )
    if not planned and not whole:
        return head + "its planner was not run, so its planner-success column is empty"
    parts = []
    if planned:
        parts.append(
            f"its planner-success figures marked * are on a SAMPLE of the file "
            f"({len(planned)} models: {'; '.join(kinds)})"
        )
    if whole:
        parts.append(f"on the whole file for {len(whole)} model(s) ({', '.join(sorted(whole))})")
    if empty:
        parts.append(f"empty for the other {empty}")
    return (
        head
        + ", ".join(parts)
        + "; they come from the Fast Downward build installed here, which rejects operators "
        "naming undeclared constants (not the paper's run: docs/reference-differences.md)"
    )
