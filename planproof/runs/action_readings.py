"""Action sequencing scored in both readings at once, on one simulator: planproof's own
(:mod:`planproof.metrics.action_sequencing`) and the reference's pipeline
(:mod:`planproof.metrics.reference_action_sequencing`), with the correction that leads
from one verdict to the other per task. Both readings replay on planproof's simulator, so
every difference between them is one of the reference's pipeline rules, each a class of
``docs/reference-differences.md``; summed over a file the corrections are the whole gap
in tasks evaluated, successful and executable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from planproof.runs.goal_readings import corrections_table

MISSING_FROM_VALID = frozenset({"PLUGIN", "PLUGOUT", "RELEASE"})
DELTAS = ("evaluated", "success", "executable")
UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class TaskCorrection:
    """One task whose verdicts differ: planproof's reading minus the reference reading's
    (1 = counted in planproof's reading only)."""

    identifier: str
    cls: str
    evaluated: int
    success: int
    executable: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "class": self.cls,
            "evaluated": self.evaluated,
            "success": self.success,
            "executable": self.executable,
        }


@dataclass(frozen=True)
class ActionReadings:
    """One answer in both readings and the correction between them (None: same)."""

    planproof: Any
    """:class:`~planproof.metrics.action_sequencing.TaskResult`."""
    reference: Any
    """:class:`~planproof.metrics.reference_action_sequencing.ReferenceTask`."""
    correction: TaskCorrection | None


def _gold(identifier: str) -> Any:
    from planproof.simulators.virtualhome.reference_goals import reference_goals

    return reference_goals().get(identifier)


def _executor_rule(task: Any, own: Any, ref: Any) -> str | None:
    """The executor rule of the reading behind a differing verdict: the first one whose
    absence gives planproof's executability and error type back (None: no single one)."""
    from planproof.metrics.reference_executor import EXECUTOR_RULES, replay_reference_executor
    from planproof.simulators.core import Action
    from planproof.simulators.virtualhome.convert import object_name
    from planproof.simulators.virtualhome.reference_goals import reference_goals

    names = reference_goals()[task.identifier]["action_names"]
    try:
        actions = [
            Action(n.upper(), tuple(object_name(a, names[a]) for a in args))
            for n, args in ref.steps
        ]
    except KeyError:
        return None
    for rule in EXECUTOR_RULES:
        _, _, _, error = replay_reference_executor(
            task, actions, [r for r in EXECUTOR_RULES if r != rule]
        )
        if error == own.error_type:
            return f"simulator:{rule}"
    return None


def classify(own: Any, ref: Any, task: Any = None) -> str:
    """The pipeline rule that separates the two verdicts of one task (the first, in the
    reference's order, whose outcome differs)."""
    if not ref.evaluated:
        return "gold-test"
    if ref.error == "parsing":
        return "tolerant-parsing"
    if ref.steps and own.steps > len(ref.steps):
        return "repeated-keys"
    if ref.error == "hallucination":
        if any(n.upper() in MISSING_FROM_VALID for n, _ in ref.steps):
            return "valid-actions"
        if any(a == "" for _, args in ref.steps for a in args):
            return "empty-argument"
        return "object-outside-relevant-set"
    if ref.shortcut:
        return "gold-script-shortcut"
    if ref.success and not ref.executable and not own.success:
        return "success-without-execution"
    if task is not None and (own.executable, own.error_type) != (ref.executable, ref.error):
        rule = _executor_rule(task, own, ref)
        if rule is not None:
            return rule
    if own.success != ref.success and own.executable == ref.executable:
        return "additional-goal-action" if own.warnings else "ordered-action-goals"
    if own.error_type != ref.error and bool(own.warnings) != bool(ref.additional):
        return "additional-step-counted"
    return UNEXPLAINED


def _same(own: Any, ref: Any) -> bool:
    """Same verdict: evaluated, success, executability and error type."""
    return bool(
        ref.evaluated
        and own.success == ref.success
        and own.executable == ref.executable
        and own.error_type == ref.error
    )


