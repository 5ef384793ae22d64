"""Re-scoring the EAI paper's published LLM answers: the sweep behind ``planproof
reproduce eai``.

The sweep is a list of independent :class:`Cell` s (model × module × dataset), each
scored by the plain, picklable :func:`evaluate_cell` (cell → result dict), so any
executor — in-process, a local process pool, Ray — can map it. A result holds the
module's summary as ``planproof evaluate`` writes it and the paper-named figures
(:func:`figures`) the tables compare.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

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
"""Seconds per planning task, the reference's limit."""

TM_CATEGORIES: tuple[str, ...] = (
    "object_states",
    "object_orientation",
    "object_affordance",
    "spatial_relations",
    "non_spatial_relations",
)
"""Transition-modeling categories as the paper's tables name them (planproof's data
spell the last ``non-spatial_relations``)."""


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
) -> list[Cell]:
    """Every published VirtualHome cell of ``modules`` (and ``models``), fetching the
    published files on first use. With ``reference_reading`` action sequencing is also
    scored with the reference's reading of repeated keys (a second cell per model)."""
    from planproof.data.published import published_files

    cells: list[Cell] = []
    for module in modules:
        for f in published_files(module, "virtualhome"):
            if models and f.model not in models:
                continue
            cells.append(Cell(f.model, module, "virtualhome", str(f.path), planner=planner))
            if module == "action-sequencing" and reference_reading:
                cells.append(Cell(f.model, module, "virtualhome", str(f.path), repeated="last"))
    return cells


def _score_file(
    cell: Cell,
    score: Callable[[Any, str], Any],
    failed: Callable[[Any, str], Any],
    summarize: Callable[[Sequence[Any]], dict[str, Any]],
) -> tuple[dict[str, Any], list[Any]]:
    from planproof.interface.identifiers import canonical_identifiers
    from planproof.interface.responses import read_responses
    from planproof.runs.modules import load_tasks

    tasks = load_tasks(cell.dataset)
    responses = read_responses(cell.path)
    known = {t.identifier for t in tasks}
    by_id, renamed = canonical_identifiers(responses.by_identifier(), known)
    results = []
    for t in tasks:
        e = by_id.get(t.identifier)
        if e is None:
            continue
        if e.error is None and e.text is not None:
            results.append(score(t, e.text))
        else:
            results.append(failed(t, e.error.message if e.error else "no llm_output"))
    summary = summarize(results)
    summary.update(
        tasks_in_dataset=len(tasks),
        tasks_without_response=len(tasks) - len(results),
        unknown_identifiers=sorted(i for i in by_id if i not in known),
        file_notes=list(responses.notes) + renamed,
    )
    return summary, results


def _goal_interpretation(cell: Cell) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from planproof.metrics import goal_interpretation as gi

    summary, results = _score_file(
        cell,
        lambda t, text: gi.evaluate_goal_response(t, text, logic=False),
        gi.parse_error_result,
        gi.summarize,
    )
    return summary, [{"identifier": r.identifier, "f1": r.total.f1} for r in results]


def _action_sequencing(cell: Cell) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from planproof.metrics import action_sequencing as m

    summary, results = _score_file(
        cell,
        lambda t, text: m.evaluate_response(t, text, "virtualhome", repeated=cell.repeated),  # type: ignore[arg-type]
        m.parse_error_result,
        m.summarize,
    )
    return summary, [
        _trajectory(r.identifier, r.executable, r.success, r.error_type) for r in results
    ]


def _subgoal_decomposition(cell: Cell) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from planproof.interface.subgoals import SubgoalError
    from planproof.metrics import subgoal_decomposition as m
    from planproof.simulators.core import ErrorKind

    summary, results = _score_file(
        cell,
        m.evaluate_subgoal_response,
        lambda t, msg: m.grammar_error_result(t, SubgoalError(ErrorKind.PARSING, msg)),
        m.summarize,
    )
    trajectories = [r.trajectory for r in results]
    return summary, [
        _trajectory(r.identifier, r.executable, r.success, r.error_type) for r in trajectories
    ]


def _trajectory(ident: str, executable: bool, success: bool, error: str | None) -> dict[str, Any]:
    return {"identifier": ident, "executable": executable, "success": success, "error": error}


