"""The LTL view of an evaluation function agrees with the engine, proposition by
proposition, on random traces."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from planproof.ltl.evaluate import evaluate
from planproof.ltl.parser import parse
from planproof.ltl.printer import to_text
from planproof.simulators.partnr.engine import Evaluator
from planproof.simulators.partnr.errors import CompileError
from planproof.simulators.partnr.ltl import (
    LEN1,
    compile_evaluation,
    drop_last,
    last,
    states_trace,
)
from planproof.simulators.partnr.model import (
    Dependency,
    EvaluationFunction,
    Proposition,
    TieConstraint,
)
from planproof.simulators.partnr.strategies import evaluations, traces
from tests.partnr.helpers import corpus, state


@pytest.mark.parametrize(
    ("states", "last_p", "drop_last_last_p", "len1"),
    [
        ((state("p"),), True, False, True),
        ((state("p"), frozenset()), False, True, False),
        ((frozenset(), state("p")), True, False, False),
    ],
)
def test_segment_helpers(states: Any, last_p: bool, drop_last_last_p: bool, len1: bool) -> None:
    # the building blocks, on bare then-semantics: p at the last position, p at the
    # position before it, and "the segment has one position"
    p = parse("p()")
    tr = states_trace(states)
    assert evaluate(last(p), tr) == last_p
    assert evaluate(drop_last(last(p)), tr) == drop_last_last_p
    assert evaluate(LEN1, tr) == len1


@settings(max_examples=120, deadline=None)
@given(evaluations(compilable=True, max_propositions=3), traces(max_length=6))
def test_compiled_formulas_agree_with_the_engine(ev: EvaluationFunction, states: Any) -> None:
    expected = Evaluator(ev).run(states, explain=False)
    compiled = compile_evaluation(ev)
    got = compiled.evaluate(states)
    assert got == expected.counted
    assert compiled.percent_complete(states) == pytest.approx(expected.percent_complete)


@settings(max_examples=20, deadline=None)
@given(evaluations(compilable=True, max_propositions=3))
def test_compiled_formulas_print_and_parse_back(ev: EvaluationFunction) -> None:
    for f in compile_evaluation(ev).counted:
        assert parse(to_text(f)) == f


def test_corpus_plans_agree() -> None:
    from planproof.simulators.partnr.world import run_plan
    from tests.partnr.helpers import agents_of, plans

    checked = 0
    for p in plans():
        ep = corpus()[p["episode_id"]]
        try:
            compiled = compile_evaluation(ep.evaluation)
        except CompileError:
            continue
        mr = run_plan(ep, agents_of(p))
        assert compiled.evaluate(mr.replay.trace) == Evaluator(ep.evaluation).run(mr.states).counted
        checked += 1
    assert checked >= 50


def test_counts_are_forn_and_ties_are_refused() -> None:
    two = Proposition("is_on_top", (("a", "b", "c"), ("t",)), 2)
    text = to_text(compile_evaluation(EvaluationFunction((two,))).counted[0])
    assert "forn 2" in text and "forn 3" in text
    tie = EvaluationFunction((two, two), (), (TieConstraint((0, 1), (1, 1)),))
    with pytest.raises(CompileError, match="SameArgConstraint"):
        compile_evaluation(tie)


def test_cyclic_dependencies_are_refused() -> None:
    a = Proposition("is_clean", (("a",),))
    ev = EvaluationFunction(
        (a, a),
        (Dependency((0,), (1,), "after_satisfied"), Dependency((1,), (0,), "after_satisfied")),
    )
    with pytest.raises(CompileError, match="depends on itself"):
        compile_evaluation(ev)
    assert Evaluator(ev).run((state("clean a"),) * 3).satisfied_at == (-1, -1)


def test_large_clusters_are_refused() -> None:
    big = Proposition("is_clustered", tuple((f"x{i}",) for i in range(7)), (1,) * 7)
    with pytest.raises(CompileError, match="is_clustered"):
        compile_evaluation(EvaluationFunction((big,)))
