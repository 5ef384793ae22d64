"""BEHAVIOR transition modeling in both readings: planproof's (clause F1, its planner) and
the reference's (the logic form counted as virtualhome-eval 0.1.1 counts it,
:mod:`planproof.pddl.reference_logic_form`), with the corrections table between them.

The reference code's summary raises on every BEHAVIOR file, so the reference reading's
planner success is planproof's own verdicts, task by task (docs/reproduce.md, "BEHAVIOR
transition modeling"), but for one rule of the reference's planner: a task planproof
planned whose negated goal atom Fast Downward 23.06's translator encodes in a variable of
more than two values is a failure (:data:`NEGATIVE_GOAL`, 23.06 stops on it;
:mod:`planproof.pddl.fd_negative_goal`). The corrections tables explain both differences
task by task, per class of docs/reference-differences.md ("BEHAVIOR").
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
NEGATIVE_GOAL = "negative-goal-unsupported"
"""Planner success: planproof plans the task, Fast Downward 23.06's translator stops on a
negated goal atom of a many-valued variable ("Negative goal not supported")."""
PLANNER_DELTAS = ("success",)


@dataclass(frozen=True)
class PlannerMove:
    """A task planproof planned that the reference reading counts as a planner failure
    (``success``: planproof minus the reference reading, always 1)."""

    identifier: str
    cls: str
    atom: str
    success: int = 1


def planner_moves(
    data: EaiPddl, rows: Sequence[Mapping[str, Any]], tasks: Sequence[Any]
) -> list[PlannerMove]:
    """The tasks planproof planned on which FD 23.06 stops on a negative goal. Only tasks
    planned and whose goal has a negated literal are tested (one translator pass each, up
    to the choice of variables, no search); an answer with no usable model has no plan. A
    task the translator cannot read that far keeps planproof's verdict (never raised on the
    published files)."""
    from planproof.metrics.transition_modeling.evaluate import exported_task
    from planproof.pddl.fd_negative_goal import GoalEncodingError, negative_goal_unsupported

    by_id = {str(r.get("identifier")): r for r in rows}
    out: list[PlannerMove] = []
    for t in tasks:
        row = by_id.get(t.identifier)
        if not t.planner_found or row is None or not _negated_goal(data, t.identifier):
            continue
        texts = exported_task(data, t.identifier, str(row.get("llm_output", "")))
        try:
            atom = negative_goal_unsupported(*texts) if texts else None
        except GoalEncodingError:
            continue  # no translator: the task keeps planproof's verdict
        if atom is not None:
            out.append(PlannerMove(t.identifier, NEGATIVE_GOAL, atom))
    return out


def _negated_goal(data: EaiPddl, identifier: str) -> bool:
    from planproof.ltl.ast import Not, walk

    return any(isinstance(f, Not) for f in walk(data.problem(identifier).goal))


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
    data: EaiPddl,
    rows: Sequence[Mapping[str, Any]],
    tasks: Sequence[Any],
    moves: Sequence[PlannerMove] = (),
) -> dict[str, Any]:
    """The reference reading's summary, in the shape of planproof's (``by_category`` as
    fractions, ``planner_by_category``: planproof's verdicts but ``moves``, see the module
    docstring)."""
    from planproof.metrics.transition_modeling.evaluate import planner_rates
    from planproof.pddl.reference_logic_form import reference_logic_form_counts

    return {
        "by_category": _fractions(reference_logic_form_counts(data, rows)),
        "planner_by_category": planner_rates(tasks, frozenset(m.identifier for m in moves)),
    }


def both_readings(
    data: EaiPddl,
    rows: Sequence[Mapping[str, Any]],
    summary: dict[str, Any],
    tasks: Sequence[Any],
    verdicts: Sequence[dict[str, Any]] = (),
) -> None:
    """Add the reference reading (``reference_reading``), the corrections table
    (``corrections``, for :data:`HEADLINE`) and the planner-success corrections
    (``planner_corrections``, in tasks) to planproof's BEHAVIOR ``summary``; each of
    ``verdicts`` (the tasks' rows, in ``tasks``' order) whose planner verdict the
    reference reading moves gets its ``reference`` verdict."""
    from planproof.runs.goal_readings import corrections_table

    moves = planner_moves(data, rows, tasks)
    summary["reference_reading"] = reference_reading(data, rows, tasks, moves)
    planner = corrections_table(moves, PLANNER_DELTAS)
    planner["deltas"] = list(PLANNER_DELTAS)
    summary["planner_corrections"] = planner
    moved = {m.identifier: m for m in moves}
    for row in verdicts:
        m = moved.get(str(row.get("identifier")))
        if m is not None:
            row["reference"] = {"success": False, "status": m.cls, "atom": m.atom}
    table = corrections_table(corrections(data, rows, tasks))
    table["classes"] = {c: table["classes"][c] for c in CLASSES if c in table["classes"]}
    summary["corrections"] = {**table, "figure": HEADLINE, "deltas": ["tp", "fp", "fn"]}
