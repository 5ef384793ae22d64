"""A planner budget that does not depend on the machine: the builtin search's budget of
expansions (``max_expansions``) gives the same verdict under any clock, a spent budget is
its own status (``budget``, never "no plan"), it is cached with the budget in the key, and
transition modeling reports how many tasks spent it (docs/reproduce.md, "Planner budget")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.data import DataUnavailableError
from planproof.data.published import published_files
from planproof.metrics.transition_modeling.evaluate import evaluate_responses
from planproof.pddl.eai import EaiPddl
from planproof.pddl.plan_cache import PlanCache, cached_plan, plan_key
from planproof.pddl.planners import PlanStatus
from planproof.pddl.strips_search import Action, search
from tests.helpers import jumping_clock, needed_resource
from tests.pddl.test_strips_search import _facts, actions


@pytest.fixture
def slow_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``time.perf_counter`` and ``time.monotonic`` jump 1,000 s at every look: a machine
    so loaded that any wall-clock limit is reached at once."""
    jumping_clock(monkeypatch, 1000.0)
    yield


@settings(max_examples=300, deadline=None)
@given(_facts(0, 3), _facts(1, 3), actions, st.integers(1, 40))
def test_budget_never_changes_a_verdict_it_reaches(
    init: frozenset[int], goal: frozenset[int], acts: list[Action[int]], budget: int
) -> None:
    """Within the budget the outcome is the unbounded search's, plan included; past it
    the status is ``budget`` with exactly ``budget`` expansions, never "unsolvable"."""
    free = search(init, goal, acts)
    bounded = search(init, goal, acts, max_expansions=budget)
    if bounded.status == "budget":
        assert bounded.expanded == budget
        assert free.expanded >= budget
    else:
        assert (bounded.status, bounded.plan) == (free.status, free.plan)
        assert free.expanded < budget


@settings(max_examples=100, deadline=None)
@given(_facts(0, 3), _facts(1, 3), actions, st.integers(1, 40))
def test_budget_verdict_is_the_same_under_a_slowed_clock(
    init: frozenset[int], goal: frozenset[int], acts: list[Action[int]], budget: int
) -> None:
    calm = search(init, goal, acts, max_expansions=budget)
    with pytest.MonkeyPatch.context() as mp:
        now = [0.0]

        def tick() -> float:
            now[0] += 1000.0
            return now[0]

        mp.setattr(time, "perf_counter", tick)
        loaded = search(init, goal, acts, max_expansions=budget)
    assert loaded == calm


GEMINI_HARD = ("384_1", "71_2", "99_2")
"""Gemini 1.0 Pro's answers that lost their plan to the 100 s wall-clock limit on a loaded
machine (issue 29): 356, 356 and 121 expansions."""


def _gemini_rows() -> list[dict[str, str]]:
    files = needed_resource(
        lambda: published_files("transition-modeling", "virtualhome"),
        DataUnavailableError,
        "published outputs",
    )
    f = next(x for x in files if x.model == "gemini-1.0-pro")
    rows = [r for r in json.loads(f.path.read_text()) if r["identifier"] in GEMINI_HARD]
    assert len(rows) == len(GEMINI_HARD)
    return rows


@pytest.mark.data
def test_published_verdicts_do_not_depend_on_the_clock(vh: EaiPddl, slow_clock: None) -> None:
    """The sweep's budget on the three answers a loaded machine lost: with the clock
    jumping 1,000 s at every look all three still plan (a wall-clock limit would have
    stopped each at its first look), and a budget too small for them is reported as
    ``budget`` on every one, in the summary too."""
    from planproof.runs.published_sweep import TM_MAX_EXPANSIONS

    rows = _gemini_rows()
    report = evaluate_responses(
        vh, rows, engine="builtin", max_expansions=TM_MAX_EXPANSIONS, plan_cache=False
    )
    assert {t.identifier: t.planner_status for t in report.tasks} == dict.fromkeys(
        GEMINI_HARD, "solved"
    )
    small = evaluate_responses(vh, rows, engine="builtin", max_expansions=50, plan_cache=False)
    assert {t.planner_status for t in small.tasks} == {"budget"}
    summary = small.summary()
    assert (summary["planner_budget_spent"], summary["planner_timeouts"]) == (3, 0)
    assert summary["planner_found"] == 0
    # reproduce names them in a note (a stopped task counts as "no plan found")
    from planproof.commands.reproduce import _planner_notes

    cell = {"module": "transition-modeling", "dataset": "virtualhome", "model": "gemini-1.0-pro"}
    tasks = [{"identifier": t.identifier, "planner_status": t.planner_status} for t in small.tasks]
    (note,) = _planner_notes([{"cell": cell, "tasks": tasks}])
    assert all(f"{i} (budget)" in note for i in GEMINI_HARD)


@pytest.mark.data
def test_budget_verdicts_are_cached_under_their_budget(vh: EaiPddl, tmp_path: Path) -> None:
    """A spent budget is deterministic, so it is kept; the key holds the budget, so a
    larger budget asks the planner again (and finds the plan)."""
    from planproof.metrics.transition_modeling.evaluate import _model
    from planproof.pddl.reader import declare_missing_objects
    from planproof.pddl.tolerant import read_operators

    row = next(r for r in _gemini_rows() if r["identifier"] == "99_2")
    ident = row["identifier"]
    params = {n.lower(): vh.gold_operators[n].parameters for n in vh.task_actions[ident]}
    names = {n.lower(): n for n in vh.task_actions[ident]}
    model, why = _model(vh.domain, read_operators(row["llm_output"], parameters=params), names)
    assert model is not None, why
    problem = declare_missing_objects(vh.domain, vh.problem(ident))
    cache = PlanCache(tmp_path / "plans.sqlite3")
    first, hit1 = cached_plan(model, problem, engine="builtin", cache=cache, max_expansions=20)
    again, hit2 = cached_plan(model, problem, engine="builtin", cache=cache, max_expansions=20)
    more, hit3 = cached_plan(model, problem, engine="builtin", cache=cache, max_expansions=5000)
    assert (first.status, hit1) == (PlanStatus.BUDGET, False)
    assert (again.status, hit2, again.expanded) == (PlanStatus.BUDGET, True, 20)
    assert (more.status, hit3) == (PlanStatus.SOLVED, False)
    assert plan_key(model, problem, "builtin", 20) != plan_key(model, problem, "builtin")
