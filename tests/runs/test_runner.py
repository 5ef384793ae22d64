"""The runner in-process: litellm's own offline mock facility as the provider, the built-in
agents, failed calls, the cache, and the command's bad-input exits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.cli import main
from planproof.interface.llm.cache import ResponseCache
from planproof.runs.runner import RunConfig, execute, prompts_for

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]

PLAN = '{"WALK": ["bathroom", "11"]}'


def _config(tmp: Path, **kw: object) -> RunConfig:
    base: dict[str, object] = {
        "model": "openai/gpt-4o-mini",
        "module": "action-sequencing",
        "dataset": "virtualhome",
        "out_dir": tmp / "run",
        "limit": 6,
        "concurrency": 3,
        "max_retries": 0,
        "cache_path": tmp / "cache.sqlite3",
        "client_extra": {"mock_response": PLAN},
    }
    base.update(kw)
    return RunConfig(**base)  # type: ignore[arg-type]


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_a_mocked_provider_run_writes_the_run_directory(tmp_path: Path) -> None:
    out = execute(_config(tmp_path))
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["calls"] == {"made": 6, "cached": 0, "failed": 0}
    assert run["tokens"]["prompt"] > 0 and run["tokens"]["completion"] > 0
    # litellm knows gpt-4o-mini's price from its bundled map: a real number, not a guess
    assert run["cost_usd"] is not None and run["cost_usd"] > 0
    responses = _lines(tmp_path / "run" / "responses.jsonl")
    results = _lines(tmp_path / "run" / "results.jsonl")
    work = prompts_for(_config(tmp_path))
    assert [r["identifier"] for r in responses] == [t.identifier for t, _ in work]
    assert [r["prompt"] for r in responses] == [p for _, p in work]
    assert all(r["llm_output"] == PLAN and r["error"] is None for r in responses)
    assert [r["identifier"] for r in results] == [r["identifier"] for r in responses]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["tasks_scored"] == 6 and summary["call_errors"] == []
    assert summary["model"] == "openai/gpt-4o-mini"
    assert len(out.evaluation.results) == 6
    with ResponseCache(tmp_path / "cache.sqlite3") as cache:
        assert len(cache) == 6


def test_a_second_run_is_answered_from_the_cache_and_other_params_are_not(
    tmp_path: Path,
) -> None:
    execute(_config(tmp_path))
    again = execute(_config(tmp_path, client_extra={"mock_response": "something else"}))
    assert again.info["calls"] == {"made": 0, "cached": 6, "failed": 0}
    assert all(c.completion is not None and c.completion.text == PLAN for c in again.calls)
    hotter = execute(_config(tmp_path, temperature=0.7, out_dir=tmp_path / "hot"))
    assert hotter.info["calls"]["made"] == 6
    # a larger limit reuses the first answers: prompts do not depend on the limit
    more = execute(_config(tmp_path, limit=9))
    assert more.info["calls"]["cached"] >= 6 and more.info["calls"]["failed"] == 0
    assert (
        sum(not c.completion.cached for c in more.calls if c.completion)
        == more.info["calls"]["made"]
    )
    assert [c.completion.text for c in more.calls if c.completion] == [PLAN] * 9


def test_failed_calls_are_reported_not_scored_and_not_cached(tmp_path: Path) -> None:
    out = execute(_config(tmp_path, client_extra={"mock_response": "litellm.RateLimitError"}))
    assert out.info["calls"] == {"made": 0, "cached": 0, "failed": 6}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["tasks_scored"] == 0
    assert {e["kind"] for e in summary["call_errors"]} == {"rate-limit"}
    responses = _lines(tmp_path / "run" / "responses.jsonl")
    assert all(r["llm_output"] is None and r["error"]["kind"] == "rate-limit" for r in responses)
    with ResponseCache(tmp_path / "cache.sqlite3") as cache:
        assert len(cache) == 0


def test_unparsable_answers_are_parsing_errors(tmp_path: Path) -> None:
    out = execute(_config(tmp_path, client_extra={"mock_response": "```json\n{{{{\n```"}))
    summary = out.evaluation.summary
    assert summary["trajectory_evaluation"]["grammar_error"]["parsing"] == 100.0
    assert all(r["error_type"] == "parsing" for r in out.evaluation.results)


def test_the_gold_agent_scores_like_evaluate_gold(tmp_path: Path) -> None:
    out = execute(_config(tmp_path, model="gold", limit=20, concurrency=1, client_extra={}))
    assert out.info["calls"]["failed"] == 0
    assert out.info["cost_usd"] == 0
    assert (
        main(
            [
                "evaluate",
                "action-sequencing",
                "--dataset",
                "virtualhome",
                "--gold",
                "--limit",
                "20",
                "--output",
                str(tmp_path / "eval"),
                "--json",
            ]
        )
        == 0
    )
    expected = _lines(tmp_path / "eval" / "results.jsonl")
    assert _lines(out.out_dir / "results.jsonl") == expected
    assert all(r["task_name"] and r["task_goal"] for r in expected)


@pytest.mark.parametrize("module", ["goal-interpretation", "transition-modeling"])
def test_the_planner_answers_other_modules(tmp_path: Path, module: str) -> None:
    out = execute(_config(tmp_path, model="planner", module=module, limit=3, client_extra={}))
    assert out.info["calls"] == {"made": 3, "cached": 0, "failed": 0}
    s = out.evaluation.summary
    if module == "goal-interpretation":
        assert s["goal_evaluation"]["overall"]["f1"] == 100.0
    else:
        assert s["overall"]["f1"] == 1.0


def test_missing_key_is_one_clear_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = main(
        [
            "run",
            "--model",
            "openai/gpt-4o-mini",
            "--module",
            "action-sequencing",
            "--dataset",
            "virtualhome",
            "--limit",
            "2",
            "--output",
            str(tmp_path / "r"),
            "--cache",
            str(tmp_path / "c.sqlite3"),
        ]
    )
    assert code == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "args",
    [["--concurrency", "0"], ["--timeout", "0"], ["--limit", "-1"]],
)
def test_bad_arguments_exit_2(tmp_path: Path, args: list[str]) -> None:
    code = main(
        [
            "run",
            "--model",
            "planner",
            "--module",
            "action-sequencing",
            "--dataset",
            "virtualhome",
            "--output",
            str(tmp_path / "r"),
            *args,
        ]
    )
    assert code == 2


def test_demo_writes_results_and_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "demo",
            "--limit",
            "8",
            "--concurrency",
            "1",
            "--output",
            str(tmp_path / "demo"),
            "--cache",
            str(tmp_path / "c.sqlite3"),
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["run"]["model"] == "planner"
    assert out["summary"]["goal_evaluation"]["task_success_rate"] == 100.0
    html = (tmp_path / "demo" / "report.html").read_text(encoding="utf-8")
    assert "planner" in html and html.count("<details") >= 8


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:sk-secret@localhost:8000/v1", "http://***@localhost:8000/v1"),
        ("https://sk-secret@example.invalid/v1", "https://***@example.invalid/v1"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
        (None, None),
    ],
)
def test_run_json_never_keeps_credentials_of_the_api_base(
    url: str | None, shown: str | None
) -> None:
    from planproof.runs.runner import _without_credentials

    assert _without_credentials(url) == shown
