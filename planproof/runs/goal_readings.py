"""Goal interpretation scored in both readings at once, sharing the read of each answer:
planproof's own (:mod:`planproof.metrics.goal_interpretation`) and the reference's
(:mod:`planproof.metrics.reference_goal_interpretation`), with the corrections that lead
from one to the other (:mod:`planproof.metrics.goal_corrections`). The sweep of
``planproof reproduce eai`` scores a goal-interpretation file through these four
functions (score, unreadable answer, summarize, per-task verdicts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.boundary.limits import DEFAULT_RLIMIT
from planproof.metrics.goal_corrections import SKIPPED, UNEXPLAINED, Correction

GOAL_TYPES = ("state", "relation", "action")


@dataclass(frozen=True)
class GoalReadings:
    """One answer in both readings and the corrections between them."""

    planproof: Any
    """:class:`~planproof.metrics.goal_interpretation.GoalResult`."""
    reference: Any
    """:class:`~planproof.metrics.reference_goal_interpretation.ReferenceGoalCounts`."""
    corrections: tuple[Correction, ...]


def _gold(identifier: str) -> Mapping[str, Any]:
    from planproof.simulators.virtualhome.reference_goals import reference_goals

    gold = reference_goals().get(identifier)
    if gold is None:  # not a VirtualHome task of the reference: nothing is counted there
        return {"names": {}, "node": [], "edge": [], "actions": []}
    return gold


def score_both(
    task: Any, text: str, *, logic: bool = False, rlimit: int = DEFAULT_RLIMIT
) -> GoalReadings:
    """Score one answer in both readings (``logic``: planproof's Z3 checks too, which
    the sweep leaves out and neither reading's counts depend on)."""
    from planproof.metrics.goal_corrections import task_corrections
    from planproof.metrics.goal_interpretation import evaluate_goal_response
    from planproof.metrics.reference_goal_interpretation import count_answer

    own = evaluate_goal_response(task, text, logic=logic, rlimit=rlimit)
    gold = _gold(task.identifier)
    ref = count_answer(task.identifier, text, gold)
    return GoalReadings(own, ref, tuple(task_corrections(task, text, ref, own, gold["names"])))


def failed_both(task: Any, message: str) -> GoalReadings:
    """An answer without text: planproof counts every gold goal as missed; the reference
    has nothing to read and leaves the task out."""
    from planproof.metrics.goal_interpretation import parse_error_result
    from planproof.metrics.reference_goal_interpretation import ReferenceGoalCounts

    own = parse_error_result(task, message)
    ref = ReferenceGoalCounts(task.identifier, False, dict.fromkeys(GOAL_TYPES, (0, 0, 0)))
    moved = tuple(
        Correction(task.identifier, k, SKIPPED, c.tp, c.fp, c.fn)
        for k, c in own.counts.items()
        if c.tp or c.fp or c.fn
    )
    return GoalReadings(own, ref, moved)


def corrections_table(
    corrections: Sequence[Any], deltas: Sequence[str] = ("tp", "fp", "fn")
) -> dict[str, Any]:
    """Per class (each correction's ``cls``): the corrections (``pairs``), the distinct
    tasks and the counts it moves (``deltas``, attributes of a correction: planproof's
    reading minus the reference reading's); ``total`` sums them (the whole gap),
    ``unexplained`` counts the corrections no class explains."""
    by: dict[str, dict[str, Any]] = {}
    tasks: dict[str, set[str]] = {}
    for c in corrections:
        row = by.setdefault(c.cls, {"pairs": 0, "tasks": 0, **dict.fromkeys(deltas, 0)})
        row["pairs"] += 1
        for d in deltas:
            row[d] += getattr(c, d)
        tasks.setdefault(c.cls, set()).add(c.identifier)
    for cls, row in by.items():
        row["tasks"] = len(tasks[cls])
    total = {k: sum(r[k] for r in by.values()) for k in ("pairs", *deltas)}
    total["tasks"] = len({c.identifier for c in corrections})
    return {
        "classes": dict(sorted(by.items(), key=lambda kv: (-kv[1]["pairs"], kv[0]))),
        "total": total,
        "unexplained": by.get(UNEXPLAINED, {}).get("pairs", 0),
    }


def summarize_both(results: Sequence[GoalReadings]) -> dict[str, Any]:
    """planproof's summary, with the reference reading's (``reference_reading``) and the
    corrections table (``corrections``) inside it."""
    from planproof.metrics.goal_interpretation import summarize
    from planproof.metrics.reference_goal_interpretation import summarize_reference

    summary = summarize([r.planproof for r in results])
    summary["reference_reading"] = summarize_reference([r.reference for r in results])
    summary["corrections"] = corrections_table([c for r in results for c in r.corrections])
    return summary


def _reading_facts(r: GoalReadings) -> dict[str, str]:
    """The reference reading of one task, in words, for the report's drill-down."""
    if not r.reference.read:
        counts = "not read (json.loads fails): left out of every count"
    else:
        counts = "; ".join(
            f"{k} TP {tp} / FP {fp} / FN {fn}" for k, (tp, fp, fn) in r.reference.counts.items()
        )
    fixes = ", ".join(f"{c.cls} ({c.goal_type})" for c in r.corrections)
    return {"counts": counts, "correction": fixes}


def verdicts_both(results: Sequence[GoalReadings]) -> list[dict[str, Any]]:
    """Each task's counts in both readings and its corrections."""
    out: list[dict[str, Any]] = []
    for r in results:
        own = {k: [c.tp, c.fp, c.fn] for k, c in r.planproof.counts.items()}
        out.append(
            {
                "identifier": r.planproof.identifier,
                "f1": r.planproof.total.f1,
                "counts": own,
                "reference": {
                    "read": r.reference.read,
                    "counts": {k: list(v) for k, v in r.reference.counts.items()},
                },
                "corrections": [c.to_dict() for c in r.corrections],
                "record": {**r.planproof.to_dict(), "reference_reading": _reading_facts(r)},
            }
        )
    return out
