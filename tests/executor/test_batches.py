"""Episode batches through the executor: PARTNR and Housekeep give the same output on the
process pool as in this process, and ``map_batched`` keeps one outcome per item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planproof.cli import main
from planproof.commands import evaluate_housekeep, evaluate_partnr
from planproof.executor import Executor, Outcome, SerialExecutor, map_batched
from tests.executor import tasks


@given(st.lists(st.integers(-3, 50), max_size=20), st.integers(1, 7))
def test_batches_give_one_outcome_per_item_in_order(xs: list[int], size: int) -> None:
    done: list[int] = []
    got = map_batched(SerialExecutor(), tasks.square, xs, size=size, on_done=done.append)
    assert got == SerialExecutor().map(tasks.square, xs)
    assert done == sorted(done) and (done[-1:] == [len(xs)] if xs else not done)


def test_a_batch_whose_worker_dies_once_is_retried_whole(pool: Executor, tmp_path: Path) -> None:
    items = [(str(tmp_path / "m"), 5), (str(tmp_path / "m"), 6), (str(tmp_path / "n"), 7)]
    assert map_batched(pool, tasks.die_once, items, size=2) == [Outcome(5), Outcome(6), Outcome(7)]


def _cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    ("module", "argv"),
    [
        (evaluate_partnr, ["evaluate", "partnr", "--json"]),
        (evaluate_housekeep, ["evaluate", "housekeep", "--json"]),
    ],
    ids=["partnr", "housekeep"],
)
def test_episode_batches_on_the_pool_equal_the_serial_run(
    module: object,
    argv: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One plan per task (``BATCH`` = 1) so the bundled corpus really spreads over two
    worker processes; the printed JSON must be the same bytes."""
    monkeypatch.setattr(module, "BATCH", 1)
    serial = _cli_json([*argv, "--workers", "1"], capsys)
    pooled = _cli_json([*argv, "--workers", "2"], capsys)
    assert pooled == serial
    assert serial[0] in (0, 1)
    doc = json.loads(serial[1])
    records = doc.get("plans") or doc.get("episodes")
    assert isinstance(records, list) and len(records) > 1
