"""The tidy-house metrics: known answers (the demo episodes and small hand-made cases),
the paper's variants, and invariants on random episodes and plans."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from planproof.metrics.housekeep import (
    METRICS,
    ObjectStatus,
    Variants,
    aggregate,
    score,
    score_episode,
    summarize,
)
from planproof.simulators.housekeep.episode import Episode, episode_from_json, load_episodes
from planproof.simulators.housekeep.preferences import Judgement, PreferenceStore
from planproof.simulators.housekeep.strategies import stores_and_episodes
from planproof.simulators.housekeep.world import run
from tests.housekeep.helpers import HANDMADE, handmade_store, scene

EXAMPLES = sorted(HANDMADE.glob("0*.json"))  # hand-written episodes, known answers


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_handmade_episodes_have_their_known_answers(path: Path) -> None:
    """Each hand-written file carries every metric worked out by hand (docs/housekeep.md shows the
    arithmetic); the replay must reproduce all seven."""
    (ep,) = load_episodes(path)
    assert set(ep.expected) == set(METRICS)
    got = score_episode(ep, run(ep), handmade_store()).metrics()
    for m, want in ep.expected.items():
        assert got[m] == pytest.approx(want, abs=1e-12), m


def _partial() -> Episode:
    (ep,) = load_episodes(next(p for p in EXAMPLES if p.stem.endswith("partial")))
    return ep


def test_partial_episode_diagnosis() -> None:
    s = score_episode(_partial(), run(_partial()), handmade_store())
    status = {o.id: o.status for o in s.per_object}
    assert status == {
        "cup_0": ObjectStatus.FIXED,
        "towel_0": ObjectStatus.WRONG_RECEPTACLE,
        "pillow_0": ObjectStatus.MOVED_NEEDLESSLY,
        "book_0": ObjectStatus.MISSED,
        "apple_0": ObjectStatus.UNDISCOVERED,
        "plate_0": ObjectStatus.TIDY,
        "toothbrush_0": ObjectStatus.TIDY,
    }
    assert (s.misplaced, s.interacted, s.considered) == (4, 3, 5)
    assert (s.picks_places, s.min_picks_places) == (8, 8)


# --- the formulas on hand-made logs -------------------------------------------------------

J = {
    ("a", "bad"): Judgement((), (1, 1, 1), 1),  # misplaced
    ("a", "good"): Judgement((1, 2, 2), (1,), 0),  # correct, c = 3/4, mrr = 2/3
    ("b", "good"): Judgement((1, 1), (), 0),  # correct, c = 1, mrr = 1
    ("b", "odd"): Judgement((1,), (), 3),  # implausible, c = 1/4
    ("c", "good"): Judgement((2, 2, 1), (), 1),  # correct, c = 3/4, mrr = 2/3
}


def judge(o: str, r: str | None) -> Judgement:
    return J.get((o, r or ""), Judgement())


def test_each_formula_by_hand() -> None:
    # a: misplaced, fixed after a detour (4 interactions); b: correct, moved to an
    # implausible receptacle; c: correct, untouched
    s = score(
        {"a": "bad", "b": "good", "c": "good"},
        {"a": "good", "b": "odd", "c": "good"},
        judge,
        interactions={"a": 4, "b": 2},
        picked={"a", "b"},
        discovered={"a", "b", "c"},
        rooms=("r1", "r2"),
        visited_rooms=("r1",),
    )
    assert s.episode_success == 0.0
    assert s.object_success == pytest.approx(1 / 2)  # O_mi = {a, b}
    assert s.soft_object_success == pytest.approx((3 / 4 + 1 / 4) / 2)
    assert s.rearrangement_quality == pytest.approx((2 / 3 + 0) / 2)
    assert s.pick_place_efficiency == pytest.approx((2 / 4 + 0) / 2)
    assert s.misplaced_found == 1.0
    assert s.map_coverage == 0.5
    by_id = {o.id: o.status for o in s.per_object}
    assert by_id == {"a": ObjectStatus.FIXED, "b": ObjectStatus.DISPLACED, "c": ObjectStatus.TIDY}
    summed = score(
        {"a": "bad", "b": "good", "c": "good"},
        {"a": "good", "b": "odd", "c": "good"},
        judge,
        interactions={"a": 4, "b": 2},
        picked={"a", "b"},
        discovered=(),
        variants=Variants(rq_normalization="sum", mrr="all"),
    )
    assert summed.rearrangement_quality == pytest.approx((1 + 1 / 2 + 1 / 2) / 4)  # mrr_all, a
    assert summed.misplaced_found == 1.0  # a picked object has been seen, log or not


def test_held_object_and_untouched_misplaced() -> None:
    s = score(
        {"a": "bad", "b": "good"},
        {"a": None, "b": "good"},
        judge,
        interactions={"a": 1},
        picked={"a"},
        discovered={"a"},
    )
    assert (s.episode_success, s.object_success, s.soft_object_success) == (0.0, 0.0, 0.0)
    assert s.pick_place_efficiency == 0.0
    assert s.per_object[0].status is ObjectStatus.HELD
    idle = score({"a": "bad"}, {"a": "bad"}, judge, interactions={}, picked=(), discovered=())
    assert idle.per_object[0].status is ObjectStatus.UNDISCOVERED
    assert idle.pick_place_efficiency == 0.0  # work needed, none done
    assert idle.soft_object_success == 0.0


def test_empty_sets_take_the_best_value() -> None:
    s = score({"b": "good"}, {"b": "good"}, judge, interactions={}, picked=(), discovered=())
    assert s.metrics() == dict.fromkeys(METRICS, 1.0)


@pytest.mark.parametrize(
    ("final", "interactions", "picked"),
    [
        ({"a": "good"}, {}, set()),  # moved without a pick
        ({"a": "bad"}, {"a": 1}, set()),  # interactions without a pick
        ({"a": "good"}, {"a": 1}, {"a"}),  # back on a receptacle after one interaction
        ({"a": None}, {"a": 0}, {"a"}),
    ],
)
def test_impossible_logs_are_rejected(
    final: dict[str, str | None], interactions: dict[str, int], picked: set[str]
) -> None:
    with pytest.raises(ValueError):
        score({"a": "bad"}, final, judge, interactions=interactions, picked=picked, discovered=())


def test_aggregate() -> None:
    a = aggregate([0.0, 1.0, 1.0, 0.0])
    assert (a.mean, a.n) == (0.5, 4)
    assert a.stderr == pytest.approx((1 / 3) ** 0.5 / 2)
    assert aggregate([0.7]).stderr == 0.0
    assert aggregate([]).n == 0


def test_summary_over_the_demo() -> None:
    scores = [
        score_episode(ep, run(ep), handmade_store()) for p in EXAMPLES for ep in load_episodes(p)
    ]
    summary = summarize(scores)
    assert summary["episode_success"].mean == pytest.approx(2 / 6)
    assert summary["episode_success"].n == 6


def test_sample_store_scene_with_the_paper_tie() -> None:
    """The cup on the kitchen counter has exactly 5 of 10 correct votes: not correct, so the
    cup counts as misplaced at the start and as not tidied at the end."""
    doc = scene(
        ["navigate(bed_0)", "pick(cup_0)", "navigate(counter_0)", "place(cup_0, counter_0)"]
    )
    doc["receptacles"]["counter_0"] = {"category": "counter", "room": "kitchen_0"}
    ep = episode_from_json(doc)
    s = score_episode(ep, run(ep), handmade_store())
    assert s.per_object[0].id == "cup_0" and s.per_object[0].c_final == 0.5
    assert s.object_success == 0.0 and s.soft_object_success == 0.5


# --- invariants ------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(stores_and_episodes())
def test_metric_invariants(drawn: tuple[PreferenceStore, Episode]) -> None:
    store, ep = drawn
    out = run(ep)
    s = score_episode(ep, out, store)
    m = s.metrics()
    for name, v in m.items():
        assert 0.0 <= v <= 1.0, name
    # ES counts every object, OS only O_mi; the objects outside O_mi start correct and are
    # never touched, so the two agree exactly
    assert (s.episode_success == 1.0) == (s.object_success == 1.0)
    if s.episode_success == 1.0:
        assert s.soft_object_success > 0.5 and s.rearrangement_quality > 0.0
    assert s.rearrangement_quality <= s.object_success + 1e-12
    strict = score_episode(ep, out, store, Variants(mrr="all"))
    assert strict.rearrangement_quality <= s.soft_object_success + 1e-12
    summed = score_episode(ep, out, store, Variants(rq_normalization="sum"))
    if s.considered:
        assert summed.rearrangement_quality == pytest.approx(s.rearrangement_quality * s.considered)
    if s.pick_place_efficiency == 1.0 and s.interacted:
        # perfect efficiency: every picked object was misplaced and fixed in two steps
        assert all(
            o.status is ObjectStatus.FIXED and o.interactions == 2 for o in s.per_object if o.picked
        )
    assert all(o.discovered for o in s.per_object if o.picked)
    assert s.picks_places == sum(out.interactions.values())
    assert s.misplaced == sum(1 for o in s.per_object if not o.initially_correct)
