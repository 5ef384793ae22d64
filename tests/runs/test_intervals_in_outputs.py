"""A 95 % confidence interval beside every success rate, in the terminal, the JSON and the
HTML report of a run (computed from its own results rows; checked against scipy)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from planproof.cli import main

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]


def _demo(tmp: Path, module: str, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    out = tmp / module
    argv = ["demo", "--module", module, "--limit", "12", "--concurrency", "1"]
    assert main([*argv, "--cache", str(tmp / "c.sqlite3"), "--output", str(out)]) == 0
    return json.loads((out / "summary.json").read_text()), capsys.readouterr().out


def test_success_rates_carry_wilson_intervals_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary, terminal = _demo(tmp_path, "action-sequencing", capsys)
    rows = [json.loads(x) for x in (tmp_path / "action-sequencing" / "results.jsonl").open()]
    k, n = sum(r["success"] for r in rows), len(rows)
    iv = summary["intervals"]["goal_evaluation.task_success_rate"]
    ref = stats.binomtest(k, n).proportion_ci(method="wilson")
    assert iv["low"] == pytest.approx(100 * ref.low, abs=1e-3)
    assert iv["high"] == pytest.approx(100 * ref.high, abs=1e-3)
    assert (iv["method"], iv["level"], iv["n"]) == ("wilson", 0.95, n)
    shown = f"[{iv['low']:.1f}, {iv['high']:.1f}]"
    assert f"task success {100 * k / n:.1f} % {shown}" in terminal
    page = (tmp_path / "action-sequencing" / "report.html").read_text()
    assert shown in page


def test_goal_interpretation_f1_has_a_bootstrap_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary, terminal = _demo(tmp_path, "goal-interpretation", capsys)
    iv = summary["intervals"]["goal_evaluation.overall.f1"]
    f1 = summary["goal_evaluation"]["overall"]["f1"]
    assert iv["method"] == "bootstrap" and iv["low"] <= f1 <= iv["high"]
    assert f"overall F1 {f1:.1f} % [{iv['low']:.1f}, {iv['high']:.1f}]" in terminal
