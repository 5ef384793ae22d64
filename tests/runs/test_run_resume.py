"""``planproof run`` against a real provider path (litellm → openai SDK → HTTP) served by a
loopback stub: kill -9 and Ctrl-C mid-run, then resume; the stub counts every request."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planproof.interface.llm.stub import StubServer

pytestmark = [pytest.mark.data, pytest.mark.usefixtures("eai_wheel")]

TASKS = 10
SECRET = "sk-planproof-test-0123456789abcdefSECRET"


def _answer(prompt: str) -> str:
    """A plausible VirtualHome answer: walk to the first room of the task's object list."""
    return '{"WALK": ["bathroom", "11"]}' if "bathroom" in prompt else "I cannot do that."


def _command(stub: StubServer, tmp: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "planproof.cli",
        "run",
        "--model",
        "openai/stub-model",
        "--api-base",
        stub.url,
        "--module",
        "action-sequencing",
        "--dataset",
        "virtualhome",
        "--limit",
        str(TASKS),
        "--concurrency",
        "2",
        "--max-retries",
        "0",
        "--cache",
        str(tmp / "cache.sqlite3"),
        "--output",
        str(tmp / "run"),
        *extra,
    ]


def _prompts() -> list[str]:
    from planproof.runs.runner import RunConfig, prompts_for

    cfg = RunConfig("x", "action-sequencing", "virtualhome", Path("unused"), limit=TASKS)
    return [p for _, p in prompts_for(cfg)]


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": SECRET}


def _rows(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        try:
            return int(db.execute("select count(*) from responses").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def _wait_rows(path: Path, n: int, proc: subprocess.Popen[bytes], limit: float = 120) -> None:
    end = time.monotonic() + limit
    while _rows(path) < n:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < end, "the run never cached enough answers"
        time.sleep(0.05)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_interrupted_run_resumes_with_exactly_the_missing_calls(
    tmp_path: Path, how: signal.Signals
) -> None:
    cache = tmp_path / "cache.sqlite3"
    distinct = len(set(_prompts()))  # identical prompts share one call
    with StubServer(_answer, delay=0.3) as stub:
        proc = subprocess.Popen(
            _command(stub, tmp_path), env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        _wait_rows(cache, 3, proc)
        proc.send_signal(how)
        _, err = proc.communicate(timeout=60)
        if how == signal.SIGINT:
            assert proc.returncode == 130, err.decode()
            assert b"resume" in err
        else:
            assert proc.returncode == -signal.SIGKILL
        finished = _rows(cache)
        first = stub.requests
        assert 3 <= finished < distinct
        assert not (tmp_path / "run" / "summary.json").exists()

        done = subprocess.run(
            _command(stub, tmp_path, "--json"),
            env=_env(),
            capture_output=True,
            check=False,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr.decode()
        # exactly the calls that had not finished, each once
        assert stub.requests - first == distinct - finished
    out = json.loads(done.stdout)
    made = distinct - finished
    assert out["run"]["calls"] == {"made": made, "cached": TASKS - made, "failed": 0}
    responses = [
        json.loads(line) for line in (tmp_path / "run" / "responses.jsonl").read_text().splitlines()
    ]
    assert len(responses) == TASKS
    assert sum(r["cached"] for r in responses) == TASKS - made
    assert all(r["llm_output"] == _answer(r["prompt"]) for r in responses)
    assert _rows(cache) == distinct
    results = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    assert [json.loads(x)["identifier"] for x in results] == [r["identifier"] for r in responses]


def test_the_api_key_reaches_no_file_and_no_output(tmp_path: Path) -> None:
    with StubServer(_answer, api_key=SECRET) as stub:
        done = subprocess.run(
            [*_command(stub, tmp_path), "--limit", "3"],
            env=_env(),
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert stub.answered == 3  # the key was sent to the provider, and only there
    seen = done.stdout + done.stderr
    for path in tmp_path.rglob("*"):
        if path.is_file():
            seen += path.read_bytes()
    assert SECRET.encode() not in seen
    assert SECRET[-12:].encode() not in seen


def test_failed_calls_are_listed_and_only_they_are_retried(tmp_path: Path) -> None:
    # the provider refuses a third of the prompts, always the same ones
    def refused(prompt: str) -> bool:
        return hashlib.sha256(prompt.encode()).digest()[0] % 3 == 0

    def picky(prompt: str) -> str:
        if refused(prompt):
            raise ValueError("refused")
        return _answer(prompt)

    prompts = _prompts()
    failing_tasks = sum(map(refused, prompts))
    failing_calls = len({p for p in prompts if refused(p)})
    assert 0 < failing_tasks < TASKS  # the data makes this a real mix

    with StubServer(picky) as stub:
        first = subprocess.run(
            _command(stub, tmp_path, "--json"), env=_env(), capture_output=True, check=False
        )
        assert first.returncode == 1, first.stderr.decode()
        out = json.loads(first.stdout)
        failed = out["run"]["calls"]["failed"]
        assert failed == failing_tasks
        errors = out["summary"]["call_errors"]
        assert len(errors) == failed and all(e["message"] for e in errors)
        assert out["summary"]["tasks_scored"] == TASKS - failed
        before = stub.requests
        again = subprocess.run(
            _command(stub, tmp_path, "--json"), env=_env(), capture_output=True, check=False
        )
        assert again.returncode == 1
        assert stub.requests - before == failing_calls
