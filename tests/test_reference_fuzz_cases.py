"""The reference readings of transition modeling (planner success, Fast Downward 23.06's
reading) and goal interpretation (the reference's counting) against the reference code's
own verdicts on *mutated* published answers: answers nobody published, made by
``benchmarks/fuzz_tm_reading.py`` and ``benchmarks/fuzz_gi_reading.py`` and scored by
virtualhome-eval 0.1.1 itself (with Fast Downward 23.06 for transition modeling) in its
venv. The stored verdicts are measurements with their provenance
(``tests/data/fuzz/README.md``), not reference code; no venv is needed here."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from planproof.data import DataUnavailableError
from tests.helpers import needed_resource

DATA = Path(__file__).resolve().parent / "data" / "fuzz"
BUDGET = "planner-budget"
"""The class of the cases whose builtin search spends the reading's 20,000 expansions
(Fast Downward then decides: ``fd_reading.fd_planner_success``)."""
BUDGET_EXPANSIONS = 1_000
"""Those cases are read with this smaller expansion budget: the verdict is Fast Downward's
on the same model either way, and the builtin search's 20,000 expansions would cost a
minute of CPU here."""


def _cases(name: str) -> list[dict[str, Any]]:
    doc = json.loads(gzip.decompress((DATA / name).read_bytes()))
    assert doc["provenance"]["hash_seed"] == "2"
    cases: list[dict[str, Any]] = doc["cases"]
    return cases


@functools.cache
def _eai() -> Any:
    from planproof.pddl.eai import load_eai_pddl

    return needed_resource(lambda: load_eai_pddl("virtualhome"), DataUnavailableError, "EAI")


def _tm_cases() -> list[dict[str, Any]]:
    return [c for c in _cases("tm_reference_cases.json.gz") if not c["reference"]["raised"]]


@pytest.mark.data
@pytest.mark.parametrize("chunk", range(4))
def test_tm_reading_gives_the_references_planner_verdict_on_mutated_answers(chunk: int) -> None:
    from planproof.metrics.transition_modeling.reference_planner import (
        MAX_EXPANSIONS,
        PlannerBudget,
        reference_planner_task,
    )
    from planproof.pddl.fd_reading import FD_CPU_BUDGET

    cases = _tm_cases()[chunk::4]
    assert cases
    differ = []
    for case in cases:
        ref = case["reference"]
        expansions = BUDGET_EXPANSIONS if case.get("class") == BUDGET else MAX_EXPANSIONS
        v = reference_planner_task(
            _eai(),
            case["identifier"],
            case["llm_output"],
            budget=PlannerBudget(expansions, FD_CPU_BUDGET),
        )
        if (v.counted, v.success) != (ref["counted"], ref["success"]):
            differ.append(f"{case['key']} {case['mutations']}: reference {ref}, reading {v}")
    assert differ == []


def test_tm_cases_cover_the_mutations_and_both_verdicts() -> None:
    """The stored cases are a test worth its name: every mutation kind, plans found and
    not, answers counted and left out, and cases only Fast Downward decides (the builtin
    search spends its budget), all compared."""
    cases = _cases("tm_reference_cases.json.gz")
    kinds = {m for c in cases for m in c["mutations"]}
    assert {"free_variable", "undeclared_constant", "wrapped_exists", "upper_all"} <= kinds
    verdicts = {(c["reference"]["counted"], c["reference"]["success"]) for c in _tm_cases()}
    assert verdicts == {(True, True), (True, False), (False, False)}
    assert any(c.get("class") == BUDGET for c in _tm_cases())


def _gi_verdict(case: dict[str, Any]) -> dict[str, Any]:
    from planproof.metrics.reference_goal_interpretation import count_answer
    from planproof.simulators.virtualhome.reference_goals import reference_goals

    gold = needed_resource(reference_goals, DataUnavailableError, "EAI")[case["identifier"]]
    record: dict[str, Any] = count_answer(case["identifier"], case["llm_output"], gold).log_record()
    return record


@pytest.mark.data
def test_gi_reading_counts_as_the_reference_on_mutated_answers() -> None:
    cases = [c for c in _cases("gi_reference_cases.json.gz") if "raised" not in c["reference"]]
    assert len(cases) >= 300
    differ = [
        f"{c['key']} {c['mutations']}: reference {c['reference']}, reading {mine}"
        for c in cases
        if (mine := _gi_verdict(c)) != c["reference"]
    ]
    assert differ == []


@pytest.mark.data
def test_gi_items_equal_as_python_values_are_one_item() -> None:
    """``1`` and ``true`` (and ``0`` and ``false``) are one value to the reference's
    ``remove_duplicate_dicts``: two such items are scored once, the second kept."""
    from planproof.metrics.reference_goal_interpretation import count_answer
    from planproof.simulators.virtualhome.reference_goals import reference_goals

    gold = needed_resource(reference_goals, DataUnavailableError, "EAI")["291_1"]
    two = '{"action goals": [{"action": "DRINK", "d": 0}, {"action": "DRINK", "d": false}]}'
    apart = '{"action goals": [{"action": "DRINK", "d": 0}, {"action": "DRINK", "d": "0"}]}'
    assert count_answer("291_1", two, gold).counts["action"][0] == 1
    assert count_answer("291_1", apart, gold).counts["action"][0] == 2


@pytest.mark.data
def test_gi_goal_list_that_is_no_list_is_iterated() -> None:
    """A string goal list is its characters to the reference, an object its keys: each a
    format error, nothing scored (not the one goal an object may spell out)."""
    from planproof.metrics.reference_goal_interpretation import count_answer
    from planproof.simulators.virtualhome.reference_goals import reference_goals

    gold = needed_resource(reference_goals, DataUnavailableError, "EAI")["377_2"]
    as_object = '{"node goals": {"name": "television", "state": "ON"}}'
    as_list = '{"node goals": [{"name": "television", "state": "ON"}]}'
    obj = count_answer("377_2", as_object, gold)
    assert (obj.counts["state"][0], obj.format_errors) == (0, 2)
    assert count_answer("377_2", as_list, gold).counts["state"][0] == 1
    text = count_answer("377_2", '{"node goals": "tv ON"}', gold)
    assert text.format_errors == len(set("tv ON"))


def _published_answer(model: str, identifier: str) -> str:
    from planproof.data.published import published_files

    files = needed_resource(
        lambda: published_files("transition-modeling", "virtualhome"),
        DataUnavailableError,
        "published outputs",
    )
    path = next(f.path for f in files if f.model == model)
    rows = json.loads(path.read_text(encoding="utf-8"))
    return str(next(r["llm_output"] for r in rows if str(r["identifier"]) == identifier))


@pytest.mark.data
def test_tm_answer_json_reads_without_output_is_format_wrong() -> None:
    """``{"Output": ...}`` is read by ``json.loads`` but has no ``output``: the reference
    keeps the object, its extraction fails on it, and the task is left out; the answer
    as published is counted."""
    from planproof.metrics.transition_modeling.reference_planner import reference_planner_task
    from planproof.pddl.reference_logic_form import answer_text

    answer = _published_answer("gpt-4-turbo-2024-04-09", "125_2")
    assert reference_planner_task(_eai(), "125_2", answer).counted
    renamed = answer.replace('"output"', '"Output"', 1)
    assert isinstance(answer_text(renamed), dict)
    v = reference_planner_task(_eai(), "125_2", renamed)
    assert (v.counted, v.status) == (False, "format-wrong")


@pytest.mark.data
def test_tm_forall_precondition_does_not_keep_fd_from_crashing() -> None:
    """GPT-4-turbo's answer to 416_1 with ``walk_towards`` needing ``next_to`` of every
    object and adding ``facing`` of a free variable: FD 23.06's exploration reads the
    ``forall`` as true, reaches the add and crashes (no plan); the reading, which had the
    ``forall`` hold only where every ``next_to`` was reachable, planned."""
    from planproof.metrics.transition_modeling.reference_planner import reference_planner_task

    case = next(c for c in _cases("tm_reference_cases.json.gz") if c["key"] == "11-160")
    assert case["reference"]["fd"] == "crash"
    answer = case["llm_output"]
    assert "(forall (?zz - object) (next_to ?char ?zz))" in answer
    v = reference_planner_task(_eai(), "416_1", answer)
    assert (v.success, v.status) == (False, "crash")
