"""Compare a candidate PDDL domain with a reference: read, align, compare every operator,
cross-validate plans, and give the domain a verdict. Bad input becomes a report with an
``error``, never an exception."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from planproof.pddl.compare.align import align, translate
from planproof.pddl.compare.model import (
    DomainComparison,
    Finding,
    OperatorComparison,
    ProblemCheck,
    Verdict,
    combine,
)
from planproof.pddl.compare.operators import Axioms, Context, compare_operators
from planproof.pddl.compare.plans import DEFAULT_MAX_STATES, cross_validate
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.reader import ROOT_TYPE, DomainFile, read_domain_file, read_problem

MIN_SHARED = 0.5
"""Below this share of the reference's actions and of its predicates matched, the
candidate is reported as a different domain instead of compared operator by operator."""


def compare_domain_files(
    reference: DomainFile,
    candidate: DomainFile,
    *,
    mapping: Mapping[str, Mapping[str, str]] | None = None,
    axioms: Axioms | None = None,
) -> DomainComparison:
    """The alignment, the per-operator comparisons and the domain's verdict."""
    rd = reference.domain
    alignment = align(reference, candidate, mapping)
    actions = alignment.of("action")
    preds = alignment.of("predicate")
    shared_actions = len(actions) / len(rd.operators) if rd.operators else 1.0
    shared_preds = len(preds) / len(rd.predicates) if rd.predicates else 1.0
    if shared_actions < MIN_SHARED and shared_preds < MIN_SHARED:
        return DomainComparison(
            rd.name,
            candidate.domain.name,
            None,
            alignment,
            error=(
                f"the candidate looks like a different domain: {len(actions)} of "
                f"{len(rd.operators)} actions and {len(preds)} of {len(rd.predicates)} "
                "predicates could be matched"
            ),
            error_kind="different-domain",
        )
    translated = translate(candidate, reference, alignment)
    ctx = Context(rd, reference.constants, axioms)
    ops: list[OperatorComparison] = []
    by_ref = {r: c for c, r in actions.items()}
    for name, op in rd.operators.items():
        c = by_ref.get(name)
        if c is None:
            why = Finding(name, "missing-operator", "", "the candidate has no such action")
            ops.append(OperatorComparison(name, "", Verdict.STRONGER, (why,)))
            continue
        cmp = compare_operators(op, translated.domain.operators[name], ctx)
        ops.append(dataclasses.replace(cmp, candidate=c))
    for c in candidate.domain.operators:
        if c not in actions:
            why = Finding(c, "extra-operator", "", "the reference has no such action")
            ops.append(OperatorComparison("", c, Verdict.WEAKER, (why,)))
    verdict = Verdict.EQUIVALENT
    for o in ops:
        verdict = combine(verdict, o.verdict)
    return DomainComparison(rd.name, candidate.domain.name, verdict, alignment, tuple(ops))


def undeclared_types(text: str, df: DomainFile) -> list[str]:
    """Types the domain uses but its ``:types`` section does not declare (the reader
    declares them silently, as the planners do; a comparison reports them)."""
    from planproof.ltl.bddl.sexpr import SAtom, SList, head
    from planproof.pddl.scanner import scan

    declared = {ROOT_TYPE}
    for top in scan(text.lower()):
        if isinstance(top, SList):
            for sec in top.items:
                if head(sec) == ":types" and isinstance(sec, SList):
                    declared |= {a.text for a in sec.items[1:] if isinstance(a, SAtom)}
    used = {t for t in df.domain.types if not t.startswith("(")}
    return sorted(used - declared)


def compare_domains(
    reference_text: str,
    candidate_text: str,
    *,
    problems: Sequence[tuple[str, str]] = (),
    mapping: Mapping[str, Mapping[str, str]] | None = None,
    max_states: int = DEFAULT_MAX_STATES,
) -> DomainComparison:
    """Compare two domain texts and, for each ``(name, text)`` problem (written in the
    reference's names), cross-validate plans. Never raises for bad input."""
    try:
        ref = read_domain_file(reference_text, fold_case=True)
    except PDDLSyntaxError as exc:
        return DomainComparison("", "", None, error=f"reference: {exc}", error_kind="reference")
    try:
        cand = read_domain_file(candidate_text, fold_case=True)
    except PDDLSyntaxError as exc:
        return DomainComparison(
            ref.domain.name, "", None, error=f"candidate does not parse: {exc}", error_kind="parse"
        )
    result = compare_domain_files(ref, cand, mapping=mapping)
    missing = undeclared_types(candidate_text, cand)
    if missing:
        note = "the candidate uses undeclared types: " + ", ".join(missing)
        result = dataclasses.replace(
            result,
            alignment=dataclasses.replace(result.alignment, notes=(note, *result.alignment.notes)),
        )
    if result.error or not problems:
        return result
    translated = translate(cand, ref, result.alignment).domain
    checks = []
    for name, text in problems:
        checks.append(_problem_check(ref, translated, name, text, max_states))
    return dataclasses.replace(result, problems=tuple(checks))


def _problem_check(
    ref: DomainFile, translated: object, name: str, text: str, max_states: int
) -> ProblemCheck:
    from planproof.pddl.compare.model import PlanReplay
    from planproof.pddl.schema import Domain

    assert isinstance(translated, Domain)
    try:
        problem = read_problem(text, fold_case=True)
    except PDDLSyntaxError as exc:
        empty = PlanReplay("reference", "error")
        return ProblemCheck(name, empty, PlanReplay("candidate", "error"), f"problem: {exc}")
    problem = dataclasses.replace(problem, constants={**ref.constants, **problem.constants})
    try:
        return cross_validate(ref.domain, translated, problem, max_states=max_states)
    except (ValueError, RecursionError) as exc:
        empty = PlanReplay("reference", "error")
        return ProblemCheck(name, empty, PlanReplay("candidate", "error"), str(exc))
