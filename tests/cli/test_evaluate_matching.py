"""No silent zeros in ``planproof evaluate``: a responses file that matches no task is bad
input (exit 2, the reason on stderr); partial matches, unreadable lines and repeated
identifiers are told on stderr; the failing tasks are listed after the summary table;
rates over nothing are null in JSON and "—" on screen, never 0.0."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planproof.cli import main
from planproof.metrics.action_sequencing import summarize
from tests.cli.helpers import planproof

PLAN = json.dumps({"WALK": ["bathroom", 11]})
GOOD = {"identifier": "27_2", "llm_output": PLAN}
ENTRIES: dict[str, tuple[str, str, str]] = {
    # name: (file text, --dataset, what stderr must say)
    "unknown ids": (
        json.dumps([{"identifier": "task_11_1", "llm_output": PLAN}]),
        "virtualhome",
        "'task_11_1'",
    ),
    "wrong keys": (
        json.dumps([{"id": "27_2", "output": PLAN}]),
        "virtualhome",
        "no string 'identifier'",
    ),
    "a dict, not a list": (
        json.dumps({"27_2": PLAN}, indent=1),
        "virtualhome",
        "unreadable",
    ),
    "virtualhome file as behavior": (json.dumps([GOOD]), "behavior", "not behavior tasks"),
    "empty list": ("[]", "virtualhome", "holds no responses"),
}


def _evaluate(capsys: pytest.CaptureFixture[str], module: str, *argv: str) -> tuple[int, str, str]:
    code = main(["evaluate", module, *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", sorted(ENTRIES))
@pytest.mark.parametrize("module", ["action-sequencing", "goal-interpretation"])
def test_a_file_that_matches_nothing_is_bad_input(
    case: str, module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, dataset, needle = ENTRIES[case]
    path = tmp_path / "responses.json"
    path.write_text(text, encoding="utf-8")
    argv = ["--dataset", dataset, "--responses", str(path), "--output", str(tmp_path / "o")]
    code, out, err = _evaluate(capsys, module, *argv)
    assert code == 2 and out == ""
    assert err.startswith("planproof: error: ") and needle in err, err
    assert "0 tasks" not in err and not (tmp_path / "o" / "summary.json").exists()
    code, out, _ = _evaluate(capsys, module, *argv, "--json")
    data = json.loads(out)
    assert code == 2 and data["error"] == "no-match" and data["matched"] == 0


def test_transition_modeling_matching_nothing_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"identifier": "task_11_1", "llm_output": "(:action x)"}]))
    code, out, err = _evaluate(
        capsys, "transition-modeling", "--dataset", "virtualhome", "--responses", str(path)
    )
    assert code == 2 and out == "" and "'task_11_1'" in err and "planproof tasks" in err


def test_partial_matches_are_told_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        json.dumps(GOOD),
        "{not json",
        json.dumps({"identifier": "27_2", "llm_output": "[]"}),
        json.dumps({"identifier": "nope_1", "llm_output": PLAN}),
        json.dumps({"identifier": "417_1"}),
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    argv = ["--dataset", "virtualhome", "--responses", str(path), "--limit", "5"]
    code, out, err = _evaluate(
        capsys, "action-sequencing", *argv, "--output", str(tmp_path / "o"), "--json"
    )
    summary = json.loads(out)
    assert code == 0 and summary["tasks"] == 2
    warnings = [ln for ln in err.splitlines() if ln.startswith("planproof: warning: ")]
    said = "\n".join(warnings)
    assert "'nope_1'" in said and "line 2: not a JSON object" in said
    assert "repeated" in said and "line 3" in said
    assert "3 of 5 task(s) have no response" in said
    assert summary["unknown_identifiers"] == ["nope_1"]
    assert summary["tasks_without_response"] == 3


def test_failing_tasks_are_listed_after_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    ids = ["27_2", "417_1", "850_1"]
    path.write_text(json.dumps([{"identifier": i, "llm_output": PLAN} for i in ids]))
    code, out, _ = _evaluate(
        capsys,
        "action-sequencing",
        "--dataset",
        "virtualhome",
        "--responses",
        str(path),
        "--output",
        str(tmp_path / "o"),
    )
    assert code == 0
    listing = out[out.index("3 of 3 tasks failed") :]
    assert all(i in listing for i in ids) and "Wash" in listing
    assert "hallucination" in listing and "bathroom.11" in listing
    rows = [json.loads(x) for x in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert {r["error"]["step"] for r in rows} == {0}  # 0-based in JSON, 1-based on screen
    assert re.search(r"27_2\s*│[^│]*│\s*1\s*│", listing), listing


def test_the_listing_is_capped_with_more(tmp_path: Path) -> None:
    r = planproof(
        "evaluate",
        "action-sequencing",
        "--dataset",
        "virtualhome",
        "--responses",
        str(_all_wrong(tmp_path, 14)),
        "--output",
        str(tmp_path / "o"),
    )
    assert r.code == 0 and "14 of 14 tasks failed" in r.out
    assert "+4 more failing tasks" in r.out


def _all_wrong(tmp_path: Path, n: int) -> Path:
    from planproof.runs.modules import load_tasks

    ids = [t.identifier for t in load_tasks("virtualhome")[:n]]
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps([{"identifier": i, "llm_output": PLAN} for i in ids]))
    return path


def test_rates_over_nothing_are_null_not_zero() -> None:
    s = summarize([])
    assert s["tasks"] == 0
    assert s["goal_evaluation"]["task_success_rate"] is None
    assert s["trajectory_evaluation"]["execution_success_rate"] is None
    assert s["trajectory_evaluation"]["grammar_error"]["parsing"] is None


def test_a_rate_over_no_goals_shows_a_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps([GOOD]))  # 27_2 has no action goal
    argv = ["--dataset", "virtualhome", "--responses", str(path), "--output", str(tmp_path)]
    code, out, _ = _evaluate(capsys, "action-sequencing", *argv)
    row = next(ln for ln in out.splitlines() if "action goal" in ln)
    assert code == 0 and "—" in row and "0.0" not in row
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["goal_evaluation"]["action_goal"] is None
