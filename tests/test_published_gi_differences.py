"""Goal interpretation on the published answers, all 15 models: the classes found beyond
GPT-4o's (``classify_goal_interpretation`` in ``benchmarks/differential_published.py``),
each on its real answer read from the published file, with the reference's recorded
counts from its run (``docs/reference-differences.md``, "Goal interpretation")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.differential_published import classify_goal_interpretation
from planproof.data import DataUnavailableError
from planproof.data.published import PublishedFile, published_files
from planproof.simulators.virtualhome.reference_names import reference_names
from tests.helpers import needed_resource

pytestmark = pytest.mark.data


def _recorded(*counts: tuple[int, int, int]) -> dict[str, Any]:
    """The reference's recorded (TP, FP, FN) for node, edge and action goals."""
    return {
        kind: dict(zip(("TP", "FP", "FN"), c, strict=True))
        for kind, c in zip(("node", "edge", "action"), counts, strict=True)
    }


def _classes(model: str, ident: str, ref: dict[str, Any], tmp: Path) -> dict[str, Any]:
    files = needed_resource(
        lambda: published_files("goal-interpretation", "virtualhome"),
        DataUnavailableError,
        "published outputs",
    )
    f = next(x for x in files if x.model == model)
    rows = [r for r in json.loads(f.path.read_text(encoding="utf-8")) if r["identifier"] == ident]
    sample = tmp / f"{model}.json"
    sample.write_text(json.dumps(rows), encoding="utf-8")
    file = PublishedFile("goal-interpretation", "virtualhome", model, sample)
    _summary, diffs = classify_goal_interpretation(file, {"tasks": {ident: ref}})
    return {d.cls: (d.reference, d.planproof) for d in diffs}


def test_object_outside_the_reference_map_is_dropped_there(tmp_path: Path) -> None:
    """549_2 (Wash hands), GPT-3.5-turbo: ``character CLOSE sink``. The reference's
    object map holds only the nodes that change in the task (hands, soap, character), so
    ``sink`` is a hallucination there and the item is dropped; planproof finds the sink in
    the scene and counts a false positive (relation FP 2 against 1)."""
    assert "sink" not in reference_names()["549_2"]
    ref = _recorded((0, 2, 0), (0, 1, 0), (1, 2, 0))
    classes = _classes("gpt-3.5-turbo-0125", "549_2", ref, tmp_path)
    assert set(classes) == {"object-outside-relevant-set:relation"}
    assert classes["object-outside-relevant-set:relation"][1]["fp"] == 2


def test_one_name_several_objects_with_single_quotes(tmp_path: Path) -> None:
    """120_1 (Turn on light), Gemini 1.0 Pro writes ``'light'`` twice in single quotes
    (the reference turns ``'`` into ``"``); as for GPT-4o, the reference keeps one light,
    planproof matches both (state TP 2 against 1)."""
    ref = _recorded((1, 0, 3), (0, 0, 0), (0, 2, 0))
    classes = _classes("gemini-1.0-pro", "120_1", ref, tmp_path)
    assert set(classes) == {"one-name-several-objects:state"}


def test_malformed_item_is_a_false_positive_there(tmp_path: Path) -> None:
    """21_2 (Watch TV), Llama 3 8B: ``{"name": "character", "state": []}`` and
    ``{"name": "television", "state": ["ON", "CLEAN", "PLUGGED_IN"]}``. The reference
    scores each as one false positive (state FP 6); planproof reports them as format
    errors and scores the well-formed items only (FP 4)."""
    ref = _recorded((0, 6, 2), (1, 2, 0), (1, 2, 0))
    classes = _classes("llama-3-8b-chat", "21_2", ref, tmp_path)
    assert set(classes) == {"malformed-item-counted:state"}


def test_action_goal_written_as_a_bare_name(tmp_path: Path) -> None:
    """221_2 (Read book), Gemini 1.0 Pro: ``'action goals': ['OPEN', 'READ']`` where the
    prompt asks for ``{'action': ..., 'description': ...}``. The reference's ``"action" not
    in item`` is a substring test on the name: two format errors, nothing scored (action
    TP 0, FP 0, FN 1); planproof reads the names (``READ`` matches, ``OPEN`` is not an
    action goal: TP 1, FP 1)."""
    ref = _recorded((0, 1, 0), (1, 0, 0), (0, 0, 1))
    classes = _classes("gemini-1.0-pro", "221_2", ref, tmp_path)
    assert set(classes) == {"action-goal-as-name:action"}
    assert classes["action-goal-as-name:action"][1] | {"precision": 0} == {
        "tp": 1,
        "fp": 1,
        "fn": 0,
        "precision": 0,
        "recall": 100.0,
        "f1": pytest.approx(66.6667, abs=1e-3),
    }


def test_repeated_key_in_an_item_collapses_items_there(tmp_path: Path) -> None:
    """183_2 (Make coffee), GPT-3.5-turbo: three edge items ``{"from_name": "character",
    "relation": "PUTIN", "to_name": X, "to_name": "coffe_maker"}``. ``json.loads`` keeps the
    last ``to_name``, so the three become one item and the reference's
    ``remove_duplicate_dicts`` scores it once (relation FP 7); planproof keeps the three
    written items apart (FP 9)."""
    ref = _recorded((3, 3, 0), (0, 7, 2), (0, 0, 1))
    classes = _classes("gpt-3.5-turbo-0125", "183_2", ref, tmp_path)
    assert set(classes) == {"repeated-key-in-item:relation"}
    assert classes["repeated-key-in-item:relation"][1]["fp"] == 9


def test_collapsed_items_counts_what_json_loads_merges() -> None:
    """The rule the class reads, on a minimal answer: two items that differ only in the
    first value of a repeated key are one item for ``json.loads``."""
    from benchmarks.differential_published import collapsed_items, reference_json

    text = (
        "{'edge goals': [{'from_name': 'a', 'relation': 'R', 'to_name': 'x', 'to_name': 'z'},"
        " {'from_name': 'a', 'relation': 'R', 'to_name': 'y', 'to_name': 'z'},"
        " {'from_name': 'a', 'relation': 'S', 'to_name': 'z'}]}"
    )
    assert collapsed_items(reference_json(text), "edge goals") == 1
    distinct = (
        "{'edge goals': [{'from_name': 'a', 'to_name': 'x'}, {'from_name': 'a', 'to_name': 'y'}]}"
    )
    assert collapsed_items(reference_json(distinct), "edge goals") == 0
    assert reference_json("{'node goals': [}") is None
