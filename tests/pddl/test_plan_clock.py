"""``planproof plan --timeout`` is CPU time from the start of the command: the time spent
reading and checking the model is counted in this process's CPU time, never on the wall
clock, so a loaded machine cannot eat the planner's budget and turn a plan into a
``timeout``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.cli import main
from tests.helpers import jumping_clock

IPC = Path(__file__).resolve().parents[1] / "data" / "ipc" / "blocks"


def _plan(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    argv = [
        "--json",
        "plan",
        "--engine",
        "builtin",
        "--domain",
        str(IPC / "domain.pddl"),
        "--problem",
        str(IPC / "probBLOCKS-10-0.pddl"),
        "--timeout",
        "120",
        "--workers",
        "1",
    ]
    code = main(argv)
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    data["exit"] = code
    return data


def test_the_plan_verdict_is_the_same_under_a_jumping_wall_clock(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every look at the wall clock jumps 1,000 s (a machine so loaded that any wall limit
    is reached at once): the verdict, the plan and the search effort are the calm ones."""
    calm = _plan(capsys)
    assert calm["status"] == "solved" and calm["replay_valid"] is True
    clock = jumping_clock(monkeypatch, 1000.0)
    loaded = _plan(capsys)
    assert clock[0] > 0  # the wall clock was read (and jumped) during the run
    keys = ("exit", "status", "plan", "expanded", "replay_valid")
    assert {k: loaded[k] for k in keys} == {k: calm[k] for k in keys}