def _both(own: Any, task: Any, text: str | None) -> ActionReadings:
    from planproof.metrics.reference_action_sequencing import score_answer, unevaluated

    gold = _gold(task.identifier)
    if gold is None or text is None:
        ref = unevaluated(task.identifier)
    else:
        ref = score_answer(task, text, gold)
    if _same(own, ref):
        return ActionReadings(own, ref, None)
    fix = TaskCorrection(
        task.identifier,
        classify(own, ref, task),
        1 - int(ref.evaluated),
        int(own.success) - int(ref.success and ref.evaluated),
        int(own.executable) - int(ref.executable and ref.evaluated),
    )
    return ActionReadings(own, ref, fix)


def score_both(task: Any, text: str) -> ActionReadings:
    """Score one answer in both readings (planproof's reads repeated keys as steps)."""
    from planproof.metrics.action_sequencing import evaluate_response

    return _both(evaluate_response(task, text, "virtualhome"), task, text)


def failed_both(task: Any, message: str) -> ActionReadings:
    """An answer without text: a parsing error for planproof, left out by the reference
    (its loop would stop on it)."""
    from planproof.metrics.action_sequencing import parse_error_result

    return _both(parse_error_result(task, message), task, None)


def summarize_both(results: Sequence[ActionReadings]) -> dict[str, Any]:
    """planproof's summary with the reference reading's (``reference_reading``) and the
    corrections table (``corrections``, counts in tasks) inside it."""
    from planproof.metrics.action_sequencing import summarize
    from planproof.metrics.reference_action_sequencing import summarize_reference

    return with_reading(
        summarize([r.planproof for r in results]),
        summarize_reference([r.reference for r in results]),
        [r.correction for r in results],
        DELTAS,
    )


def with_reading(
    summary: dict[str, Any],
    reading: dict[str, Any],
    fixes: Sequence[TaskCorrection | None],
    deltas: Sequence[str],
) -> dict[str, Any]:
    """``summary`` with the reference reading's summary and the corrections table (of the
    per-task ``fixes``, None where the verdicts agree) inside it, as the sweep keeps them
    for a module whose verdicts are compared task by task."""
    summary["reference_reading"] = reading
    table = corrections_table([f for f in fixes if f is not None], deltas)
    table["deltas"] = list(deltas)
    summary["corrections"] = table
    return summary


def _reading_facts(r: ActionReadings) -> dict[str, str]:
    """The reference reading of one task, in words, for the report's drill-down."""
    ref = r.reference
    if not ref.evaluated:
        verdict = "left out (the reference's gold test)"
    else:
        verdict = ", ".join(
            (
                "executable" if ref.executable else "not executable",
                "successful" if ref.success else "not successful",
                f"error: {ref.error}" if ref.error else "no error",
                *(["equal to the gold script, not simulated"] if ref.shortcut else []),
            )
        )
    return {"verdict": verdict, "correction": r.correction.cls if r.correction else ""}


def verdicts_both(results: Sequence[ActionReadings]) -> list[dict[str, Any]]:
    """Each task's verdict in both readings and its correction."""
    return [task_verdict(r.planproof, r, r.planproof.to_dict(), _reading_facts(r)) for r in results]


def task_verdict(own: Any, r: Any, record: dict[str, Any], facts: dict[str, str]) -> dict[str, Any]:
    """One task's verdict as the sweep keeps it: planproof's (``own``, a
    :class:`~planproof.metrics.action_sequencing.TaskResult`), the reference reading's and
    the correction of ``r`` (a readings pair), and the task's record for the drill-down with
    the reading's ``facts``."""
    return {
        "identifier": own.identifier,
        "executable": own.executable,
        "success": own.success,
        "error": own.error_type,
        "reference": r.reference.to_dict(),
        "correction": r.correction.to_dict() if r.correction else None,
        "record": {**record, "reference_reading": facts},
    }
