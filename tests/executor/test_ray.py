"""Ray as the executor, on a real local Ray runtime (one per test session): the same bytes
as the in-process run on a small transition-modeling sweep with real planner calls, and
the same failure handling as the process pool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.executor import MAX_ATTEMPTS, Executor, Outcome, SerialExecutor, TaskFailure
from planproof.metrics.transition_modeling.evaluate import evaluate_responses
from planproof.pddl.eai import load_eai_pddl
from tests.executor import tasks


def _results_bytes(report_tasks: object) -> bytes:
    """The results file as ``evaluate transition-modeling --out`` writes it, less the one
    field that measures time."""
    lines = []
    for t in report_tasks:  # type: ignore[attr-defined]
        d = t.to_dict()
        d.pop("planning_seconds")
        lines.append(json.dumps(d, sort_keys=True))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_a_sweep_on_ray_equals_the_local_runs_byte_for_byte(ray_executor: Executor) -> None:
    vh = load_eai_pddl("virtualhome")
    ident = "384_1"
    wrong = vh.gold_response(ident).replace("(plugged_in ?obj)", "")
    responses = [
        {"identifier": ident, "llm_output": wrong},  # plans, fails under gold
        {"identifier": vh.solved[0], "llm_output": vh.gold_response(vh.solved[0])},
        {"identifier": vh.solved[1], "llm_output": "I cannot help with that."},
        {"identifier": "no-such-task", "llm_output": "(:action x)"},  # skipped
    ]
    serial = evaluate_responses(vh, responses, executor=SerialExecutor())
    on_ray = evaluate_responses(vh, responses, executor=ray_executor)
    assert serial.skipped == on_ray.skipped == ("no-such-task",)
    assert [t.planner_found for t in serial.tasks] == [True, True, False]
    assert _results_bytes(on_ray.tasks) == _results_bytes(serial.tasks)
    assert json.dumps(on_ray.summary(), sort_keys=True) == json.dumps(
        serial.summary(), sort_keys=True
    )


def test_ray_retries_a_dying_task_once_and_keeps_the_finished_ones(
    ray_executor: Executor, tmp_path: Path
) -> None:
    got = ray_executor.map(tasks.die_once, [(str(tmp_path / "a"), 7), (str(tmp_path / "b"), 8)])
    assert got == [Outcome(7), Outcome(8)]
    mixed = ray_executor.map(tasks.die_always, [0])
    assert mixed[0].failure is not None
    assert mixed[0].failure.kind == "worker-died"
    assert mixed[0].failure.attempts == MAX_ATTEMPTS
    log = tmp_path / "runs.txt"
    rest = ray_executor.map(tasks.count_attempts, [str(log)])
    assert rest[0].failure == TaskFailure("ValueError", "deterministic failure")
    assert log.read_text(encoding="utf-8").count("run") == 1
    xs = [3, -1, 0]
    assert ray_executor.map(tasks.square, xs) == SerialExecutor().map(tasks.square, xs)
