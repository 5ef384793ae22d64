"""Subgoal decomposition scored in both readings at once, on one simulator: planproof's own
(:mod:`planproof.metrics.subgoal_decomposition`) and the reference's pipeline
(:mod:`planproof.metrics.reference_subgoal_decomposition`), with the correction that leads
from one verdict to the other per task (the same :class:`TaskCorrection` and table as
action sequencing's). Summed over a file the corrections are the whole gap in tasks
successful and executable.

The reference's disjunct draws depend on the answers before in the same file, so the
sweep samples a file once (:func:`draws_for`) and scores each task with its own draw.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planproof.runs.action_readings import UNEXPLAINED, TaskCorrection, task_verdict, with_reading

DELTAS = ("success", "executable")


@dataclass(frozen=True)
class SubgoalReadings:
    """One answer in both readings and the correction between them (None: same)."""

    planproof: Any
    """:class:`~planproof.metrics.subgoal_decomposition.SubgoalResult`."""
    reference: Any
    """:class:`~planproof.metrics.reference_subgoal_decomposition.ReferenceSubgoalTask`."""
    correction: TaskCorrection | None


@functools.lru_cache(maxsize=32)
def draws_for(path: str) -> Mapping[str, Any]:
    """The reference's samples of every answer of a published file ({} when the file is
    not a readable JSON list: its cell fails on its own)."""
    from planproof.metrics.reference_subgoal_decomposition import file_draws

    try:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return file_draws(rows) if isinstance(rows, list) else {}


def classify(own: Any, ref: Any) -> str:
    """The reference's rule that separates the two verdicts of one task (the first, in the
    reference's order, that applied)."""
    traj = own.trajectory
    if ref.plan.lines is None and ref.category == "NotParseable":
        return "tolerant-parsing"
    if ref.plan.dropped and traj.error_type == "parsing":
        return "unparsable-subgoal-dropped"
    if ref.plan.sampled:
        return "disjunct-sampled"
    if ref.unknown:
        return "unknown-primitive"
    if ref.as_written:
        return "names-as-written"
    if ref.category == "NotParseable":
        return "reference-exception"
    if ref.argument_count != (traj.error_type == "argument_count"):
        return "argument-count-first"
    if not ref.executable and traj.executable:
        return "refinement-search"
    if ref.executable and not traj.executable:
        if "additional_step" in ref.errors and not traj.warnings:
            return "additional-step-accepted"
        if ref.translated:
            return "translator-rule"
        if ref.split:
            return "conjunction-as-sequence"
        if "additional_step" in ref.errors:
            return "additional-step-accepted"
        return "translator-rule"
    if ref.executable and traj.executable and ref.success != traj.success:
        return "refinement-choice"
    return UNEXPLAINED


def _same(own: Any, ref: Any) -> bool:
    return bool(
        own.trajectory.success == ref.success and own.trajectory.executable == ref.executable
    )


def _both(own: Any, ref: Any) -> SubgoalReadings:
    if _same(own, ref):
        return SubgoalReadings(own, ref, None)
    t = own.trajectory
    fix = TaskCorrection(
        own.identifier,
        classify(own, ref),
        0,
        int(t.success) - int(ref.success),
        int(t.executable) - int(ref.executable),
    )
    return SubgoalReadings(own, ref, fix)


def score_both(task: Any, text: str, plan: Any = None, **search: Any) -> SubgoalReadings:
    """Score one answer in both readings; ``plan`` is the reference's sample of it
    (:func:`draws_for`; drawn afresh from the seed when not given), ``search`` planproof's
    search options (``depth``, ``mode``, ``max_states``; its defaults when not given)."""
    import random

    from planproof.metrics import reference_subgoal_decomposition as ref
    from planproof.metrics.subgoal_decomposition import evaluate_subgoal_response

    if plan is None:
        plan = ref.sample_plan(text, random.Random(ref.REFERENCE_SEED))
    return _both(evaluate_subgoal_response(task, text, **search), ref.score_answer(task, plan))


def failed_both(task: Any, message: str) -> SubgoalReadings:
    """An answer without text: a parsing error in both readings."""
    from planproof.interface.subgoals import SubgoalError
    from planproof.metrics.reference_subgoal_decomposition import unread
    from planproof.metrics.subgoal_decomposition import grammar_error_result
    from planproof.simulators.core import ErrorKind

    own = grammar_error_result(task, SubgoalError(ErrorKind.PARSING, message))
    return _both(own, unread(task.identifier))


def summarize_both(results: Sequence[SubgoalReadings]) -> dict[str, Any]:
    """planproof's summary with the reference reading's and the corrections inside it."""
    from planproof.metrics import reference_subgoal_decomposition as ref
    from planproof.metrics import subgoal_decomposition as own

    pairs = [(r.planproof, r.reference, r.correction) for r in results]
    own_summary = own.summarize([p[0] for p in pairs])
    return with_reading(
        own_summary, ref.summarize_reference([p[1] for p in pairs]), [p[2] for p in pairs], DELTAS
    )


def _reading_facts(r: SubgoalReadings) -> dict[str, str]:
    """The reference reading of one task, in words, for the report's drill-down."""
    ref = r.reference
    verdict = ", ".join(
        (
            ref.category,
            "executable" if ref.executable else "not executable",
            "successful" if ref.success else "not successful",
            *([f"{ref.plan.dropped} line(s) dropped"] if ref.plan.dropped else []),
            *([f"{ref.plan.sampled} disjunction(s) drawn"] if ref.plan.sampled else []),
        )
    )
    return {"verdict": verdict, "correction": r.correction.cls if r.correction else ""}


def verdicts_both(results: Sequence[SubgoalReadings]) -> list[dict[str, Any]]:
    """Each task's verdict in both readings and its correction."""
    return [
        task_verdict(r.planproof.trajectory, r, r.planproof.to_dict(), _reading_facts(r))
        for r in results
    ]
