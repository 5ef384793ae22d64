"""Task slices of a sweep (``published_sweep.Shard``): merged, they are the cell.

``merge_shards(cell, parts)`` equals ``evaluate_cell(cell)`` (but for the seconds spent)
whatever the number of slices and the order the parts arrive in, on real published
files of goal interpretation, action sequencing (both readings of repeated keys),
subgoal decomposition and VirtualHome transition modeling (both readings, the planner
on); ``reproduce``'s ``score_cells`` leaves out the cells of a failing
slice with one warning per cell and keeps the other modules' cells.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.data import DataUnavailableError
from planproof.data.published import PublishedFile, published_files
from planproof.runs.published_sweep import (
    Cell,
    Shard,
    evaluate_cell,
    evaluate_job,
    evaluate_shard,
    merge_shards,
    shards,
)
from tests.helpers import needed_resource

GPT4O = "gpt-4o-2024-05-13"
MISTRAL = "mistral-large-2402"
TM = "transition-modeling"

pytestmark = pytest.mark.data


def _rows(files: list[PublishedFile], module: str, model: str, n: int, tmp: Path) -> Path:
    """The first ``n`` answers of a published file (the rest of the dataset then counts
    as unanswered, which the merged facts must say too)."""
    f = next(x for x in files if x.module == module and x.model == model)
    rows = json.loads(f.path.read_text(encoding="utf-8"))[:n]
    out = tmp / f"{module}-{model}.json"
    out.write_text(json.dumps(rows), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Cell]]:
    """Per module, the cells one slice holds together (every model's file)."""
    files = needed_resource(published_files, DataUnavailableError, "published EAI outputs")
    tmp = tmp_path_factory.mktemp("shards")
    gi, as_, sd = "goal-interpretation", "action-sequencing", "subgoal-decomposition"
    out: dict[str, list[Cell]] = {}
    out[gi] = [
        Cell(m, gi, "virtualhome", str(_rows(files, gi, m, 25, tmp))) for m in (GPT4O, MISTRAL)
    ]
    as_path = str(_rows(files, as_, GPT4O, 25, tmp))
    out[as_] = [Cell(GPT4O, as_, "virtualhome", as_path, repeated=r) for r in ("steps", "last")]
    out[sd] = [
        Cell(m, sd, "virtualhome", str(_rows(files, sd, m, 20, tmp))) for m in (GPT4O, MISTRAL)
    ]
    out[TM] = [
        Cell(m, TM, "virtualhome", str(_rows(files, TM, m, 14, tmp))) for m in (GPT4O, MISTRAL)
    ]
    return out


_WHOLE: dict[Cell, dict[str, Any]] = {}
_PARTS: dict[tuple[str, int], list[list[dict[str, Any]]]] = {}


def _whole(cell: Cell) -> dict[str, Any]:
    if cell not in _WHOLE:
        _WHOLE[cell] = evaluate_cell(cell)
    return _WHOLE[cell]


def _parts(module: str, group: list[Cell], count: int) -> list[list[dict[str, Any]]]:
    """Each slice's output (per cell of ``group``), scored once per count."""
    key = (module, count)
    if key not in _PARTS:
        sliced = shards(group, count)
        assert len(sliced) == count and all(s.cells == tuple(group) for s in sliced)
        _PARTS[key] = [evaluate_shard(s) for s in sliced]
    return _PARTS[key]


def _but_seconds(result: dict[str, Any]) -> dict[str, Any]:
    assert result["seconds"] >= 0
    return {k: v for k, v in result.items() if k != "seconds"}


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["goal-interpretation", "action-sequencing", "subgoal-decomposition", TM]),
    st.integers(1, 9),
    st.randoms(use_true_random=False),
)
def test_merged_slices_are_the_cell(
    cells: dict[str, list[Cell]], module: str, count: int, rnd: random.Random
) -> None:
    """1 to 9 slices (25 for subgoal decomposition: more slices than answers), the parts
    in any order: the merge is the cell's result, tasks, facts and figures included."""
    if module in ("subgoal-decomposition", TM):
        count = (1, 3, 8, 25)[count % 4]  # its search is the slow part: four counts, cached
    group = cells[module]
    parts = _parts(module, group, count)
    for j, cell in enumerate(group):
        mine = [p[j] for p in parts]
        rnd.shuffle(mine)
        merged = merge_shards(cell, mine)
        assert _but_seconds(merged) == _but_seconds(_whole(cell)), (cell, count)


