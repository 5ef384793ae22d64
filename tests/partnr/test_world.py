"""The symbolic world graph: skills as operator schemas, two agents of different
abilities, surface syntax of the PARTNR skills, and bad episodes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planproof.simulators.core import ErrorKind
from planproof.simulators.partnr.errors import EpisodeFormatError, PlanFormatError
from planproof.simulators.partnr.predicates import atom
from planproof.simulators.partnr.world import (
    domain,
    interleave,
    load_episode,
    parse_skill,
    run_plan,
)
from tests.partnr.helpers import corpus

SCENE = {"rooms": ["kitchen", "hall"], "furniture": {
    "table": {"room": "kitchen"}, "box": {"room": "kitchen", "openable": True, "container": True},
    "bench": {"room": "hall"}}}  # fmt: skip


def episode(**over: Any) -> Any:
    data: dict[str, Any] = {
        "episode_id": "t", **SCENE,
        "objects": {"cup": {"on_top": "table", "states": {"clean": False}},
                    "mug": {"on_top": "table"}},
        "evaluation": {"propositions": [
            {"function_name": "is_on_top", "args": {"object_handles": ["cup"],
                                                     "receptacle_handles": ["bench"]}}]},
    }  # fmt: skip
    data.update(over)
    return load_episode(data)


def test_skill_syntax() -> None:
    assert parse_skill("Place[cup, on, table, None, None]", "agent_0").name == "place_on"
    a = parse_skill("Rearrange[cup, within, box, next_to, mug]", "agent_1")
    assert (a.name, a.args) == ("rearrange_within_next_to", ("agent_1", "cup", "box", "mug"))
    assert parse_skill("PowerOn[tv]", "agent_1").name == "power_on"
    assert parse_skill("Done[]", "agent_0").args == ("agent_0",)
    for bad in ("Pick cup", "Place[cup, on]", "", "Navigate[" + "x" * 2000 + "]"):
        with pytest.raises(PlanFormatError):
            parse_skill(bad, "agent_0")


def test_interleaving_is_round_robin() -> None:
    order = interleave({"agent_1": ["x", "y"], "agent_0": ["a", "b", "c"]}, ["agent_0", "agent_1"])
    assert [(k, a, t) for k, a, t in order] == [
        (0, "agent_0", "a"), (0, "agent_1", "x"), (1, "agent_0", "b"), (1, "agent_1", "y"),
        (2, "agent_0", "c")]  # fmt: skip


def test_one_object_at_a_time_and_shared_state() -> None:
    ep = episode()
    mr = run_plan(ep, {"agent_0": ["Navigate[table]", "Pick[cup]", "Pick[mug]"]})
    err = mr.replay.first_error
    # the hand was free before the first pick: a wrong order, not a missing step
    assert err is not None and err.kind is ErrorKind.WRONG_ORDER and "free(agent_0)" in err.unmet
    # the human cannot take what the robot holds
    mr = run_plan(ep, {"agent_0": ["Navigate[table]", "Pick[cup]"],
                       "agent_1": ["Navigate[table]", "Pick[cup]"]})  # fmt: skip
    err = mr.replay.first_error
    assert err is not None and err.index == 3 and "not held(cup)" in err.unmet


def test_abilities_differ_and_the_error_names_the_agent() -> None:
    ep = episode()
    robot = run_plan(ep, {"agent_0": ["Navigate[table]", "Clean[cup]"]}).replay.first_error
    assert robot is not None and robot.kind is ErrorKind.AFFORDANCE
    assert "agent_0" in robot.message and robot.unmet == ("can_clean(agent_0)",)
    human = run_plan(ep, {"agent_1": ["Navigate[table]", "Clean[cup]"]})
    assert human.replay.first_error is None
    assert atom("clean", "cup") in human.states[-1]
    # an object without the state is an affordance error too (mug is not cleanable)
    mug = run_plan(ep, {"agent_1": ["Navigate[table]", "Clean[mug]"]}).replay.first_error
    assert mug is not None and mug.kind is ErrorKind.AFFORDANCE and "cleanable(mug)" in mug.unmet


def test_held_objects_move_with_the_agent_and_placing_sets_the_room() -> None:
    ep = episode()
    mr = run_plan(ep, {"agent_0": ["Navigate[table]", "Pick[cup]", "Navigate[bench]"]})
    assert atom("in_room", "cup", "hall") in mr.states[-1]
    assert atom("in_room", "cup", "kitchen") not in mr.states[-1]
    mr = run_plan(ep, {"agent_0": ["Navigate[table]", "Pick[cup]", "Navigate[bench]",
                                   "Place[cup, on, bench, None, None]"]})  # fmt: skip
    assert atom("on_top", "cup", "bench") in mr.states[-1]
    assert atom("holding", "agent_0", "cup") not in mr.states[-1]


def test_grammar_errors() -> None:
    ep = episode()
    r = run_plan(ep, {"agent_0": ["Fly[cup]"]}).replay.first_error
    assert r is not None and r.kind is ErrorKind.HALLUCINATION
    r = run_plan(ep, {"agent_0": ["Pick[cup, mug]"]}).replay.first_error
    assert r is not None and r.kind is ErrorKind.ARGUMENT_COUNT
    r = run_plan(ep, {"agent_0": ["Pick[table]"]}).replay.first_error
    assert r is not None and r.kind is ErrorKind.AFFORDANCE  # furniture is not an object
    r = run_plan(ep, {"agent_0": ["Navigate[table]", "Place[cup on table]"]}).replay.first_error
    assert r is not None and r.kind is ErrorKind.PARSING and r.index == 1


def test_additional_step_is_a_warning() -> None:
    mr = run_plan(episode(), {"agent_0": ["Navigate[box]", "Open[box]", "Open[box]", "Wait[]"]})
    assert mr.replay.first_error is None
    assert [(w.kind, w.index) for w in mr.replay.warnings] == [(ErrorKind.ADDITIONAL_STEP, 2)]
    assert len(mr.states) == 5 and mr.states[2] == mr.states[3]


def test_domain_statics_are_the_abilities_and_affordances() -> None:
    assert {"can_clean", "cleanable", "openable", "container"} <= domain().static_predicates
    assert {"on_top", "clean", "holding"} <= domain().fluents


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"objects": {"cup": {"on_top": "sink"}}}, "unknown furniture"),
        ({"objects": {"cup": {}}}, "exactly one of"),
        ({"objects": {"cup": {"on_top": "table", "states": {"sparkly": True}}}}, "states take"),
        ({"agents": {"agent_0": "cyborg"}}, "robot"),
        ({"start": {"agent_0": "garage"}}, "unknown room"),
        ({"next_to": [["cup", "cup"]]}, "distinct"),
        ({"task_types": ["spooky"]}, "task_types"),
        ({"objects": {"cup": {"on_top": "table"}}, "evaluation": {"propositions": [
            {"function_name": "is_clean", "args": {"object_handles": ["cup"]}}]}}, "no clean"),
        ({"evaluation": {"propositions": [{"function_name": "is_in_room", "args": {
            "object_handles": ["cup"], "room_ids": ["table"]}}]}}, "a room"),
        ({"evaluation": {"propositions": [{"function_name": "is_on_top", "args": {
            "object_handles": ["ghost"], "receptacle_handles": ["table"]}}]}}, "unknown entity"),
        ({"furniture": {"table": {"room": "attic"}}}, "unknown room"),
        ({"evaluation_proposition_dependency": []}, "unknown key.*evaluation_proposition_dep"),
        ({"objects": {"cup": {"on_top": "table", "colour": "red"}}}, "unknown key.*colour"),
        ({"agents": {"agent_0": {"kind": "robot", "speed": 2}}}, "unknown key.*speed"),
    ],
)  # fmt: skip
def test_bad_episodes(change: dict[str, Any], fragment: str) -> None:
    with pytest.raises(EpisodeFormatError, match=fragment):
        episode(**change)


def test_corpus_worlds_are_consistent() -> None:
    for ep in corpus().values():
        ep2 = copy.deepcopy(ep)
        assert ep2.initial == ep.initial
        # every agent starts free, in a room, with its abilities as static facts
        for a, kind in ep.agents.items():
            assert atom("free", a) in ep.initial
            assert (atom("can_clean", a) in ep.static) == (kind == "human")


def test_within_next_to_and_explore() -> None:
    ep = episode()
    mr = run_plan(
        ep,
        {"agent_1": ["Navigate[box]", "Open[box]", "Rearrange[cup, within, box, None, None]",
                     "Navigate[table]", "Pick[mug]", "Explore[hall]", "Navigate[box]",
                     "Place[mug, within, box, next_to, cup]", "Close[box]", "Pick[cup]"]},
    )  # fmt: skip
    err = mr.replay.first_error
    # the cup is inside the box closed at step 8: picking it held just before, so the
    # classifier calls it a wrong order (the fewest-literal fix it names: cup not inside)
    assert err is not None and err.index == 9
    assert err.kind is ErrorKind.WRONG_ORDER and err.held_at == 8
    assert err.unmet == ("not inside(cup, box)",)
    final = mr.states[-1]
    assert {atom("inside", "mug", "box"), atom("next_to", "mug", "cup")} <= final
    assert atom("in_room", "mug", "kitchen") in final
