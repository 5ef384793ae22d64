"""The 19 IPC domains x 3 problems (tests/data/ipc): the plan ``planproof plan`` found for
each problem verifies, and every drop / swap / wrong-argument mutant gets VAL's verdict.

The plans and VAL's verdicts were written by ``benchmarks/bench_ipc.py --val ... --write``
(VAL built from KCL-Planning/VAL; not installable from a registry, so its answers are
stored as data); one problem is planned live here."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from planproof.pddl.plan_io import read_plan
from planproof.pddl.planners import plan
from planproof.pddl.reader import read_domain_file, read_problem
from planproof.pddl.validate import Task, compile_task, validate

IPC = Path(__file__).resolve().parents[1] / "data" / "ipc"
RECORDS = sorted((IPC / "plans").glob("*.json"))


def _load(folder: Path, domain: str, problem: str) -> tuple[Task, object, object]:
    df = read_domain_file((folder / domain).read_text(), fold_case=True)
    prob = read_problem((folder / problem).read_text(), fold_case=True)
    prob = replace(prob, constants=dict(df.constants))
    return compile_task(df.domain, prob), df.domain, prob


def test_a_plan_for_every_problem() -> None:
    assert len(RECORDS) == 57


@pytest.mark.parametrize("record", RECORDS, ids=[r.stem for r in RECORDS])
def test_plans_verify_and_mutants_get_vals_verdict(record: Path) -> None:
    doc = json.loads(record.read_text())
    folder = IPC / record.stem.split("--")[0]
    task, _, _ = _load(folder, doc["domain"], doc["problem"])
    checked = {k: validate(task, read_plan(text)) for k, text in doc["plans"].items()}
    verdicts = {k: v.valid for k, v in checked.items()}
    assert verdicts["plan"], record.stem
    assert len(verdicts) > 1 and not all(verdicts.values())  # some mutant breaks the plan
    assert verdicts == doc["val"]
    for k, why in doc["val_detail"].items():
        # VAL's failing step (its "time"), and its repair advice: the first unmet literal
        # it meets, which we list too when the unmet parts are plain literals
        v = checked[k]
        assert (v.failure.step if v.failure else None) == why["step"], k
        unmet = v.failure.unmet if v.failure else v.unmet_goal
        if not any(q in u for u in unmet for q in ("(or ", "(exists ", "(imply ", "(forall ")):
            assert why["unmet"][0] in unmet, k


def test_plan_live_and_verify() -> None:
    """``planproof plan``'s planner on one IPC problem; its plan verifies, and on every
    drop mutant the validator agrees with the simulator core's strict replay (an
    independent executor)."""
    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions

    task, domain, problem = _load(IPC / "gripper", "domain.pddl", "prob01.pddl")
    res = plan(domain, problem, timeout=120)  # type: ignore[arg-type]
    assert res.solved, res.reason
    assert validate(task, res.plan).valid
    core = pddl_task(domain, problem)  # type: ignore[arg-type]
    rejected = 0
    for k in range(len(res.plan)):
        mutant = res.plan[:k] + res.plan[k + 1 :]
        ours = validate(task, mutant).valid
        assert ours == check_plan(core, to_actions(mutant)).strict
        rejected += not ours
    assert rejected


def test_fast_downward_plans_airport_adl_quickly() -> None:
    """airport-adl through planproof's own export (predicates typed ``object``): Fast
    Downward grounds by reachability, so loose predicate types cost nothing; the plan
    found is valid."""
    from planproof.pddl.planners import plan

    task, domain, problem = _load(IPC / "airport-adl", "domain.pddl", "p01-airport1-p1.pddl")
    found = plan(domain, problem, engine="fast-downward", timeout=120)  # type: ignore[arg-type]
    assert found.solved, found.reason
    assert validate(task, found.plan).valid