def test_the_subgoal_cells_are_not_trivial(cells: dict[str, list[Cell]]) -> None:
    """The subgoal answers compared above reach subgoals, and some fail."""
    subs = [_whole(c)["summary"]["subgoals"] for c in cells["subgoal-decomposition"]]
    assert all(_whole(c)["summary"]["tasks"] == 20 for c in cells["subgoal-decomposition"])
    assert all(s["reached"] > 0 for s in subs), subs
    assert sum(s["tasks_with_failed_subgoal"] for s in subs) > 0, subs
    group = cells["subgoal-decomposition"]
    parts = _parts("subgoal-decomposition", group, 8)
    for j, cell in enumerate(group):  # the slices in reverse order, whatever hypothesis drew
        merged = merge_shards(cell, [p[j] for p in reversed(parts)])
        assert _but_seconds(merged) == _but_seconds(_whole(cell))


def test_the_slices_split_the_answers(cells: dict[str, list[Cell]]) -> None:
    """Slice ``i`` of ``n`` scores the dataset positions ``i, i + n, ...``: every answered
    task once, in no two slices; every slice reports the file's facts."""
    group = cells["goal-interpretation"]
    parts = _parts("goal-interpretation", group, 4)
    for j, cell in enumerate(group):
        positions = [pos for i, p in enumerate(parts) for pos, _ in p[j]["results"] if pos % 4 == i]
        every = [pos for p in parts for pos, _ in p[j]["results"]]
        assert sorted(positions) == sorted(every) and len(set(every)) == len(every)
        assert len(every) == _whole(cell)["summary"]["tasks"] == 25
        assert all(p[j]["facts"] == parts[0][j]["facts"] for p in parts)
        assert parts[0][j]["facts"]["tasks_without_response"] > 0


def test_transition_modeling_slices_hold_a_tasks_answers_of_every_model(
    cells: dict[str, list[Cell]],
) -> None:
    """A transition-modeling slice takes a task's answer in every model's file (the
    planner's grounding memo is per task), whatever the answer's position in its file;
    the slices score every answer once, in both readings, and the cells are not trivial:
    plans are found in both readings."""
    group = cells[TM]
    parts = _parts(TM, group, 3)
    where: dict[str, set[int]] = {}
    for i, part in enumerate(parts):
        for j in range(len(group)):
            for _, (ident, _, mine, theirs) in part[j]["results"]:
                assert (mine is None) == (theirs is None)
                if mine is not None:  # an evaluated task's (others go by position)
                    where.setdefault(ident, set()).add(i)
    assert where and all(len(s) == 1 for s in where.values()), where
    for cell in group:
        whole = _whole(cell)
        scored = sum(len(p[group.index(cell)]["results"]) for p in parts)
        assert scored == 14
        assert any(t["planner_found"] for t in whole["tasks"])
        assert any(t["reference"]["success"] for t in whole["tasks"] if "reference" in t)


def test_behavior_transition_modeling_is_scored_file_by_file() -> None:
    """BEHAVIOR's transition modeling (Fast Downward per answer) stays a cell per file,
    scheduled first; VirtualHome's comes in task slices after it."""
    from planproof.commands.reproduce import _jobs
    from planproof.runs.published_sweep import SHARDS, sharded

    vh = Cell(GPT4O, TM, "virtualhome", "vh.json")
    bh = Cell(GPT4O, TM, "behavior", "bh.json")
    sd = Cell(GPT4O, "subgoal-decomposition", "virtualhome", "sd.json")
    assert sharded(vh) and sharded(sd) and not sharded(bh)
    jobs = _jobs([vh, bh, sd], range(3))
    assert jobs[0] == (bh, [1])
    assert [m for j, m in jobs if isinstance(j, Shard)] == [[0]] * SHARDS + [[2]] * SHARDS
    assert len(jobs) == 1 + 2 * SHARDS


def test_evaluate_job_runs_a_cell_or_a_slice(cells: dict[str, list[Cell]]) -> None:
    cell = cells["goal-interpretation"][0]
    assert _but_seconds(evaluate_job(cell)) == _but_seconds(_whole(cell))
    shard = Shard(tuple(cells["goal-interpretation"]), 1, 4)
    out = evaluate_job(shard)
    assert [p["results"] for p in out] == [
        p["results"] for p in _parts("goal-interpretation", cells["goal-interpretation"], 4)[1]
    ]
    assert shards([], 4) == []


