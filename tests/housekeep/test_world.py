"""The pick / place / navigate world, replayed by the generic core and its classifier."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from planproof.ltl.trace import ground_atom
from planproof.simulators.core import ErrorKind
from planproof.simulators.housekeep.episode import Episode, episode_from_json
from planproof.simulators.housekeep.strategies import episodes
from planproof.simulators.housekeep.world import build_world, domain, run
from tests.housekeep.helpers import scene


def test_domain_vocabulary() -> None:
    d = domain()
    assert set(d.operators) == {"navigate", "explore", "pick", "place"}
    assert d.static_predicates == frozenset({"inroom", "succ", "unbounded"})
    assert [op.arity for op in d.operators.values()] == [1, 1, 1, 2]


def test_initial_state() -> None:
    setup = build_world(episode_from_json(scene()))
    s0 = setup.initial
    assert ground_atom("on", "cup_0", "bed_0") in s0
    assert ground_atom("at", "robot", "sink_0") in s0
    assert ground_atom("handempty", "robot") in s0
    assert ground_atom("visited", "kitchen_0") in s0
    # capacity 2 with the plate in it: one slot left; the table (capacity 1) is empty
    assert ground_atom("free", "cabinet_0", "slots.1") in s0
    assert ground_atom("free", "table_0", "slots.1") in s0
    assert ground_atom("unbounded", "sink_0") in setup.world.static
    assert not any(a.pred == "discovered" for a in s0)  # nothing on the sink


def test_a_clean_rearrangement() -> None:
    out = run(
        episode_from_json(
            scene(
                ["navigate(bed_0)", "pick(cup_0)", "navigate(cabinet_0)", "place(cup_0, cabinet_0)"]
            )
        )
    )
    assert out.replay.executable and not out.replay.warnings
    assert out.final == {"cup_0": "cabinet_0", "plate_0": "cabinet_0", "pillow_0": "bed_0"}
    assert out.interactions == {"cup_0": 2}
    assert out.picked == frozenset({"cup_0"})
    assert out.discovered == frozenset({"cup_0", "pillow_0", "plate_0"})
    assert out.visited_rooms == frozenset({"kitchen_0", "bedroom_0"})
    assert ground_atom("free", "cabinet_0", "slots.0") in out.replay.final


def test_explore_discovers_a_room_and_leaves_the_receptacle() -> None:
    out = run(episode_from_json(scene(["explore(bedroom_0)", "pick(cup_0)"])))
    assert out.discovered == frozenset({"cup_0", "pillow_0"})
    err = out.replay.first_error
    assert err is not None and err.kind is ErrorKind.MISSING_STEP and err.index == 1


@pytest.mark.parametrize(
    ("actions", "index", "kind", "unmet"),
    [
        # the grammar is checked before anything runs
        (["navigate(bed_0)", "pick(mug_9)"], 1, ErrorKind.HALLUCINATION, ()),
        (["fly(bed_0)"], 0, ErrorKind.HALLUCINATION, ()),
        (["pick(cup_0, bed_0)"], 0, ErrorKind.ARGUMENT_COUNT, ()),
        (["navigate(bed_0)", "pick cup"], 1, ErrorKind.PARSING, ()),
        # a receptacle cannot be picked: an affordance error, from the types
        (["navigate(bed_0)", "pick(bed_0)"], 1, ErrorKind.AFFORDANCE, ("item(bed_0)",)),
        # not at the cup's receptacle
        (["pick(cup_0)"], 0, ErrorKind.MISSING_STEP, ("at(robot, bed_0)",)),
        # the table holds one object; the second place finds it full
        (
            [
                "navigate(bed_0)",
                "pick(cup_0)",
                "navigate(table_0)",
                "place(cup_0, table_0)",
                "navigate(bed_0)",
                "pick(pillow_0)",
                "navigate(table_0)",
                "place(pillow_0, table_0)",
            ],
            7,
            ErrorKind.MISSING_STEP,
            ("not free(table_0, slots.0)",),
        ),
        # the hand was free before the first pick: picking again is a wrong order
        (
            ["navigate(bed_0)", "pick(cup_0)", "pick(pillow_0)"],
            2,
            ErrorKind.WRONG_ORDER,
            ("handempty(robot)",),
        ),
        (["place(cup_0, sink_0)"], 0, ErrorKind.MISSING_STEP, ("holding(robot, cup_0)",)),
    ],
)
def test_errors_are_classified(
    actions: list[str], index: int, kind: ErrorKind, unmet: tuple[str, ...]
) -> None:
    out = run(episode_from_json(scene(actions)))
    err = out.error
    assert err is not None
    assert (err.index, err.kind) == (index, kind)
    assert err.unmet == unmet


def test_additional_steps_are_warnings_and_not_interactions() -> None:
    out = run(
        episode_from_json(
            scene(["navigate(bed_0)", "navigate(bed_0)", "pick(cup_0)", "pick(cup_0)"])
        )
    )
    assert out.replay.executable
    # the second pick cannot run and would change nothing: a warning, not an interaction
    # (whether walking to where one stands warns is the core's rule, not tested here)
    assert [(w.index, w.kind) for w in out.replay.warnings][-1:] == [(3, ErrorKind.ADDITIONAL_STEP)]
    assert out.interactions == {"cup_0": 1}
    assert out.final["cup_0"] is None
    # placing an object where it already lies changes nothing either (the core tests
    # "every effect already holds" before the precondition, as the EAI classifier does)
    again = run(episode_from_json(scene(["navigate(bed_0)", "place(cup_0, bed_0)"])))
    assert again.replay.executable and again.interactions == {}
    assert [w.kind for w in again.replay.warnings] == [ErrorKind.ADDITIONAL_STEP]


def _count_on(state: frozenset, rec: str) -> int:  # type: ignore[type-arg]
    return sum(1 for a in state if a.pred == "on" and a.args[1].name == rec)


@settings(max_examples=150, deadline=None)
@given(episodes())
def test_replays_keep_the_world_consistent(ep: Episode) -> None:
    """Every state of every replay: each object is held or on exactly one receptacle, the
    hand holds at most one object and is empty iff nothing is held, the agent is at most at
    one place, capacities hold, and the free-space counter equals capacity minus load."""
    out = run(ep)
    caps = {r.id: r.capacity for r in ep.receptacles}
    for state in out.replay.trace.states:
        held = [a.args[1].name for a in state if a.pred == "holding"]
        assert len(held) <= 1
        assert (ground_atom("handempty", ep.agent) in state) == (not held)
        assert sum(1 for a in state if a.pred == "at") <= 1
        for o in ep.objects:
            places = [a for a in state if a.pred == "on" and a.args[0].name == o.id]
            assert len(places) + (o.id in held) == 1
        for r, cap in caps.items():
            frees = [a.args[1].name for a in state if a.pred == "free" and a.args[0].name == r]
            if cap is None:
                assert frees == []
            else:
                assert _count_on(state, r) <= cap
                assert frees == [f"slots.{cap - _count_on(state, r)}"]
    # picks and places alternate per object, so a placed object has an even count
    for name, n in out.interactions.items():
        assert n % 2 == (1 if out.final[name] is None else 0)
