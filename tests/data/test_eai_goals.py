"""The EAI goal data: every goal parses, conversions agree, and the cache runs once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from planproof.data import DataUnavailableError, EaiGoals, load_eai_goals, open_wheel
from planproof.data.cache import ENV_CACHE_DIR, cache_dir, cached_json
from planproof.data.eai_goals import CONVERTER_VERSION, goals_path
from planproof.data.eai_wheel import (
    BEHAVIOR_PDDL_DIR,
    VH_GOALS_MEMBER,
    WHEEL_NAME,
    ensure_wheel,
    verify_wheel,
    wheel_path,
)
from planproof.ltl import ast, parse, to_text
from planproof.ltl.bddl import (
    REFERENCE_PREDICATES,
    bddl_goal_to_ltl,
    ltl_to_bddl,
    parse_problem,
)

NO_GOAL = {"339_1", "627_1", "84_1", "93_1"}


def _round_trips(text: str) -> ast.Formula:
    f = parse(text)
    assert parse(to_text(f)) == f, text
    assert parse(to_text(f, upper=True)) == f, text
    return f


# ----------------------------------------------------------------------------- VirtualHome


@pytest.mark.data
def test_virtualhome_tasks(eai_goals: EaiGoals) -> None:
    vh = eai_goals.virtualhome
    assert len(vh) == 342
    assert len({g.task_id for g in vh}) == 342
    assert len({g.task_name for g in vh}) == 26
    assert {g.task_id for g in vh if g.tl_goal is None} == NO_GOAL
    assert eai_goals.virtualhome_task("27_2").task_name == "Wash clothes"
    summary = eai_goals.summary()
    assert (summary["virtualhome_task_ids"], summary["virtualhome_goals"]) == (342, 338)
    assert summary["behavior_goals"] == 100
    json.dumps(summary)


@pytest.mark.data
def test_all_338_virtualhome_goals_parse_and_round_trip(eai_goals: EaiGoals) -> None:
    goals = eai_goals.virtualhome_tl_goals()
    parsed = {tid: _round_trips(text) for tid, text in goals.items()}
    assert len(parsed) == 338
    # the dataset writes predicates in capitals; the AST stores them lower-cased
    assert all(a.pred == a.pred.lower() for f in parsed.values() for a in ast.atoms(f))
    assert sum(ast.is_temporal(f) for f in parsed.values()) > 0


# ----------------------------------------------------------------------------- BEHAVIOR


@pytest.mark.data
def test_all_100_behavior_goals_parse_in_both_forms(eai_goals: EaiGoals) -> None:
    typed = [_round_trips(g.tl_goal) for g in eai_goals.behavior]
    reference = [_round_trips(g.tl_goal_reference) for g in eai_goals.behavior]
    assert len(typed) == 100
    assert len(reference) == 100
    assert len({g.task_id for g in eai_goals.behavior}) == 100
    assert len({g.task_name for g in eai_goals.behavior}) == 100
    fruit = eai_goals.behavior_task("bottling_fruit")
    assert fruit.problem == "bottling_fruit_0"
    assert eai_goals.behavior_task(fruit.task_id) is fruit


@pytest.mark.data
def test_cached_behavior_goals_match_a_fresh_conversion(eai_goals: EaiGoals) -> None:
    for g in eai_goals.behavior:
        problem = parse_problem(g.bddl_problem)
        f = bddl_goal_to_ltl(problem.goal, objects=problem.objects)
        assert g.formula() == f
        assert g.bddl_goal == problem.goal_text
        assert bddl_goal_to_ltl(ltl_to_bddl(f)) == f  # BDDL writer round trip
        assert g.task_name in g.task_id
        assert g.problem == problem.name


@pytest.mark.data
def test_typed_and_reference_forms_use_the_same_vocabulary(eai_goals: EaiGoals) -> None:
    """The reference form adds one unary guard per category and renames toggled_on;
    otherwise both forms mention the same predicates and objects."""
    for g in eai_goals.behavior:
        typed, ref = g.formula(), parse(g.tl_goal_reference)
        categories = {b.type for n in ast.walk(typed) for b in ast.binders(n)}
        renamed = {(REFERENCE_PREDICATES.get(p, p), n) for p, n in ast.predicates(typed)}
        assert ast.predicates(ref) - {(c, 1) for c in categories} == renamed, g.task_id
        assert ast.constants(ref) == ast.constants(typed), g.task_id


@pytest.mark.data
def test_behavior_quantifiers_range_over_declared_objects(eai_goals: EaiGoals) -> None:
    """Every quantified category has objects in the task, and every object the goal names
    is declared: grounding never meets an empty or unknown domain."""
    for g in eai_goals.behavior:
        u = g.universe()
        f = g.formula()
        for node in ast.walk(f):
            for b in ast.binders(node):
                assert u.of_type(b.type), (g.task_id, b)
        assert ast.constants(f) <= set(u.names), g.task_id
        assert ast.free_vars(f) == frozenset()


# ----------------------------------------------------------------------------- wheel


@pytest.mark.data
def test_wheel_members_are_read_with_their_record_hash(eai_wheel: Path) -> None:
    with open_wheel(eai_wheel) as w:
        assert len(w.members(BEHAVIOR_PDDL_DIR, ".pddl")) == 100
        data = w.read_json(VH_GOALS_MEMBER)
        assert set(data) == {"scene_1"}
        with pytest.raises(DataUnavailableError):
            w.read_bytes("no/such/member.json")


@pytest.mark.data
def test_a_damaged_wheel_is_rejected(eai_wheel: Path, tmp_path: Path) -> None:
    bad = tmp_path / WHEEL_NAME
    bad.write_bytes(eai_wheel.read_bytes()[:1_000_000])
    with pytest.raises(DataUnavailableError, match="SHA-256"):
        verify_wheel(bad)
    with pytest.raises(DataUnavailableError, match="does not exist"):
        verify_wheel(tmp_path / "missing.whl")


def test_failed_download_is_a_typed_actionable_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real pip run that cannot find the package (no index, empty local links)."""
    links = tmp_path / "links"
    links.mkdir()
    monkeypatch.setenv(ENV_CACHE_DIR, str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    with pytest.raises(DataUnavailableError) as info:
        ensure_wheel(timeout=120)
    msg = str(info.value)
    assert "pip download eai-eval==1.0.5" in msg and "failed" in msg
    assert str(wheel_path()) in msg  # says where a manual download goes
    assert not wheel_path().exists()
    assert list(wheel_path().parent.iterdir()) == []  # no temporary leftovers


# ----------------------------------------------------------------------------- cache


def test_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_CACHE_DIR, str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    assert (tmp_path / "c").is_dir()
    monkeypatch.delenv(ENV_CACHE_DIR)
    assert cache_dir() != tmp_path / "c"


def test_cached_json_builds_once_and_rebuilds_when_stale(tmp_path: Path) -> None:
    calls: list[int] = []

    def build() -> dict[str, object]:
        calls.append(1)
        return {"value": len(calls)}

    path = tmp_path / "x.json"
    assert cached_json(path, {"v": 1}, build) == {"stamp": {"v": 1}, "value": 1}
    assert cached_json(path, {"v": 1}, build)["value"] == 1
    assert len(calls) == 1
    assert cached_json(path, {"v": 2}, build)["value"] == 2  # new stamp: rebuilt
    path.write_text("{ truncated", encoding="utf-8")
    assert cached_json(path, {"v": 2}, build)["value"] == 3  # corrupt: rebuilt
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temporary files left


@pytest.fixture
def private_cache(eai_wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache directory holding a copy of the session's wheel (no new download)."""
    monkeypatch.setenv(ENV_CACHE_DIR, str(tmp_path))
    dest = wheel_path()
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(eai_wheel, dest)
    return tmp_path


@pytest.mark.data
def test_goals_are_converted_once_into_the_chosen_cache(
    private_cache: Path, eai_goals: EaiGoals
) -> None:
    wheel, goals = wheel_path(), goals_path()
    assert goals.parent.parent == private_cache
    assert not goals.exists()
    wheel_mtime = wheel.stat().st_mtime_ns
    first = load_eai_goals()
    assert first == eai_goals
    stamp = json.loads(goals.read_text(encoding="utf-8"))["stamp"]
    assert stamp["version"] == CONVERTER_VERSION
    goals_mtime = goals.stat().st_mtime_ns
    assert wheel.stat().st_mtime_ns == wheel_mtime  # the copied wheel was not re-fetched

    wheel.unlink()  # a re-run must not need the wheel at all
    assert load_eai_goals() == first
    assert goals.stat().st_mtime_ns == goals_mtime  # not re-converted
    assert not wheel.exists()  # not re-downloaded


@pytest.mark.data
def test_stale_goals_file_is_rebuilt(private_cache: Path) -> None:
    goals = goals_path()
    goals.parent.mkdir(parents=True, exist_ok=True)
    goals.write_text(
        json.dumps(
            {"stamp": {"version": CONVERTER_VERSION - 1}, "virtualhome": [], "behavior": []}
        ),
        encoding="utf-8",
    )
    loaded = load_eai_goals()
    assert len(loaded.virtualhome) == 342 and len(loaded.behavior) == 100
    doc = json.loads(goals.read_text(encoding="utf-8"))
    assert doc["stamp"]["version"] == CONVERTER_VERSION
    assert len(doc["behavior"]) == 100
    assert set(os.listdir(goals.parent)) == {WHEEL_NAME, goals.name}  # no temporary files
