"""Transition modeling's operator comparison runs on the compare-domains engine, and on
published EAI answers (GPT-4o, virtualhome-eval 0.1.1, VirtualHome and BEHAVIOR, under
each dataset's state axioms) its per-operator verdicts agree with
what transition modeling's logic-form matching reports: a perfect match is equivalent, a
missing (extra) precondition is an unmatched gold (predicted) precondition clause, and a
missing (extra) effect an unmatched gold (predicted) effect clause."""

from __future__ import annotations

import json

import pytest

from planproof.data import DataUnavailableError
from planproof.data.published import published_files
from planproof.ltl.axioms import NAMED_AXIOMS
from planproof.metrics.transition_modeling.evaluate import evaluate_task
from planproof.pddl.compare.model import Verdict
from planproof.pddl.eai import EaiPddl
from tests.helpers import needed_resource
from tests.pddl.conftest import sample

pytestmark = pytest.mark.data

MISSING_PRE = {"missing-precondition"}
EXTRA_PRE = {"extra-precondition"}
MISSING_EFF = {"missing-add", "missing-delete"}
EXTRA_EFF = {"extra-add", "extra-delete"}


def _gpt4o_rows(dataset: str = "virtualhome") -> list[dict[str, str]]:
    files = needed_resource(
        lambda: published_files("transition-modeling", dataset),
        DataUnavailableError,
        "published outputs",
    )
    f = next(x for x in files if x.model == "gpt-4o-2024-05-13")
    rows: list[dict[str, str]] = json.loads(f.path.read_text())
    return rows


@pytest.mark.parametrize("dataset", ["virtualhome", "behavior"])
def test_verdicts_agree_with_logic_form_matching(
    dataset: str, request: pytest.FixtureRequest
) -> None:
    data: EaiPddl = request.getfixturevalue({"virtualhome": "vh", "behavior": "bh"}[dataset])
    rows = [r for r in _gpt4o_rows(dataset) if r["identifier"] in data.task_actions]
    counts = {"perfect": 0, "compared": 0}
    for r in sample(rows, 30):
        res = evaluate_task(
            data,
            r["identifier"],
            r["llm_output"],
            run_planner=False,
            axioms=NAMED_AXIOMS[dataset],
            compare=True,
        )
        scores = {(s.name, s.part): s for s in res.scores}
        for v in res.verdicts:
            counts["compared"] += 1
            pre, eff = scores[(v.reference, "precondition")], scores[(v.reference, "effect")]
            kinds = {x.kind for x in v.findings}
            assert v.verdict is not Verdict.UNKNOWN, (r["identifier"], v)
            if pre.fp == pre.fn == eff.fp == eff.fn == 0:
                counts["perfect"] += 1
                assert v.verdict is Verdict.EQUIVALENT, (r["identifier"], v)
            if kinds & MISSING_PRE:
                assert pre.fn > 0, (r["identifier"], v)
            if kinds & EXTRA_PRE:
                assert pre.fp > 0, (r["identifier"], v)
            if kinds & MISSING_EFF:
                assert eff.fn > 0, (r["identifier"], v)
            if kinds & EXTRA_EFF:
                assert eff.fp > 0, (r["identifier"], v)
    assert counts["compared"] >= 50 and counts["perfect"] >= 1, counts


def test_evaluate_responses_counts_verdicts(vh: EaiPddl) -> None:
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses

    rows = [r for r in _gpt4o_rows() if r["identifier"] in vh.solved][:4]
    report = evaluate_responses(vh, rows, run_planner=False, compare=True)
    compared = [v for t in report.tasks for v in t.verdicts]
    assert compared
    counts = report.summary()["operator_verdicts"]
    assert sum(counts.values()) == len(compared)
    assert all(t.to_dict()["verdicts"] == [v.to_dict() for v in t.verdicts] for t in report.tasks)
    plain = evaluate_responses(vh, rows, run_planner=False)
    assert "operator_verdicts" not in plain.summary()
    assert all(not t.verdicts for t in plain.tasks)
