"""Re-scoring the EAI paper's published LLM answers: the sweep behind ``planproof
reproduce eai``.

The sweep is a list of independent :class:`Cell` s (model × module × dataset), each
scored by the plain, picklable :func:`evaluate_cell` (cell → result dict), so any
executor — in-process, a local process pool, Ray — can map it. A result holds the
module's summary as ``planproof evaluate`` writes it and the paper-named figures
(:func:`figures`) the tables compare. Subgoal decomposition's cells are best scored as
task slices of every model's file (:class:`Shard`, :func:`evaluate_job`,
:func:`merge_shards`), which give the same results.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from planproof.runs.figures import figures

MODULES: tuple[str, ...] = (
    "goal-interpretation",
    "action-sequencing",
    "subgoal-decomposition",
    "transition-modeling",
)
"""The four VirtualHome modules, in the paper's order."""

TM_ENGINE = "builtin"
"""The planner of transition modeling's sweep: planproof's in-process search, which gives
the verdict of the reference's Fast Downward at a fraction of its cost
(docs/reference-differences.md, "Engine")."""
TM_TIMEOUT = 100.0
"""Seconds per planning task, the reference's limit (used only by engines without a
budget of their own)."""
TM_BEHAVIOR_ENGINE = "fast-downward"
TM_BEHAVIOR_CPU_BUDGET = 5.0
"""BEHAVIOR transition modeling plans with Fast Downward (lama-first on planproof's PDDL
export, :mod:`planproof.pddl.fd_budget`) under a budget of CPU seconds per planning task:
the builtin search spends 20,000 expansions (1-2 minutes of CPU) on answers Fast Downward
plans in 0.3 s of CPU (38-step plans). The budget is the CPU time of Fast Downward's
translator and search together, so a spent budget does not depend on the machine's
load: it is its own status (``budget``, never "no plan"), cached under the budget and
reported (``planner_budget_spent``, ``reproduce``'s notes). An h^2 test between the
translator and the search proves most of the tasks that used to spend it unsolvable.
Why 5 s and not the reference's 200 s of wall time (on the 1,273 distinct published
planning tasks the slowest plan found took 3.4 s of CPU; 200 s would cost hours of CPU
per cold run): docs/reproduce.md, "Planner budget"."""
TM_MAX_EXPANSIONS = 20_000
"""The builtin planner's budget per planning task, in search expansions: the verdict is
the same on every machine under any load (a wall-clock limit lost three Gemini 1.0 Pro
plans on a loaded machine). The hardest published tasks need a few hundred expansions
(Gemini 1.0 Pro's 384_1 and 71_2: 356); a spent budget is reported (``budget``) and
cached like a verdict (docs/reproduce.md, "Planner budget")."""


@dataclass(frozen=True)
class Cell:
    """One (model, module, dataset) file to score. ``repeated`` is the action-sequencing
    reading of repeated keys (``steps``: planproof; ``last``: the reference's json.loads);
    ``planner`` runs the planner for transition modeling."""

    model: str
    module: str
    dataset: str
    path: str
    repeated: str = "steps"
    planner: bool = True


def published_cells(
    modules: Sequence[str] = MODULES,
    models: Sequence[str] | None = None,
    *,
    planner: bool = True,
    reference_reading: bool = True,
    datasets: Sequence[str] = ("virtualhome",),
) -> list[Cell]:
    """Every published cell of ``modules`` (and ``models``) on ``datasets``, fetching the
    published files on first use: VirtualHome for the four modules, BEHAVIOR for
    transition modeling (the only BEHAVIOR module with published answers). With
    ``reference_reading`` action sequencing is also scored with the reference's reading of
    repeated keys (a second cell per model)."""
    from planproof.data.published import FOLDERS, published_files

    cells: list[Cell] = []
    for dataset in datasets:
        for module in modules:
            if (module, dataset) not in FOLDERS:
                continue
            for f in published_files(module, dataset):
                if models and f.model not in models:
                    continue
                cells.append(Cell(f.model, module, dataset, str(f.path), planner=planner))
                if module == "action-sequencing" and reference_reading:
                    cells.append(Cell(f.model, module, dataset, str(f.path), repeated="last"))
    return cells


