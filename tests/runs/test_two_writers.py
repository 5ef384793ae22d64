"""Two processes on one output directory (issue 30): ``run`` and ``evaluate`` lock their
directory before any work, so the second is refused at once with the holder's pid and
pays for no call; files are replaced whole under per-process temporary names; a run asks
the cache again before each call, so an answer another process stored meanwhile is not
paid for twice. Real processes, a real SQLite file, a loopback stub provider."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planproof.boundary import InputError, output_lock
from planproof.boundary.outputs import LOCK_NAME, replace_lines
from planproof.interface.llm.stub import StubServer
from tests.runs.test_run_resume import SECRET, TASKS, _answer, _command, _prompts

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": str(ROOT)}


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def race_two(argv: list[str], env: dict[str, str], *, ok: int = 0) -> None:
    """Two processes of ``argv`` started at once on one output: each ends with ``ok``,
    or is the loser refused as busy (exit 2, one JSON error)."""
    procs = [
        subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes in ([ok, ok], sorted([ok, 2])), outs
    for p, (stdout, _) in zip(procs, outs, strict=True):
        if p.returncode == 2:
            assert json.loads(stdout)["error"] == "busy"


def test_a_run_on_a_locked_directory_is_refused_before_any_call(tmp_path: Path) -> None:
    with StubServer(_answer) as stub, output_lock(tmp_path / "run"):
        done = subprocess.run(
            _command(stub, tmp_path, "--json"), env=_env(), capture_output=True, check=False,
            timeout=300, text=True,
        )  # fmt: skip
        assert stub.requests == 0
    assert done.returncode == 2
    doc = json.loads(done.stdout)
    assert doc["error"] == "busy"
    assert f"another planproof process (pid {os.getpid()}) is writing" in doc["message"]
    assert not (tmp_path / "run" / "responses.jsonl").exists()


def test_two_runs_at_once_pay_each_call_once_and_leave_one_complete_run(tmp_path: Path) -> None:
    distinct = len(set(_prompts()))
    with StubServer(_answer, delay=0.2) as stub:
        race_two(_command(stub, tmp_path, "--json"), _env())
        assert stub.requests == distinct  # never both paying for a call
    run = tmp_path / "run"
    responses = _lines(run / "responses.jsonl")
    assert len(responses) == TASKS and len({r["identifier"] for r in responses}) == TASKS
    assert all(r["llm_output"] == _answer(str(r["prompt"])) for r in responses)
    results = _lines(run / "results.jsonl")
    assert [r["identifier"] for r in results] == [r["identifier"] for r in responses]
    assert sorted(p.name for p in run.iterdir()) == sorted(
        [LOCK_NAME, "responses.jsonl", "results.jsonl", "run.json", "summary.json"]
    )  # no temporary file left behind


def _evaluate(out: Path) -> list[str]:
    return [
        sys.executable, "-m", "planproof.cli", "evaluate", "action-sequencing", "--dataset",
        "virtualhome", "--gold", "--limit", "40", "--output", str(out), "--json",
    ]  # fmt: skip


def test_two_evaluates_on_one_output_leave_one_consistent_result(tmp_path: Path) -> None:
    out = tmp_path / "out"
    race_two(_evaluate(out), _env())
    results = _lines(out / "results.jsonl")
    assert len(results) == 40 and len({r["identifier"] for r in results}) == 40
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["module"] == "action-sequencing"
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_an_evaluate_on_a_locked_directory_names_the_holder(tmp_path: Path) -> None:
    with output_lock(tmp_path / "out"):
        done = subprocess.run(
            _evaluate(tmp_path / "out"), env=_env(), capture_output=True, check=False,
            timeout=300, text=True,
        )  # fmt: skip
    assert done.returncode == 2 and json.loads(done.stdout)["error"] == "busy"
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_the_lock_is_released_by_a_killed_holder(tmp_path: Path) -> None:
    """A holder killed by SIGKILL leaves the lock file but not the lock (flock)."""
    code = (
        "import os, sys\n"
        "from planproof.boundary import output_lock\n"
        f"with output_lock({str(tmp_path / 'out')!r}):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code], env=_env(), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    with pytest.raises(InputError, match=f"pid {holder.pid}"), output_lock(tmp_path / "out"):
        pass
    holder.kill()
    holder.wait(timeout=60)
    with output_lock(tmp_path / "out") as d:
        assert (d / LOCK_NAME).read_text() == f"{os.getpid()}\n"


def test_replace_lines_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "results.jsonl"
    target.write_text("old\n", encoding="utf-8")

    def rows() -> object:
        yield "new 1\n"
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        replace_lines(target, rows())  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.jsonl"]


def test_each_call_asks_the_cache_again(tmp_path: Path) -> None:
    """Another process (here a second connection to the same SQLite file) answering a
    request while this run is under way saves this run the call."""
    from planproof.interface.llm.cache import ResponseCache
    from planproof.interface.llm.types import Completion, Request, Usage
    from planproof.runs.runner import RunConfig, _call_all, _Silent, prompts_for

    config = RunConfig(
        "openai/x", "action-sequencing", "virtualhome", tmp_path / "run", limit=6,
        concurrency=1, cache_path=tmp_path / "c.sqlite3",
    )  # fmt: skip
    work = prompts_for(config)
    requests = {config.request(p).key(): config.request(p) for _, p in work}
    made: list[str] = []

    async def caller(request: Request, task: object) -> Completion:
        made.append(request.key())
        if len(made) == 1:  # meanwhile, the other process answers every other request
            with ResponseCache(tmp_path / "c.sqlite3") as other:
                for key, req in requests.items():
                    if key != request.key():
                        other.put(req, Completion("other", Usage(1, 1), 0.01, 1, 0.1))
        return Completion("mine", Usage(1, 1), 0.01, 1, 0.1)

    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        calls = asyncio.run(_call_all(config, work, cache, caller, _Silent()))
    assert len(made) == 1
    texts = sorted(c.completion.text for c in calls if c.completion is not None)
    assert texts.count("mine") >= 1 and len(texts) == len(work)
    assert all(c.completion is not None for c in calls)
