"""The reference reading of a researcher's own answers: ``planproof evaluate <module>
--reading planproof|reference|both`` and ``planproof run`` score a responses file with the
very functions the sweep of ``planproof reproduce eai`` scores a published file with
(:mod:`planproof.runs.goal_readings`, :mod:`~planproof.runs.action_readings`,
:mod:`~planproof.runs.subgoal_readings`, and for transition modeling's logic form
:mod:`planproof.pddl.reference_logic_form`), so that a published file given as
``--responses`` gets exactly the ``ref. reading`` figure of the reproduce table.

A summary scored in both readings keeps planproof's reading at its top level (what
``reproduce --run`` puts in the ``planproof`` column), the reference reading's summary in
``reference_reading``, its paper-named figures in ``reference_reading_figures`` and the
corrections by class (planproof minus the reference reading) in ``corrections``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.boundary.limits import DEFAULT_RLIMIT

READINGS = ("planproof", "reference", "both")
"""``--reading`` values: planproof's own reading only, the reference's rules (planproof's
reading is still computed, for the corrections, and kept in the summary), or both beside
each other."""
DEFAULT_READING = "both"
"""Both, where the module and dataset have a reference reading: planproof's is the
headline (the better judge), the reference's stands beside it for citing."""


def unavailable(module: str, dataset: str) -> str | None:
    """Why ``module`` on ``dataset`` has no reference reading (None: it has one)."""
    if dataset == "virtualhome":
        return None
    if module == "transition-modeling":
        return None  # the logic form is counted as the reference counts on BEHAVIOR too
    return (
        f"no reference reading for {module} on {dataset}: the reference's rules are "
        "re-implemented for VirtualHome (and for transition modeling's logic form on "
        "BEHAVIOR); planproof's reading only"
    )


@dataclass(frozen=True)
class Readings:
    """One module scored in both readings, task by task: ``score`` (task, answer text),
    ``failed`` (task, why there is no text), ``summarize`` (planproof's summary with
    ``reference_reading`` and ``corrections`` inside) and ``verdicts`` (each task's
    reference verdict and correction), on results whose ``planproof`` is planproof's."""

    module: str
    score: Callable[[Any, str], Any]
    failed: Callable[[Any, str], Any]
    summarize: Callable[[Sequence[Any]], dict[str, Any]]
    verdicts: Callable[[Sequence[Any]], list[dict[str, Any]]]


def readings(
    module: str,
    rows_in_order: Callable[[], Sequence[Mapping[str, Any]]],
    *,
    path: str | None = None,
    logic: bool = False,
    rlimit: int = DEFAULT_RLIMIT,
    search: Mapping[str, Any] | None = None,
) -> Readings:
    """The scorer of ``module`` (VirtualHome; transition modeling is read per file, see
    :func:`logic_form_reading`). ``rows_in_order`` gives the answers as the reference
    would read them, in file order (subgoal decomposition's disjunct draws depend on the
    answers before), ``path`` the published-format file they come from (its draws as the
    sweep makes them); ``logic``/``rlimit`` goal interpretation's Z3 checks (resource units),
    ``search`` subgoal decomposition's search options."""
    if module == "goal-interpretation":
        from planproof.runs import goal_readings as gr

        return Readings(
            module,
            lambda t, text: gr.score_both(t, text, logic=logic, rlimit=rlimit),
            gr.failed_both,
            gr.summarize_both,
            gr.verdicts_both,
        )
    if module == "action-sequencing":
        from planproof.runs import action_readings as ar

        return Readings(module, ar.score_both, ar.failed_both, ar.summarize_both, ar.verdicts_both)
    if module == "subgoal-decomposition":
        from planproof.metrics.reference_subgoal_decomposition import file_draws
        from planproof.runs import subgoal_readings as sr

        drawn: list[Mapping[str, Any]] = []

        def score_sd(t: Any, text: str) -> Any:
            if not drawn:  # once, on the first answer: the whole file's draws
                drawn.append((sr.draws_for(path) if path else {}) or file_draws(rows_in_order()))
            return sr.score_both(t, text, drawn[0].get(t.identifier), **dict(search or {}))

        return Readings(module, score_sd, sr.failed_both, sr.summarize_both, sr.verdicts_both)
    raise ValueError(f"{module} has no task-by-task reference reading")


def summary_and_rows(
    r: Readings, results: Sequence[Any]
) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any]]:
    """planproof's summary with the reference reading inside it, each task's planproof row
    with its reference reading (``reference_reading``: in words, as the published models'
    task records have it; ``reference_verdict``: the verdict and the correction as data),
    and planproof's own results."""
    from planproof.runs.figures import figures

    summary = r.summarize(results)
    summary["reference_reading_figures"] = figures(r.module, summary["reference_reading"])
    own = [x.planproof for x in results]
    rows = []
    for x, v in zip(own, r.verdicts(results), strict=True):
        verdict = {k: v[k] for k in ("reference", "correction", "corrections") if k in v}
        words = v.get("record", {}).get("reference_reading", {})
        rows.append({**x.to_dict(), "reference_reading": words, "reference_verdict": verdict})
    return summary, rows, own


def logic_form_words(counts: Mapping[str, Sequence[int]]) -> dict[str, str]:
    """A task's logic-form counts in the reference's counting, in words (the report's
    drill-down shows a row's ``reference_reading`` as such facts)."""
    text = "; ".join(f"{c} TP {tp} / FP {fp} / FN {fn}" for c, (tp, fp, fn) in counts.items())
    return {"logic form": text or "no operator of the task counted"}


def logic_form_reading(
    data: Any, rows: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], dict[str, dict[str, list[int]]]]:
    """Transition modeling's reference reading of ``rows`` (the answers scored): the logic
    form counted as the reference counts (:mod:`planproof.pddl.reference_logic_form`),
    as the figures ``reproduce``'s "reference counting" section shows, and each task's
    counts (category → [TP, FP, FN]). The reference's planner success is not in it
    (:data:`TM_PLANNER_READING`)."""
    from planproof.pddl.reference_logic_form import (
        reference_logic_form_counts,
        reference_logic_form_figures,
    )

    per_task = {
        str(row.get("identifier")): reference_logic_form_counts(data, [row]) for row in rows
    }
    return {
        "logic_form": reference_logic_form_figures(data, rows),
        "planner_success": None,
        "planner_success_note": TM_PLANNER_READING,
    }, per_task


TM_PLANNER_READING = (
    "the reference reading of transition modeling covers the logic form only; planner "
    "success is planproof's (its verdict equals the reference's Fast Downward 23.06 on "
    "294 of 296 published GPT-4o tasks, docs/reference-differences.md)"
)
"""Why transition modeling's reference reading has no planner-success figure (the hook
for one: ``planner_success`` in :func:`logic_form_reading`)."""
