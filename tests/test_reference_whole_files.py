"""The reference's whole-file runs stored as data (planproof/data/reference/whole_files.json,
made by benchmarks/reference_whole_files.py): every batch's per-task verdicts give back that
batch's own summary (or the evaluator's raw counters where its summary raised), a file's
batches are its tasks in order, a whole file's figures are the ones its per-task verdicts
give, and a cell not yet whole stays marked as a sample in the figures ``reproduce`` reads."""

from __future__ import annotations

import ast
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.data import DataUnavailableError
from planproof.data.published import published_files
from planproof.data.reference_figures import (
    progress,
    reference_figures,
    reference_task_verdicts,
    sampled_cells,
    whole_files,
)
from tests.helpers import needed_resource

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import reference_whole_files as rw

CELLS = whole_files()["cells"]
BATCHES = [
    (module, model, key, batch)
    for module, cells in CELLS.items()
    for model, cell in cells.items()
    for key, batch in cell["batches"].items()
]


def test_there_are_stored_runs_with_their_provenance() -> None:
    doc = whole_files()
    assert BATCHES, "no whole-file batch stored"
    prov = doc["provenance"]
    assert prov["python_hash_seed"] == rw.HASH_SEED == "2"
    assert prov["fast_downward"].startswith("23.06 (up-fast-downward==0.4.1")
    assert "virtualhome-eval 0.1.1" in prov["evaluator"]
    assert prov["command"] == "python benchmarks/reference_whole_files.py --resume"
    for *_, batch in BATCHES:
        assert batch["versions"]["virtualhome_eval"] == "0.1.1"
        assert batch["date"].endswith("Z")


@pytest.mark.parametrize(("module", "model", "key"), [(m, n, k) for m, n, k, _ in BATCHES], ids=str)
def test_each_batch_recomputes_to_the_references_own_figures(
    module: str, model: str, key: str
) -> None:
    """0 differences: the summary the reference printed for the batch (or, where it raised
    before printing, its counters) is what the stored per-task verdicts give."""
    batch = CELLS[module][model]["batches"][key]
    tasks = batch["tasks"]
    assert sorted(tasks) == sorted(
        (f"scene_1_{i.removeprefix('scene_1_')}" if module == "subgoal-decomposition" else i)
        for i in batch["ids"]
    )  # some published files carry the scene prefix in their identifiers already
    if module == "subgoal-decomposition":
        for rec in tasks.values():  # what the reference's own summary reads back
            info = ast.literal_eval(rec["info"])
            assert info[0] in {
                "Correct",
                "Runtime",
                "GoalUnreachable",
                "NotParseable",
                "Hallucination",
            }, info[0]
            assert rec["success"] == (info[0] == "Correct")
        return
    summary = batch["summary"]
    if module == "action-sequencing":
        if summary is None:
            rw.check_counters(tasks, batch["counters"])
        else:
            rw.check_batch(module, tasks, summary)
    elif summary is None:
        rw.check_planner_counts(tasks, batch["counters"]["success_by_task_type"])
    else:
        rw.check_batch("transition-modeling", tasks, summary)


def _file_ids(module: str, model: str) -> list[str]:
    dataset = "behavior" if module == rw.BEHAVIOR else "virtualhome"
    published = "transition-modeling" if module == rw.BEHAVIOR else module
    files = needed_resource(
        lambda: published_files(published, dataset), DataUnavailableError, "published outputs"
    )
    (f,) = (f for f in files if f.model == model)
    return [str(r["identifier"]) for r in json.loads(f.path.read_text(encoding="utf-8"))]


@pytest.mark.data
@pytest.mark.parametrize(
    ("module", "model"), [(m, n) for m, c in CELLS.items() for n in c], ids=str
)
def test_batches_are_the_files_tasks_in_order(module: str, model: str) -> None:
    cell = CELLS[module][model]
    ids = _file_ids(module, model)
    assert cell["of"] == len(ids)
    size = cell["batch_size"]
    for key, batch in cell["batches"].items():
        i = int(key)
        assert batch["ids"] == ids[i * size : (i + 1) * size]
    done = progress(cell)
    assert done["tasks"] == sum(len(b["ids"]) for b in cell["batches"].values())
    assert bool(cell.get("whole")) == (done["tasks"] == len(ids))


WHOLE_AS = [m for m, c in CELLS.get("action-sequencing", {}).items() if c.get("whole")]


