"""Two processes on one ``--output`` of ``evaluate teach``, ``housekeep`` and ``partnr``
(issue 30): like the EAI modules, each locks its output directory before any work (the
second is refused at once, naming the holder's pid) and replaces each file whole under a
per-process temporary name. Real processes on the bundled episodes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planproof.boundary import output_lock
from planproof.boundary.outputs import LOCK_NAME
from tests.runs.test_two_writers import race_two

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "planproof" / "examples"

COMMANDS: dict[str, tuple[tuple[str, ...], str]] = {
    "teach": (("evaluate", "teach"), "results.jsonl"),
    "housekeep": (
        ("evaluate", "housekeep", str(EXAMPLES / "housekeep" / "real_episodes.jsonl")),
        "episodes.jsonl",
    ),
    "partnr": (("evaluate", "partnr"), "results.jsonl"),
}
"""Each command, and the file holding its records."""


def _argv(name: str, out: Path) -> list[str]:
    command, _ = COMMANDS[name]
    return [sys.executable, "-m", "planproof.cli", *command, "--output", str(out), "--json"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _records(name: str, out: Path) -> list[dict[str, object]]:
    text = (out / COMMANDS[name][1]).read_text(encoding="utf-8")
    return [json.loads(x) for x in text.splitlines()]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_locked_output_is_refused_before_any_work(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with output_lock(out):
        done = subprocess.run(
            _argv(name, out), env=_env(), capture_output=True, text=True, check=False,
            timeout=300,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    doc = json.loads(done.stdout)
    assert doc["error"] == "busy"
    assert f"another planproof process (pid {os.getpid()}) is writing" in doc["message"]
    assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]  # nothing written


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_two_writers_at_once_leave_one_complete_result(name: str, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    first = subprocess.run(
        _argv(name, alone), env=_env(), capture_output=True, text=True, check=False,
        timeout=300,
    )  # fmt: skip
    assert first.returncode in (0, 1), first.stderr
    expected = _records(name, alone)
    out = tmp_path / "shared"
    race_two(_argv(name, out), _env(), ok=first.returncode)
    assert _records(name, out) == expected  # whole, parsable, the same records
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary == json.loads((alone / "summary.json").read_text(encoding="utf-8"))
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [LOCK_NAME, COMMANDS[name][1], "summary.json"]
    )  # no temporary file left behind


def test_a_write_that_fails_is_a_typed_error_and_leaves_no_temporary(tmp_path: Path) -> None:
    """A write that fails after the work (here a directory sits where a result file goes)
    is one error naming the directory (exit 2 in the CLI), not a traceback, and leaves no
    temporary file behind."""
    from planproof.boundary import InputError, replace_files

    out = tmp_path / "out"
    (out / "results.jsonl" / "x").mkdir(parents=True)
    with pytest.raises(InputError, match=f"cannot write results to {out}"):
        replace_files(out, {"summary.json": ("{}\n",), "results.jsonl": ("x\n",)})
    assert sorted(p.name for p in out.iterdir()) == ["results.jsonl", "summary.json"]
