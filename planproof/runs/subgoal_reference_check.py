"""Subgoal decomposition's reference reading against the reference code's own per-task
verdicts on whole files (``planproof/data/reference/whole_files.json``: the reference's
``error_info.json`` entries, one process per batch of consecutive answers), task by task.

The reading draws the file's disjuncts as those processes did (one generator per batch,
from the seed: :func:`~planproof.metrics.reference_subgoal_decomposition.file_draws` with
the cell's batch size) and scores every stored task; a verdict is the reference report's
category, executability and success (:func:`stored_verdict`), and where the report is
stored whole, also whether a hallucination is an argument count and the error types of
the reported path (:func:`report_detail`: error types are compared too, not only success).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Verdict = tuple[str, bool, bool]
"""(category, executable, successful): ``Correct``, ``GoalUnreachable``, ``Runtime``,
``Hallucination`` or ``NotParseable``."""


class StoredVerdictError(ValueError):
    """A stored ``error_info`` entry whose report cannot be read back."""


def stored_verdict(rec: Mapping[str, Any]) -> Verdict:
    """The verdict of one stored ``error_info`` entry (``{"success", "info"}``, ``info`` the
    report tuple's text, read back as the reference's ``traj_eval_stats`` reads it: the
    first item is the category; ``Correct`` and ``GoalUnreachable`` executed, ``Runtime``
    executed when its second item says so, the others not)."""
    try:
        report = ast.literal_eval(str(rec.get("info")))
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise StoredVerdictError(f"unreadable report {str(rec.get('info'))[:80]!r}") from exc
    if not isinstance(report, tuple) or not report or not isinstance(report[0], str):
        raise StoredVerdictError(f"not a report tuple: {str(report)[:80]!r}")
    category = report[0]
    if category in ("Correct", "GoalUnreachable"):
        executable = True
    elif category == "Runtime":
        executable = len(report) > 1 and report[1] is True
    else:
        executable = False
    return category, executable, bool(rec.get("success"))


@dataclass(frozen=True)
class VerdictDifference:
    """One task whose reading differs from the reference's stored verdict."""

    identifier: str
    reference: Verdict | Detail
    reading: Verdict | Detail
    actions: tuple[str, ...] = ()


@dataclass(frozen=True)
class CellComparison:
    """A model's stored tasks against the reading: how many compared, which differ."""

    model: str
    compared: int
    differences: tuple[VerdictDifference, ...]


def stored_verdicts(doc: Mapping[str, Any], model: str) -> dict[str, Detail]:
    """Every stored subgoal-decomposition task of one model in a ``whole_files.json``
    document: identifier (without ``scene_1_``) → the reference's verdict with its error
    types (:func:`report_detail`)."""
    cell = doc.get("cells", {}).get("subgoal-decomposition", {}).get(model, {})
    return {
        k.removeprefix("scene_1_"): report_detail(v)
        for b in cell.get("batches", {}).values()
        for k, v in b.get("tasks", {}).items()
    }


def compare_cell(
    model: str,
    verdicts: Mapping[str, Verdict | Detail],
    rows: Sequence[Any],
    tasks: Mapping[str, Any],
    batch: int | None,
) -> CellComparison:
    """Score ``rows`` (the published file, in order) by the reading with the reference's
    draws for processes of ``batch`` answers, and compare every task in ``verdicts``
    (identifier → the reference's :data:`Verdict`, or its :data:`Detail` to compare the
    argument count and the error types too)."""
    from planproof.metrics import reference_subgoal_decomposition as R

    draws = R.file_draws(rows, batch=batch)
    out = []
    for ident, want in sorted(verdicts.items()):
        task = tasks.get(ident)
        got = (
            R.score_answer(task, draws.get(ident, R.SampledPlan(None)))
            if task is not None
            else R.unread(ident)
        )
        detail = (got.category, got.executable, got.success, got.argument_count)
        mine = (*detail, tuple(sorted(got.errors)))[: len(want)]
        if mine != tuple(want):
            out.append(VerdictDifference(ident, want, mine, got.actions))  # type: ignore[arg-type]
    return CellComparison(model, len(verdicts), tuple(out))


def whole_file_figures(
    rows: Sequence[Any], tasks: Mapping[str, Any], batch: int
) -> dict[str, float]:
    """The reading's figures over a whole file, drawn as the batches drew (for the cells
    the reference has run on every task: their figures are its own)."""
    from planproof.metrics import reference_subgoal_decomposition as R
    from planproof.runs.figures import figures

    draws = R.file_draws(rows, batch=batch)
    scored = []
    for row in rows:
        ident = str(row.get("identifier", "")).removeprefix("scene_1_")
        task = tasks.get(ident)
        plan = draws.get(ident, R.SampledPlan(None))
        scored.append(R.score_answer(task, plan) if task is not None else R.unread(ident))
    return figures("subgoal-decomposition", R.summarize_reference(scored))


Detail = tuple[str, bool, bool, bool, tuple[str, ...]]
"""A :data:`Verdict` and what the report says beyond it: whether a hallucination is an
argument count, and the error types of the reported path (planproof's words, sorted)."""

ERROR_NAMES = {
    "WRONG_TEMPORAL_ORDER": "wrong_order",
    "MISSING_STEP": "missing_step",
    "AFFORDANCE_ERROR": "affordance",
    "ADDITIONAL_STEP": "additional_step",
    "UNSEEN_OBJECT": "unseen_object",
    "UNKNOWN_ERROR": "unknown_error",
}
"""The reference runtime checker's error types → planproof's names."""


def report_detail(rec: Mapping[str, Any]) -> Detail:
    """:data:`Detail` of one reference report (``{"success", "info"}``, as
    :func:`stored_verdict` reads it): the argument count from the semantic checker's
    ``IncorrectParamLength``, the error types from the runtime report's entries
    (``GOAL_FAILED`` left out: it is the verdict)."""
    category, executable, success = stored_verdict(rec)
    report = ast.literal_eval(str(rec.get("info")))
    argc = (
        category == "Hallucination"
        and isinstance(report[1], dict)
        and bool(report[1].get("IncorrectParamLength"))
    )
    errors: list[str] = []
    if category in ("Runtime", "GoalUnreachable", "Correct"):
        entries = report[3] if category == "Correct" else report[2]
        for e in entries or ():
            for kind in e["error_info"]["error_type"]:
                if kind != "GOAL_FAILED":
                    errors.append(ERROR_NAMES.get(kind, kind))
    return category, executable, success, argc, tuple(sorted(errors))


def fresh_detail(task: Any, text: str) -> Detail:
    """The reading's :data:`Detail` of one answer evaluated alone in a fresh reference
    process (its disjuncts drawn from the seed)."""
    import random

    from planproof.metrics import reference_subgoal_decomposition as R

    got = R.score_answer(task, R.sample_plan(text, random.Random(R.REFERENCE_SEED)))
    errors = tuple(sorted(got.errors))
    return got.category, got.executable, got.success, got.argument_count, errors
