"""IPC domains with derived predicates (several rules per predicate, recursion, negation
of lower strata) and an action cost never set in ``:init``: planproof's verdict equals
VAL's on every stored plan and mutant (tests/data/ipc_extra/plans, recorded by
``benchmarks/record_ipc_extra.py``), and so does the failing step."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from planproof.pddl.plan_io import read_plan
from planproof.pddl.reader import read_domain_file, read_problem
from planproof.pddl.validate import Task, compile_task, validate

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDS = sorted((DATA / "ipc_extra" / "plans").glob("*.json"))


def _task(doc: dict) -> Task:  # type: ignore[type-arg]
    df = read_domain_file((DATA / doc["domain"]).read_text(), fold_case=True)
    problem = read_problem((DATA / doc["problem"]).read_text(), fold_case=True)
    return compile_task(df.domain, replace(problem, constants=dict(df.constants)))


def test_the_records_cover_axioms_and_costs() -> None:
    names = {p.name.split("--")[0] for p in RECORDS}
    assert {"philosophers", "optical-telegraphs", "psr-middle", "settlers-sat18-adl"} <= names
    assert sum(len(json.loads(p.read_text())["plans"]) for p in RECORDS) >= 50


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: p.stem)
def test_verdicts_equal_vals(record: Path) -> None:
    doc = json.loads(record.read_text())
    task = _task(doc)
    for name, text in doc["plans"].items():
        v = validate(task, read_plan(text))
        assert v.valid == doc["val"][name], (name, v.failure, v.unmet_goal)
        detail = doc["val_detail"].get(name)
        if detail and detail["step"] is not None:
            assert v.failure is not None and v.failure.step == detail["step"], name


def test_an_unset_total_cost_starts_at_zero_as_in_val() -> None:
    doc = json.loads((DATA / "ipc_extra" / "plans" / "settlers-sat18-adl--p01.json").read_text())
    v = validate(_task(doc), read_plan(doc["plans"]["plan"]))
    assert v.valid and v.metric == 535.0  # VAL: "Final value: 535"
    assert any("(total-cost) had no initial value" in n for n in v.notes)


@pytest.mark.parametrize(
    ("folder", "problem"),
    [("psr-middle", "p01-s17-n2-l2-f30.pddl"), ("philosophers", "p01-phil2.pddl")],
)
def test_fast_downward_plans_domains_with_derived_predicates(folder: str, problem: str) -> None:
    """planproof's export writes the rules (with the constants they name) and Fast
    Downward plans; the plan is valid under planproof's fixpoint. The engines planproof
    grounds for refuse derived predicates by name."""
    from planproof.pddl.planners import PlanStatus, plan

    doc = {"domain": f"ipc_extra/{folder}/domain.pddl", "problem": f"ipc_extra/{folder}/{problem}"}
    task = _task(doc)
    found = plan(task.domain, task.problem, engine="fast-downward", timeout=120)
    assert found.solved, found.reason
    assert validate(task, found.plan).valid
    refused = plan(task.domain, task.problem, engine="builtin", timeout=5)
    assert refused.status is PlanStatus.UNSUPPORTED and "derived" in refused.reason


def test_derived_rules_survive_the_writer() -> None:
    from planproof.pddl.writer import domain_to_pddl

    domain = read_domain_file(
        (DATA / "ipc_extra/psr-middle/domain.pddl").read_text(), fold_case=True
    )
    constants = dict(domain.constants)
    again = read_domain_file(domain_to_pddl(domain.domain, constants=constants)).domain
    assert again.derived == domain.domain.derived
