"""The EAI paper's published figures, as package data.

``paper/eai_tables.json`` holds every number of the paper's result Tables 3 and 9-15
(VirtualHome and BEHAVIOR, 18 models), extracted once from the paper's text by
``tools/extract_eai_paper_tables.py``. ``planproof reproduce`` prints them beside the
reference code's and planproof's figures; keeping them as data (not code) lets anyone
check a number against the PDF.

Metric names: goal interpretation ``{state,relation,action,overall}_{precision,recall,f1}``;
action sequencing / subgoal decomposition ``task_success``, ``execution_success``, the
error columns ``parsing``, ``hallucination``, ``argument_count``, ``wrong_order``,
``missing_step``, ``affordance``, ``additional_step`` and the goal-success columns
``goal_{state,relation,action,total}``; transition modeling ``<category>_{precision,recall,f1}``
and ``<category>_planner_success``. Values are percentages as printed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

TABLES: dict[str, str] = {
    "3": "Results overview (GI F1, AS and SD task / execution success)",
    "9": "Goal interpretation precision / recall / F1 by goal type",
    "10": "Subgoal decomposition trajectory evaluation",
    "11": "Goal success by goal type, action sequencing and subgoal decomposition",
    "12": "Action sequencing trajectory evaluation",
    "13": "Transition modeling logic-form accuracy, VirtualHome",
    "14": "Transition modeling logic-form accuracy, BEHAVIOR",
    "15": "Transition modeling planner success",
}
"""The paper's tables held here, with what each reports."""

FULL_TABLES_FIRST: tuple[str, ...] = ("9", "10", "11", "12", "13", "14", "15", "3")
"""Where a figure appears twice the appendix tables win: Table 3 rounds or differs
(GPT-4o SD task success 87.6 in Table 3, 88.8 in Table 10)."""

TRAJECTORY_METRICS: tuple[str, ...] = (
    "task_success",
    "execution_success",
    "parsing",
    "hallucination",
    "argument_count",
    "wrong_order",
    "missing_step",
    "affordance",
    "additional_step",
)
"""The columns of Tables 10 and 12, in the paper's order: goal evaluation, then the
grammar and runtime errors (the error taxonomy is ``[2:8]``; additional steps are a
warning, not a failure)."""

TM_CATEGORIES: dict[str, tuple[str, ...]] = {
    "virtualhome": (
        "object_states",
        "object_orientation",
        "object_affordance",
        "spatial_relations",
        "non_spatial_relations",
    ),
    "behavior": ("object_states", "spatial_relations", "non_spatial_relations"),
}
"""Transition-modeling categories of Tables 13-15, per dataset."""


@dataclass(frozen=True)
class PaperFigure:
    """One printed number: which table, module, dataset, model and metric it is."""

    table: str
    module: str
    dataset: str
    model: str
    metric: str
    value: float


@lru_cache(maxsize=1)
def paper_figures() -> tuple[PaperFigure, ...]:
    """Every figure of the held tables, in the order of the paper's rows."""
    text = resources.files("planproof.data").joinpath("paper/eai_tables.json").read_text("utf-8")
    return tuple(PaperFigure(**f) for f in json.loads(text)["figures"])


@lru_cache(maxsize=1)
def _index() -> dict[tuple[str, str, str, str, str], float]:
    return {(f.table, f.module, f.dataset, f.model, f.metric): f.value for f in paper_figures()}


def paper_models() -> tuple[str, ...]:
    """The 18 model names of the tables, in the paper's Table 3 order."""
    return tuple(dict.fromkeys(f.model for f in paper_figures() if f.table == "3"))


def paper_figure(
    model: str,
    module: str,
    metric: str,
    dataset: str = "virtualhome",
    tables: Sequence[str] = FULL_TABLES_FIRST,
) -> PaperFigure | None:
    """The figure for (model, module, metric, dataset) from the first of ``tables`` that
    prints it, or None when the paper gives none (e.g. BEHAVIOR action goals)."""
    index = _index()
    for table in tables:
        value = index.get((table, module, dataset, model, metric))
        if value is not None:
            return PaperFigure(table, module, dataset, model, metric, value)
    return None
