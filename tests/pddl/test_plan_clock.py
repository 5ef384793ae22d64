"""Verdicts under a wall clock that jumps (a machine so loaded that any wall limit is
reached at once). ``planproof plan --timeout`` is CPU time from the start of the command:
the time spent reading and checking the model is counted in this process's CPU time,
never on the wall clock, so a loaded machine cannot eat the planner's budget and turn a
plan into a ``timeout``. ``verify --cases`` reads no clock for a verdict at all."""

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


def test_verify_cases_answers_the_same_under_a_jumping_wall_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``verify --cases`` reads no clock for a verdict (its run time on 1.75 M lines, 16 to
    66 s, varied with the load, its answers did not): 100 PlanBench cases, one line each,
    the same bytes under a wall clock that jumps 1,000 s at every look."""
    planbench = Path(__file__).resolve().parents[1] / "data" / "planbench"
    rows = [json.loads(line) for line in (planbench / "cases.jsonl").open()][:100]
    for row in rows:
        for key in ("domain", "problem"):
            row[key] = str(planbench / row[key])
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    calm_code = main(["verify", "--cases", str(cases)])
    calm = capsys.readouterr().out
    assert [json.loads(x)["valid"] for x in calm.splitlines()] == [r["expected"] for r in rows]
    jumping_clock(monkeypatch, 1000.0)
    assert main(["verify", "--cases", str(cases)]) == calm_code
    assert capsys.readouterr().out == calm


def test_a_child_stopped_by_the_wall_guard_is_an_error_never_a_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The wall clock only stops a child planner that neither answers nor spends its CPU
    budget (hung, or starved by the load): that is ``error`` (no verdict, never cached),
    while ``timeout`` means the CPU budget was spent. The guard is shrunk to half a second
    for a pyperplan child grounding 200 blocks (tens of CPU seconds)."""
    from planproof.pddl import planners
    from planproof.pddl.reader import read_domain, read_problem
    from tests.pddl.test_plan_timeouts import BLOCKS, _tower_problem

    monkeypatch.setattr(planners, "_wall_guard", lambda timeout: 0.5)
    d = read_domain(BLOCKS.read_text(), fold_case=True)
    p = read_problem(_tower_problem(200), fold_case=True)
    r = planners.plan(d, p, engine="pyperplan", timeout=600.0)
    assert r.status is planners.PlanStatus.ERROR, r
    assert "no verdict" in r.reason and "wall seconds" in r.reason
