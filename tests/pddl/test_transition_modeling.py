"""The transition-modeling evaluation and its command."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from planproof.cli import main
from planproof.metrics.transition_modeling.evaluate import evaluate_responses, evaluate_task
from planproof.pddl.eai import EaiPddl
from tests.pddl.conftest import sample

pytestmark = pytest.mark.data


def test_gold_scores_one_on_every_task_without_planner(vh: EaiPddl, bh: EaiPddl) -> None:
    """Gold against gold: F1 = 1.0 overall, per category, per operator, on all tasks."""
    for data in (vh, bh):
        responses = [{"identifier": i, "llm_output": data.gold_response(i)} for i in data.solved]
        s = evaluate_responses(data, responses, run_planner=False).summary()
        assert s["tasks"] == len(data.solved) and s["format_errors"] == 0
        assert s["overall"]["f1"] == 1.0 and s["overall"]["tp"] > 0
        assert all(v["f1"] == 1.0 for v in s["by_category"].values())
        assert all(v["f1"] == 1.0 for v in s["by_operator"].values())
        assert s["issues"] == {}


def test_gold_operators_plan_and_validate(vh: EaiPddl) -> None:
    ids = sample(vh.solved, 4)
    responses = [{"identifier": i, "llm_output": vh.gold_response(i)} for i in ids]
    s = evaluate_responses(vh, responses, timeout=60).summary()
    assert s["planner_found"] == 1.0 and s["plan_valid_under_gold"] == 1.0


def test_a_wrong_model_plans_but_fails_under_gold(vh: EaiPddl) -> None:
    """A model whose switch_on forgets that the device must be plugged in lets the planner
    skip plug_in: the plan is found, and it is invalid under the gold operators."""
    ident = "384_1"
    assert "switch_on" in vh.task_actions[ident]
    gold = vh.gold_response(ident)
    wrong = gold.replace("(plugged_in ?obj)", "")
    res = evaluate_task(vh, ident, wrong, timeout=60)
    assert res.planner_found and not res.plan_valid_under_gold
    assert "plugged_in(computer)" in res.gold_failure
    pre = next(s for s in res.scores if s.name == "switch_on" and s.part == "precondition")
    assert (pre.tp, pre.fp, pre.fn) == (3, 0, 1)


def test_format_errors_hallucinations_and_issues(vh: EaiPddl) -> None:
    ident = "384_1"
    res = evaluate_task(vh, ident, "I cannot help with that.", run_planner=False)
    assert res.format_error and set(res.missing) == set(vh.task_actions[ident])
    answer = (
        "(:action teleport :parameters (?char - character) :precondition () :effect ())\n"
        "(:action grab :parameters (?char - character ?obj - object) "
        ":precondition (and (next_to ?char ?obj) (not (next_to ?char ?obj))) "
        ":effect (holds_rh ?char ?obj))"
    )
    res = evaluate_task(vh, ident, answer, timeout=30)
    assert res.hallucinated == ("teleport",)
    assert {i.kind for i in res.issues} == {"unsatisfiable-precondition"}
    assert not res.planner_found


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["evaluate", "transition-modeling", *argv])
    return code, out.getvalue()


def test_command(vh: EaiPddl, tmp_path: Path) -> None:
    ids = sample(vh.solved, 2)
    resp = tmp_path / "r.jsonl"
    resp.write_text(
        "\n".join(json.dumps({"identifier": i, "llm_output": vh.gold_response(i)}) for i in ids)
    )
    out = tmp_path / "tm"
    code, text = _run(
        ["--dataset", "virtualhome", "--responses", str(resp), "--output", str(out), "--json"]
    )
    assert code == 0
    s = json.loads(text)
    assert s["tasks"] == 2 and s["overall"]["f1"] == 1.0 and s["plan_valid_under_gold"] == 1.0
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
    bad = tmp_path / "bad.json"
    bad.write_text('[{"llm_output": "x"}]')
    code, text = _run(["--dataset", "virtualhome", "--responses", str(bad), "--json"])
    assert code == 2 and "identifier" in json.loads(text)["message"]


def test_an_answer_with_a_thousand_parameters_fails_its_task_only(
    vh: EaiPddl, tmp_path: Path
) -> None:
    """Issue 18: the operator is refused where it is read (no Z3 check, no grounding), its
    task names the number, and the other answer is scored as usual."""
    from planproof.pddl.schema import MAX_PARAMETERS

    big, good = sample(vh.solved, 2)
    name = vh.task_actions[big][0]
    params = " ".join(f"?p{k} - object" for k in range(1000))
    answer = f"(:action {name} :parameters ({params}) :precondition (and) :effect (and))"
    resp = tmp_path / "r.json"
    resp.write_text(
        json.dumps(
            [
                {"identifier": big, "llm_output": answer},
                {"identifier": good, "llm_output": vh.gold_response(good)},
            ]
        )
    )
    out = tmp_path / "tm"
    argv = ["--dataset", "virtualhome", "--responses", str(resp), "--output", str(out)]
    code, _ = _run([*argv, "--no-planner", "--json"])
    assert code == 0
    rows = {r["identifier"]: r for r in map(json.loads, (out / "results.jsonl").open())}
    assert rows[good]["scores"] and not rows[good]["issues"]
    res = evaluate_task(vh, big, answer, timeout=30)
    assert res.planner_status == "unusable-model" and not res.issues
    assert f"1000 parameters, over the limit of {MAX_PARAMETERS}" in res.planner_reason
