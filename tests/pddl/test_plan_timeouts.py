"""``plan --timeout`` holds for every engine, grounding included: past the limit the
answer is ``timeout`` (never ``unsolvable``), and the work stops. Judged in CPU time (the
call's own and its children's), which the machine's load cannot inflate."""

from __future__ import annotations

import resource
import time
from itertools import pairwise
from pathlib import Path

import pytest

from planproof.pddl.ground import GroundingTimeout, ground_task
from planproof.pddl.planners import (
    MAX_GROUNDING,
    PlanStatus,
    grounding_size,
    plan,
    planning_refusal,
)
from planproof.pddl.reader import read_domain, read_problem

BLOCKS = Path(__file__).resolve().parents[1] / "data" / "ipc" / "blocks" / "domain.pddl"


def _tower_problem(n: int) -> str:
    """``n`` blocks in one tower, to be reversed: grounding alone takes many seconds."""
    blocks = [f"b{i}" for i in range(n)]
    init = [f"(ontable {blocks[0]})", f"(clear {blocks[-1]})", "(handempty)"]
    init += [f"(on {a} {b})" for b, a in pairwise(blocks)]
    goal = [f"(on {b} {a})" for b, a in pairwise(blocks)]
    return (
        f"(define (problem tower) (:domain blocks) (:objects {' '.join(blocks)}) "
        f"(:init {' '.join(init)}) (:goal (and {' '.join(goal)})))"
    )


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def test_grounding_stops_at_the_deadline() -> None:
    d = read_domain(BLOCKS.read_text(), fold_case=True)
    p = read_problem(_tower_problem(20), fold_case=True)
    with pytest.raises(GroundingTimeout):
        ground_task(d, p, deadline=time.process_time() - 1.0, memo=False)
    assert ground_task(d, p, deadline=time.process_time() + 600).actions


@pytest.mark.parametrize("engine", ["builtin", "pyperplan"])
def test_a_timeout_covers_grounding(engine: str) -> None:
    """200 blocks: ~80,000 ground actions, tens of CPU seconds to ground. With one second
    the call says timeout and has spent at most about that much CPU time."""
    d = read_domain(BLOCKS.read_text(), fold_case=True)
    p = read_problem(_tower_problem(200), fold_case=True)
    before = _cpu()
    r = plan(d, p, engine=engine, timeout=1.0)
    spent = _cpu() - before
    assert r.status is PlanStatus.TIMEOUT, r
    assert spent < 3.0, spent


def test_the_grounding_guard_does_not_stand_before_fast_downward() -> None:
    """Fast Downward grounds by reachability itself: the cross-product estimate refuses
    only for the engines planproof grounds for."""
    d = read_domain(BLOCKS.read_text(), fold_case=True)
    p = read_problem(_tower_problem(600), fold_case=True)
    assert grounding_size(d, p) > MAX_GROUNDING // 100
    big = read_problem(_tower_problem(4_000), fold_case=True)
    assert grounding_size(d, big) > MAX_GROUNDING
    assert "over the limit" in planning_refusal(d, big, "builtin")
    assert planning_refusal(d, big, "fast-downward") == ""
