"""A comparison as a results directory (``summary.json`` + ``results.jsonl``, one record
per operator), so ``planproof report`` shows it as a section like any evaluation."""

from __future__ import annotations

from collections import Counter
from typing import Any

from planproof.pddl.compare.model import DomainComparison, Verdict

MODULE = "compare-domains"


def summary_record(c: DomainComparison, label: str) -> dict[str, Any]:
    """The section's figures: verdict counts over operators and the plan replays."""
    n = len(c.operators)
    counts = Counter(o.verdict.value for o in c.operators)
    m = len(c.problems)
    return {
        "module": MODULE,
        "dataset": c.reference or "reference",
        "model": label,
        "tasks": n,
        "verdict": c.verdict.value if c.verdict else None,
        "error": c.error or None,
        "operators": {
            "total": n,
            **{v.value: counts.get(v.value, 0) for v in Verdict},
            "equivalent_rate": counts.get("equivalent", 0) / n if n else None,
        },
        "plans": {
            "problems": m,
            "reference_valid_under_candidate": (
                sum(p.reference_plan.valid for p in c.problems) / m if m else None
            ),
            "candidate_valid_under_reference": (
                sum(p.candidate_plan.valid for p in c.problems) / m if m else None
            ),
        },
    }


def operator_records(c: DomainComparison) -> list[dict[str, Any]]:
    """One record per operator (its ``identifier`` is the reference's name, or the
    candidate's for an operator the reference lacks)."""
    return [
        {
            "identifier": o.reference or o.candidate,
            "success": o.verdict is Verdict.EQUIVALENT,
            **o.to_dict(),
        }
        for o in c.operators
    ]