def _args(*argv: str) -> argparse.Namespace:
    from planproof.commands.reproduce import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_a_failing_slice_leaves_its_cells_out_once_each(
    cells: dict[str, list[Cell]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A subgoal-decomposition file that is no list of responses fails its own cell in
    every slice (each slice holds every model's file): that cell alone is left out, with
    one warning (not one per slice) naming the file; the good subgoal cell and the
    goal-interpretation cell are scored and kept. Cells that succeed through slices are
    the whole cell's result."""
    from planproof.commands.reproduce import _jobs, score_cells
    from planproof.runs.published_sweep import SHARDS

    monkeypatch.setenv("PLANPROOF_CACHE_DIR", str(tmp_path / "cache"))
    bad = tmp_path / "broken.json"
    bad.write_text("not json at all", encoding="utf-8")
    gi = cells["goal-interpretation"][0]
    sd = cells["subgoal-decomposition"][0]
    broken = Cell("broken-model", "subgoal-decomposition", "virtualhome", str(bad))
    todo = [gi, sd, broken]
    jobs = _jobs(todo, range(len(todo)))
    assert sum(isinstance(j, Shard) for j, _ in jobs) == SHARDS
    assert [members for j, members in jobs if isinstance(j, Shard)] == [[1, 2]] * SHARDS
    got = score_cells(todo, _args("--workers", "1", "--no-cache"))
    warnings = [
        line
        for line in capsys.readouterr().err.splitlines()
        if "a cell failed and is left out" in line
    ]
    assert len(warnings) == 1, warnings
    assert "broken-model" in warnings[0] and str(bad) in warnings[0]
    assert [r["cell"]["module"] for r in got] == ["goal-interpretation", "subgoal-decomposition"]
    assert _but_seconds(got[0]) == _but_seconds(_whole(gi))
    assert _but_seconds(got[1]) == _but_seconds(_whole(sd))
    # the good files alone: the subgoal cell comes back merged from its slices, and is cached
    good = score_cells([gi, sd], _args("--workers", "1", "--no-cache"))
    assert [_but_seconds(r) for r in good] == [_but_seconds(_whole(gi)), _but_seconds(_whole(sd))]
    assert len(list((tmp_path / "cache" / "reproduce").glob("*.json"))) == 2


@pytest.mark.parametrize("module", ["goal-interpretation", "action-sequencing"])
def test_a_truncated_file_fails_its_own_cell_naming_it(
    cells: dict[str, list[Cell]],
    module: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A published file cut in the middle (a truncated download) is a clear error naming
    the file; the other cell of the run is scored."""
    from planproof.commands.reproduce import score_cells

    monkeypatch.setenv("PLANPROOF_CACHE_DIR", str(tmp_path / "cache"))
    good = cells[module][0]
    text = Path(good.path).read_text(encoding="utf-8")
    cut = tmp_path / "truncated.json"
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    broken = Cell("truncated-model", module, "virtualhome", str(cut))
    failures: list[str] = []
    got = score_cells([broken, good], _args("--workers", "1", "--no-cache"), failures)
    assert [r["cell"]["model"] for r in got] == [good.model]
    assert len(failures) == 1 and str(cut) in failures[0] and "truncated-model" in failures[0]
    assert str(cut) in capsys.readouterr().err


def test_cells_of_other_code_versions_are_pruned(
    cells: dict[str, list[Cell]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached cell scored by other code is never read again: the next sweep removes it,
    keeps its own, so the cache stays one sweep big."""
    from planproof.commands.reproduce import _cache_key, score_cells

    monkeypatch.setenv("PLANPROOF_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "cache" / "reproduce"
    root.mkdir(parents=True)
    stale = root / "00000000-0123456789abcdef0123456789abcdef.json"
    stale.write_text("{}", encoding="utf-8")
    gi = cells["goal-interpretation"][0]
    score_cells([gi], _args("--workers", "1"))
    assert not stale.exists()
    assert [p.name for p in root.glob("*.json")] == [f"{_cache_key(gi)}.json"]
    again = score_cells([gi], _args("--workers", "1"))  # read back from the cache
    assert [r["cell"]["model"] for r in again] == [gi.model]
