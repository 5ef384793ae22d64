"""BEHAVIOR transition modeling from the published answers
(``virtualhome_eval/llm_response/transition_modeling_behavior/``, 15 models, 100 tasks
each): every file is read and scored in both readings (planproof's clause F1, and the
logic form counted as the reference counts), ``reproduce eai`` shows them beside the
paper's BEHAVIOR columns (Tables 14, 15), and where the reference code's own run on the
same file is stored (benchmarks/reference_whole_files.py) the reference reading equals it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planproof.data import DataUnavailableError
from planproof.data.published import MODELS, PublishedFile, published_files
from planproof.data.reference_figures import BEHAVIOR_MODULE, whole_files
from planproof.metrics.transition_modeling.evaluate import evaluate_responses
from planproof.pddl.eai import EaiPddl, load_eai_pddl
from planproof.pddl.reference_logic_form import reference_logic_form_figures
from planproof.report.leaderboard import GROUPS, TM_BEHAVIOR, TM_BEHAVIOR_COUNTING
from planproof.runs.published_sweep import figures
from tests.helpers import needed_resource

pytestmark = pytest.mark.data

BEHAVIOR_CATEGORIES = ("object_states", "spatial_relations", "non_spatial_relations")


@pytest.fixture(scope="module")
def bh_files() -> list[PublishedFile]:
    return needed_resource(
        lambda: published_files("transition-modeling", "behavior"),
        DataUnavailableError,
        "published BEHAVIOR outputs",
    )


@pytest.fixture(scope="module")
def bh(eai_wheel: Path) -> EaiPddl:
    return load_eai_pddl("behavior")


def test_every_published_behavior_file_is_scored_in_both_readings(
    bh_files: list[PublishedFile], bh: EaiPddl
) -> None:
    assert sorted(f.model for f in bh_files) == sorted(MODELS)
    for f in bh_files:
        rows = json.loads(f.path.read_text(encoding="utf-8"))
        assert len(rows) == 100
        report = evaluate_responses(bh, rows, run_planner=False)
        summary = report.summary()
        assert summary["tasks"] + summary["skipped"] == len(rows), f.model
        _check_readings_and_corrections(bh, rows, summary, report.tasks)
        own = figures("transition-modeling", summary)
        counted = reference_logic_form_figures(bh, rows)
        f1s = {k.removesuffix("_f1") for k in own if k.endswith("_f1")}
        assert f1s and f1s <= set(BEHAVIOR_CATEGORIES), (f.model, f1s)
        assert {k.rsplit("_", 1)[0].replace("-", "_") for k in counted} <= set(BEHAVIOR_CATEGORIES)
        for v in [*own.values(), *counted.values()]:
            assert 0.0 <= v <= 100.0


def _check_readings_and_corrections(
    bh: EaiPddl, rows: list[dict[str, Any]], summary: dict[str, Any], tasks: Any
) -> None:
    """The reference reading's F1 is the reference counting's (no planner success without
    the planner's verdicts); the corrections move exactly the gap between the readings'
    object-states counts, every task in a documented class, none unexplained."""
    from planproof.pddl.reference_logic_form import reference_logic_form_counts
    from planproof.runs.behavior_readings import CLASSES, both_readings

    both_readings(bh, rows, summary, tasks)
    reading = figures("transition-modeling", summary["reference_reading"])
    counted = reference_logic_form_figures(bh, rows)
    for k, v in counted.items():
        assert reading[k.replace("non-spatial", "non_spatial")] == pytest.approx(v, abs=1e-4)
    # no planner run: no planner verdict in the reference reading, no planner corrections
    assert "planner_by_category" not in summary["reference_reading"]
    assert "planner_corrections" not in summary
    table = summary["corrections"]
    theirs = reference_logic_form_counts(bh, rows).get("object_states", [0, 0, 0])
    mine = summary["by_category"].get("object_states", {"tp": 0, "fp": 0, "fn": 0})
    gap = {d: mine[d] - theirs[i] for i, d in enumerate(("tp", "fp", "fn"))}
    assert {d: table["total"][d] for d in gap} == gap
    assert table["unexplained"] == 0 and set(table["classes"]) <= set(CLASSES)
    for d, moved in gap.items():
        assert sum(c[d] for c in table["classes"].values()) == moved
    assert table["figure"] == "object_states_f1"


REFERENCE_BEHAVIOR = {
    model: cell["logic-form"]["figures"]
    for model, cell in whole_files()["cells"].get(BEHAVIOR_MODULE, {}).items()
    if "logic-form" in cell
}


@pytest.mark.parametrize("model", sorted(REFERENCE_BEHAVIOR))
def test_reference_reading_equals_the_reference_code_on_behavior(
    model: str, bh_files: list[PublishedFile], bh: EaiPddl
) -> None:
    """The reference code (virtualhome-eval 0.1.1, ``dataset="behavior"``) on the same
    published file, stored with its per-category scores: the logic form counted as the
    reference counts gives its figures, to 1e-4."""
    (f,) = (f for f in bh_files if f.model == model)
    counted = reference_logic_form_figures(bh, json.loads(f.path.read_text(encoding="utf-8")))
    theirs = REFERENCE_BEHAVIOR[model]
    assert set(counted) == set(theirs)
    for k, v in theirs.items():
        assert counted[k] == pytest.approx(v, abs=1e-4), k


def test_reproduce_shows_behavior_beside_the_papers_columns(
    bh_files: list[PublishedFile], tmp_path: Path
) -> None:
    from planproof.cli import main

    out = tmp_path / "out"
    argv = ["reproduce", "eai", "--modules", "transition-modeling", "--models", "GPT-4o"]
    argv += ["--datasets", "behavior", "--no-planner", "--output", str(out), "--workers", "1"]
    assert main(argv) == 0
    doc = json.loads((out / "reproduce.json").read_text(encoding="utf-8"))
    assert "transition-modeling" not in doc["sections"]  # VirtualHome not asked for
    (own,) = doc["sections"][TM_BEHAVIOR]
    (counted,) = doc["sections"][TM_BEHAVIOR_COUNTING]
    # the paper's BEHAVIOR columns of Tables 14 and 15 for GPT-4o
    assert own["paper"]["object_states_f1"] == 71.3
    assert own["paper"]["spatial_relations_planner_success"] == 64.9
    assert counted["paper"]["non_spatial_relations_f1"] == 73.0
    for fig in GROUPS[TM_BEHAVIOR][0]:
        assert fig in own["planproof"] and fig in counted["planproof"]
        assert fig.replace("_f1", "_planner_success") not in own["planproof"]  # not run
        # the reference reading beside planproof's: the logic form counted as the reference
        assert own["reference_reading"][fig] == pytest.approx(counted["planproof"][fig], abs=1e-4)
    (fix,) = doc["corrections"][TM_BEHAVIOR]
    # without the planner, no planner-success corrections table (it would be empty)
    assert not any(k.startswith(f"{TM_BEHAVIOR}/") for k in doc["corrections"])
    assert fix["reference_reading"] == own["reference_reading"]["object_states_f1"]
    assert fix["planproof"] == own["planproof"]["object_states_f1"]
    assert fix["unexplained"] == 0
    if "gpt-4o-2024-05-13" in REFERENCE_BEHAVIOR:
        for fig in GROUPS[TM_BEHAVIOR_COUNTING][0]:
            assert counted["planproof"][fig] == pytest.approx(counted["reference"][fig], abs=1e-4)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "BEHAVIOR" in html and "<b>Corrections</b>" in html
