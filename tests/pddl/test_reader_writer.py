"""Reading and writing PDDL: the EAI files, round trips, renaming, bad input."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import Atom, Const
from planproof.pddl.eai import EaiPddl
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.reader import (
    check_problem,
    declare_missing_objects,
    read_domain,
    read_problem,
)
from planproof.pddl.writer import RESERVED, domain_to_pddl, export_names, problem_to_pddl

SMALL_DOMAIN = """
(define (domain door)  ; a comment
  (:requirements :strips :typing)
  (:types robot room - object door)
  (:predicates (open ?d - door) (in ?r - robot ?x - room) (link ?a ?b - room ?d - door))
  (:action open
    :parameters (?r - robot ?d - door)
    :precondition (not (open ?d))
    :effect (open ?d))
  (:action move
    :parameters (?r - robot ?a ?b - room ?d - door)
    :precondition (and (in ?r ?a) (link ?a ?b ?d) (open ?d))
    :effect (and (in ?r ?b) (not (in ?r ?a)))))
"""

SMALL_PROBLEM = """
(define (problem go) (:domain door)
  (:objects robot - robot hall kitchen - room d1 - door)
  (:init (in robot hall) (link hall kitchen d1) (not (open d1)))
  (:goal (and (in robot kitchen))))
"""


def test_small_domain_is_read() -> None:
    d = read_domain(SMALL_DOMAIN)
    assert set(d.operators) == {"open", "move"}
    assert d.types["robot"] == "object"
    assert d.types["door"] == "object"
    assert d.predicates["link"] == ("room", "room", "door")
    assert d.static_predicates == {"link"}
    p = read_problem(SMALL_PROBLEM)
    assert p.objects == {"robot": "robot", "hall": "room", "kitchen": "room", "d1": "door"}
    assert Atom("in", (Const("robot"), Const("hall"))) in p.init
    assert p.negative_init == 1
    assert check_problem(d, p) == []


def test_round_trip_small() -> None:
    d = read_domain(SMALL_DOMAIN)
    again = read_domain(domain_to_pddl(d))
    assert dict(again.operators) == dict(d.operators)
    assert dict(again.predicates) == dict(d.predicates)
    p = read_problem(SMALL_PROBLEM)
    p2 = read_problem(problem_to_pddl(p, d.name))
    assert (p2.objects, p2.init, p2.goal) == (p.objects, p.init, p.goal)


def test_export_names_resolve_collisions() -> None:
    d = read_domain(SMALL_DOMAIN)
    p = read_problem(SMALL_PROBLEM)
    names = export_names(d, p)
    # the action `open` collides with the predicate, the object `robot` with the type
    assert names.action("open") != "open"
    assert names.object("robot") != "robot"
    assert names.predicate("open") == "open"
    assert names.original_action(names.action("open")) == "open"
    assert names.original_object(names.object("robot")) == "robot"
    exported = [
        *(names.type(t) for t in d.types),
        *(names.predicate(x) for x in d.predicates),
        *(names.action(a) for a in d.operators),
        *(names.object(o) for o in p.objects),
    ]
    assert len({e.lower() for e in exported}) == len(exported)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["open", "Open", "object", "and", "x.1", "1a", "a b", "robot", "door"]),
        min_size=1,
        max_size=8,
        unique=True,
    )
)
def test_export_names_are_unique_and_safe(objects: list[str]) -> None:
    d = read_domain(SMALL_DOMAIN)
    p = read_problem(SMALL_PROBLEM)
    from dataclasses import replace

    p = replace(p, objects=dict.fromkeys(objects, "room"))
    names = export_names(d, p)
    exported = [names.object(o) for o in objects] + [names.action(a) for a in d.operators]
    exported += [names.predicate(x) for x in d.predicates] + [names.type(t) for t in d.types]
    lowered = [e.lower() for e in exported]
    assert len(set(lowered)) == len(lowered)
    for o in objects:
        e = names.object(o)
        assert e.lower() not in RESERVED
        assert names.original_object(e) == o


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("(define (domain d) (:action a :parameters (?x) :precondition (p ?y) :effect ()))", None),
        ("(define (domain d) (:action a :parameters (?x) :effect (or (p ?x) (q ?x))))", None),
        ("(define (domain d) (:predicates (p ?x))", "unclosed-paren"),
        ("(domain d)", "not-define"),
        ("(define (domain d) (:durative-action a :parameters ()))", "unsupported"),
    ],
)
def test_bad_domains_raise_positioned_errors(text: str, kind: str | None) -> None:
    with pytest.raises(PDDLSyntaxError) as info:
        read_domain(text)
    assert info.value.line >= 1 and info.value.column >= 1
    if kind is not None:
        assert info.value.kind == kind


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(SMALL_DOMAIN)), st.integers(0, len(SMALL_DOMAIN)))
def test_mangled_domain_never_crashes(cut: int, drop: int) -> None:
    """Any truncation or deletion of a domain reads or raises a PDDLSyntaxError."""
    lo, hi = sorted((cut, drop))
    text = SMALL_DOMAIN[:lo] + SMALL_DOMAIN[hi:]
    try:
        read_domain(text)
    except PDDLSyntaxError as err:
        assert err.line >= 1


@pytest.mark.data
def test_eai_domains_and_problems_read(vh: EaiPddl, bh: EaiPddl) -> None:
    assert len(vh.domain.operators) == 33 and len(vh.domain.predicates) == 45
    assert len(bh.domain.operators) == 30
    assert len(vh.problem_texts) == 338 and len(bh.problem_texts) == 100
    for data in (vh, bh):
        for ident in data.solved:
            p = declare_missing_objects(data.domain, data.problem(ident))
            assert check_problem(data.domain, p) == [], ident


@pytest.mark.data
def test_eai_domains_round_trip(vh: EaiPddl, bh: EaiPddl) -> None:
    for data in (vh, bh):
        again = read_domain(domain_to_pddl(data.domain))
        assert dict(again.operators) == dict(data.domain.operators)
        names = export_names(data.domain)
        renamed = read_domain(domain_to_pddl(data.domain, names))
        assert {names.original_action(a) for a in renamed.operators} == set(data.domain.operators)
    # the clash the issue names: VirtualHome has an action and a predicate `open`
    assert "open" in vh.domain.operators and "open" in vh.domain.predicates
    assert export_names(vh.domain).action("open") != "open"
