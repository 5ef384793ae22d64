"""Ray as the executor, on a real local Ray runtime (one per test session): a small
``reproduce eai`` sweep (one cell per module, planner calls included) gives the same bytes
as in this process, ``plan --executor ray`` the same plan, and a dying task is retried
once, as on the process pool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planproof.cli import main
from planproof.data import DataUnavailableError
from planproof.data.published import PublishedFile, published_files
from planproof.executor import MAX_ATTEMPTS, Executor, Outcome, SerialExecutor, TaskFailure
from planproof.runs.published_sweep import Cell, evaluate_cell, evaluate_job, merge_shards, shards
from tests.executor import tasks
from tests.helpers import needed_resource

# All Ray tests share one worker of a parallel run (tests/conftest.py): each worker
# that runs one starts a whole Ray runtime (GCS, raylet, agents, workers), and Ray gives
# its node 30 s of wall clock to come up; two runtimes starting at once on a loaded
# machine is what made these tests fail now and then.
pytestmark = pytest.mark.xdist_group("ray")

GPT4O = "gpt-4o-2024-05-13"
EXAMPLES = Path(__file__).resolve().parents[2] / "planproof" / "examples" / "pddl"


def _cells(tmp: Path) -> list[Cell]:
    """One published GPT-4o file per module, cut to a few answers (two for transition
    modeling, each with a Fast Downward call)."""
    files: list[PublishedFile] = needed_resource(
        published_files, DataUnavailableError, "published EAI outputs"
    )
    from planproof.pddl.eai import load_eai_pddl

    solved = set(load_eai_pddl("virtualhome").solved)
    cells = []
    for module, n in (
        ("goal-interpretation", 8),
        ("action-sequencing", 8),
        ("subgoal-decomposition", 6),
        ("transition-modeling", 2),
    ):
        f = next(x for x in files if x.module == module and x.model == GPT4O)
        rows = json.loads(f.path.read_text(encoding="utf-8"))
        if module == "transition-modeling":
            rows = [r for r in rows if r.get("identifier") in solved]
        path = tmp / f"{module}.json"
        path.write_text(json.dumps(rows[:n]), encoding="utf-8")
        cells.append(Cell(GPT4O, module, "virtualhome", str(path)))
    return cells


def _bytes(outcomes: list[Outcome[dict[str, Any]]]) -> bytes:
    """The results as the sweep caches them, less the one field that measures time."""
    docs = [{k: v for k, v in o.unwrap().items() if k != "seconds"} for o in outcomes]
    return json.dumps(docs, sort_keys=True).encode()


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_a_sweep_on_ray_equals_the_serial_run_byte_for_byte(
    ray_executor: Executor, tmp_path: Path
) -> None:
    cells = _cells(tmp_path)
    serial = SerialExecutor().map(evaluate_cell, cells)
    on_ray = ray_executor.map(evaluate_cell, cells)
    assert _bytes(on_ray) == _bytes(serial)
    tm = serial[-1].unwrap()
    assert tm["summary"]["tasks"] == 2 and any(t["planner_found"] for t in tm["tasks"])
    # subgoal decomposition as ``reproduce eai`` runs it: task slices on Ray, merged here
    sd = cells[2]
    parts = ray_executor.map(evaluate_job, shards([sd], 3))
    merged = merge_shards(sd, [p.unwrap()[0] for p in parts])
    assert _bytes([Outcome(merged)]) == _bytes([serial[2]])


def test_plan_on_ray_finds_the_same_plan(
    ray_executor: Executor, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--json",
        "plan",
        "--domain",
        str(EXAMPLES / "virtualhome.pddl"),
        "--problem",
        str(EXAMPLES / "browse_internet.pddl"),
    ]
    results = []
    for extra in (["--workers", "1"], ["--executor", "ray"]):
        assert main([*argv, *extra]) == 0
        doc = json.loads(capsys.readouterr().out)
        doc.pop("seconds")
        results.append(doc)
    assert results[0] == results[1] and results[0]["replay_valid"] is True


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


def test_ray_workers_and_this_process_share_the_planner_cache(
    ray_executor: Executor, tmp_path: Path
) -> None:
    """A verdict a Ray worker planned is read back here (and by the next worker) without
    a planner call: the cache is one SQLite file, shared by every process of the machine
    (of the cluster, when the cache directory is on a shared file system)."""
    job = (
        str(tmp_path / "plans.sqlite3"),
        str(EXAMPLES / "virtualhome.pddl"),
        str(EXAMPLES / "browse_internet.pddl"),
    )
    (first,) = ray_executor.map(tasks.plan_through_cache, [job])
    assert first == Outcome(("solved", False))
    assert tasks.plan_through_cache(job) == ("solved", True)
    assert ray_executor.map(tasks.plan_through_cache, [job]) == [Outcome(("solved", True))]
