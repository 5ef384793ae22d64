"""Extract the EAI paper's VirtualHome/BEHAVIOR result tables into package data.

Run once from a checkout that has the paper text (``/work/shared/seeds``)::

    python tools/extract_eai_paper_tables.py SEED.txt planproof/data/paper/eai_tables.json

The output is committed: a fresh clone needs no paper text. Model names are normalised to
one spelling per model (the paper spells some differently from table to table).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from planproof.data.paper_eai import TRAJECTORY_METRICS as TRAJ

NAMES = {
    "Llama 3 8B Instruct": "Llama 3 8B Instruct",
    "Llama 3 8B": "Llama 3 8B Instruct",
    "Llama 3 8b": "Llama 3 8B Instruct",
    "Llama 3 70B Instruct": "Llama 3 70B Instruct",
    "Llama 3 70B": "Llama 3 70B Instruct",
    "Llama 3 70b": "Llama 3 70B Instruct",
    "Mixtral 8x22B MoE": "Mixtral 8x22B MoE",
    "Mixtral 8x22b MoE": "Mixtral 8x22B MoE",
    "Mistral 8x22B MoE": "Mixtral 8x22B MoE",
}


def rows(lines: list[str], start: str, count: int) -> list[tuple[str, list[str]]]:
    """The ``count`` data rows after the line starting with ``start``: (model, cells)."""
    i = next(k for k, line in enumerate(lines) if line.startswith(start))
    out: list[tuple[str, list[str]]] = []
    for line in lines[i + 1 :]:
        cells = line.split("\t")
        if len(cells) > 8 and re.fullmatch(r"[\d.]+|-", cells[1].strip()):
            out.append(
                (NAMES.get(cells[0].strip(), cells[0].strip()), [c.strip() for c in cells[1:]])
            )
            if len(out) == count:
                return out
    raise SystemExit(f"{start}: found {len(out)} rows, expected {count}")


def emit(figures: list[dict[str, object]], key: tuple[str, str, str, str, str], cell: str) -> None:
    """Append one figure; ``key`` is (table, module, dataset, model, metric)."""
    if cell in {"-", ""}:
        return
    names = ("table", "module", "dataset", "model", "metric")
    figures.append({**dict(zip(names, key, strict=True)), "value": float(cell)})


def main(seed: Path, out: Path) -> None:
    lines = seed.read_text(encoding="utf-8").splitlines()
    figs: list[dict[str, object]] = []
    vb = ("virtualhome", "behavior")
    # Table 3: GI F1 V/B, AS task/exec V/B, SD task/exec V/B (TM and average columns lost).
    for model, c in rows(lines, "Table 3: Results (%) overview", 18):
        emit(figs, ("3", "goal-interpretation", "virtualhome", model, "overall_f1"), c[0])
        emit(figs, ("3", "goal-interpretation", "behavior", model, "overall_f1"), c[1])
        for k, module in ((2, "action-sequencing"), (6, "subgoal-decomposition")):
            emit(figs, ("3", module, "virtualhome", model, "task_success"), c[k])
            emit(figs, ("3", module, "behavior", model, "task_success"), c[k + 1])
            emit(figs, ("3", module, "virtualhome", model, "execution_success"), c[k + 2])
            emit(figs, ("3", module, "behavior", model, "execution_success"), c[k + 3])
    # Table 9: for each of state, spatial, action, overall: P V, P B, R V, R B, F1 V, F1 B.
    for model, c in rows(lines, "Table 9: All goal evaluation results", 18):
        for g, kind in enumerate(("state", "relation", "action", "overall")):
            for m, metric in enumerate(("precision", "recall", "f1")):
                for d, dataset in enumerate(vb):
                    emit(
                        figs,
                        ("9", "goal-interpretation", dataset, model, f"{kind}_{metric}"),
                        c[g * 6 + m * 2 + d],
                    )
    # Tables 10 (SD) and 12 (AS): each column V then B.
    for table, module, start in (
        ("10", "subgoal-decomposition", "Table 10: All trajectory evaluation results"),
        ("12", "action-sequencing", "Table 12: Trajectory evaluation results"),
    ):
        for model, c in rows(lines, start, 18):
            for j, metric in enumerate(TRAJ):
                for d, dataset in enumerate(vb):
                    emit(figs, (table, module, dataset, model, metric), c[j * 2 + d])
    # Table 11: AS then SD; state, relation, action, total; V then B.
    for model, c in rows(lines, "Table 11: All goal success results", 18):
        for half, module in enumerate(("action-sequencing", "subgoal-decomposition")):
            for g, kind in enumerate(("state", "relation", "action", "total")):
                for d, dataset in enumerate(vb):
                    emit(
                        figs,
                        ("11", module, dataset, model, f"goal_{kind}"),
                        c[half * 8 + g * 2 + d],
                    )
    cats_v = (
        "object_states",
        "object_orientation",
        "object_affordance",
        "spatial_relations",
        "non_spatial_relations",
    )
    cats_b = ("object_states", "spatial_relations", "non_spatial_relations")
    for table, cats, dataset, start in (
        ("13", cats_v, "virtualhome", "Table 13: Full results of logic form accuracy"),
        ("14", cats_b, "behavior", "Table 14: Full results of logic form accuracy"),
    ):
        for model, c in rows(lines, start, 18):
            for j, cat in enumerate(cats):
                for m, metric in enumerate(("precision", "recall", "f1")):
                    emit(
                        figs,
                        (table, "transition-modeling", dataset, model, f"{cat}_{metric}"),
                        c[j * 3 + m],
                    )
    for model, c in rows(lines, "Table 15: Full results of planner success rate", 18):
        for j, cat in enumerate(cats_v):
            for d, dataset in enumerate(vb):
                emit(
                    figs,
                    ("15", "transition-modeling", dataset, model, f"{cat}_planner_success"),
                    c[j * 2 + d],
                )
    doc = {
        "source": "Li et al., Embodied Agent Interface: Benchmarking LLMs for Embodied Decision "
        "Making, NeurIPS 2024 Datasets and Benchmarks (arXiv:2410.07166), Tables 3 and 9-15",
        "units": "percent",
        "figures": figs,
    }
    out.write_text(json.dumps(doc, indent=0) + "\n", encoding="utf-8")
    print(f"{len(figs)} figures → {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
