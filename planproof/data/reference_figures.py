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
    ``state_precision``, ``object_states_planner_success_rate`` ...). The whole-file runs
    (:data:`WHOLE_FILES_PATH`, :func:`merge_whole_files`) are laid over the stored cells."""
    doc: dict[str, Any] = json.loads(FIGURES_PATH.read_text(encoding="utf-8"))
    return merge_whole_files(doc, whole_files())


BEHAVIOR_MODULE = "transition-modeling-behavior"
"""The module name of BEHAVIOR transition modeling in the stored reference data."""


def whole_files() -> dict[str, Any]:
    """The whole-file runs as stored: ``{"format": 1, "provenance": {...}, "cells":
    {module: {model: cell}}}`` (docs/reproduce.md, "The reference on whole files"); an
    empty document when there are none."""
    try:
        doc: dict[str, Any] = json.loads(WHOLE_FILES_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"format": 1, "provenance": {}, "cells": {}}
    return doc


def progress(cell: dict[str, Any]) -> dict[str, int]:
    """``{"tasks", "of"}``: how many of the file's tasks the whole-file run has scored."""
    done = sum(len(b.get("ids", ())) for b in cell.get("batches", {}).values())
    return {"tasks": done, "of": int(cell.get("of", 0))}


def merge_whole_files(doc: dict[str, Any], whole: dict[str, Any]) -> dict[str, Any]:
    """``doc`` (the stored figures) with the whole-file runs laid over it. A file run to
    its end replaces its cell's figures (and its ``sample``: the cell is no longer one),
    or for transition modeling its planner-success figures (and ``planner_sample``); the
    cell then says ``"whole_file": {"tasks", "of"}``; ``doc["whole_files"]`` is the runs'
    provenance. A file not yet run to its end only
    adds ``"whole_file_progress": {"tasks", "of"}``: its stored figures, sample or not,
    stay what they were. BEHAVIOR transition modeling's logic-form figures come from one
    whole-file run each (``logic-form``) and stand as soon as it is done."""
    modules = doc.setdefault("modules", {})
    if whole.get("cells"):
        doc["whole_files"] = whole.get("provenance", {})
    for module, cells in whole.get("cells", {}).items():
        slot = modules.setdefault(module, {})
        for model, cell in cells.items():
            done = progress(cell)
            old = slot.get(model)
            logic = cell.get("logic-form", {}).get("figures")
            if logic and not isinstance(old, dict):  # BEHAVIOR: its planner-less run
                old = {
                    "figures": dict(logic),
                    "planner": False,
                    "seconds": cell["logic-form"].get("seconds", 0.0),
                }
            if cell.get("whole") and cell.get("figures"):
                if module in ("transition-modeling", BEHAVIOR_MODULE) and isinstance(old, dict):
                    new = {k: v for k, v in old.items() if k != "planner_sample"}
                    new["figures"] = {**old.get("figures", {}), **cell["figures"]}
                    new["planner_whole_file"] = done
                else:
                    new = {"figures": dict(cell["figures"]), "whole_file": done}
                seconds = sum(float(b.get("seconds", 0.0)) for b in cell["batches"].values())
                new["seconds" if "seconds" not in new else "planner_seconds"] = round(seconds, 1)
                slot[model] = new
            elif isinstance(old, dict):
                slot[model] = {**old, "whole_file_progress": done}
    return doc


def reference_task_verdicts(module: str, model: str) -> dict[str, dict[str, Any]]:
    """Task identifier → the reference's per-task verdict in the whole-file runs so far
    (every stored batch; the fields are the driver's, docs/reproduce.md)."""
    cell = whole_files().get("cells", {}).get(module, {}).get(model, {})
    return {k: v for b in cell.get("batches", {}).values() for k, v in b.get("tasks", {}).items()}


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
        and "planner_whole_file" not in c
        and any(k.endswith(PLANNER_FIGURE) for k in c.get("figures", {}))
    ]
    paper_fd = sorted(
        model for model, c in cells.items() if isinstance(c, dict) and "planner_whole_file" in c
    )
    empty = len(cells) - len(planned) - len(whole) - len(paper_fd)
    kinds = sorted(
        {f"every {s['every']}th task ({s['tasks']} of {s['of']})" for s in planned.values()}
    )
    head = (
        f"the reference code's {module} logic-form figures are on the whole file, run with "
        "its planner disabled; "
    )
    if not planned and not whole and not paper_fd:
        return head + "its planner was not run, so its planner-success column is empty"
    parts = []
    if planned:
        parts.append(
            f"its planner-success figures marked * are on a SAMPLE of the file "
            f"({len(planned)} models: {'; '.join(kinds)})"
        )
    if whole:
        parts.append(f"on the whole file for {len(whole)} model(s) ({', '.join(sorted(whole))})")
    segments = []
    if parts:  # the stored runs before the whole-file ones
        segments.append(
            ", ".join(parts) + "; those come from Fast Downward 26.6, which rejects operators "
            "naming undeclared constants (not the paper's run: docs/reference-differences.md)"
        )
    if paper_fd:
        segments.append(
            ("" if parts else "its planner-success figures are ")
            + f"on the whole file with Fast Downward 23.06, the paper's, for {len(paper_fd)} "
            f"model(s) ({', '.join(paper_fd)})"
        )
    if empty:
        segments.append(f"its planner-success figures are empty for the other {empty}")
    return head + "; ".join(segments)
