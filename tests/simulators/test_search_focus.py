"""The objects a subgoal search considers (``focus_objects``) always leave it an action
that can make each wanted literal true, when the world has one.

A literal such as ``sitting(character.65)`` names no seat: the focus (the named objects
and their neighbours) used to hold no object SIT is afforded on, so the search could not
reach a subgoal one WALK and one SIT away (published answers, Mistral Large 74_1).
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import Atom, Const, Formula, Not
from planproof.simulators.core import Task
from planproof.simulators.core.search import (
    focus_objects,
    formula_goal,
    ground_actions,
    search,
)
from planproof.simulators.virtualhome import load_virtualhome_tasks

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]

AGENT = "character.65"


@cache
def _tasks() -> tuple[Task, ...]:
    return tuple(load_virtualhome_tasks())


def _one_step_producers(task: Task, f: Formula) -> list[tuple[str, ...]]:
    """The arguments of every afforded action whose effects, applied to the start state
    (its precondition aside), make ``f`` true: the world's own semantics, not the
    focus's effect index."""
    world, start = task.world, task.initial
    goal = formula_goal(world, f)
    keys = world.key_facts(start)
    out = []
    for b in ground_actions(world):
        adds, dels, _ = world.effects(b, start, keys)
        if goal((start - dels) | adds, None):
            out.append(b.action.args)
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_focus_keeps_an_action_that_makes_a_literal_true(seed: int, negated: bool) -> None:
    """For a random literal false at the start of a random task: if some afforded action
    makes it true in one step, the focus holds every argument of one such action."""
    rng = random.Random(seed)
    task = rng.choice(_tasks())
    world = task.world
    objs = sorted(world.universe.type_index)
    preds = sorted(world.domain.fluents)
    if negated:
        held = sorted((a for a in task.initial if a.pred in preds), key=str)
        f: Formula = Not(rng.choice(held))
    else:
        p = rng.choice(preds)
        arity = len(world.domain.predicates[p])
        args = [AGENT, *(rng.choice(objs) for _ in range(arity - 1))] if arity else []
        if arity == 1 and rng.random() < 0.5:
            args = [rng.choice(objs)]
        f = Atom(p, tuple(Const(a) for a in args))
    if formula_goal(world, f)(task.initial, None):
        return
    producers = _one_step_producers(task, f)
    focus = focus_objects(world, f, task.initial)
    if producers:
        assert any(focus.issuperset(args) for args in producers), (task.identifier, f)


def test_sitting_names_no_seat_yet_the_search_sits() -> None:
    """74_1 (Watch TV): after ``find(television.410)``, ``sitting(character.65)`` is one
    SIT away on the couch beside it; the focus now includes the sittable objects."""
    task = next(t for t in _tasks() if t.identifier == "74_1")
    world = task.world
    start = search(
        world,
        task.initial,
        formula_goal(world, Atom("next_to", (Const(AGENT), Const("television.410")))),
    ).states[-1]
    f = Atom("sitting", (Const(AGENT),))
    focus = focus_objects(world, f, start)
    assert {"couch.352", "mat.401"} <= focus
    res = search(world, start, formula_goal(world, f), heuristic_of=f, focus=focus)
    assert res.status == "reached"
    assert [str(a) for a in res.actions] == ["sit(couch.352)"]


def test_focus_adds_nothing_when_a_named_object_serves() -> None:
    """``ontop(character.65, couch.352)`` names its seat: the focus is the named objects
    and their neighbours in the state, as before (the search stays as small)."""
    task = next(t for t in _tasks() if t.identifier == "74_1")
    named = {AGENT, "couch.352"}
    near = set(named)
    for a in task.initial:
        args = {c.name for c in a.args}
        if len(args) >= 2 and named & args:
            near |= args
    f = Atom("ontop", (Const(AGENT), Const("couch.352")))
    assert focus_objects(task.world, f, task.initial) == near
