"""Output on a pipe or a file: tables are not squashed to 80 columns, and a reader that
closes the pipe early (``| head -1``) ends the command with status 0 and a quiet stderr
(one rule for every command: planproof.commands.console)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, env, planproof_into_closed_pipe


def _piped(*argv: str) -> subprocess.CompletedProcess[str]:
    """``planproof ARGV > file`` with no COLUMNS (what a script or CI log sees)."""
    child_env = {k: v for k, v in env().items() if k != "COLUMNS"}
    return subprocess.run(
        [sys.executable, "-m", "planproof.cli", *argv],
        capture_output=True,
        text=True,
        env=child_env,
        check=False,
    )


def test_evaluate_teach_table_is_not_squashed_on_a_pipe() -> None:
    done = _piped("evaluate", "teach")
    assert done.returncode == 0, done.stderr
    assert "demo-apples-in-one-bowl" in done.stdout  # a whole cell, not "demo-apples-i…"
    assert "Put All X In One Y" in done.stdout


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_tasks_table_keeps_whole_atoms_on_a_pipe() -> None:
    done = _piped("tasks", "--dataset", "virtualhome", "--limit", "3")
    assert done.returncode == 0, done.stderr
    assert "plugged_in(washing_machine.1001)" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) > 80


@pytest.mark.parametrize(
    "argv",
    [("evaluate", "teach"), ("evaluate", "teach", "--json"), ("ltl", "parse", "on(a.1)")],
    ids=["teach", "teach-json", "ltl-parse"],
)
def test_a_closed_pipe_is_a_quiet_success(argv: tuple[str, ...]) -> None:
    done = planproof_into_closed_pipe(*argv)
    assert done.code == 0, done.err
    assert done.err == ""


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_a_closed_pipe_after_a_rich_table_is_a_quiet_success() -> None:
    done = planproof_into_closed_pipe("tasks", "--dataset", "virtualhome", "--limit", "3")
    assert done.code == 0, done.err
    assert done.err == ""


def test_every_stdout_console_goes_through_the_one_helper() -> None:
    """A ``rich.console.Console(...)`` made elsewhere would bring back both bugs (rich
    exits 1 on a closed pipe; 80 columns on a pipe); a stderr console is allowed."""
    offenders = []
    for path in sorted((ROOT / "planproof").rglob("*.py")):
        if path.name == "console.py" and path.parent.name == "commands":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Console"
                and not any(k.arg == "stderr" for k in node.keywords)
            ):
                offenders.append(f"{Path(path).relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
