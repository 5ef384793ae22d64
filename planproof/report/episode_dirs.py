"""Reading the results directories of the episode benchmarks — ``planproof evaluate
teach``, ``evaluate housekeep`` and ``evaluate partnr`` — into the same :class:`Run`
records as the EAI runs, so that one page shows them all.

Each benchmark writes its own per-episode records (TEACh: ``id`` and ``task``; Housekeep:
``id``, or only a source and an index when the episode was bad input; PARTNR: an episode
and a plan name). Every record is given the ``identifier``, ``task_name`` and
``task_goal`` the page reads; its other fields are kept as written. The directory's
name stands for the model (these commands score plans, not a model's calls).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from planproof.report.load import (
    SUMMARY_FILE,
    Run,
    RunInfo,
    as_dict,
    as_int,
    as_str,
    dig,
    opt_int,
    read_jsonl,
    str_list,
)

TEACH, HOUSEKEEP, PARTNR = "teach", "housekeep", "partnr"
BENCHMARKS = (TEACH, HOUSEKEEP, PARTNR)
DATASET = "episodes"
"""The section key's dataset for every episode benchmark: its runs are compared in one
section whatever episodes they read (the coverage warning says when those differ)."""
MAX_SUMMARY_NOTES = 8
"""Most notes taken from a summary's ``notes`` (a hand-edited summary cannot flood the
page)."""
RESULTS_FILES = {TEACH: "results.jsonl", HOUSEKEEP: "episodes.jsonl", PARTNR: "results.jsonl"}
COUNT_KEYS = {TEACH: ("overall", "episodes"), HOUSEKEEP: ("episodes",), PARTNR: ("plans",)}
"""Where each summary says how many episodes (plans) it scored."""


def benchmark_of(path: Path, summary: Mapping[str, Any]) -> str | None:
    """The episode benchmark whose ``evaluate`` wrote ``summary``, or None. The summaries
    record it (``benchmark``); older ones are recognised by their keys."""
    named = as_str(summary.get("benchmark"))
    if named in BENCHMARKS:
        return named
    if "rearrangement_quality" in as_dict(summary.get("metrics")):
        return HOUSEKEEP
    if "gc_macro" in as_dict(summary.get("overall")):
        return TEACH
    if "percent_complete" in summary and "plans" in summary:
        return PARTNR
    return None


def _teach(row: Mapping[str, Any]) -> tuple[str, str, str]:
    params = str_list(row.get("params"))
    name = as_str(row.get("task")) + (f" ({', '.join(params)})" if params else "")
    total = as_int(dig(row, "final", "gc_total"))
    at_start = as_int(dig(row, "initial", "gc_satisfied"))
    goal = (
        f"the task definition's {total} goal conditions ({at_start} held at the start)"
        if total
        else ""
    )
    return as_str(row.get("id")), name, goal


def _housekeep(row: Mapping[str, Any]) -> tuple[str, str, str]:
    ident = as_str(row.get("id"))
    if not ident and as_str(row.get("source")):  # a bad-input record names only its place
        ident = f"{as_str(row.get('source'))} #{as_int(row.get('index')) + 1}"
    return ident, "", as_str(dig(row, "goal", "goal"))


def _partnr(row: Mapping[str, Any]) -> tuple[str, str, str]:
    episode, plan = as_str(row.get("episode_id")), as_str(row.get("plan"))
    ident = f"{episode}/{plan}" if episode and plan else episode
    return ident, as_str(row.get("instruction")), ""


IDENTIFY: dict[str, Callable[[Mapping[str, Any]], tuple[str, str, str]]] = {
    TEACH: _teach,
    HOUSEKEEP: _housekeep,
    PARTNR: _partnr,
}
"""(identifier, task name, goal) of one record, per benchmark."""


def load_benchmark_run(path: Path, benchmark: str, summary: Mapping[str, Any]) -> Run:
    """One ``evaluate teach|housekeep|partnr`` directory. A missing results file, a
    record without an identifier and a repeated identifier are notes, never fatal; a
    repeated identifier is shown with ``#2``, ``#3``... so no record is dropped."""
    notes: list[str] = []
    name = RESULTS_FILES[benchmark]
    rows = read_jsonl(path / name, notes)
    if rows is None:
        notes.append(f"{name} is missing: only {SUMMARY_FILE} can be shown")
    results: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    for row in rows or []:
        ident, task, goal = IDENTIFY[benchmark](row)
        if not ident:
            notes.append(f"{name}: a record without an identifier was skipped")
            continue
        seen[ident] += 1
        if seen[ident] > 1:
            notes.append(f"{name}: identifier {ident!r} repeats; shown as {ident} #2, #3...")
            ident = f"{ident} #{seen[ident]}"
        results.append({**row, "identifier": ident, "task_name": task, "task_goal": goal})
    announced = opt_int(dig(summary, *COUNT_KEYS[benchmark]))
    if rows is not None and announced is not None and announced != len(results):
        notes.append(f"{SUMMARY_FILE} counts {announced}, {name} holds {len(results)} records")
    bad = as_int(summary.get("bad_input"))
    if bad:
        notes.append(f"{bad} episode(s) were bad input and have no metrics")
    # what the command itself says about its run (provenance, readings that part)
    notes.extend(str_list(summary.get("notes"))[:MAX_SUMMARY_NOTES])
    info = RunInfo(
        model=as_str(summary.get("model")) or path.resolve().name or str(path),
        module=benchmark,
        dataset=DATASET,
        tasks=announced if announced is not None else len(results),
    )
    return Run(
        path=path,
        info=info,
        summary=summary,
        responses=(),
        results=tuple(results),
        notes=tuple(dict.fromkeys(notes)),
        evaluated=rows is not None,
    )
