"""Why planproof's planner success differs from the reference reading's, task by task.

Each task whose verdicts differ gets one class of ``docs/reference-differences.md``
("Transition modeling: planner success") and the counts it moves, planproof's reading
minus the reference reading's: ``counted`` (1: in planproof's denominator only) and
``success`` (+1: a plan in planproof's reading only). Summed over a file the corrections
are the whole gap between the two readings' counts; a difference no class explains is
``unexplained`` (none on the published files).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planproof.metrics.transition_modeling.evaluate import TaskResult
from planproof.metrics.transition_modeling.reference_planner import ReferencePlannerTask
from planproof.pddl.fd_reading import NEGATIVE_GOAL as FD_NEGATIVE_GOAL

DELTAS = ("counted", "success")
UNEXPLAINED = "unexplained"
FORMAT_WRONG = "format-wrong-left-out"
FREE_VARIABLE = "free-variable-read-by-fd"
EXTRA_OPERATOR = "extra-operator-in-domain"
TOLERANT_READING = "tolerant-operator-reading"
BUDGET = "planner-budget"
UNDECLARED = "undeclared-name-read-by-fd"
NEGATIVE_GOAL = FD_NEGATIVE_GOAL
"""FD 23.06's translator stops on a negated goal atom of a many-valued variable (BEHAVIOR:
:mod:`planproof.pddl.fd_negative_goal`)."""


@dataclass(frozen=True)
class PlannerCorrection:
    """One task whose planner verdicts differ (planproof minus the reference reading)."""

    identifier: str
    cls: str
    counted: int
    success: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "class": self.cls,
            "counted": self.counted,
            "success": self.success,
        }


def _parts_differ(answer: str) -> bool:
    """Whether planproof's tolerant reader reads some operator's precondition or effect
    other than the reference's extraction does (an extra ``)`` that closes the action
    early hides its ``:effect`` from planproof, not from the reference's ``find``)."""
    from planproof.ltl.bddl.errors import BDDLSyntaxError
    from planproof.ltl.bddl.reader import read_sexpr
    from planproof.ltl.bddl.sexpr import sexpr_to_text
    from planproof.metrics.transition_modeling.reference_planner import predicted_texts
    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.tolerant import read_operators

    theirs = predicted_texts(answer) or {}
    try:
        mine = read_operators(answer)
    except PDDLSyntaxError:
        return True
    for name, t in theirs.items():
        p = mine.get(name.lower())
        if p is None:
            return True
        for text, part in ((t.precondition, p.precondition), (t.effect, p.effect)):
            try:
                ref_text = sexpr_to_text(read_sexpr(text.lower()))
            except (PDDLSyntaxError, BDDLSyntaxError):  # unbalanced: FD cannot read it
                return True
            own_text = "()" if part is None else sexpr_to_text(part).lower()
            if ref_text != own_text:
                return True
    return False


def classify(own: TaskResult, ref: ReferencePlannerTask, answer: str = "") -> str:
    """The class of a task whose verdicts differ (module docstring), the first that
    applies in this order."""
    if not ref.counted:
        return FORMAT_WRONG
    if ref.status == NEGATIVE_GOAL:
        return NEGATIVE_GOAL
    if "budget" in (own.planner_status, ref.status) or own.planner_status == "timeout":
        return BUDGET
    if own.planner_status == "unusable-model" and "unknown variable" in own.planner_reason:
        return FREE_VARIABLE
    if any(r.startswith("free-variable") or r == "existential-lifted" for r in ref.rules):
        return FREE_VARIABLE
    gold = {s.name for s in own.scores}
    if set(ref.predicted) - gold:
        return EXTRA_OPERATOR
    if "undeclared-constant" in ref.rules or "undeclared-type" in ref.rules:
        return UNDECLARED
    read = gold - set(own.missing)
    if own.planner_status == "unusable-model" or own.format_error or read != set(ref.predicted):
        return TOLERANT_READING
    if answer and _parts_differ(answer):
        return TOLERANT_READING
    return UNEXPLAINED


def correction(
    own: TaskResult, ref: ReferencePlannerTask, answer: str = ""
) -> PlannerCorrection | None:
    """The task's correction, None when both readings agree (``answer``: the task's answer
    text, to tell a different reading of an operator's parts)."""
    counted = 1 - int(ref.counted)
    success = int(own.planner_found) - int(ref.counted and ref.success)
    if not counted and not success:
        return None
    return PlannerCorrection(own.identifier, classify(own, ref, answer), counted, success)
