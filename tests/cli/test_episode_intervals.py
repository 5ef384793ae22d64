"""TEACh and PARTNR success rates carry their Wilson interval in the text, the JSON and
the report (checked against scipy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from tests.cli.helpers import planproof


def test_teach_success_rate_interval(tmp_path: Path) -> None:
    done = planproof("evaluate", "teach", "--output", str(tmp_path / "teach"), "--json")
    summary = json.loads(done.out)
    n = summary["overall"]["episodes"]
    k = round(summary["overall"]["success_rate"] * n)
    iv = summary["intervals"]["overall.success_rate"]
    ref = stats.binomtest(k, n).proportion_ci(method="wilson")
    assert (iv["low"], iv["high"]) == pytest.approx((ref.low, ref.high), abs=1e-4)
    text = planproof("evaluate", "teach").out
    assert f"SR {k / n:.1%} [{iv['low']:.1%}, {iv['high']:.1%}]" in text
    report = planproof("report", str(tmp_path / "teach"), "--output", str(tmp_path / "r.html"))
    assert report.code == 0, report.err
    page = (tmp_path / "r.html").read_text()
    assert f"[{100 * iv['low']:.1f}, {100 * iv['high']:.1f}]" in page


def test_partnr_success_and_executable_rate_intervals(tmp_path: Path) -> None:
    done = planproof("evaluate", "partnr", "--workers", "1", "--json")
    doc = json.loads(done.out)
    plans = doc["plans"]
    for key, field in (("success_rate", "success"), ("executable_rate", "executable")):
        k = sum(p[field] for p in plans)
        ref = stats.binomtest(k, len(plans)).proportion_ci(method="wilson")
        iv = doc["summary"]["intervals"][key]
        assert (iv["low"], iv["high"]) == pytest.approx((ref.low, ref.high), abs=1e-4)
    assert "95 % intervals: success_rate [" in planproof("evaluate", "partnr").out
