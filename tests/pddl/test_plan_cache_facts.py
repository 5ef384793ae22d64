"""Facts kept with the planner cache (FD 23.06's negative-goal test, a translator pass per
planned task with a negated goal): stored by content, read back as stored, keyed apart
from plans and from one another."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.pddl.plan_cache import PlanCache, fact_key

TEXT = st.text(max_size=40)


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kind=st.sampled_from(["a", "b"]), texts=st.lists(TEXT, max_size=3), value=TEXT)
def test_a_fact_reads_back_under_its_own_key_only(
    tmp_path_factory: pytest.TempPathFactory, kind: str, texts: list[str], value: str
) -> None:
    d = tmp_path_factory.mktemp("facts")
    store = PlanCache(d / "plans.sqlite3")
    key = fact_key(kind, *texts)
    assert store.get_fact(key) is None
    store.put_fact(key, value)
    assert store.get_fact(key) == value
    other = fact_key("c", *texts)
    assert other != key and store.get_fact(other) is None
    # the texts' boundaries are part of the key
    assert fact_key(kind, "ab", "c") != fact_key(kind, "a", "bc")
    assert store.get(key) is None  # a fact is no plan


def test_a_disabled_cache_keeps_no_fact(tmp_path: Path) -> None:
    store = PlanCache(tmp_path / "plans.sqlite3", enabled=False)
    key = fact_key("a", "x")
    store.put_fact(key, "v")
    assert store.get_fact(key) is None
