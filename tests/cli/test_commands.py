"""The commands a researcher types, run as a shell runs them: ``planproof tasks`` (piped
into ``head``), progress bars only on a terminal, transition modeling on the gold by
default, ``--output DIR`` for the files a command writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, env, planproof, planproof_on_a_terminal

pytestmark = pytest.mark.data


def test_tasks_piped_into_head_ends_cleanly() -> None:
    tasks = f"{sys.executable} -m planproof.cli tasks --dataset virtualhome"
    cmd = f"set -o pipefail; {tasks} | head -n 5"
    proc = subprocess.run(
        ["bash", "-c", cmd], capture_output=True, text=True, env=env(), cwd=ROOT, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr
    assert "342 virtualhome tasks" in proc.stdout and len(proc.stdout.splitlines()) == 5


def test_tasks_lists_identifiers_names_and_goals_as_json() -> None:
    r = planproof("--json", "tasks", "--dataset", "virtualhome", "--limit", "2")
    rows = json.loads(r.out)
    assert r.code == 0 and [t["identifier"] for t in rows] == ["27_2", "417_1"]
    assert rows[0]["name"] == "Wash clothes" and "washing_machine.1001" in rows[0]["goal"]
    tm = planproof("tasks", "--dataset", "virtualhome", "--module", "transition-modeling",
                   "--json")  # fmt: skip
    assert 0 < len(json.loads(tm.out)) < 342  # only the tasks the module is evaluated on


def test_progress_is_drawn_on_a_terminal_and_not_in_a_pipe(tmp_path: Path) -> None:
    argv = ["evaluate", "goal-interpretation", "--dataset", "virtualhome", "--limit", "30",
            "--no-logic", "--output", str(tmp_path), "--json"]  # fmt: skip
    on_tty, terminal = planproof_on_a_terminal(*argv)
    assert on_tty.code == 0 and json.loads(on_tty.out)["tasks"] == 30
    assert "scoring 30 tasks" in terminal and "━" in terminal
    piped = planproof(*argv)
    assert piped.code == 0 and piped.err == "" and json.loads(piped.out)["tasks"] == 30


def test_transition_modeling_evaluates_the_gold_by_default(tmp_path: Path) -> None:
    r = planproof("evaluate", "transition-modeling", "--dataset", "virtualhome", "--limit", "2",
                  "--no-planner", "--output", str(tmp_path), "--json")  # fmt: skip
    s = json.loads(r.out)
    assert r.code == 0 and s["source"] == "gold operators" and s["tasks"] == 2
    assert s["overall"]["f1"] == 1.0
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(x["task_name"] for x in rows)
    assert (tmp_path / "summary.json").exists() and (tmp_path / "responses.jsonl").exists()


def test_prompts_output_is_a_directory(tmp_path: Path) -> None:
    r = planproof("prompts", "--module", "action-sequencing", "--dataset", "virtualhome",
                  "--limit", "2", "--output", str(tmp_path))  # fmt: skip
    written = tmp_path / "prompts-action-sequencing-virtualhome.jsonl"
    assert r.code == 0 and len(written.read_text().splitlines()) == 2
