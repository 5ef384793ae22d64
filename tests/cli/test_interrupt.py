"""Ctrl-C by a real SIGINT to a real ``planproof`` process: the first one stops the
command, exit status 130, one clean line on stderr, and what was finished is kept.

No wall-clock verdicts: the signal is sent once the child has spent a given amount of
*CPU time* (so it is inside the work, however loaded the machine), and the checks are
on the exit status and the output, not on how long the exit took."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.helpers import env

CLEAN = "planproof: error: interrupted\n"


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "planproof.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=cwd,
        start_new_session=True,  # its own process group, as a shell job has
    )


def _wait_for(proc: subprocess.Popen[str], ready: object, what: str) -> None:
    deadline = time.monotonic() + 600  # a guard against a hang, not a verdict
    while not ready():  # type: ignore[operator]
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"finished before {what}: {proc.returncode}\n{out}\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"never reached {what}")
        time.sleep(0.05)


def _pigeonhole(holes: int) -> str:
    """holes+1 pigeons in ``holes`` holes: unsatisfiable, and hard for a SAT solver."""
    pigeons = range(holes + 1)
    parts = ["(" + " or ".join(f"in(p{i}, h{j})" for j in range(holes)) + ")" for i in pigeons]
    parts += [
        f"(not in(p{i}, h{j}) or not in(p{k}, h{j}))"
        for j in range(holes)
        for i in pigeons
        for k in pigeons
        if i < k
    ]
    return " and ".join(parts)


def test_ctrl_c_while_z3_solves_stops_the_command(tmp_path: Path) -> None:
    """Z3 catches SIGINT itself while it solves and answers ``unknown``: the first Ctrl-C
    was swallowed (and read as "solver time limit", exit 3)."""
    formula = tmp_path / "php.ltl"
    formula.write_text(_pigeonhole(11))
    proc = _start(["ltl", "sat", "--file", str(formula), "--timeout", "3600", "x"], tmp_path)
    # start-up and encoding take well under a CPU second; the solver then runs for minutes
    _wait_for(proc, lambda: _cpu_seconds(proc.pid) >= 3.0, "3 CPU seconds")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert err == CLEAN
    assert out == ""


def _rows(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path) as db:
            return int(db.execute("select count(*) from responses").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_ctrl_c_to_the_process_group_stops_a_pool_run_and_keeps_the_answers(
    tmp_path: Path,
) -> None:
    """What a terminal does: SIGINT to every process of the job (parent and workers).
    Workers used to print a traceback each (or z3's ``Context.__del__ ... 'owner'``)."""
    cache = tmp_path / "cache.sqlite3"
    argv = [
        "demo",
        "--module",
        "subgoal-decomposition",
        "--dataset",
        "virtualhome",
        "--concurrency",
        "2",
        "--cache",
        str(cache),
        "--output",
        str(tmp_path / "run"),
    ]
    proc = _start(argv, tmp_path)
    _wait_for(proc, lambda: _rows(cache) >= 2, "two cached answers")
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.endswith(CLEAN) or "resume" in err, err
    kept = _rows(cache)
    assert kept >= 2
    assert not (tmp_path / "run" / "summary.json").exists()
