"""The tidy goal in the goal logic, its Z3 satisfiability check against brute force, and the
oracle rearrangement against exhaustive search."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings

from planproof.ltl.evaluate import evaluate_final
from planproof.ltl.parser import parse
from planproof.ltl.printer import to_text
from planproof.ltl.trace import Trace
from planproof.metrics.housekeep import Variants, score_episode
from planproof.simulators.housekeep.episode import Episode, episode_from_json, load_episodes
from planproof.simulators.housekeep.goal import (
    check_goal,
    is_tidy,
    oracle_actions,
    oracle_assignment,
    placement_state,
    tidy_goal,
)
from planproof.simulators.housekeep.preferences import PreferenceStore
from planproof.simulators.housekeep.strategies import (
    preference_stores,
    scenes,
    stores_and_episodes,
)
from planproof.simulators.housekeep.world import run
from tests.housekeep.helpers import HANDMADE, handmade_store, scene

EXAMPLES = HANDMADE


def test_goal_text_and_round_trip() -> None:
    ep = episode_from_json(scene())
    goal = tidy_goal(ep, handmade_store())
    assert to_text(goal) == (
        "(on(cup_0, cabinet_0) or on(cup_0, sink_0)) and "
        "(on(plate_0, cabinet_0) or on(plate_0, sink_0) or on(plate_0, table_0)) and "
        "on(pillow_0, bed_0) and handempty(robot)"
    )
    assert parse(to_text(goal)) == goal


def test_goal_holds_after_tidying() -> None:
    ep = episode_from_json(
        scene(["navigate(bed_0)", "pick(cup_0)", "navigate(sink_0)", "place(cup_0, sink_0)"])
    )
    goal = tidy_goal(ep, handmade_store())
    out = run(ep)
    assert not evaluate_final(
        goal, Trace(out.replay.trace.states[:3], out.replay.trace.actions[:2])
    )
    assert evaluate_final(goal, out.replay.trace)


def test_unsatisfiable_demo_goal() -> None:
    (ep,) = load_episodes(EXAMPLES / "06_unsatisfiable.json")
    res = check_goal(ep, handmade_store())
    assert not res.satisfiable and not res.unknown and res.witness is None
    assert res.reasons == ("pillow_0 (pillow) has no correct receptacle in this scene",)
    assert to_text(res.goal) == "false"


def test_capacity_can_make_the_goal_unsatisfiable() -> None:
    doc = scene()
    doc["receptacles"] = {
        "cabinet_0": {"category": "cabinet", "room": "kitchen_0", "capacity": 1},
        "bed_0": {"category": "bed", "room": "bedroom_0"},
    }
    doc["objects"] = {
        "cup_0": {"category": "cup", "on": "bed_0"},
        "cup_1": {"category": "cup", "on": "bed_0"},
    }
    doc["agent"] = {"id": "robot"}
    ep = episode_from_json(doc)
    res = check_goal(ep, handmade_store())
    assert not res.satisfiable
    assert res.reasons == (
        "the correct receptacles cannot hold all the objects at once (capacity)",
    )
    doc["receptacles"]["cabinet_0"]["capacity"] = 2
    res = check_goal(episode_from_json(doc), handmade_store())
    assert res.satisfiable and res.witness == {"cup_0": "cabinet_0", "cup_1": "cabinet_0"}


def _tidy_placements(ep: Episode, store: PreferenceStore) -> list[dict[str, str]]:
    """Every placement of all objects on correct receptacles within capacities."""
    options = [
        [r.id for r in ep.receptacles if ep.judgement(store, o.id, r.id).is_correct]
        for o in ep.objects
    ]
    out = []
    for combo in itertools.product(*options):
        load = {r: combo.count(r) for r in set(combo)}
        if all(r.capacity is None or load.get(r.id, 0) <= r.capacity for r in ep.receptacles):
            out.append(dict(zip((o.id for o in ep.objects), combo, strict=True)))
    return out


@settings(max_examples=60, deadline=None)
@given(preference_stores(), scenes())
def test_z3_agrees_with_brute_force(store: PreferenceStore, ep: Episode) -> None:
    res = check_goal(ep, store)
    assert not res.unknown
    assert res.satisfiable == bool(_tidy_placements(ep, store))
    if res.satisfiable:
        assert res.witness is not None
        assert set(res.witness) == {o.id for o in ep.objects}
        assert res.witness in _tidy_placements(ep, store)
        assert evaluate_final(res.goal, Trace((placement_state(ep, res.witness),)))


@settings(max_examples=60, deadline=None)
@given(stores_and_episodes())
def test_goal_on_the_final_state_is_episode_success(
    drawn: tuple[PreferenceStore, Episode],
) -> None:
    store, ep = drawn
    out = run(ep)
    es = score_episode(ep, out, store).episode_success
    assert evaluate_final(tidy_goal(ep, store), out.replay.trace) == (es == 1.0)
    assert is_tidy(ep, store, dict(out.final)) == (es == 1.0)


def _best_rq_by_brute_force(ep: Episode, store: PreferenceStore, mrr: str) -> float | None:
    """Exhaustive: the best summed reciprocal-rank score over every tidy placement that
    leaves the initially correct objects where they are."""
    init = ep.initial_placement
    movers = {o for o, r in init.items() if not ep.judgement(store, o, r).is_correct}
    best: float | None = None
    for p in _tidy_placements(ep, store):
        if any(p[o] != init[o] for o in init if o not in movers):
            continue
        total = sum(
            ep.judgement(store, o, p[o]).mrr_all
            if mrr == "all"
            else ep.judgement(store, o, p[o]).mrr
            for o in movers
        )
        best = total if best is None else max(best, total)
    return best


@pytest.mark.parametrize("mrr", ["correct", "all"])
@settings(max_examples=40, deadline=None)
@given(store=preference_stores(), ep=scenes())
def test_oracle_maximises_rearrangement_quality(
    mrr: str, store: PreferenceStore, ep: Episode
) -> None:
    plan = oracle_assignment(ep, store, mrr=mrr)
    best = _best_rq_by_brute_force(ep, store, mrr)
    assert (plan is None) == (best is None)
    if plan is None or best is None:
        return
    got = sum(
        ep.judgement(store, o, r).mrr_all if mrr == "all" else ep.judgement(store, o, r).mrr
        for o, r in plan.items()
    )
    assert got == pytest.approx(best)
    actions = oracle_actions(ep, store, mrr=mrr)
    if actions is None:  # a cycle of full receptacles: needs a temporary placement
        return
    variants = Variants(mrr="all" if mrr == "all" else "correct")
    out = run(ep, actions)
    s = score_episode(ep, out, store, variants)
    assert out.replay.executable and not out.replay.warnings
    assert (s.episode_success, s.object_success, s.pick_place_efficiency) == (1.0, 1.0, 1.0)
    assert s.misplaced_found == 1.0
    if plan:
        assert s.rearrangement_quality == pytest.approx(best / len(plan))


def test_oracle_on_the_demo_matches_the_hand_written_oracle() -> None:
    (ep,) = load_episodes(EXAMPLES / "01_oracle.json")
    assert oracle_assignment(ep, handmade_store()) == {
        "cup_0": "cabinet_0",
        "apple_0": "fridge_0",
        "towel_0": "bath_cabinet_0",
        "book_0": "shelf_1",
    }
    actions = oracle_actions(ep, handmade_store())
    assert actions is not None
    hand = score_episode(ep, run(ep), handmade_store())
    auto = score_episode(ep, run(ep, actions), handmade_store())
    assert auto.metrics() == hand.metrics()
