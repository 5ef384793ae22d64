"""The persistent planner cache: a verdict is reused for the same planning task (same
domain and problem text) and only for it; real Fast Downward, real EAI problems."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from planproof.metrics.transition_modeling.evaluate import _model
from planproof.pddl.eai import EaiPddl
from planproof.pddl.plan_cache import PlanCache, cached_plan, plan_cache, plan_key
from planproof.pddl.planners import PlanStatus
from planproof.pddl.reader import declare_missing_objects
from planproof.pddl.schema import Domain
from planproof.pddl.tolerant import read_operators

pytestmark = pytest.mark.data

IDENT = "384_1"


def _domain(vh: EaiPddl, answer: str) -> Domain:
    names = {n.lower(): n for n in vh.task_actions[IDENT]}
    params = {n.lower(): vh.gold_operators[n].parameters for n in vh.task_actions[IDENT]}
    model, why = _model(vh.domain, read_operators(answer, parameters=params), names)
    assert model is not None, why
    return model


def test_second_call_is_served_from_the_cache(vh: EaiPddl, tmp_path: Path) -> None:
    store = PlanCache(tmp_path / "plans.sqlite3")
    problem = declare_missing_objects(vh.domain, vh.problem(IDENT))
    domain = _domain(vh, vh.gold_response(IDENT))
    first, hit1 = cached_plan(domain, problem, timeout=60, cache=store)
    assert first.status is PlanStatus.SOLVED and not hit1
    again, hit2 = cached_plan(domain, problem, timeout=60, cache=store)
    assert hit2 and (store.hits, store.misses) == (1, 1)
    assert again.plan == first.plan and again.status is first.status
    # a fresh connection reads the same file: the cache outlives the process's objects
    assert PlanCache(tmp_path / "plans.sqlite3").get(plan_key(domain, problem, "fast-downward"))


def test_a_different_operator_is_a_different_key(vh: EaiPddl, tmp_path: Path) -> None:
    problem = declare_missing_objects(vh.domain, vh.problem(IDENT))
    gold = vh.gold_response(IDENT)
    wrong = gold.replace("(plugged_in ?obj)", "")
    assert wrong != gold
    k1 = plan_key(_domain(vh, gold), problem, "fast-downward")
    k2 = plan_key(_domain(vh, wrong), problem, "fast-downward")
    assert k1 != k2
    assert k1 != plan_key(_domain(vh, gold), problem, "pyperplan")
    fewer = dataclasses.replace(problem, init=frozenset(sorted(problem.init, key=str)[1:]))
    assert plan_key(_domain(vh, gold), fewer, "fast-downward") != k1
    assert plan_key(_domain(vh, gold), problem, "fast-downward") == k1


def test_timeouts_are_not_kept(vh: EaiPddl, tmp_path: Path) -> None:
    """A timeout depends on the machine's load: it is asked again next time."""
    from planproof.pddl.planners import PlanResult

    store = PlanCache(tmp_path / "plans.sqlite3")
    store.put("k", PlanResult("fast-downward", PlanStatus.TIMEOUT, reason="slow"))
    store.put("u", PlanResult("fast-downward", PlanStatus.UNSOLVABLE, reason="none"))
    assert store.get("k") is None
    got = store.get("u")
    assert got is not None and got.status is PlanStatus.UNSOLVABLE and got.reason == "none"


def test_switched_off_cache_keeps_nothing(tmp_path: Path) -> None:
    from planproof.pddl.planners import PlanResult

    store = PlanCache(tmp_path / "plans.sqlite3", enabled=False)
    store.put("u", PlanResult("fast-downward", PlanStatus.UNSOLVABLE))
    assert store.get("u") is None and not (tmp_path / "plans.sqlite3").exists()


def test_cache_path_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``PLANPROOF_PLAN_CACHE_PATH`` puts the store in another file (a cold benchmark)."""
    from planproof.pddl.planners import PlanResult

    monkeypatch.setenv("PLANPROOF_PLAN_CACHE_PATH", str(tmp_path / "cold.sqlite3"))
    store = PlanCache()
    store.put("k", PlanResult("fast-downward", PlanStatus.UNSOLVABLE))
    assert (tmp_path / "cold.sqlite3").exists()
    assert PlanCache(tmp_path / "cold.sqlite3").get("k") is not None


def test_the_shared_store_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``plan_cache()`` opens the store the variable names at each call: a process that has
    used one store can still time a cold one (benchmarks/bench_executor.py)."""
    from planproof.pddl.planners import PlanResult

    monkeypatch.delenv("PLANPROOF_PLAN_CACHE", raising=False)  # the suite turns it off
    monkeypatch.setenv("PLANPROOF_PLAN_CACHE_PATH", str(tmp_path / "a.sqlite3"))
    first = plan_cache()
    first.put("k", PlanResult("fast-downward", PlanStatus.UNSOLVABLE))
    monkeypatch.setenv("PLANPROOF_PLAN_CACHE_PATH", str(tmp_path / "b.sqlite3"))
    second = plan_cache()
    assert second.path == tmp_path / "b.sqlite3"
    assert second.get("k") is None
    assert plan_cache(tmp_path / "a.sqlite3") is first
