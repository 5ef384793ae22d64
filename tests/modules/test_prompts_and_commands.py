"""Prompts for every module and dataset, and the three commands end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.cli import main
from planproof.commands import evaluate_goal_interpretation as gi_cmd
from planproof.commands import evaluate_subgoal_decomposition as sd_cmd
from planproof.commands import prompts as prompts_cmd
from planproof.interface.prompts import MODULES, build_prompts
from planproof.ltl.printer import to_text
from planproof.simulators.core import Task


@pytest.mark.parametrize("module", MODULES)
def test_prompts_cover_every_task(
    module: str, vh_tasks: tuple[Task, ...], behavior_tasks: tuple[Task, ...]
) -> None:
    for tasks in (vh_tasks[:30], behavior_tasks[:10]):
        prompts = build_prompts(tasks, module)
        assert [p.identifier for p in prompts] == [t.identifier for t in tasks]
        for t, p in zip(tasks, prompts, strict=True):
            assert p.module == module and p.dataset == t.dataset
            if module == "transition-modeling":
                _check_tm_prompt(t, p.prompt)
                continue
            task_part = p.prompt.split("Now the task.")[-1]
            assert all(o in task_part for o in t.world.universe.names)
            if module == "goal-interpretation":
                assert t.description.strip() in task_part
            else:
                assert to_text(t.goal) in task_part
            assert p.schema["type"] in ("object", "array")
            json.dumps(p.to_dict())


def _check_tm_prompt(task: Task, prompt: str) -> None:
    """The TM prompt is scored against the EAI gold operators, so it must show the EAI
    problem and ask for exactly the task's EAI actions with their gold parameters."""
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl(task.dataset)
    problem = data.problem_texts.get(task.identifier)
    if problem is None:  # 4 VirtualHome tasks have no PDDL problem (and no TM gold)
        return
    assert problem.strip() in prompt
    asked = prompt.split("Actions to complete:")[1]
    for name in data.task_actions[task.identifier]:
        assert f"(:action {name}\n  :parameters {data.gold_operators[name].parameters}" in asked
    assert asked.count("(:action ") == len(data.task_actions[task.identifier])


def test_unknown_module() -> None:
    with pytest.raises(ValueError, match="module must be one of"):
        build_prompts((), "planning")


COMMAND = {
    prompts_cmd: ["prompts"],
    gi_cmd: ["evaluate", "goal-interpretation"],
    sd_cmd: ["evaluate", "subgoal-decomposition"],
}


def _main(mod: object, argv: list[str]) -> int:
    """The real command line (``planproof.cli.main``) for the command module ``mod``."""
    return main([*COMMAND[mod], *argv])


def test_prompts_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "p.jsonl"
    argv = ["--module", "action-sequencing", "--dataset", "virtualhome", "--limit", "3"]
    assert _main(prompts_cmd, [*argv, "--output", str(out), "--json"]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    assert set(json.loads(lines[0])) >= {"identifier", "prompt", "output_schema"}
    assert json.loads(capsys.readouterr().out)["prompts"] == 3


def test_goal_interpretation_command(
    tmp_path: Path, wash: Task, capsys: pytest.CaptureFixture[str]
) -> None:
    wm = "washing_machine.1001"
    responses = [
        {"identifier": "27_2", "llm_output": f"closed({wm}) and on({wm}) and open({wm})"},
        {"identifier": "417_1", "llm_output": "no idea"},
        {"identifier": "nope", "llm_output": "on(tv.1)"},
    ]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(responses))
    argv = ["--dataset", "virtualhome", "--responses", str(path), "--output", str(tmp_path)]
    assert _main(gi_cmd, [*argv, "--json", "--limit", "5"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["tasks"] == 2 and summary["unknown_identifiers"] == ["nope"]
    assert summary["grammar"]["unparsable_responses"] == 1
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    first = next(r for r in rows if r["identifier"] == "27_2")
    assert first["counts"]["state"]["tp"] == 2 and first["counts"]["state"]["fp"] == 1
    assert first["logic"]["satisfiable"] is False
    bad = ["--dataset", "virtualhome", "--responses", str(tmp_path / "missing.json")]
    assert _main(gi_cmd, [*bad, "--json"]) == 2


def test_gold_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for mod, key in ((gi_cmd, "goal_evaluation"), (sd_cmd, "trajectory_evaluation")):
        out = tmp_path / key
        argv = ["--dataset", "behavior", "--gold", "--limit", "2", "--output", str(out)]
        assert _main(mod, [*argv, "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["tasks"] == 2
        if mod is gi_cmd:
            assert summary[key]["overall"]["f1"] == 100.0
        else:
            assert summary[key]["execution_success_rate"] == 100.0
        assert (out / "summary.json").exists()
    table = ["--dataset", "virtualhome", "--limit", "2", "--no-logic", "--output", str(tmp_path)]
    assert _main(gi_cmd, table) == 0  # the rich table
    assert "results:" in capsys.readouterr().out