def _score_file(
    cell: Cell,
    score: Callable[[Any, str], Any],
    failed: Callable[[Any, str], Any],
    keep: Callable[[int], bool] | None = None,
) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """The file's facts (tasks, missing answers, unknown identifiers, notes) and, for
    each dataset task with an answer (only the positions ``keep`` keeps), its position
    in the dataset and its result."""
    from planproof.interface.identifiers import canonical_identifiers
    from planproof.interface.responses import read_responses
    from planproof.runs.modules import load_tasks

    tasks = load_tasks(cell.dataset)
    responses = read_responses(cell.path)
    bad = [e for e in responses.entries if e.identifier is None]
    unreadable = _unreadable(
        cell.path,
        len(responses.entries) + len(responses.duplicates),
        [e.error.message if e.error else "no identifier" for e in bad],
    )
    known = {t.identifier for t in tasks}
    by_id, renamed = canonical_identifiers(responses.by_identifier(), known)
    results: list[tuple[int, Any]] = []
    answered = 0
    for i, t in enumerate(tasks):
        e = by_id.get(t.identifier)
        if e is None:
            continue
        answered += 1
        if keep is not None and not keep(i):
            continue
        if e.error is None and e.text is not None:
            results.append((i, score(t, e.text)))
        else:
            results.append((i, failed(t, e.error.message if e.error else "no llm_output")))
    facts = {
        "tasks_in_dataset": len(tasks),
        "tasks_without_response": len(tasks) - answered,
        "unknown_identifiers": sorted(i for i in by_id if i not in known),
        "file_notes": list(responses.notes) + renamed,
        **unreadable,
    }
    return facts, results


MAX_SHOWN_PROBLEMS = 3
"""Unreadable rows of a published file named in its note (the count is always given)."""


def _unreadable(path: str, total: int, problems: Sequence[str]) -> dict[str, Any]:
    """``{"unreadable_rows": {...}}`` for a published file some of whose rows are not
    answers (not an object, no identifier): the count and the first problems, so that
    ``reproduce`` names the file; ``{}`` when every row reads. A file none of whose rows
    is an answer (a wrong top-level type, a list of strings, no row at all) is not a
    published answers file: :class:`PublishedFileError`, naming it."""
    if total == 0 or len(problems) == total:
        first = f" ({problems[0]})" if problems else ""
        raise PublishedFileError(
            f"{path}: no answer in it: {total} row(s), none an object with an identifier"
            f"{first}; a published file is a JSON list of "
            '{"identifier": ..., "llm_output": ...}'
        )
    if not problems:
        return {}
    return {
        "unreadable_rows": {
            "count": len(problems),
            "of": total,
            "first": list(problems[:MAX_SHOWN_PROBLEMS]),
        }
    }


_Scoring = tuple[
    Callable[[Any, str], Any],
    Callable[[Any, str], Any],
    Callable[[Sequence[Any]], dict[str, Any]],
    Callable[[Sequence[Any]], list[dict[str, Any]]],
]
"""(score a task's answer, the result of an unreadable answer, summarize the results,
each task's verdict) of a module scored task by task."""


def _scoring(cell: Cell) -> _Scoring:
    if cell.module == "goal-interpretation":
        from planproof.runs import goal_readings as gr

        return (gr.score_both, gr.failed_both, gr.summarize_both, gr.verdicts_both)
    if cell.module == "action-sequencing" and cell.repeated == "steps":
        from planproof.runs import action_readings as ar

        return (ar.score_both, ar.failed_both, ar.summarize_both, ar.verdicts_both)
    if cell.module == "action-sequencing":
        from planproof.metrics import action_sequencing as m

        return (
            lambda t, text: m.evaluate_response(t, text, "virtualhome", repeated=cell.repeated),  # type: ignore[arg-type]
            m.parse_error_result,
            m.summarize,
            lambda rs: [_trajectory(r) for r in rs],
        )
    if cell.module == "subgoal-decomposition":
        from planproof.runs import subgoal_readings as sr

        def score_sd(t: Any, text: str) -> Any:
            # the reference's disjunct draws depend on the file's earlier answers
            return sr.score_both(t, text, sr.draws_for(cell.path).get(t.identifier))

        return (score_sd, sr.failed_both, sr.summarize_both, sr.verdicts_both)
    raise ValueError(f"{cell.module} is not scored task by task")


def _by_task(cell: Cell) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    score, failed, _, _ = _scoring(cell)
    facts, scored = _score_file(cell, score, failed)
    return _summarized(cell, facts, [r for _, r in scored])


