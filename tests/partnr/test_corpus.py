"""The bundled corpus: 30+ hand-written episodes covering every task type, predicate,
dependency and constraint; each has a gold plan that succeeds and wrong plans whose
percent complete, explanation and execution error are asserted (values worked out by
hand, written in plans.json)."""

from __future__ import annotations

from typing import Any

import pytest

from planproof.simulators.partnr.engine import evaluate_trace
from planproof.simulators.partnr.model import (
    RELATIONS,
    TemporalConstraint,
    TerminalConstraint,
    TieConstraint,
    signatures,
    task_types,
)
from planproof.simulators.partnr.world import TASK_TYPES, run_plan
from tests.partnr.helpers import agents_of, corpus, plans


def test_size_and_coverage() -> None:
    eps = corpus().values()
    assert len(eps) >= 30
    assert {t for e in eps for t in e.task_types} == set(TASK_TYPES)
    props = [p for e in eps for p in e.evaluation.propositions]
    assert {p.function for p in props} == set(signatures())
    assert any(p.count > 1 for p in props)
    assert {(p.function, p.same) for p in props if p.same} >= {
        ("is_on_top", True), ("is_in_room", True), ("is_next_to", True)}  # fmt: skip
    deps = [d for e in eps for d in e.evaluation.dependencies]
    assert {d.relation for d in deps} == set(RELATIONS)
    assert {d.mode for d in deps} == {"all", "any"}
    cons = [c for e in eps for c in e.evaluation.constraints]
    assert any(isinstance(c, TemporalConstraint) and c.edges for c in cons)
    assert any(isinstance(c, TerminalConstraint) for c in cons)
    assert {c.different for c in cons if isinstance(c, TieConstraint)} == {True, False}


def test_declared_task_types_match_the_evaluation() -> None:
    for e in corpus().values():
        assert sorted(e.task_types) == sorted(task_types(e.evaluation)), e.episode_id


def test_every_episode_has_a_gold_plan_and_a_wrong_one() -> None:
    names: dict[str, set[str]] = {}
    for p in plans():
        names.setdefault(p["episode_id"], set()).add(p["name"])
    assert set(names) == set(corpus())
    assert all("gold" in n and len(n) >= 2 for n in names.values())


@pytest.mark.parametrize("plan", plans(), ids=lambda p: f"{p['episode_id']}-{p['name']}")
def test_plan(plan: dict[str, Any]) -> None:
    ep = corpus()[plan["episode_id"]]
    mr = run_plan(ep, agents_of(plan))
    r = evaluate_trace(ep.evaluation, mr.states)
    exp = plan["expect"]
    assert r.success == exp["success"]
    assert r.percent_complete == pytest.approx(exp["percent_complete"])
    for fragment in exp.get("explanation", []):
        assert fragment in r.explanation
    err = mr.replay.first_error
    if "error" in exp:
        assert err is not None
        assert (err.kind.value, err.index) == (exp["error"]["kind"], exp["error"]["index"])
        assert exp["error"]["message"] in err.message
    else:
        assert err is None, err
    if exp["success"]:
        assert r.explanation == ""
