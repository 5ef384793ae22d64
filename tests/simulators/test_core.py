"""The generic core: operator text round-trips, compiled conditions agree with the
interpreter, and the classifier decides every category as the paper's procedure says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import Exists, Forall, walk
from planproof.ltl.trace import Universe, ground_atom
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.schema import Domain
from planproof.pddl.sexpr_io import operator, read_condition, read_effect
from planproof.pddl.writer import condition_text, operator_text
from planproof.simulators.core import Action, ErrorKind, World, replay
from planproof.simulators.core.logic import Facts, KeyFacts, atom_key, compile_condition
from planproof.testing import Vocabulary, state_formulas, states, universes

g = ground_atom


def _domain() -> Domain:
    ops = [
        operator(
            "grab",
            "(?c - agent ?o - object)",
            pre="(and (grabbable ?o) (next_to ?c ?o) (not (exists (?x - object) (holds ?c ?x))))",
            eff="(holds ?c ?o)",
            implicit=["c"],
        ),
        operator(
            "walk",
            "(?c - agent ?o - object)",
            eff="(and (next_to ?c ?o) "
            "(forall (?x - object) (when (not (= ?x ?o)) (not (next_to ?c ?x)))))",
            implicit=["c"],
        ),
        operator(
            "drop",
            "(?c - agent ?o - object)",
            pre="(holds ?c ?o)",
            eff="(not (holds ?c ?o))",
            implicit=["c"],
        ),
        operator(
            "open",
            "(?c - agent ?o - object)",
            pre="(and (can_open ?o) (next_to ?c ?o) (closed ?o))",
            eff="(and (not (closed ?o)) (open ?o))",
            implicit=["c"],
        ),
    ]
    return Domain(
        "toy",
        {"object": None, "agent": None},
        {
            "grabbable": ("object",),
            "can_open": ("object",),
            "next_to": ("agent", "object"),
            "holds": ("agent", "object"),
            "open": ("object",),
            "closed": ("object",),
        },
        {o.name: o for o in ops},
    )


WORLD = World(
    _domain(),
    {"me": frozenset({"agent"}), "cup": frozenset({"object"}), "box": frozenset({"object"})},
    frozenset({g("grabbable", "cup"), g("can_open", "box")}),
    agent="me",
)
S0 = frozenset({g("closed", "box")})


def _run(*steps: tuple[str, ...]) -> object:
    return replay(WORLD, S0, [Action(s[0], tuple(s[1:])) for s in steps])


def test_static_and_fluent_predicates_are_derived_from_effects() -> None:
    d = WORLD.domain
    assert d.static_predicates == {"grabbable", "can_open"}
    assert d.fluents == {"next_to", "holds", "open", "closed"}


@pytest.mark.parametrize(
    ("steps", "kind", "index"),
    [
        ((("walk", "cup"), ("grab", "cup")), None, None),
        ((("grab", "cup"),), ErrorKind.MISSING_STEP, 0),
        ((("walk", "box"), ("grab", "box")), ErrorKind.AFFORDANCE, 1),
        ((("walk", "cup"), ("walk", "box"), ("grab", "cup")), ErrorKind.WRONG_ORDER, 2),
        ((("walk", "cup"), ("grab", "cup"), ("drop", "cup"), ("drop", "cup")), None, None),
        ((("fly",),), ErrorKind.HALLUCINATION, 0),
        ((("walk", "cup"), ("grab", "mug")), ErrorKind.HALLUCINATION, 1),
        ((("walk", "cup"), ("grab", "cup", "box")), ErrorKind.ARGUMENT_COUNT, 1),
        ((("walk", "me"),), ErrorKind.AFFORDANCE, 0),
    ],
)
def test_classifier_categories(
    steps: tuple[tuple[str, ...], ...], kind: ErrorKind | None, index: int | None
) -> None:
    r = _run(*steps)
    err = r.first_error  # type: ignore[attr-defined]
    assert (err.kind if err else None) is kind
    assert (err.index if err else None) == index


def test_additional_step_is_a_warning_and_execution_goes_on() -> None:
    r = _run(("walk", "box"), ("open", "box"), ("open", "box"), ("walk", "cup"), ("grab", "cup"))
    assert r.executable  # type: ignore[attr-defined]
    (w,) = r.warnings  # type: ignore[attr-defined]
    assert w.kind is ErrorKind.ADDITIONAL_STEP and w.index == 2
    assert "open(box)" in w.message


def test_wrong_order_names_the_step_where_the_precondition_held() -> None:
    r = _run(("walk", "cup"), ("walk", "box"), ("grab", "cup"))
    err = r.first_error  # type: ignore[attr-defined]
    assert err.held_at == 1 and err.unmet == ("next_to(me, cup)",)


def test_affordance_names_the_missing_property() -> None:
    r = _run(("walk", "box"), ("grab", "box"))
    assert r.first_error.unmet == ("grabbable(box)",)  # type: ignore[attr-defined]


def test_trace_records_executed_actions_only() -> None:
    r = _run(("walk", "cup"), ("grab", "cup"), ("grab", "box"))
    assert [str(a) for a in r.executed] == ["walk(cup)", "grab(cup)"]  # type: ignore[attr-defined]
    assert [a.pred for a in r.trace.actions] == ["walk", "grab"]  # type: ignore[attr-defined]
    assert len(r.trace.states) == 3  # type: ignore[attr-defined]


def test_operator_pddl_round_trip() -> None:
    for op in WORLD.domain.operators.values():
        text = operator_text(op)
        pre = text.split(":precondition ", 1)[1].split("\n    :effect ")[0]
        eff = text.split(":effect ", 1)[1][:-1]
        scope = [p.name for p in op.params]
        assert read_condition(pre, scope) == op.precondition
        assert read_effect(eff, scope) == op.effects


@pytest.mark.parametrize(
    "text",
    ["(and (p ?x)", "(and (p ?undeclared))", "(when (p) (q))", "p", "(exists ?x (p ?x))"],
)
def test_bad_conditions_are_typed_errors(text: str) -> None:
    with pytest.raises(PDDLSyntaxError):
        read_condition(text, ["x"])


VOCAB = Vocabulary()


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_compiled_conditions_agree_with_the_interpreter(data: st.DataObject) -> None:
    universe: Universe = data.draw(universes(VOCAB))
    f = data.draw(state_formulas(VOCAB, counting=False, pairs=False))
    state = data.draw(states(VOCAB))
    facts = Facts(frozenset(state), frozenset(), universe)
    keys = KeyFacts({atom_key(a) for a in state}, universe)
    assert compile_condition(f)(keys, {}) == facts.holds(f, {})
    typed = all(n.binder.type for n in walk(f) if isinstance(n, Exists | Forall))
    if typed:  # an untyped binder prints as "- object", a different (if equal) type
        assert read_condition(condition_text(f)) == f