def _summarized(
    cell: Cell, facts: Mapping[str, Any], results: Sequence[Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    _, _, summarize, verdicts = _scoring(cell)
    summary = summarize(results)
    summary.update(facts)
    return summary, verdicts(results)


def _trajectory(r: Any) -> dict[str, Any]:
    """An action-sequencing result's verdict (a :class:`TaskResult`)."""
    return {
        "identifier": r.identifier,
        "executable": r.executable,
        "success": r.success,
        "error": r.error_type,
    }


def _tm_rows(cell: Cell) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A transition-modeling file's answers (rows with an identifier) and its
    ``unreadable_rows`` facts (:func:`_unreadable`)."""
    try:
        rows = json.loads(Path(cell.path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PublishedFileError(f"{cell.path}: not a readable JSON file: {exc}") from None
    if not isinstance(rows, list):
        raise PublishedFileError(f"{cell.path}: not a JSON list of answers")
    problems = [
        f"entry {i + 1}: "
        + ("no identifier" if isinstance(r, dict) else f"not an object: {type(r).__name__}")
        for i, r in enumerate(rows)
        if not isinstance(r, dict) or r.get("identifier") is None
    ]
    unreadable = _unreadable(cell.path, len(rows), problems)
    rows = [r for r in rows if isinstance(r, dict) and r.get("identifier") is not None]
    return rows, unreadable


def _tm_scored(cell: Cell, data: Any, rows: Sequence[Mapping[str, Any]]) -> tuple[Any, list[Any]]:
    """planproof's report on ``rows`` and, with the planner, the reference reading's
    planner verdicts (each row is scored on its own: a slice of the rows gives
    the slice of the results)."""
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses

    behavior = cell.dataset == "behavior"
    report = evaluate_responses(
        data,
        rows,
        engine=TM_BEHAVIOR_ENGINE if behavior else TM_ENGINE,
        timeout=TM_TIMEOUT,
        max_expansions=None if behavior else TM_MAX_EXPANSIONS,
        cpu_budget=TM_BEHAVIOR_CPU_BUDGET if behavior else None,
        run_planner=cell.planner,
    )
    refs: list[Any] = []
    if cell.planner:
        from planproof.metrics.transition_modeling.reference_planner import (
            reference_planner_tasks,
        )

        # BEHAVIOR: planproof's definitive verdicts serve where the models are the same
        own = report.tasks if behavior else ()
        refs = reference_planner_tasks(data, rows, own=own)
    return report, refs


def _tm_summary(
    cell: Cell,
    report: Any,
    refs: Sequence[Any],
    *,
    unreadable: Mapping[str, Any],
    counting: Mapping[str, Any],
    answers: Mapping[str, str],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The cell's summary and per-task verdicts from its scored rows (VirtualHome)."""
    tasks = _tm_verdicts(report)
    summary = report.summary()
    summary.update(unreadable)
    summary["reference_counting"] = counting
    _with_reading(summary, tasks, report.tasks, refs, answers, planner=cell.planner)
    return summary, tasks


def _tm_verdicts(report: Any) -> list[dict[str, Any]]:
    """Each task's planner verdict in planproof's reading."""
    return [
        {
            "identifier": t.identifier,
            "planner_found": t.planner_found,
            "planner_status": t.planner_status,
        }
        for t in report.tasks
    ]


def _answers(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    return {str(r.get("identifier", "")): str(r.get("llm_output", "")) for r in rows}


def _transition_modeling(cell: Cell) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from planproof.pddl.eai import load_eai_pddl
    from planproof.pddl.reference_logic_form import reference_logic_form_figures

    data = load_eai_pddl(cell.dataset)
    rows, unreadable = _tm_rows(cell)
    report, refs = _tm_scored(cell, data, rows)
    # the reference's counting, for the paper's Tables 13 (VirtualHome) and 14 (BEHAVIOR)
    counting = reference_logic_form_figures(data, rows)
    if cell.dataset == "behavior":  # both readings, and the corrections between them
        from planproof.runs.behavior_readings import both_readings

        tasks = _tm_verdicts(report)
        summary = report.summary()
        summary.update(unreadable)
        summary["reference_counting"] = counting
        refs_or_none = refs if cell.planner else None
        both_readings(data, rows, summary, report.tasks, tasks, refs=refs_or_none)
        return summary, tasks
    return _tm_summary(
        cell, report, refs, unreadable=unreadable, counting=counting, answers=_answers(rows)
    )


def _with_reading(
    summary: dict[str, Any],
    tasks: list[dict[str, Any]],
    own: Sequence[Any],
    refs: Sequence[Any],
    answers: Mapping[str, str],
    *,
    planner: bool,
) -> None:
    """Transition modeling in the reference's reading (logic form: its counting; planner
    success: ``refs``, :mod:`~planproof.metrics.transition_modeling.reference_planner`'s
    verdicts), each task's reference verdict, and the corrections table of planner
    success (counts in tasks); ``answers``: identifier → answer text."""
    from planproof.metrics.transition_modeling.planner_corrections import DELTAS, correction
    from planproof.metrics.transition_modeling.reference_planner import reference_planner_rates
    from planproof.pddl.eai import CATEGORIES
    from planproof.runs.goal_readings import corrections_table

    counted = summary["reference_counting"]
    by_category = {
        cat: {m: counted[f"{cat}_{m}"] / 100 for m in ("precision", "recall", "f1")}
        for cat in CATEGORIES
        if f"{cat}_f1" in counted
    }
    summary["reference_reading"] = {"by_category": by_category}
    if not planner:
        return
    ref = {t.identifier: t for t in refs}
    summary["reference_reading"]["planner_by_category"] = reference_planner_rates(
        list(ref.values()), CATEGORIES
    )
    fixes = []
    for t, row in zip(own, tasks, strict=True):
        r = ref.get(t.identifier)
        if r is None:
            continue
        row["reference"] = {"counted": r.counted, "success": r.success, "status": r.status}
        fix = correction(t, r, answers.get(t.identifier, ""))
        if fix is not None:
            row["correction"] = fix.cls
            fixes.append(fix)
    table = corrections_table(fixes, DELTAS)
    table["deltas"] = list(DELTAS)
    summary["corrections"] = table


_SCORERS: dict[str, Callable[[Cell], tuple[dict[str, Any], list[dict[str, Any]]]]] = {
    "goal-interpretation": _by_task,
    "action-sequencing": _by_task,
    "subgoal-decomposition": _by_task,
    "transition-modeling": _transition_modeling,
}


class PublishedFileError(ValueError):
    """A published answers file that cannot be read as a whole (corrupt, truncated, not a
    list): its cell is left out, the message names the file, the other cells go on."""


SHARDED = frozenset({"subgoal-decomposition", "transition-modeling"})
"""Modules whose cells are scored in task slices (:class:`Shard`): transition modeling
on VirtualHome only (:func:`sharded`)."""


def sharded(cell: Cell) -> bool:
    """Whether ``cell`` is scored in task slices. VirtualHome's transition modeling is:
    the planner's grounding memo (:mod:`planproof.pddl.ground`) is per task, so a worker
    that plans a task for every model (and both readings) compiles its operators once,
    where file by file every worker compiled every task's; and the files' long tails
    (Gemini 1.0 Pro's once took 80 s) no longer leave a worker idle."""
    return cell.module in SHARDED and (
        cell.module != "transition-modeling" or cell.dataset == "virtualhome"
    )


SHARDS = 8
"""Task slices of the sharded cells: enough to keep 2-8 workers busy to the end, few
enough that reading every file once per slice stays negligible."""


@dataclass(frozen=True)
class Shard:
    """The tasks at positions ``index``, ``index + count``, ... of each of ``cells``.

    Subgoal decomposition is scored by task slices of every model's file rather than file
    by file: the worker that scores a task then sees every model's answer to it, and its
    search memo (:mod:`planproof.metrics.subgoal_decomposition`) serves them all, as the
    models share most subgoals from the same states. :func:`merge_shards` makes each
    cell's result, the same as :func:`evaluate_cell`'s."""

    cells: tuple[Cell, ...]
    index: int
    count: int


PAIRED = frozenset({"action-sequencing"})
"""Modules whose cells of one file (action sequencing's two readings of repeated keys) are
scored in one job, a :class:`Shard` of one slice: the second reading then meets the
first's parses and replays in the same process (most answers read alike both ways)."""


def shards(cells: Sequence[Cell], count: int = SHARDS) -> list[Shard]:
    """``count`` slices of ``cells`` (one module's cells)."""
    return [Shard(tuple(cells), i, count) for i in range(count)] if cells else []


def evaluate_shard(shard: Shard) -> list[dict[str, Any]]:
    """Per cell of the shard: the file's facts, the slice's ``(position, result)`` pairs
    and the seconds spent (plain data and result dataclasses, picklable)."""
    out: list[dict[str, Any]] = []
    from planproof.interface.errors import ResponsesFileError

    for cell in shard.cells:
        start = time.perf_counter()
        try:
            if cell.module == "transition-modeling":
                facts, scored = _tm_slice(cell, shard.index, shard.count)
            else:
                score, failed, _, _ = _scoring(cell)
                facts, scored = _score_file(
                    cell, score, failed, lambda i: i % shard.count == shard.index
                )
        except (ResponsesFileError, PublishedFileError, OSError) as exc:  # this file only
            out.append({"error": f"{cell.path}: {exc}" if cell.path not in str(exc) else str(exc)})
            continue
        out.append({"facts": facts, "results": scored, "seconds": time.perf_counter() - start})
    return out


def merge_shards(cell: Cell, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``cell``'s result from its part of every shard (all of them, in any order)."""
    scored = sorted((p for part in parts for p in part["results"]), key=lambda p: p[0])
    if cell.module == "transition-modeling":
        facts = next(p["facts"] for p in parts if "reference_counting" in p["facts"])
        summary, tasks = _tm_merged(cell, facts, [r for _, r in scored])
    else:
        summary, tasks = _summarized(cell, parts[0]["facts"], [r for _, r in scored])
    return _cell_result(cell, summary, tasks, sum(p["seconds"] for p in parts))


def _tm_slice(cell: Cell, index: int, count: int) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """Slice ``index`` of ``count`` of a VirtualHome transition-modeling file, scored in
    both readings: the rows whose *task* falls in the slice (by its place in the
    dataset's order, so that one slice holds a task's answers of every model, whatever
    the file's order; a row of no evaluated task by its position). Returns the file's
    facts (slice 0 adds the reference's logic-form counting, which needs every row) and
    per kept row its position and ``(identifier, answer, planproof's result or None: not
    evaluated, the reference reading's)``."""
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl(cell.dataset)
    rows, unreadable = _tm_rows(cell)
    order = {ident: k for k, ident in enumerate(dict.fromkeys(data.solved))}
    picked = [
        (i, r)
        for i, r in enumerate(rows)
        if order.get(str(r.get("identifier", "")), i) % count == index
    ]
    report, refs = _tm_scored(cell, data, [r for _, r in picked])
    wanted = set(data.solved)
    own, ref = iter(report.tasks), iter(refs)
    results: list[tuple[int, Any]] = []
    for i, r in picked:
        ident = str(r.get("identifier", ""))
        evaluated = ident in wanted and ident in data.task_actions
        mine = next(own) if evaluated else None
        theirs = next(ref) if evaluated and cell.planner else None
        results.append((i, (ident, str(r.get("llm_output", "")), mine, theirs)))
    if next(own, None) is not None or next(ref, None) is not None:
        raise AssertionError("a slice's results do not match its rows")  # pragma: no cover
    facts: dict[str, Any] = {"unreadable": unreadable}
    if index == 0:
        from planproof.pddl.reference_logic_form import reference_logic_form_figures

        facts["reference_counting"] = reference_logic_form_figures(data, rows)
    return facts, results


def _tm_merged(
    cell: Cell, facts: Mapping[str, Any], results: Sequence[Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The cell's summary and verdicts from every slice's rows, in the file's order: what
    :func:`_transition_modeling` gives for the whole file."""
    from planproof.metrics.transition_modeling.evaluate import Report

    own = tuple(mine for _, _, mine, _ in results if mine is not None)
    skipped = tuple(ident for ident, _, mine, _ in results if mine is None)
    refs = [theirs for _, _, _, theirs in results if theirs is not None]
    answers = {ident: answer for ident, answer, _, _ in results}
    report = Report(cell.dataset, own, skipped, {})
    return _tm_summary(
        cell,
        report,
        refs,
        unreadable=facts["unreadable"],
        counting=facts["reference_counting"],
        answers=answers,
    )


def evaluate_job(job: Cell | Shard) -> Any:
    """:func:`evaluate_cell` or :func:`evaluate_shard`: one function for an executor's
    ``map`` over a sweep's mixed work."""
    return evaluate_shard(job) if isinstance(job, Shard) else evaluate_cell(job)


def _cell_result(
    cell: Cell, summary: dict[str, Any], tasks: list[dict[str, Any]], seconds: float
) -> dict[str, Any]:
    out = {
        "cell": asdict(cell),
        "summary": summary,
        "figures": _figures(cell, summary),
        "tasks": tasks,
        "seconds": round(seconds, 3),
    }
    reading = summary.get("reference_reading")
    if isinstance(reading, Mapping):  # scored in the reference's reading too
        out["reference_reading_figures"] = _figures(cell, reading)
    return out


def _figures(cell: Cell, summary: Mapping[str, Any]) -> dict[str, float]:
    """The cell's paper-named figures; a planner that was not run (``--no-planner``) has
    no planner-success figure, rather than 0.0 (no task planned)."""
    out = figures(cell.module, summary)
    if not cell.planner:
        out = {k: v for k, v in out.items() if not k.endswith("_planner_success")}
    return out


def evaluate_cell(cell: Cell) -> dict[str, Any]:
    """Score one cell: ``{"cell", "summary", "figures", "tasks", "seconds"}`` (plain data,
    picklable; ``tasks`` holds each task's verdict for per-task comparisons)."""
    start = time.perf_counter()
    summary, tasks = _SCORERS[cell.module](cell)
    return _cell_result(cell, summary, tasks, time.perf_counter() - start)
