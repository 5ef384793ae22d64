"""The in-process executor and the local process pool: same outcomes, a dying worker
retried once, task exceptions reported (not retried), options checked."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.executor import (
    MAX_ATTEMPTS,
    Executor,
    ExecutorConfig,
    ExecutorError,
    Outcome,
    SerialExecutor,
    TaskFailure,
    open_executor,
)
from planproof.executor.local import LocalExecutor
from tests.executor import tasks


def _expected(x: int) -> Outcome[int]:
    if x < 0:
        return Outcome(failure=TaskFailure("refused", f"negative: {x}"))
    return Outcome(x * x)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(-5, 1000), max_size=12))
def test_the_pool_gives_the_serial_outcomes_in_item_order(pool: Executor, xs: list[int]) -> None:
    seen: list[int] = []
    got = pool.map(tasks.square, xs, on_done=lambda i, _: seen.append(i))
    assert got == SerialExecutor().map(tasks.square, xs) == [_expected(x) for x in xs]
    assert sorted(seen) == list(range(len(xs)))


def test_a_task_whose_worker_dies_once_is_retried(pool: Executor, tmp_path: Path) -> None:
    args = [(str(tmp_path / f"m{i}"), i) for i in range(3)]
    assert pool.map(tasks.die_once, args) == [Outcome(0), Outcome(1), Outcome(2)]
    assert all((tmp_path / f"m{i}").exists() for i in range(3))


def test_a_task_that_always_kills_its_worker_fails_and_the_others_finish(
    pool: Executor,
) -> None:
    got = pool.map(tasks.die_always, [0])
    assert got[0].failure is not None
    assert got[0].failure.kind == "worker-died" and got[0].failure.attempts == MAX_ATTEMPTS
    mixed = pool.map(tasks.square, [1, 2, 3])
    assert [o.value for o in mixed] == [1, 4, 9]


def test_a_task_exception_is_reported_not_retried(pool: Executor, tmp_path: Path) -> None:
    log = tmp_path / "runs.txt"
    (out,) = pool.map(tasks.count_attempts, [str(log)])
    assert out.failure == TaskFailure("ValueError", "deterministic failure")
    assert log.read_text(encoding="utf-8").count("run") == 1
    with pytest.raises(RuntimeError, match="deterministic failure"):
        out.unwrap()


def test_one_worker_or_one_task_runs_in_this_process() -> None:
    assert isinstance(open_executor(ExecutorConfig("local", workers=1)), SerialExecutor)
    assert isinstance(open_executor(ExecutorConfig("local", workers=4), tasks=1), SerialExecutor)
    with open_executor(ExecutorConfig("local", workers=2), tasks=10) as ex:
        assert isinstance(ex, LocalExecutor) and ex.workers == 2


@pytest.mark.parametrize(
    ("kind", "workers", "address", "message"),
    [
        ("local", 0, None, "at least 1"),
        ("local", None, "127.0.0.1:6379", "needs --executor ray"),
        ("dask", None, None, "unknown executor"),
    ],
)
def test_bad_configurations_are_typed_errors(
    kind: str, workers: int | None, address: str | None, message: str
) -> None:
    with pytest.raises(ExecutorError, match=message):
        ExecutorConfig(kind, workers, address)


def test_the_cli_rejects_bad_executor_options(capsys: pytest.CaptureFixture[str]) -> None:
    from planproof.cli import main

    argv = ["evaluate", "transition-modeling", "--dataset", "virtualhome", "--gold"]
    with contextlib.suppress(SystemExit):  # argparse's own check exits, ours returns 2
        assert main([*argv, "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "planproof: error:" in err and "--workers" in err
    assert main([*argv, "--ray-address", "10.0.0.1:6379"]) == 2
    assert "needs --executor ray" in capsys.readouterr().err
