"""The Follower world's 8 actions under the generic classifier, episodes, metrics, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.cli import main
from planproof.metrics.teach import episode_metrics, summarise
from planproof.simulators.core import ErrorKind, replay
from planproof.simulators.teach.checker import check
from planproof.simulators.teach.episode import parse_episodes, run_episode
from planproof.simulators.teach.errors import EpisodeError
from planproof.simulators.teach.tdl import load_task
from planproof.simulators.teach.world import INTERACTIONS, TeachWorld, parse_action, teach_domain
from tests.teach.helpers import obj, scene

KITCHEN = scene(
    obj("Bread|1", ["sliceable", "pickupable"], ["CounterTop|1"]),
    obj("BreadSliced|1", ["pickupable"]),
    obj("Toaster|1", ["toggleable", "receptacle"], ["CounterTop|1"]),
    obj("Fridge|1", ["openable", "receptacle"]),
    obj("Apple|1", ["pickupable"], ["Fridge|1"]),
    obj("Plate|1", ["pickupable", "receptacle", "isDirty"], ["CounterTop|1"]),
    obj("Faucet|1", ["toggleable"]),
    obj("Cup|1", ["pickupable", "receptacle", "canFillWithLiquid"], ["CounterTop|1"]),
    obj("HousePlant|1", ["canFillWithLiquid"], ["CounterTop|1"]),
)


def _run(*texts: str):  # type: ignore[no-untyped-def]
    tw = TeachWorld.build(KITCHEN, {"BreadSliced|1": "Bread|1"})
    return tw, replay(tw.world, tw.initial, [parse_action(t) for t in texts])


def test_domain_has_the_papers_8_interactions() -> None:
    assert set(teach_domain().operators) == set(INTERACTIONS)


def test_toast_on_clean_plate_by_replay() -> None:
    tw, r = _run(
        "Pickup Knife|1",
        "Slice Bread|1",
        "Place CounterTop|1",
        "Pickup BreadSliced|1",
        "Place Toaster|1",
        "ToggleOn Toaster|1",
        "Pickup Plate|1",
        "Place SinkBasin|1",
        "ToggleOn Faucet|1",
        "Pickup Plate|1",
        "Place CounterTop|1",
        "Pickup BreadSliced|1",
        "Place Plate|1",
    )
    assert r.executable, r.first_error
    assert check(load_task("Plate Of Toast"), tw.symbolic(r.final)).success
    assert not check(load_task("Plate Of Toast"), tw.symbolic(tw.initial)).success


def test_water_plant_by_replay() -> None:
    tw, r = _run(
        "Pickup Cup|1",
        "Place SinkBasin|1",
        "ToggleOn Faucet|1",
        "Pickup Cup|1",
        "Pour HousePlant|1",
    )
    assert r.executable, r.first_error
    assert check(load_task("Water Plant"), tw.symbolic(r.final)).success


@pytest.mark.parametrize(
    ("texts", "kind"),
    [
        (("Slice Bread|1",), ErrorKind.MISSING_STEP),  # no knife in hand
        (("Pickup CounterTop|1",), ErrorKind.AFFORDANCE),  # not pickupable
        (("Pickup Apple|1",), ErrorKind.MISSING_STEP),  # fridge closed
        (("Pickup Spoon|1",), ErrorKind.HALLUCINATION),
        (("Pickup Knife|1 Bread|1",), ErrorKind.ARGUMENT_COUNT),
        (("Pickup BreadSliced|1",), ErrorKind.MISSING_STEP),  # the slice does not exist yet
        (("Open Fridge|1", "Close Fridge|1", "Pickup Apple|1"), ErrorKind.WRONG_ORDER),
    ],
)
def test_errors_are_classified(texts: tuple[str, ...], kind: ErrorKind) -> None:
    _, r = _run(*texts)
    assert r.first_error is not None and r.first_error.kind is kind


def test_redundant_toggle_is_an_additional_step() -> None:
    _, r = _run("ToggleOn Faucet|1", "ToggleOff Faucet|1", "ToggleOff Faucet|1")
    assert r.executable
    assert [(w.index, w.kind) for w in r.warnings] == [(2, ErrorKind.ADDITIONAL_STEP)]


def test_navigation_parsing() -> None:
    assert parse_action("Turn Left").name == "TurnLeft"
    assert parse_action("Pickup Mug at 0.57 0.25").args == ("Mug",)
    assert parse_action("Place(CounterTop|1)").args == ("CounterTop|1",)


def _episode(actions: list[str]) -> str:
    return json.dumps(
        {
            "id": "e",
            "task": "Water Plant",
            "reference_length": 4,
            "initial_state": KITCHEN.to_json(),
            "actions": actions,
        }
    )


def test_failed_actions_do_not_stop_an_episode() -> None:
    [ep] = parse_episodes(
        _episode(
            [
                "Pour HousePlant|1",
                "Pickup Cup|1",
                "Place SinkBasin|1",
                "ToggleOn Faucet|1",
                "Pickup Cup|1",
                "Forward",
                "Pour HousePlant|1",
                "Stop",
                "Forward",
            ]
        )
    )
    run = run_episode(ep)
    assert run.final_status.success
    assert [f.kind for f in run.failures] == [ErrorKind.MISSING_STEP]
    assert run.steps == 8 and run.stopped_by == "stop"  # Stop counts (TEACh traj_len)


def test_failure_budget() -> None:
    [ep] = parse_episodes(_episode(["Pour HousePlant|1"] * 40))
    run = run_episode(ep, max_failures=30)
    assert run.stopped_by == "max_failures" and len(run.failures) == 30


@pytest.mark.parametrize(
    "text",
    [
        "{",
        '{"task": "Nope", "initial_state": []}',
        '{"task": "Coffee"}',
        '{"task": "Coffee", "initial_state": {"objects": [{"objectId": 3}]}}',
        '{"task": "Coffee", "initial_state": [], "actions": [1]}',
    ],
)
def test_bad_episodes_are_typed_errors(text: str) -> None:
    with pytest.raises(EpisodeError):
        parse_episodes(text)


@settings(max_examples=200, deadline=None)
@given(
    success=st.booleans(),
    counts=st.tuples(*(st.integers(0, 20) for _ in range(4))),
    lengths=st.tuples(st.integers(0, 300), st.integers(0, 300)),
)
def test_metric_bounds(
    success: bool, counts: tuple[int, int, int, int], lengths: tuple[int, int]
) -> None:
    i_sat, i_tot, f_sat, f_tot = counts
    ref, n = lengths
    m = episode_metrics(
        "e",
        "t",
        success=success,
        initial=(i_sat, i_tot),
        final=(f_sat, f_tot),
        reference_length=ref,
        length=n,
    )
    assert 0.0 <= m.gc <= 1.0 and 0.0 <= m.tlw_gc <= m.gc
    assert m.tlw_success <= float(success)
    assert 0 <= m.completed <= m.needed
    if n <= ref:
        assert m.tlw_gc == pytest.approx(m.gc)
    s = summarise([m, m])
    assert s.success_rate == float(success) and s.gc_macro == pytest.approx(m.gc)


def test_tlw_example() -> None:
    m = episode_metrics(
        "e", "t", success=True, initial=(1, 3), final=(3, 3), reference_length=10, length=40
    )
    assert m.gc == 1.0 and m.tlw_success == 0.25


def _cli(*argv: str) -> int:
    return main(["evaluate", "teach", *argv])


def test_cli_on_demo_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, summary = tmp_path / "results.jsonl", tmp_path / "summary.json"
    assert _cli("--output", str(tmp_path), "--json") == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 4
    by_id = {r["id"]: r for r in rows}
    assert by_id["demo-coffee"]["metrics"]["success"]
    assert not by_id["demo-water-plant-failed"]["metrics"]["success"]
    assert by_id["demo-apples-in-one-bowl"]["final"]["unsatisfied"]
    s = json.loads(summary.read_text())
    assert s["overall"]["episodes"] == 4
    assert s["overall"]["success_rate"] == 0.5
    assert json.loads(capsys.readouterr().out) == s


def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"task": "Coffee", "initial_state": {"objects": "x"}}')
    assert _cli(str(bad), "--json") == 2
