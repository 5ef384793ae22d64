"""Transition modeling's planner success as the EAI reference counts it (virtualhome-eval
0.1.1 with Fast Downward 23.06, the setting that reproduces the paper's Table 15), task by
task, decided by planproof's own budgeted planner.

The reference, per answered task of ``success_task.json``:

* reads the answer as it does for the logic form (:func:`~planproof.pddl.reference_logic_form.
  answer_text`, then :func:`~planproof.pddl.reference_logic_form.extract_operator_texts`);
  an answer whose extraction raises is *format-wrong*: left out of planner success, in its
  numerator and its denominator (``counted`` False);
* writes one domain: the base vocabulary, *every* predicted operator (also one the task
  does not use, "hallucinated": it is added, or replaces the gold operator of that name),
  then every gold operator not predicted under that exact name;
* runs Fast Downward 23.06 on it with the task's problem: a plan found is a success
  (``Holistic test``), for every category of the task;
* and, per predicted operator named as one of the task's gold operators, the same with
  only that operator predicted (``Action test``; the paper's sensitivity figures).

How FD 23.06 reads the operators is :mod:`planproof.pddl.fd_reading`; the plan is
searched by planproof's builtin planner under an expansion budget and, where it spends
it, by Fast Downward (lama-first) on the same model under 100 CPU s, so the verdict never
depends on the machine (the reference's own limit is 100 s of wall time).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from planproof.pddl.eai import EaiPddl
from planproof.pddl.fd_reading import (
    FD_CPU_BUDGET,
    KnownVerdict,
    OperatorText,
    fd_planner_success,
)

if TYPE_CHECKING:
    from planproof.metrics.transition_modeling.evaluate import TaskResult

MAX_EXPANSIONS = 20_000
"""The builtin planner's budget per plan (as planproof's own reading,
:data:`planproof.runs.published_sweep.TM_MAX_EXPANSIONS`)."""
BEHAVIOR_CPU_BUDGET = 20.0
"""Fast Downward's budget per BEHAVIOR plan, in CPU seconds (docs/reproduce.md, "BEHAVIOR
transition modeling"): the reference's limit is 200 s of wall time for FD 23.06's
translator and search together, whose slowest plan found took 0.8 s of search; the
reading's slowest plan found takes under 7 s, and the four published tasks that spend
100 CPU s find no plan either (the reference's, where stored: its wall limit)."""


@dataclass(frozen=True)
class PlannerBudget:
    """How the reading searches: the builtin planner under ``max_expansions`` (None: not
    run), then Fast Downward under ``cpu_budget`` CPU seconds (None: not run)."""

    max_expansions: int | None
    cpu_budget: float | None


BUDGETS: Mapping[str, PlannerBudget] = {
    "virtualhome": PlannerBudget(MAX_EXPANSIONS, FD_CPU_BUDGET),
    "behavior": PlannerBudget(None, BEHAVIOR_CPU_BUDGET),
}
"""Per dataset. VirtualHome's groundings are small: the builtin search decides almost
every task in a few hundred expansions. BEHAVIOR's domain (every gold operator over
scenes of up to a hundred objects) grounds to tens of thousands of actions: Fast Downward
alone, as the reference."""


@dataclass(frozen=True)
class ReferencePlannerTask:
    """One task's planner verdict in the reference's reading."""

    identifier: str
    categories: tuple[str, ...]
    counted: bool
    """False: format-wrong for the reference (its extraction raised)."""
    success: bool = False
    status: str = ""
    reason: str = ""
    rules: tuple[str, ...] = ()
    """The FD readings (:mod:`planproof.pddl.fd_reading`) the domain needed."""
    predicted: tuple[str, ...] = ()
    """The operator names the reference extracted, in its order."""
    actions: Mapping[str, bool] = field(default_factory=dict)
    """Per predicted operator of the task (``per_operator``): its own test's verdict."""
    hallucinated: int = 0
    """Predicted operators the task's gold actions do not name: the reference counts
    each one (``hallucination_num``) and gives it no single-variate test."""
    reused: bool = False
    """The verdict is planproof's own reading's, whose model was this one
    (:func:`~planproof.pddl.fd_reading.same_model`): nothing was planned for it."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "counted": self.counted,
            "success": self.success,
            "status": self.status,
            "reason": self.reason,
            "rules": list(self.rules),
            "predicted": list(self.predicted),
            "actions": dict(self.actions),
            "hallucinated": self.hallucinated,
            "reused": self.reused,
        }


def gold_texts(data: EaiPddl) -> dict[str, OperatorText]:
    """Every gold operator of the dataset as the reference writes it."""
    return {
        n: OperatorText(n, g.parameters, g.precondition, g.effect)
        for n, g in data.gold_operators.items()
    }


def predicted_texts(answer: str) -> dict[str, OperatorText] | None:
    """The operators the reference extracts from an answer (None: format-wrong)."""
    from planproof.pddl.reference_logic_form import answer_text, extract_operator_texts

    try:
        found = extract_operator_texts(answer_text(answer))
    except Exception:
        return None
    return {n: OperatorText(n, *parts) for n, parts in found.items()}


OWN_READING = "planproof's own reading"


def own_verdict(data: EaiPddl, answer: str, own: TaskResult) -> KnownVerdict | None:
    """planproof's own verdict on ``answer`` (``own``, scored on that answer) with the model
    it planned, when it is definitive: a plan found, or unsolvability proven; None for a
    spent budget, an error or no usable model."""
    from planproof.metrics.transition_modeling.evaluate import planned_model

    if own.planner_status not in ("solved", "unsolvable"):
        return None
    planned = planned_model(data, own.identifier, answer)
    if planned is None:
        return None
    if own.planner_status == "unsolvable":
        return KnownVerdict(*planned, plan=None, source=OWN_READING)
    if not own.planner_found:
        return None
    steps = [line.split() for line in own.plan]
    plan = tuple((s[0], tuple(s[1:])) for s in steps if s)
    return KnownVerdict(*planned, plan=plan, source=OWN_READING)


def reference_planner_task(
    data: EaiPddl,
    identifier: str,
    answer: str,
    *,
    budget: PlannerBudget | None = None,
    per_operator: bool = False,
    own: TaskResult | None = None,
) -> ReferencePlannerTask:
    """The reference's planner verdict on one answer (module docstring), searched under
    ``budget`` (None: the dataset's, :data:`BUDGETS`). ``own``: planproof's own verdict
    on the same answer; when it is definitive and its model is exactly the reference's
    (:func:`~planproof.pddl.fd_reading.same_model`), it is the verdict (a plan replayed in
    the model first, FD 23.06's negative-goal test still applied) and nothing is planned."""
    b = budget or BUDGETS[data.dataset]
    cats = tuple(data.task_categories.get(identifier, ()))
    predicted = predicted_texts(answer)
    if predicted is None:
        return ReferencePlannerTask(identifier, cats, counted=False, status="format-wrong")
    gold = gold_texts(data)
    problem = data.problem(identifier)
    known = None if own is None else own_verdict(data, answer, own)
    verdict = fd_planner_success(
        data.domain,
        gold,
        list(predicted.values()),
        problem,
        max_expansions=b.max_expansions,
        cpu_budget=b.cpu_budget,
        known=known,
    )
    actions: dict[str, bool] = {}
    used = set(data.task_actions.get(identifier, ()))
    if per_operator:
        for name, text in predicted.items():
            if name in used:
                one = fd_planner_success(
                    data.domain,
                    gold,
                    [text],
                    problem,
                    max_expansions=b.max_expansions,
                    cpu_budget=b.cpu_budget,
                )
                actions[name] = one.success
    return ReferencePlannerTask(
        identifier,
        cats,
        counted=True,
        success=verdict.success,
        status=verdict.status,
        reason=verdict.reason,
        rules=tuple(sorted(verdict.rules)),
        predicted=tuple(predicted),
        actions=actions,
        hallucinated=sum(name not in used for name in predicted),
        reused=verdict.known,
    )


def reference_planner_rates(
    tasks: Sequence[ReferencePlannerTask], categories: Sequence[str]
) -> dict[str, dict[str, float | int]]:
    """Per category: planner success over the counted tasks of that category (the
    reference's ``success_by_task_type_dict``), as a fraction, with its counts."""
    out: dict[str, dict[str, float | int]] = {}
    for cat in categories:
        ts = [t for t in tasks if t.counted and cat in t.categories]
        if ts:
            found = sum(t.success for t in ts)
            out[cat] = {"tasks": len(ts), "found": found, "planner_found": found / len(ts)}
    return out


def reference_planner_tasks(
    data: EaiPddl,
    rows: Sequence[Mapping[str, Any]],
    *,
    budget: PlannerBudget | None = None,
    own: Sequence[TaskResult] = (),
) -> list[ReferencePlannerTask]:
    """The verdicts on a published file's rows, for the tasks the reference evaluates
    (``success_task.json``), in the file's order. ``own``: planproof's own results on the
    same rows, reused where definitive on the same model (:func:`reference_planner_task`)."""
    wanted = set(data.solved)
    seen = Counter(str(r.get("identifier", "")) for r in rows)
    # an identifier answered twice: which answer a result scored is unknown, none reused
    mine = {t.identifier: t for t in own if seen[t.identifier] == 1}
    out: list[ReferencePlannerTask] = []
    for r in rows:
        ident = str(r.get("identifier", ""))
        if ident not in wanted or ident not in data.task_actions:
            continue
        answer = str(r.get("llm_output", ""))
        out.append(reference_planner_task(data, ident, answer, budget=budget, own=mine.get(ident)))
    return out
