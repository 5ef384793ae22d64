"""BEHAVIOR transition modeling in both readings: planproof's (clause F1, its planner) and
the reference's (the logic form counted as virtualhome-eval 0.1.1 counts it,
:mod:`planproof.pddl.reference_logic_form`; planner success by the reference's own
procedure, :mod:`planproof.metrics.transition_modeling.reference_planner`: its domain of
every predicted and every other gold operator, read as Fast Downward 23.06 reads it), with
the corrections tables between them: the logic form's (:func:`corrections`) and planner
success's (:func:`planner_corrections`), each task in one class of
docs/reference-differences.md ("BEHAVIOR").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.pddl.eai import EaiPddl
from planproof.pddl.logic_form import prf

HEADLINE = "object_states_f1"
"""The figure the corrections table explains: the first of the paper's Table 14 columns."""
CATEGORY = "object_states"

MISSING_OPERATOR = "missing-operator-no-miss"
"""The answer lacks one of the task's operators: planproof counts its gold clauses as
missed (false negatives), the reference adds no miss."""
UNREADABLE = "unreadable-answer"
"""One reading cannot read the answer (planproof's tolerant reader or the reference's
operator extraction fails): that side counts nothing for the task."""
PREDICATE_NAMES = "predicate-names-not-clauses"
"""Every other difference: the reference counts the set of predicate names per operator
part (one-member conjunctions, atoms as literal text, a member failing as a whole, matches
by position), planproof counts clauses matched up to renaming."""
CLASSES = (MISSING_OPERATOR, UNREADABLE, PREDICATE_NAMES)


@dataclass(frozen=True)
class Correction:
    """One task's move of the headline category's counts (planproof's reading minus the
    reference reading), put in one class."""

    identifier: str
    cls: str
    tp: int
    fp: int
    fn: int


