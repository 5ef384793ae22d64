"""The evaluation engine: gating, latching, constraints, percent complete, explanations
(seed §1.4-1.6), on small hand-made traces and as properties of random ones."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings

from planproof.simulators.partnr.engine import Evaluator, evaluate_trace
from planproof.simulators.partnr.errors import TraceFormatError
from planproof.simulators.partnr.model import (
    Dependency,
    EvaluationFunction,
    Proposition,
    TemporalConstraint,
    TerminalConstraint,
    TieConstraint,
)
from planproof.simulators.partnr.strategies import evaluations, traces
from tests.partnr.helpers import state

ON_A = Proposition("is_on_top", (("a",), ("t",)))
ON_B = Proposition("is_on_top", (("b",), ("t",)))
A, B, AB = state("on_top a t"), state("on_top b t"), state("on_top a t", "on_top b t")
E = frozenset()


def run(props: tuple[Proposition, ...], states: tuple[Any, ...], deps: tuple[Dependency, ...] = (),
        cons: tuple[Any, ...] = ()) -> Any:  # fmt: skip
    return evaluate_trace(EvaluationFunction(props, deps, cons), states)


def test_first_satisfaction_is_latched() -> None:
    r = run((ON_A,), (E, A, E))
    assert r.satisfied_at == (1,)
    assert r.success  # no terminal constraint: undoing does not matter
    r = run((ON_A,), (E, A, E), cons=(TerminalConstraint((0,)),))
    assert r.percent_complete == 0.0
    assert "later undone" in r.explanation


def test_temporal_order_is_strict() -> None:
    cons = (TemporalConstraint(((0, 1),)),)
    assert run((ON_A, ON_B), (E, A, AB), cons=cons).success
    same_step = run((ON_A, ON_B), (E, AB), cons=cons)
    assert same_step.counted == (True, False)
    assert "(step 1) should have been completed after" in same_step.explanation
    never = run((ON_A, ON_B), (E, B), cons=cons)
    assert never.counted == (False, False)
    assert "never was" in never.explanation


@pytest.mark.parametrize(
    ("relation", "states", "expected"),
    [
        # gating reads the recorded results of the *previous* states (reference code)
        ("while_satisfied", (E, AB, AB), 2),
        ("while_satisfied", (E, AB), -1),
        ("while_satisfied", (A, AB), 1),
        ("after_satisfied", (E, A, E, B), 3),
        ("after_satisfied", (E, AB), -1),
        ("after_unsatisfied", (A, AB, B), -1),
        ("after_unsatisfied", (A, E, B), 2),
        ("before_satisfied", (B, AB), 0),
        ("before_satisfied", (A, AB), -1),
        ("before_satisfied", (E, AB, B), 1),
    ],
)
def test_dependency_relations(relation: Any, states: tuple[Any, ...], expected: int) -> None:
    r = run((ON_A, ON_B), states, deps=(Dependency((1,), (0,), relation),))
    assert r.satisfied_at[1] == expected


def test_dependency_modes() -> None:
    on_c = Proposition("is_on_top", (("c",), ("t",)))
    states = (E, A, state("on_top a t", "on_top c t"))
    all_ = run((ON_A, ON_B, on_c), states, deps=(Dependency((2,), (0, 1), "after_satisfied"),))
    any_ = run((ON_A, ON_B, on_c), states,
               deps=(Dependency((2,), (0, 1), "after_satisfied", "any"),))  # fmt: skip
    assert all_.satisfied_at[2] == -1
    assert any_.satisfied_at[2] == 2


def test_gated_proposition_fails_terminal_when_gate_closes() -> None:
    # seed §5.2: a while_satisfied prop records False once its dependencies stop holding
    nt = Proposition("is_next_to", (("a",), ("b",)))
    s, gone = state("on_top a t", "next_to a b"), state("next_to a b")
    deps = (Dependency((1,), (0,), "while_satisfied"),)
    cons = (TerminalConstraint((1,)),)
    # one state after the dependency stops holding, the gate still reads the previous one
    assert run((ON_A, nt), (E, s, s, gone), deps, cons).counted == (True, True)
    r = run((ON_A, nt), (E, s, s, gone, gone), deps, cons)
    assert r.satisfied_at == (1, 2)
    assert r.counted == (True, False)


def test_number_unrolls_for_partial_credit() -> None:
    two = Proposition("is_clean", (("p", "q", "r"),), 2)
    assert run((two,), (E, state("clean p"))).percent_complete == 0.5
    assert run((two,), (E, state("clean p", "clean r"))).success
    dirty = Proposition("is_dirty", (("p", "q", "r"),), 3)
    assert run((dirty,), (state("clean p"),)).percent_complete == pytest.approx(2 / 3)


def test_same_receptacle_and_next_to_symmetry() -> None:
    same = Proposition("is_on_top", (("a", "b"), ("t", "u")), 2, same=True)
    assert not run((same,), (state("on_top a t", "on_top b u"),)).counted[0]
    assert run((same,), (state("on_top a u", "on_top b u"),)).success
    nt = Proposition("is_next_to", (("a",), ("b",)))
    assert run((nt,), (state("next_to b a"),)).success


def test_clustered_needs_one_component() -> None:
    cl = Proposition("is_clustered", (("a",), ("b",), ("c", "d")), (1, 1, 1))
    assert not run((cl,), (state("next_to a b", "next_to c d"),)).success
    assert run((cl,), (state("next_to a b", "next_to d b"),)).success
    both = replace(cl, number=(1, 1, 2))
    assert not run((both,), (state("next_to a b", "next_to d b"),)).success
    assert run((both,), (state("next_to a b", "next_to d b", "next_to c a"),)).success


def test_tie_constraints_compare_satisfying_entities() -> None:
    p0 = Proposition("is_on_top", (("a",), ("t", "u")))
    p1 = Proposition("is_on_top", (("b",), ("t", "u")))
    same = (TieConstraint((0, 1), (1, 1)),)
    diff = (TieConstraint((0, 1), (1, 1), different=True),)
    s_t = (E, state("on_top a t"), state("on_top a t", "on_top b t"))
    s_u = (E, state("on_top a t"), state("on_top a t", "on_top b u"))
    assert run((p0, p1), s_t, cons=same).success
    assert run((p0, p1), s_u, cons=same).counted == (True, False)
    assert run((p0, p1), s_u, cons=diff).success
    r = run((p0, p1), s_t, cons=diff)
    assert r.counted == (True, False)
    assert "different furniture" in r.explanation


def test_empty_function_and_trace() -> None:
    r = evaluate_trace(EvaluationFunction(()), (E,))
    assert r.percent_complete == 0.0 and not r.success
    with pytest.raises(TraceFormatError):
        evaluate_trace(EvaluationFunction((ON_A,)), ())


# --- properties -------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(evaluations(), traces())
def test_percent_complete_and_success(ev: EvaluationFunction, states: Any) -> None:
    r = Evaluator(ev).run(states)
    assert 0.0 <= r.percent_complete <= 1.0
    assert r.success == (r.percent_complete == 1.0)
    # success iff every proposition was satisfied and no constraint invalidates any
    full = all(s != -1 for s in r.satisfied_at) and all(all(row) for row in r.valid)
    assert r.success == full
    assert (r.explanation == "") == r.success
    # every proposition that does not count is explained
    explained = {f.proposition for f in r.failures}
    assert {i for i, c in enumerate(r.counted) if not c} <= explained


@settings(max_examples=100, deadline=None)
@given(evaluations(), traces())
def test_monotone_under_adding_a_satisfied_proposition(ev: EvaluationFunction, states: Any) -> None:
    r = Evaluator(ev, unroll=False).run(states)
    # a fresh entity that is clean throughout: its proposition holds from the first state
    marked = tuple(s | state("clean z9") for s in states)
    more = EvaluationFunction(
        (*ev.propositions, Proposition("is_clean", (("z9",),))), ev.dependencies, ev.constraints
    )
    r2 = Evaluator(more, unroll=False).run(marked)
    assert r2.counted[:-1] == r.counted
    assert r2.counted[-1]
    assert r2.percent_complete >= r.percent_complete


@settings(max_examples=100, deadline=None)
@given(evaluations(), traces())
def test_dropping_a_constraint_never_lowers_percent_complete(
    ev: EvaluationFunction, states: Any
) -> None:
    r = Evaluator(ev).run(states)
    for k in range(len(ev.constraints)):
        fewer = replace(ev, constraints=ev.constraints[:k] + ev.constraints[k + 1 :])
        r2 = Evaluator(fewer).run(states)
        assert all(c2 or not c for c, c2 in zip(r.counted, r2.counted, strict=True))


@settings(max_examples=60, deadline=None)
@given(evaluations(), traces())
def test_explain_flag_does_not_change_the_numbers(ev: EvaluationFunction, states: Any) -> None:
    a = Evaluator(ev).run(states)
    b = Evaluator(ev).run(states, explain=False)
    assert (a.satisfied_at, a.valid, a.percent_complete) == (b.satisfied_at, b.valid,
                                                             b.percent_complete)  # fmt: skip
