"""Subgoal decomposition: gold-derived subgoals refine to the gold outcome; wrong subgoals
fail for the right reason; BFS is shortest on a small world (property test)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.interface.subgoals import parse_subgoals
from planproof.ltl.ast import Atom, Const
from planproof.ltl.parser import parse
from planproof.ltl.trace import ground_atom
from planproof.metrics.action_sequencing import evaluate_actions
from planproof.metrics.subgoal_decomposition import (
    evaluate_subgoal_response,
    gold_response,
    summarize,
)
from planproof.pddl.schema import Domain
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core import ErrorKind, Task, World
from planproof.simulators.core.search import focus_objects, formula_goal, search

WM = "washing_machine.1001"


def _sd(task: Task, lines: list[str], depth: int = 6) -> dict[str, Any]:
    r = evaluate_subgoal_response(task, json.dumps({"output": lines}), depth=depth)
    return r.to_dict()


def test_gold_subgoals_refine_like_the_gold_plan(
    vh_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...]
) -> None:
    """A sample (the whole datasets run in benchmarks/bench_modules.py): the refined plan
    is executable, and reaches the goal exactly when the gold plan does."""
    sample = [*vh_tasks[::60], *behavior_tasks[2:5]]
    results = []
    for t in sample:
        r = evaluate_subgoal_response(t, gold_response(t))
        results.append(r)
        assert r.trajectory.executable, r.to_dict()
        assert r.failed is None
        assert r.trajectory.success == evaluate_actions(t, t.gold).success
    assert summarize(results)["subgoals"]["unreachable"] == 0


def test_hand_written_plan_reaches_the_goal(wash: Task) -> None:
    d = _sd(
        wash,
        [
            f"ontop(soap.1002, {WM})",
            f"ontop(clothes_jacket.1003, {WM})",
            f"closed({WM}) and on({WM})",
        ],
    )
    assert d["success"] and d["executable"]
    assert [s["status"] for s in d["subgoals"]] == ["reached"] * 3


def test_unsatisfiable_subgoal(wash: Task) -> None:
    d = _sd(wash, [f"on({WM}) and off({WM})"])
    assert d["failed_subgoal"]["status"] == "unsatisfiable"
    assert not d["executable"]


def test_unreachable_subgoal_is_classified(wash: Task) -> None:
    """``open(bathroom.1)``: no binding of OPEN is afforded, so the search stops at once
    and the classifier names the affordance."""
    d = _sd(wash, ["open(bathroom.1)"])
    assert d["failed_subgoal"]["status"] == "unreachable"
    assert d["error_type"] == ErrorKind.AFFORDANCE.value


def test_depth_bound_and_wrong_order(wash: Task) -> None:
    """Both hands full, then opening the basket needs a free hand: out of reach in one
    action; the hand was free earlier, so the error is a wrong order."""
    d = _sd(
        wash,
        [
            "next_to(character.65, soap.1002)",
            "holds_rh(character.65, soap.1002)",
            "open(washing_machine.1001)",
            "holds_lh(character.65, clothes_jacket.1003)",
            "plugged_out(washing_machine.1001)",
        ],
        depth=1,
    )
    failed = d["failed_subgoal"]
    assert failed is not None and failed["index"] == 4
    assert d["error_type"] == ErrorKind.WRONG_ORDER.value
    assert len(d["actions"]) == 4


def test_already_true_subgoal_is_an_additional_step(wash: Task) -> None:
    d = _sd(wash, [f"plugged_in({WM})", f"ontop(soap.1002, {WM})"])
    assert d["subgoals"][0]["status"] == "already_true"
    assert len(d["additional_steps"]) == 1
    assert d["executable"]


def test_grammar_errors(wash: Task) -> None:
    assert _sd(wash, ["next_to(character.65, dryer.1)"])["error_type"] == "hallucination"
    assert _sd(wash, ["flying(soap.1002)"])["error_type"] == "hallucination"
    assert _sd(wash, [f"next_to(character.65, soap.1002, {WM})"])["error_type"] == (
        "argument_count"
    )
    assert _sd(wash, ["next_to(character.65, soap.1002"])["error_type"] == "parsing"
    r = evaluate_subgoal_response(wash, "I cannot help with that.")
    assert r.trajectory.error_type == "parsing"


def test_subgoal_forms(wash: Task) -> None:
    p = parse_subgoals(
        '```json\n{"output": ["NEXT_TO(character, soap) then not_closed(washing_machine)"]}\n```',
        wash.world,
    )
    assert p.error is None
    assert [str(f) for f in p.subgoals] == [
        str(parse("next_to(character.65, soap.1002)")),
        str(parse(f"not closed({WM})")),
    ]


def test_bfs_shorter_or_equal_to_greedy(wash: Task) -> None:
    f = parse(f"holds_rh(character.65, soap.1002) and open({WM})")
    goal = formula_goal(wash.world, f)
    near = focus_objects(wash.world, f, wash.initial)
    bfs = search(wash.world, wash.initial, goal, heuristic_of=f, focus=near)
    greedy = search(wash.world, wash.initial, goal, heuristic_of=f, mode="greedy", focus=near)
    assert bfs.status == greedy.status == "reached"
    assert len(bfs.actions) <= len(greedy.actions)


# --------------------------------------------------------------- a small generic world

LAMPS = 4


def _lamps() -> World:
    on = operator("switch_on", "(?l - lamp)", pre="(not (lit ?l))", eff="(lit ?l)")
    off = operator("switch_off", "(?l - lamp)", pre="(lit ?l)", eff="(not (lit ?l))")
    domain = Domain(
        name="lamps",
        types={"object": None, "lamp": "object"},
        predicates={"lit": ("lamp",)},
        operators={"switch_on": on, "switch_off": off},
        action_predicates=frozenset({"switch_on", "switch_off"}),
    )
    return World(domain, {f"lamp.{i}": frozenset({"lamp"}) for i in range(LAMPS)})


@settings(max_examples=40, deadline=None)
@given(start=st.sets(st.integers(0, LAMPS - 1)), target=st.sets(st.integers(0, LAMPS - 1)))
def test_bfs_is_shortest(start: set[int], target: set[int]) -> None:
    """From lamps ``start`` lit to exactly ``target`` lit takes one switch per lamp that
    differs; BFS finds a path of exactly that length and it replays to the target."""
    world = _lamps()
    s0 = frozenset(ground_atom("lit", f"lamp.{i}") for i in start)
    want = frozenset(ground_atom("lit", f"lamp.{i}") for i in target)
    res = search(world, s0, lambda s, _a: s == want, depth=LAMPS)
    assert res.found
    assert len(res.actions) == len(start ^ target)
    state = s0
    for a in res.actions:
        step = world.step(state, a)
        assert step.ok
        state = step.state
    assert state == want
    assert all(isinstance(x, Atom) and isinstance(x.args[0], Const) for x in state)
