"""``planproof compare``: two published models (the EAI paper's own answers) scored by
``evaluate`` and compared task by task; the p-values are scipy's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from planproof.cli import main
from planproof.data.cache import DataUnavailableError
from planproof.data.published import published_files
from tests.helpers import needed_resource

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]

MODELS = ("gpt-4o-2024-05-13", "claude-3-opus-20240229")


def _evaluate(module: str, model: str, out: Path) -> list[dict[str, object]]:
    files = needed_resource(
        lambda: published_files(module, "virtualhome"), DataUnavailableError, "published"
    )
    path = next(f.path for f in files if f.model == model)
    argv = ["evaluate", module, "--dataset", "virtualhome", "--responses", str(path)]
    assert main([*argv, "--output", str(out), "--json"]) == 0
    return [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]


def test_mcnemar_on_two_published_models_is_scipys_binomial_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _evaluate("action-sequencing", MODELS[0], tmp_path / "a")
    b = _evaluate("action-sequencing", MODELS[1], tmp_path / "b")
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    sa = {r["identifier"]: r["success"] for r in a}
    sb = {r["identifier"]: r["success"] for r in b}
    shared = sorted(set(sa) & set(sb))
    only_a = sum(sa[i] and not sb[i] for i in shared)
    only_b = sum(sb[i] and not sa[i] for i in shared)
    test = doc["tests"]["success"]
    assert (test["n"], test["a_only"], test["b_only"]) == (len(shared), only_a, only_b)
    assert only_a + only_b > 0
    ref = stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
    assert test["p_value"] == pytest.approx(ref, rel=1e-9)
    # the text form says the same
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert f"McNemar exact p = {ref:.3g}" in capsys.readouterr().out


def test_paired_bootstrap_of_goal_interpretation_f1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _evaluate("goal-interpretation", MODELS[0], tmp_path / "a")
    _evaluate("goal-interpretation", MODELS[1], tmp_path / "b")
    capsys.readouterr()
    argv = ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json", "--resamples", "500"]
    assert main(argv) == 0
    test = json.loads(capsys.readouterr().out)["tests"]["f1"]
    assert test["test"] == "paired-bootstrap" and test["resamples"] == 500
    assert test["interval"]["low"] <= test["difference"] <= test["interval"]["high"]
    assert test["mean_a"] == pytest.approx(sum(r["f1"] for r in a) / len(a))  # type: ignore[misc]
    # the same seed, the same answer
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["tests"]["f1"] == test


def test_different_modules_are_refused(tmp_path: Path) -> None:
    _evaluate("action-sequencing", MODELS[0], tmp_path / "a")
    _evaluate("goal-interpretation", MODELS[0], tmp_path / "b")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