def _transition_modeling(cell: Cell) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl(cell.dataset)
    rows = json.loads(Path(cell.path).read_text(encoding="utf-8"))
    report = evaluate_responses(
        data, rows, engine=TM_ENGINE, timeout=TM_TIMEOUT, run_planner=cell.planner
    )
    tasks = [{"identifier": t.identifier, "planner_found": t.planner_found} for t in report.tasks]
    summary = report.summary()
    if cell.dataset == "virtualhome":  # the reference's counting, for the paper's Table 13
        from planproof.pddl.reference_logic_form import reference_logic_form_figures

        summary["reference_counting"] = reference_logic_form_figures(data, rows)
    return summary, tasks


_SCORERS: dict[str, Callable[[Cell], tuple[dict[str, Any], list[dict[str, Any]]]]] = {
    "goal-interpretation": _goal_interpretation,
    "action-sequencing": _action_sequencing,
    "subgoal-decomposition": _subgoal_decomposition,
    "transition-modeling": _transition_modeling,
}


def evaluate_cell(cell: Cell) -> dict[str, Any]:
    """Score one cell: ``{"cell", "summary", "figures", "tasks", "seconds"}`` (plain data,
    picklable; ``tasks`` holds each task's verdict for per-task comparisons)."""
    start = time.perf_counter()
    summary, tasks = _SCORERS[cell.module](cell)
    return {
        "cell": asdict(cell),
        "summary": summary,
        "figures": figures(cell.module, summary),
        "tasks": tasks,
        "seconds": round(time.perf_counter() - start, 3),
    }


# --------------------------------------------------------------------------- figures


def _pct(value: object, scale: float = 1.0) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return round(float(value) * scale, 4)


def _dig(doc: Mapping[str, Any], *path: str) -> object:
    cur: object = doc
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


_TRAJECTORY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("task_success", ("goal_evaluation", "task_success_rate")),
    ("execution_success", ("trajectory_evaluation", "execution_success_rate")),
    ("parsing", ("trajectory_evaluation", "grammar_error", "parsing")),
    ("hallucination", ("trajectory_evaluation", "grammar_error", "hallucination")),
    ("argument_count", ("trajectory_evaluation", "grammar_error", "predicate_argument_number")),
    ("wrong_order", ("trajectory_evaluation", "runtime_error", "wrong_order")),
    ("missing_step", ("trajectory_evaluation", "runtime_error", "missing_step")),
    ("affordance", ("trajectory_evaluation", "runtime_error", "affordance_error")),
    ("additional_step", ("trajectory_evaluation", "runtime_error", "additional_step")),
    ("goal_state", ("goal_evaluation", "state_goal")),
    ("goal_relation", ("goal_evaluation", "relation_goal")),
    ("goal_action", ("goal_evaluation", "action_goal")),
    ("goal_total", ("goal_evaluation", "total_goal")),
)
"""Paper metric name ← path in an action-sequencing / subgoal-decomposition summary
(the same keys the reference's ``summary.json`` uses)."""


def figures(module: str, summary: Mapping[str, Any]) -> dict[str, float]:
    """A module summary's figures under the paper's metric names
    (:mod:`planproof.data.paper_eai`), in percent; absent figures are left out."""
    out: dict[str, float | None] = {}
    if module == "goal-interpretation":
        for kind in ("state", "relation", "action", "overall"):
            for m in ("precision", "recall", "f1"):
                out[f"{kind}_{m}"] = _pct(_dig(summary, "goal_evaluation", kind, m))
    elif module in ("action-sequencing", "subgoal-decomposition"):
        for name, path in _TRAJECTORY:
            out[name] = _pct(_dig(summary, *path))
    elif module == "transition-modeling":
        for cat in TM_CATEGORIES:
            raw = cat.replace("non_spatial", "non-spatial")
            for m in ("precision", "recall", "f1"):
                out[f"{cat}_{m}"] = _pct(_dig(summary, "by_category", raw, m), 100.0)
            out[f"{cat}_planner_success"] = _pct(
                _dig(summary, "planner_by_category", raw, "planner_found"), 100.0
            )
    return {k: v for k, v in out.items() if v is not None}
