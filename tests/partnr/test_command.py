"""``planproof evaluate partnr``: the bundled demo, files, bad input and exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.cli import main


def _run(argv: list[str]) -> int:
    return main(["evaluate", "partnr", *argv])


def test_bundled_demo_meets_every_expectation(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["--json", "--ltl"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and len(out["plans"]) >= 60
    assert all(r["expect_mismatch"] == [] for r in out["plans"])
    assert all(r["ltl_note"] == "" or "Constraint" in r["ltl_note"] for r in out["plans"])
    assert 0 < out["summary"]["success_rate"] < 1


def test_table_output_and_require_success(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["--episode", "cf_01"]) == 0
    assert "cf_01" in capsys.readouterr().out
    assert _run(["--episode", "cf_01", "--require-success"]) == 1


def test_files_and_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plans = tmp_path / "plans.json"
    plans.write_text(json.dumps({"cf_01": {"agent_0": ["Done[]"],
                                           "expect": {"success": True}}}))  # fmt: skip
    assert _run(["--plans", str(plans), "--json"]) == 1
    rec = json.loads(capsys.readouterr().out)["plans"][0]
    assert rec["expect_mismatch"] == ["success False != True"]


@pytest.mark.parametrize(
    "content",
    ["not json", "[1, 2]", json.dumps({"plans": [{"episode_id": "nope", "agent_0": []}]}),
     json.dumps({"plans": [{"episode_id": "cf_01", "agent_0": [3]}]})],
)  # fmt: skip
def test_bad_plans_exit_2(tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]) -> None:
    plans = tmp_path / "plans.json"
    plans.write_text(content)
    assert _run(["--plans", str(plans), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["ok"] is False


def test_bad_episodes_exit_2(tmp_path: Path) -> None:
    eps = tmp_path / "e.json"
    eps.write_text(json.dumps({"episodes": [{"episode_id": "x", "rooms": ["r"],
                                             "objects": {"o": {"on_top": "f"}}}]}))  # fmt: skip
    assert _run(["--episodes", str(eps)]) == 2
    assert _run(["--episodes", str(tmp_path / "missing.json")]) == 2


def test_unknown_episode_keys_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 18: an episode with keys planproof does not read was scored as if they were
    absent (or not at all: 0 plans, exit 0); now it is bad input that names the key."""
    eps = tmp_path / "e.json"
    eps.write_text(json.dumps({"episodes": [{
        "episode_id": "x", "rooms": ["r"], "furniture": {"f": {"room": "r"}},
        "objects": {"o": {"on_top": "f"}}, "scene_id": "102817140",
        "evaluation": {"propositions": [{"function_name": "is_on_top", "args": {
            "object_handles": ["o"], "receptacle_handles": ["f"]}}]}}]}))  # fmt: skip
    plans = tmp_path / "p.json"
    plans.write_text(json.dumps({"x": {"agent_0": ["Done[]"]}}))
    assert _run(["--episodes", str(eps), "--plans", str(plans), "--json"]) == 2
    err = json.loads(capsys.readouterr().out)["message"]
    assert "unknown key(s) scene_id" in err


def test_nothing_to_evaluate_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["--episode", "no_such_episode", "--json"]) == 2
    assert "no plan to evaluate for episode(s) no_such_episode" in capsys.readouterr().out
    plans = tmp_path / "p.json"
    plans.write_text(json.dumps({"plans": []}))
    assert _run(["--plans", str(plans)]) == 2
    assert "0 plan(s) read" in capsys.readouterr().err


def test_the_bundled_corpus_says_it_is_planproofs_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The corpus was written by planproof, not taken from the benchmark: the summary, the
    table and the report say so, with counts that match the files; a user's own episodes
    carry no such note."""
    from importlib import resources

    folder = resources.files("planproof.examples").joinpath("partnr")
    episodes = json.loads(folder.joinpath("episodes.json").read_text(encoding="utf-8"))
    plans = json.loads(folder.joinpath("plans.json").read_text(encoding="utf-8"))
    counts = f"{len(episodes['episodes'])} episodes over two houses, {len(plans['plans'])} plans"
    assert counts == "33 episodes over two houses, 75 plans"
    out = tmp_path / "run"
    assert _run(["--json", "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["corpus"] == "planproof (bundled)"
    [note] = summary["notes"]
    assert counts in note and "not taken from the PARTNR benchmark" in note
    assert _run(["--episode", "cf_01"]) == 0
    assert "written by planproof" in capsys.readouterr().out
    page = tmp_path / "report.html"
    assert main(["report", str(out), "--out", str(page)]) == 0
    capsys.readouterr()
    assert "not taken from the PARTNR benchmark" in page.read_text(encoding="utf-8")
    own = tmp_path / "episodes.json"
    own.write_text(json.dumps(episodes), encoding="utf-8")
    assert _run(["--json", "--episodes", str(own)]) == 0
    assert "notes" not in json.loads(capsys.readouterr().out)["summary"]
