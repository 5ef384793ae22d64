"""The issue's end-to-end promise with no key: the built-in planner answers the EAI
VirtualHome action-sequencing tasks through ``planproof run``, every task whose gold plan
succeeds is a success, and its report renders in a real browser without console errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from planproof.cli import main
from planproof.interface.agents.planner import NO_PLAN
from planproof.metrics.action_sequencing import evaluate_response
from planproof.runs.modules import load_tasks
from tests.report.test_browser import browser  # noqa: F401 -- the chromium fixture

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]


@pytest.fixture(scope="module")
def planner_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("planner") / "run"
    cache = out.parent / "cache.sqlite3"
    code = main(
        [
            "run",
            "--model",
            "planner",
            "--module",
            "action-sequencing",
            "--dataset",
            "virtualhome",
            "--concurrency",
            "2",
            "--output",
            str(out),
            "--cache",
            str(cache),
            "--report",
            str(out / "report.html"),
            "--json",
        ]
    )
    assert code == 0  # a task the planner proves unsolvable is an answer, not a failed call
    return out


def test_planner_succeeds_wherever_the_gold_plan_does(planner_run: Path) -> None:
    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    results = {
        r["identifier"]: r
        for r in map(json.loads, (planner_run / "results.jsonl").read_text().splitlines())
    }
    gold_ok = {
        i for i, t in tasks.items() if evaluate_response(t, _gold_text(t), "virtualhome").success
    }
    assert len(gold_ok) >= 340
    assert all(results[i]["success"] for i in gold_ok)
    summary = json.loads((planner_run / "summary.json").read_text())
    assert summary["call_errors"] == [] and set(results) == set(tasks)


def test_unsolvable_is_a_cached_scored_answer_with_an_honest_headline(
    planner_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """688_1 (the planner proves it unsolvable) is scored as a failed task and counts in
    the denominator; a rerun answers it from the cache and exits 0, and so does demo."""
    results = {
        r["identifier"]: r
        for r in map(json.loads, (planner_run / "results.jsonl").read_text().splitlines())
    }
    assert results["688_1"]["success"] is False
    # its own category: never a parsing error (nor a proof)
    assert results["688_1"]["error_type"] == "agent_gave_up"
    responses = [json.loads(x) for x in (planner_run / "responses.jsonl").read_text().splitlines()]
    answer = next(r for r in responses if r["identifier"] == "688_1")
    assert answer["error"] is None and answer["llm_output"].startswith(NO_PLAN + "688_1")
    summary = json.loads((planner_run / "summary.json").read_text())
    assert [g["identifier"] for g in summary["agent_gave_up"]] == ["688_1"]
    assert summary["counts"]["errors"]["parsing"] == 0
    assert summary["counts"]["errors"]["agent_gave_up"] == 1
    assert summary["tasks"] == 342 and summary["goal_evaluation"]["task_success_rate"] < 100.0
    cache = str(planner_run.parent / "cache.sqlite3")
    capsys.readouterr()
    argv = ["--dataset", "virtualhome", "--output", str(planner_run), "--cache", cache]
    assert main(["run", "--model", "planner", "--module", "action-sequencing", *argv]) == 0
    rerun = capsys.readouterr().out
    assert "0 calls made, 342 from the cache, 0 failed" in " ".join(rerun.split())
    assert main(["demo", *argv]) == 0
    demo = " ".join(capsys.readouterr().out.split())
    assert "(341 of 342 tasks)" in demo and "task success 99.7 %" in demo
    assert "the agent gave up on 1 of 342 tasks" in demo and "parsing 0.3" not in demo
    assert "most frequent errors: agent gave up 0.3 %" in demo


def _gold_text(task: Any) -> str:
    from planproof.interface.responses import render_virtualhome

    return render_virtualhome(task.gold)


def test_planner_report_renders_without_console_errors(
    planner_run: Path,
    browser: Any,  # noqa: F811
) -> None:
    page = browser.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.goto((planner_run / "report.html").as_uri(), wait_until="load")
    rows = page.locator("details.task")
    assert rows.count() == 342
    answer = json.loads((planner_run / "responses.jsonl").read_text().splitlines()[0])
    # rows list failing tasks first: find the first task's row by its identifier
    exact = re.compile(f"^{re.escape(answer['identifier'])}$")
    first = rows.filter(has=page.locator("span.tid", has_text=exact)).first
    first.locator("summary").first.click()
    assert first.locator("pre.out").first.is_visible()
    assert first.locator("pre.out").first.inner_text() == answer["llm_output"]
    assert problems == []
    page.close()
