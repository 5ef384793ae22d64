"""PARTNR metrics of replayed plans: steps, planning cycles, offloading, extraneous
effort, aggregation, and the LTL view."""

from __future__ import annotations

import pytest

from planproof.metrics.partnr import aggregate, episode_metrics
from tests.partnr.helpers import corpus


def test_gold_plan_metrics() -> None:
    ep = corpus()["he_01"]
    m = episode_metrics(
        ep,
        {
            "agent_0": ["Navigate[cabinet_1]", "Open[cabinet_1]", "Wait[]",
                        "Rearrange[plate_2, within, cabinet_1, None, None]", "Done[]"],
            "agent_1": ["Navigate[counter_1]", "Clean[plate_2]", "Done[]"],
        },
        ltl=True,
    )  # fmt: skip
    assert m.success and m.percent_complete == 1.0
    assert m.steps == 5  # rounds; the robot's list is the longer one
    assert m.planning_cycles == 5
    # object-changing actions: Open, Rearrange by the robot; Clean by the human
    assert m.offloading == pytest.approx(2 / 3)
    assert m.extraneous_effort == 0.0
    assert m.ltl_percent_complete == 1.0 and m.ltl_note == ""


def test_extraneous_placements_and_failed_episode() -> None:
    ep = corpus()["cf_01"]
    m = episode_metrics(
        ep,
        {"agent_0": ["Rearrange[cup_1, on, sofa_1, None, None]",
                     "Rearrange[cup_1, on, counter_1, None, None]", "Done[]"],
         "agent_1": ["Navigate[coffee_table_1]", "Wait[]"]},
    )  # fmt: skip
    assert m.success
    assert m.extraneous_effort == 0.0  # both placements move the cup the task names
    other = episode_metrics(
        corpus()["cf_08"],
        {"agent_0": ["Rearrange[cup_1, on, coffee_table_1, None, None]", "Done[]"],
         "agent_1": ["Rearrange[plate_1, on, coffee_table_1, None, None]",
                     "Rearrange[plate_1, on, sofa_1, None, None]", "Done[]"]},
    )  # fmt: skip
    assert not other.success and other.offloading is None  # offloading: successes only
    bad = episode_metrics(
        corpus()["sp_01"],
        {"agent_0": ["Rearrange[plant_1, on, sofa_1, None, None]",
                     "Rearrange[lamp_1, on, shelf_1, None, None]", "Done[]"]},
    )  # fmt: skip
    assert bad.extraneous_effort == 0.0  # plant_1 is named (next to it), so not extraneous


def test_aggregate_and_ltl_note_for_ties() -> None:
    a = episode_metrics(corpus()["cf_08"], {"agent_0": ["Done[]"]}, ltl=True)
    assert a.ltl_percent_complete is None and "SameArgConstraint" in a.ltl_note
    b = episode_metrics(
        corpus()["cf_01"], {"agent_0": ["Rearrange[cup_1, on, counter_1, None, None]"]}
    )
    summary = aggregate([a, b])
    assert summary["plans"] == 2
    assert summary["success_rate"] == 0.5
    assert summary["percent_complete"] == 0.5
    assert summary["task_offloading"] == 1.0  # only b succeeded, and the robot did it all
    assert summary["extraneous_effort"] == 0.0