def _fractions(counts: Mapping[str, Sequence[int]]) -> dict[str, dict[str, float | int]]:
    out: dict[str, dict[str, float | int]] = {}
    for cat, (tp, fp, fn) in counts.items():
        if (tp, fp, fn) == (0, 0, 0):
            continue  # the reference leaves an empty category out
        p, r, f = prf(tp, fp, fn)
        out[cat] = {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": f}
    return out


def _own_counts(task: Any, category: str) -> tuple[int, int, int]:
    parts = task.category_counts.values()
    tp, fp, fn = (sum(p.get(category, (0, 0, 0))[k] for p in parts) for k in range(3))
    return tp, fp, fn


def _reference_readable(row: Mapping[str, Any]) -> bool:
    from planproof.pddl.reference_logic_form import answer_text, extract_operators

    try:
        extract_operators(answer_text(str(row.get("llm_output", ""))))
    except (TypeError, IndexError):
        return False
    return True


def _missed_clauses(data: EaiPddl, names: Sequence[str], category: str) -> int:
    """The gold clauses of ``category`` that planproof counts as missed for the task's
    operators ``names`` the answer lacks (each top-level clause of the gold precondition
    and effect; a clause counts toward every category of its predicates)."""
    from planproof.metrics.transition_modeling.evaluate import _gold_sexprs
    from planproof.pddl.logic_form import match_clauses, predicates_of

    cats = data.predicate_categories
    n = 0
    for name in names:
        for gold in _gold_sexprs(data, name):
            for c in match_clauses(None, gold).unmatched_gold:
                n += category in ({cats.get(p, "unknown") for p in predicates_of(c)})
    return n


def corrections(
    data: EaiPddl, rows: Sequence[Mapping[str, Any]], tasks: Sequence[Any]
) -> list[Correction]:
    """Per task whose headline-category counts differ between the readings, its moves:
    an unreadable answer's whole move is :data:`UNREADABLE`; otherwise the missed gold
    clauses of the operators the answer lacks are :data:`MISSING_OPERATOR` and the rest
    of the move :data:`PREDICATE_NAMES`."""
    from planproof.pddl.reference_logic_form import reference_logic_form_counts

    by_id = {str(r.get("identifier")): r for r in rows}
    out: list[Correction] = []
    for t in tasks:
        row = by_id.get(t.identifier)
        if row is None:
            continue
        theirs = reference_logic_form_counts(data, [row]).get(CATEGORY, [0, 0, 0])
        mine = _own_counts(t, CATEGORY)
        d = [mine[k] - theirs[k] for k in range(3)]
        if not any(d):
            continue
        if t.format_error or not _reference_readable(row):
            out.append(Correction(t.identifier, UNREADABLE, d[0], d[1], d[2]))
            continue
        missed = _missed_clauses(data, t.missing, CATEGORY)
        if missed:
            out.append(Correction(t.identifier, MISSING_OPERATOR, 0, 0, missed))
            d[2] -= missed
        if any(d):
            out.append(Correction(t.identifier, PREDICATE_NAMES, d[0], d[1], d[2]))
    return out


def reference_reading(
    data: EaiPddl, rows: Sequence[Mapping[str, Any]], refs: Sequence[Any] | None
) -> dict[str, Any]:
    """The reference reading's summary, in the shape of planproof's (``by_category`` as
    fractions; ``planner_by_category`` from ``refs``, the reference reading's planner
    verdicts, :class:`~planproof.metrics.transition_modeling.reference_planner.
    ReferencePlannerTask`; None: the planner was not run)."""
    from planproof.metrics.transition_modeling.reference_planner import reference_planner_rates
    from planproof.pddl.eai import CATEGORIES
    from planproof.pddl.reference_logic_form import reference_logic_form_counts

    out: dict[str, Any] = {"by_category": _fractions(reference_logic_form_counts(data, rows))}
    if refs is not None:
        out["planner_by_category"] = reference_planner_rates(refs, CATEGORIES)
    return out


def planner_corrections(
    rows: Sequence[Mapping[str, Any]],
    tasks: Sequence[Any],
    refs: Sequence[Any],
    verdicts: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The planner corrections table (counts in tasks, planproof's reading minus the
    reference reading's; classes of
    :mod:`~planproof.metrics.transition_modeling.planner_corrections`); each of
    ``verdicts`` (the tasks' rows, in ``tasks``' order) gets its ``reference`` verdict and,
    where the readings differ, its ``correction`` class."""
    from planproof.metrics.transition_modeling.planner_corrections import DELTAS, correction
    from planproof.runs.goal_readings import corrections_table

    answers = {str(r.get("identifier", "")): str(r.get("llm_output", "")) for r in rows}
    ref = {r.identifier: r for r in refs}
    rows_by_id = {str(v.get("identifier")): v for v in verdicts}
    fixes = []
    for t in tasks:
        r = ref.get(t.identifier)
        if r is None:
            continue
        row = rows_by_id.get(t.identifier)
        if row is not None:
            row["reference"] = {
                "counted": r.counted,
                "success": r.success,
                "status": r.status,
                "reused": r.reused,  # planproof's own verdict, the same model
            }
        fix = correction(t, r, answers.get(t.identifier, ""))
        if fix is not None:
            fixes.append(fix)
            if row is not None:
                row["correction"] = fix.cls
    table = corrections_table(fixes, DELTAS)
    table["deltas"] = list(DELTAS)
    return table


def both_readings(
    data: EaiPddl,
    rows: Sequence[Mapping[str, Any]],
    summary: dict[str, Any],
    tasks: Sequence[Any],
    verdicts: Sequence[dict[str, Any]] = (),
    *,
    refs: Sequence[Any] | None = None,
) -> None:
    """Add the reference reading (``reference_reading``), the corrections table
    (``corrections``, for :data:`HEADLINE`) and, with the reference reading's planner
    verdicts ``refs`` (None: no planner run), the planner-success corrections
    (``planner_corrections``, :func:`planner_corrections`) to planproof's BEHAVIOR
    ``summary``."""
    from planproof.runs.goal_readings import corrections_table

    summary["reference_reading"] = reference_reading(data, rows, refs)
    if refs is not None:
        summary["planner_corrections"] = planner_corrections(rows, tasks, refs, verdicts)
    table = corrections_table(corrections(data, rows, tasks))
    table["classes"] = {c: table["classes"][c] for c in CLASSES if c in table["classes"]}
    summary["corrections"] = {**table, "figure": HEADLINE, "deltas": ["tp", "fp", "fn"]}
