"""The plain-data results of comparing a candidate PDDL domain with a reference one.

Every result is a frozen dataclass with a ``to_dict`` for ``--json``; the text review and
the HTML section are built from these objects only, never from the domains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    """How the candidate's transitions relate to the reference's (docs/compare-domains.md).

    ``stronger``: the candidate allows a subset of the reference's transitions (a stricter
    precondition, a narrower parameter type, an operator missing); ``weaker``: a superset;
    ``incomparable``: neither (an effect differs, or one precondition is stronger on one
    state and weaker on another); ``unknown``: Z3 gave up on a query."""

    EQUIVALENT = "equivalent"
    STRONGER = "stronger"
    WEAKER = "weaker"
    INCOMPARABLE = "incomparable"
    UNKNOWN = "unknown"


def combine(a: Verdict, b: Verdict) -> Verdict:
    """The verdict of two independent differences taken together."""
    if Verdict.UNKNOWN in (a, b):
        return Verdict.UNKNOWN
    if a is Verdict.EQUIVALENT:
        return b
    if b is Verdict.EQUIVALENT or a is b:
        return a
    return Verdict.INCOMPARABLE


@dataclass(frozen=True)
class Match:
    """One aligned name: ``how`` is ``name`` (equal names), ``spelling`` (equal up to case
    and ``-``/``_``), ``use`` (same arity, similar use; ``score`` is the similarity) or
    ``mapping`` (fixed by the mapping file)."""

    kind: str
    reference: str
    candidate: str
    how: str
    score: float = 1.0

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "reference": self.reference,
            "candidate": self.candidate,
            "how": self.how,
            "score": round(self.score, 3),
        }


@dataclass(frozen=True)
class Alignment:
    """Names of the candidate matched to the reference's, per kind (type, predicate,
    action, constant), and what stayed unmatched on either side."""

    matches: tuple[Match, ...] = ()
    reference_only: tuple[tuple[str, str], ...] = ()
    candidate_only: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    def of(self, kind: str) -> dict[str, str]:
        """Candidate name → reference name for one kind."""
        return {m.candidate: m.reference for m in self.matches if m.kind == kind}

    def to_dict(self) -> dict[str, object]:
        return {
            "matches": [m.to_dict() for m in self.matches],
            "reference_only": [{"kind": k, "name": n} for k, n in self.reference_only],
            "candidate_only": [{"kind": k, "name": n} for k, n in self.candidate_only],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Finding:
    """One difference in one operator. ``kind``: missing-precondition,
    extra-precondition, missing-add, missing-delete, extra-add, extra-delete,
    wrong-polarity, wrong-arity, swapped-parameters, parameter-type, missing-operator,
    extra-operator, unsupported, unknown. ``literal`` is the literal to blame in the
    reference's names (the operator's parameters written ``?name``); ``counterexample``
    the true atoms of a minimal state showing the difference (every other atom false)."""

    operator: str
    kind: str
    literal: str
    message: str
    counterexample: tuple[str, ...] = ()
    condition: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "operator": self.operator,
            "kind": self.kind,
            "literal": self.literal,
            "message": self.message,
            "counterexample": list(self.counterexample),
            "condition": self.condition or None,
        }


@dataclass(frozen=True)
class OperatorComparison:
    """The verdict on one reference operator and its candidate counterpart.
    ``parameters`` pairs each reference parameter with the candidate's it was compared
    with (after any detected permutation)."""

    reference: str
    candidate: str
    verdict: Verdict
    findings: tuple[Finding, ...] = ()
    parameters: tuple[tuple[str, str], ...] = ()
    queries: int = 0

    def to_dict(self) -> dict[str, object]:
        return {
            "reference": self.reference,
            "candidate": self.candidate,
            "verdict": self.verdict.value,
            "parameters": [list(p) for p in self.parameters],
            "findings": [f.to_dict() for f in self.findings],
            "queries": self.queries,
        }


@dataclass(frozen=True)
class PlanReplay:
    """One plan found under one domain and replayed under the other. ``status`` is the
    planner's; ``failed_step`` (1-based) and ``blame`` (the operator, reference names) say
    where the replay broke; ``goal_reached`` whether the replay ends in a goal state."""

    planned_under: str
    status: str
    plan: tuple[str, ...] = ()
    valid: bool = False
    failed_step: int | None = None
    blame: str = ""
    message: str = ""
    goal_reached: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "planned_under": self.planned_under,
            "status": self.status,
            "plan": list(self.plan),
            "valid": self.valid,
            "failed_step": self.failed_step,
            "blame": self.blame or None,
            "message": self.message or None,
            "goal_reached": self.goal_reached,
        }


@dataclass(frozen=True)
class ProblemCheck:
    """Plan cross-validation on one problem: the reference's plan under the candidate,
    and the candidate's plan under the reference."""

    problem: str
    reference_plan: PlanReplay
    candidate_plan: PlanReplay
    error: str = ""

    @property
    def solvable_under_one_only(self) -> bool:
        solved = {self.reference_plan.status == "solved", self.candidate_plan.status == "solved"}
        decided = {"solved", "unsolvable"}
        return (
            solved == {True, False}
            and self.reference_plan.status in decided
            and self.candidate_plan.status in decided
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "problem": self.problem,
            "reference_plan": self.reference_plan.to_dict(),
            "candidate_plan": self.candidate_plan.to_dict(),
            "solvable_under_one_only": self.solvable_under_one_only,
            "error": self.error or None,
        }


@dataclass(frozen=True)
class DomainComparison:
    """Everything ``planproof compare-domains`` reports. ``error`` is set (and the rest
    may be empty) when a domain could not be read or compared at all."""

    reference: str
    candidate: str
    verdict: Verdict | None
    alignment: Alignment = field(default_factory=Alignment)
    operators: tuple[OperatorComparison, ...] = ()
    problems: tuple[ProblemCheck, ...] = ()
    error: str = ""
    error_kind: str = ""

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for o in self.operators for f in o.findings)

    def to_dict(self) -> dict[str, object]:
        return {
            "reference": self.reference,
            "candidate": self.candidate,
            "verdict": self.verdict.value if self.verdict else None,
            "error": self.error or None,
            "error_kind": self.error_kind or None,
            "alignment": self.alignment.to_dict(),
            "operators": [o.to_dict() for o in self.operators],
            "problems": [p.to_dict() for p in self.problems],
        }
