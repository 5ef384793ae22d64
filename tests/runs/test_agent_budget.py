"""``--agent-budget``: the planner agent's limit is work (simulated steps), settable, part of
the cache key, and a task it gives up on is "agent gave up" -- never a parsing error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.cli import main

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]


def _demo(tmp: Path, out: str, *extra: str) -> dict[str, object]:
    argv = ["demo", "--limit", "3", "--concurrency", "1", "--json"]
    argv += ["--cache", str(tmp / "cache.sqlite3"), "--output", str(tmp / out), *extra]
    assert main(argv) == 0
    return json.loads((tmp / out / "summary.json").read_text())


def test_a_small_budget_gives_up_and_a_larger_one_asks_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = _demo(tmp_path, "small", "--agent-budget", "3")
    assert [g["identifier"] for g in small["agent_gave_up"]] == ["27_2", "417_1", "850_1"]
    assert small["counts"]["errors"]["agent_gave_up"] == 3  # type: ignore[index]
    assert small["counts"]["errors"]["parsing"] == 0  # type: ignore[index]
    assert small["goal_evaluation"]["task_success_rate"] == 0.0  # type: ignore[index]
    rows = [json.loads(x) for x in (tmp_path / "small" / "results.jsonl").read_text().splitlines()]
    assert {r["error_type"] for r in rows} == {"agent_gave_up"}
    run = json.loads((tmp_path / "small" / "run.json").read_text())
    assert run["params"]["agent_budget"] == 3
    capsys.readouterr()
    # the default budget is another cache key: the tasks are planned, not read back
    full = _demo(tmp_path, "full")
    assert json.loads(capsys.readouterr().out)["run"]["calls"]["made"] == 3
    assert "agent_gave_up" not in full
    assert full["goal_evaluation"]["task_success_rate"] == 100.0  # type: ignore[index]
    # and the small budget again: all three from the cache, the same verdict
    again = _demo(tmp_path, "again", "--agent-budget", "3")
    assert json.loads(capsys.readouterr().out)["run"]["calls"]["cached"] == 3
    assert again["agent_gave_up"] == small["agent_gave_up"]


def test_a_budget_must_be_positive() -> None:
    assert main(["demo", "--agent-budget", "0"]) == 2


def test_report_finds_the_runs_of_the_default_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``planproof-runs/MODEL/MODULE-DATASET`` is two levels below what a user names."""
    monkeypatch.chdir(tmp_path)
    cache = str(tmp_path / "cache.sqlite3")
    for module in ("action-sequencing", "goal-interpretation"):
        argv = ["demo", "--limit", "2", "--concurrency", "1", "--module", module]
        assert main([*argv, "--cache", cache]) == 0
    assert (tmp_path / "planproof-runs" / "planner" / "action-sequencing-virtualhome").is_dir()
    capsys.readouterr()
    assert main(["report", "planproof-runs", "--output", "all.html", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["runs"] == 2
    page = (tmp_path / "all.html").read_text()
    assert "goal-interpretation" in page and "action-sequencing" in page
