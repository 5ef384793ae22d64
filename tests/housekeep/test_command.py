"""``planproof evaluate housekeep``: the embedded default, output files, bad input and
exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.cli import main
from planproof.metrics.housekeep import METRICS
from tests.housekeep.helpers import HANDMADE, scene


def _run(argv: list[str]) -> int:
    return main(["evaluate", "housekeep", *argv])


def test_default_run_reproduces_the_reference_on_real_episodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bundled demo: 30 real Housekeep episodes × plans against the real preference
    store; every ``expected`` value (the reference's metric formulas) is reproduced."""
    assert _run(["--output", str(tmp_path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    lines = (tmp_path / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 30 and len({r["id"] for r in records}) == 30
    assert all(r["ok"] and r["expected"] and not r["mismatches"] for r in records)
    assert sum(len(r["expected"]) for r in records) == 180  # six metrics per run
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary == printed["summary"]
    assert summary["episodes"] == summary["evaluated"] == summary["executable"] == 30
    assert summary["expectation_mismatches"] == 0 and summary["unsatisfiable_goals"] == 0
    assert set(summary["metrics"]) == set(METRICS)
    assert summary["metrics"]["episode_success"]["mean"] == pytest.approx(6 / 30)
    # the oracle plans succeed; the oracle bound is at least what they reach
    for r in records:
        if r["id"].endswith("oracle_first_correct"):
            assert r["metrics"]["episode_success"] == 1.0
            assert r["oracle"]["rearrangement_quality"] >= r["metrics"]["rearrangement_quality"]


def _handmade(*extra: str) -> list[str]:
    files = [str(p) for p in sorted(HANDMADE.glob("0*.json"))]
    return [*files, "--preferences", str(HANDMADE / "preferences.json"), *extra]


def test_handmade_episodes_with_known_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(_handmade("--output", str(tmp_path), "--json")) == 0
    printed = json.loads(capsys.readouterr().out)
    records = printed["episodes"]
    assert [r["id"] for r in records] == [
        "oracle",
        "no_misplaced",
        "displaced",
        "partial",
        "blocked",
        "unsatisfiable",
    ]
    assert all(r["ok"] and not r["mismatches"] for r in records)
    summary = printed["summary"]
    assert summary["episodes"] == summary["evaluated"] == 6
    assert summary["unsatisfiable_goals"] == 1
    assert summary["executable"] == 5
    assert summary["metrics"]["episode_success"]["mean"] == pytest.approx(1 / 3)
    blocked = records[4]
    assert blocked["replay"]["error"]["error_type"] == "missing_step"
    assert {o["id"]: o["status"] for o in blocked["objects"]}["towel_0"] == "held"
    oracle = records[0]["oracle"]
    assert oracle["episode_success"] == 1.0
    assert oracle["rearrangement_quality"] == pytest.approx(1271 / 1344)
    assert records[5]["oracle"] is None and not records[5]["goal"]["satisfiable"]


def test_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(_handmade("--no-goal-check")) == 0
    out = capsys.readouterr().out
    assert "partial" in out and "missing_step at step 2" in out and "mean ± s.e." in out


def test_csv_preferences_give_the_same_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(_handmade("--json", "--no-goal-check")) == 0
    from_json = json.loads(capsys.readouterr().out)["summary"]["metrics"]
    csv = _handmade("--json", "--no-goal-check")
    csv[csv.index("--preferences") + 1] = str(HANDMADE / "preferences.csv")
    assert _run(csv) == 0
    from_csv = json.loads(capsys.readouterr().out)["summary"]["metrics"]
    assert from_json == from_csv


def test_bad_episode_is_recorded_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = scene()
    broken["objects"]["cup_0"]["on"] = "nowhere"
    f = tmp_path / "eps.json"
    f.write_text(json.dumps([scene(["navigate(bed_0)"]), broken]), encoding="utf-8")
    assert _run([str(f), "--json", "--no-goal-check"]) == 2
    doc = json.loads(capsys.readouterr().out)
    first, second = doc["episodes"]
    assert first["ok"] and not second["ok"]
    assert "unknown receptacle" in second["message"]
    assert doc["summary"]["bad_input"] == 1 and doc["summary"]["evaluated"] == 1


def test_expected_values_and_require_success(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "ep.jsonl"
    wrong = scene([], expected={"episode_success": 1.0})  # the cup is on the bed
    f.write_text(json.dumps(wrong) + "\n" + json.dumps(scene([], id="b")) + "\n", encoding="utf-8")
    assert _run([str(f), "--json", "--no-goal-check"]) == 1
    rec = json.loads(capsys.readouterr().out)["episodes"][0]
    assert rec["mismatches"] == {"episode_success": {"expected": 1.0, "got": 0.0}}
    g = tmp_path / "ok.json"
    g.write_text(json.dumps(scene([])), encoding="utf-8")
    assert _run([str(g), "--no-goal-check", "--json"]) == 0
    assert _run([str(g), "--no-goal-check", "--json", "--require-success"]) == 1


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: [str(d / "missing.json")], "cannot read"),
        (lambda d: ["--preferences", str(d / "missing.csv")], "cannot read"),
    ],
)
def test_unreadable_input_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: object, message: str
) -> None:
    argv = setup(tmp_path)  # type: ignore[operator]
    assert _run([*argv, "--json"]) == 2
    assert message in json.loads(capsys.readouterr().out)["message"]


def test_not_json_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "x.json"
    f.write_text("{nope", encoding="utf-8")
    assert _run([str(f)]) == 2
    assert "not JSON" in capsys.readouterr().err


def test_variants_change_rq(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["--json", "--no-goal-check", "--rq-normalization", "sum", "--mrr", "all"]) == 1
    doc = json.loads(capsys.readouterr().out)
    # the demo's expected values are for the default variants, so only RQ differs
    differing = [r for r in doc["episodes"] if r["mismatches"]]
    assert differing and all(set(r["mismatches"]) == {"rearrangement_quality"} for r in differing)
    assert doc["summary"]["variants"] == {"rq_normalization": "sum", "mrr": "all"}
