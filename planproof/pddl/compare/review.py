"""A comparison as a text review: one block per operator that differs, each finding with
the literal to blame and the state that shows it, then the plan cross-validation."""

from __future__ import annotations

from planproof.pddl.compare.model import DomainComparison, OperatorComparison, Verdict


def review_text(c: DomainComparison) -> str:
    """The report ``planproof compare-domains`` prints."""
    lines = [f"reference {c.reference or '?'}  vs  candidate {c.candidate or '?'}"]
    if c.error:
        lines.append(f"cannot compare: {c.error}")
    a = c.alignment
    renamed = [m for m in a.matches if m.how != "name"]
    if renamed or a.reference_only or a.candidate_only or a.notes:
        lines.append("")
        lines.append("vocabulary")
        for m in renamed:
            how = {"spelling": "same name up to case", "use": "same use", "mapping": "mapping"}
            why = how.get(m.how, m.how)
            score = f", likeness {m.score:.2f}" if m.how == "use" else ""
            lines.append(
                f"  {m.kind} {m.candidate} is the reference's {m.reference} ({why}{score})"
            )
        for kind, name in a.reference_only:
            lines.append(f"  {kind} {name}: only in the reference")
        for kind, name in a.candidate_only:
            lines.append(f"  {kind} {name}: only in the candidate")
        for note in a.notes:
            lines.append(f"  note: {note}")
    if c.verdict is not None:
        same = [o.reference for o in c.operators if o.verdict is Verdict.EQUIVALENT]
        lines.append("")
        lines.append(f"operators: {len(same)} of {len(c.operators)} equivalent")
        for o in c.operators:
            if o.verdict is not Verdict.EQUIVALENT:
                lines.extend(_operator(o))
    for p in c.problems:
        lines.append("")
        lines.append(f"problem {p.problem}")
        if p.error:
            lines.append(f"  {p.error}")
        for r in (p.reference_plan, p.candidate_plan):
            other = "candidate" if r.planned_under == "reference" else "reference"
            head = f"  plan from the {r.planned_under} ({len(r.plan)} steps)"
            if r.status != "solved":
                lines.append(
                    f"  {r.planned_under}: {r.status}" + (f" ({r.message})" if r.message else "")
                )
            elif r.valid:
                lines.append(f"{head}: valid under the {other}")
            elif r.failed_step is not None:
                lines.append(
                    f"{head}: fails under the {other} at step {r.failed_step} "
                    f"({r.plan[r.failed_step - 1]}), operator {r.blame}: {r.message}"
                )
            else:
                lines.append(f"{head}: runs under the {other} but {r.message}")
        if p.solvable_under_one_only:
            lines.append("  solvable under one domain only")
    if c.verdict is not None:
        lines.append("")
        lines.append(f"verdict: the candidate is {c.verdict.value}" + _gloss(c.verdict))
    return "\n".join(lines) + "\n"


def _operator(o: OperatorComparison) -> list[str]:
    title = o.reference or o.candidate
    cand = f" (candidate {o.candidate})" if o.candidate and o.candidate != o.reference else ""
    out = ["", f"  {title}{cand}: {o.verdict.value}"]
    for f in o.findings:
        out.append(f"    - {f.kind}: {f.message}")
        if f.counterexample or f.kind in {
            "missing-precondition",
            "extra-precondition",
        }:
            state = " ".join(f.counterexample) or "(every atom false)"
            out.append(f"      e.g. in the state {state}")
    return out


def _gloss(v: Verdict) -> str:
    return {
        Verdict.EQUIVALENT: " (same transitions as the reference)",
        Verdict.STRONGER: " (it allows a subset of the reference's transitions)",
        Verdict.WEAKER: " (it allows a superset of the reference's transitions)",
        Verdict.INCOMPARABLE: " (neither allows a subset of the other's transitions)",
        Verdict.UNKNOWN: " (a query was not decided)",
    }[v]