@pytest.mark.parametrize("model", WHOLE_AS)
def test_whole_file_figures_are_the_per_task_verdicts(model: str) -> None:
    """A whole file's figures, in reproduce's reference column, are the reference's
    summary of all its per-task verdicts, and its cell is no longer a sample."""
    from differential_published import trajectory_figures

    cell = CELLS["action-sequencing"][model]
    tasks = reference_task_verdicts("action-sequencing", model)
    assert len(tasks) == cell["of"]
    figures = trajectory_figures(rw.as_summary(tasks))
    assert cell["figures"] == figures
    shown = reference_figures()["modules"]["action-sequencing"][model]
    assert shown["figures"] == figures
    assert shown["whole_file"] == {"tasks": cell["of"], "of": cell["of"]}
    assert ("action-sequencing", model) not in sampled_cells()


def test_a_file_not_yet_whole_stays_a_sample() -> None:
    doc = reference_figures()
    partial = [(m, n) for m, c in CELLS.items() for n, cell in c.items() if not cell.get("whole")]
    for module, model in partial:
        shown = doc["modules"][module].get(model)
        if shown is None:
            continue
        assert shown["whole_file_progress"] == progress(CELLS[module][model])
        if module in ("action-sequencing", "subgoal-decomposition"):
            assert (module, model) in sampled_cells(doc), (module, model)


AS_TASKS = [
    (model, ident, rec)
    for model, cell in CELLS.get("action-sequencing", {}).items()
    for b in cell["batches"].values()
    for ident, rec in b["tasks"].items()
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(range(len(AS_TASKS))), unique=True, max_size=80), st.data())
def test_action_sequencing_counters_add_up(picked: list[int], data: Any) -> None:
    """The counters are sums over tasks, so any split of any set of stored tasks adds up
    (what lets batches stand for the whole file)."""
    tasks = {f"{AS_TASKS[i][0]}/{AS_TASKS[i][1]}": AS_TASKS[i][2] for i in picked}
    cut = data.draw(st.integers(0, len(tasks)))
    keys = list(tasks)
    left = rw.as_counts({k: tasks[k] for k in keys[:cut]})
    right = rw.as_counts({k: tasks[k] for k in keys[cut:]})
    assert Counter(left) + Counter(right) == +Counter(rw.as_counts(tasks))


def test_error_types_are_stored_per_task() -> None:
    """Error types are part of the data, not only success: every action-sequencing task
    the reference did not skip carries its error type (None: none) as the reference
    wrote it, and its runtime errors as counted."""
    kinds = Counter(rec.get("error_type") for _, _, rec in AS_TASKS if "skipped" not in rec)
    assert kinds[None] > 0
    assert set(kinds) - {None} <= {
        "parsing error",
        "hallucination error",
        "parameter error",
        "missing_step",
        "affordance_error",
        "wrong_temporal_order",
        "additional_step",
    }


BEHAVIOR_BATCHES = [(n, k, b) for m, n, k, b in BATCHES if m == rw.BEHAVIOR]


@pytest.mark.parametrize(("model", "key"), [(n, k) for n, k, _ in BEHAVIOR_BATCHES], ids=str)
def test_behavior_planner_batches_record_their_planner_calls(model: str, key: str) -> None:
    """Every BEHAVIOR task the reference planned has its holistic Fast Downward call
    recorded, whose outcome is the task's planner success (a call past the reference's
    200 s wall-clock check fails it, whatever Fast Downward said); a batch run with
    ``--skip-single-variate`` says so, and none of its tasks has a single-variate
    verdict."""
    batch = CELLS[rw.BEHAVIOR][model]["batches"][key]
    trimmed = batch.get("skipped") == rw.SKIPPED_SINGLE_VARIATE
    planned = [r for r in batch["tasks"].values() if "planner_success" in r]
    assert planned or all("skipped" in r for r in batch["tasks"].values())
    for rec in planned:
        call = rec["holistic"]
        assert call["solved"] == rec["planner_success"]
        assert not (call["over_limit"] and call["solved"])
        if call.get("total_time") is not None:
            # no "Search time" line when the search stops at once (0 expanded: the
            # initial state is a dead end for the heuristic)
            search = call.get("search_time", 0.0)
            assert call["total_time"] >= search >= 0
            assert "search_time" in call or call.get("expanded") == 0
        tally = rec.get("single_variate", {"calls": 0, "skipped": 0})
        if trimmed:
            assert "actions" not in rec or rec["actions"] == {}
            assert tally["skipped"] == tally["calls"]
        else:
            assert tally["skipped"] == 0
            assert len(rec["actions"]) == tally["calls"]
