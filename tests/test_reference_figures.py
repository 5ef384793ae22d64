"""The reference's figures kept as package data: present, described, and for goal
interpretation checked against the paper's Table 9 (the published evaluator is the
paper's own code)."""

from __future__ import annotations

import json

from planproof.data.paper_eai import paper_figure
from planproof.data.published import MODELS
from planproof.data.reference_figures import FIGURES_PATH, reference_figure, reference_figures


def test_figures_say_how_they_were_made() -> None:
    doc = reference_figures()
    assert "differential_published.py" in doc["produced_by"]["command"]
    assert "virtualhome-eval 0.1.1" in doc["produced_by"]["evaluator"]
    assert json.loads(FIGURES_PATH.read_text()) == doc


def test_goal_interpretation_against_table_9() -> None:
    """GPT-4o: every Table 9 figure exactly. The other models' published files give the
    reference code figures up to 2.9 points away from the printed table (mostly relation
    goals; docs/reference-differences.md), never more."""
    cells = reference_figures()["modules"]["goal-interpretation"]
    compared = 0
    for model, cell in cells.items():
        for name, value in cell["figures"].items():
            paper = paper_figure(MODELS[model], "goal-interpretation", name)
            assert paper is not None, (model, name)
            if model == "gpt-4o-2024-05-13":
                assert round(value, 1) == paper.value, (name, value, paper)
            assert abs(value - paper.value) <= 3.0, (model, name, value, paper)
            compared += 1
    assert compared == 12 * len(cells) and "gpt-4o-2024-05-13" in cells


def test_absent_cell_is_none() -> None:
    assert reference_figure("goal-interpretation", "no-such-model", "overall_f1") is None
