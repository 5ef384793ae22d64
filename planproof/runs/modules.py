"""The four EAI modules as the runner sees them: which tasks get a prompt, and how the
answers are scored (with the same evaluators as ``planproof evaluate <module>``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.interface.modules import DATASETS, MODULES
from planproof.simulators.core import Task


@dataclass(frozen=True)
class Evaluation:
    """Per-task results (plain dicts, one per answered task) and the module summary."""

    results: list[dict[str, Any]]
    summary: dict[str, Any]


def task_fields(task: Task) -> dict[str, str]:
    """What a person needs to recognise a task in a results row (and the report shows):
    its name and its goal in the goal logic's text form."""
    from planproof.ltl.printer import to_text

    return {"task_name": task.name, "task_goal": to_text(task.goal)}


def with_task_fields(rows: Sequence[dict[str, Any]], tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """``rows`` (results with an ``identifier``) with :func:`task_fields` added."""
    by_id = {t.identifier: t for t in tasks}
    return [
        {**r, **task_fields(by_id[r["identifier"]])} if r.get("identifier") in by_id else r
        for r in rows
    ]


def load_tasks(dataset: str) -> tuple[Task, ...]:
    """The dataset's tasks (fetching and converting the EAI data on first use)."""
    if dataset == "virtualhome":
        from planproof.simulators.virtualhome import load_virtualhome_tasks

        return load_virtualhome_tasks()
    if dataset == "behavior":
        from planproof.simulators.behavior.tasks import load_behavior_tasks

        return load_behavior_tasks()
    raise ValueError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}")


def module_tasks(module: str, dataset: str) -> tuple[Task, ...]:
    """The tasks a module is evaluated on. Transition modeling, as in the paper, only on the
    tasks the authors' planner solved with the gold operators (``success_task.json``)."""
    if module not in MODULES:
        raise ValueError(f"unknown module {module!r}; choose one of {', '.join(MODULES)}")
    tasks = load_tasks(dataset)
    if module != "transition-modeling":
        return tasks
    from planproof.pddl.eai import load_eai_pddl

    solved = set(load_eai_pddl(dataset).solved)
    return tuple(t for t in tasks if t.identifier in solved)


def evaluate_answers(
    module: str, dataset: str, tasks: Sequence[Task], answers: Mapping[str, str]
) -> Evaluation:
    """Score the answered tasks (``answers``: identifier → response text), in task order,
    on VirtualHome in both readings (planproof's, and the reference's beside it:
    :mod:`planproof.runs.reference_reading`; BEHAVIOR transition modeling's logic form
    too).

    Tasks without an answer (a failed call) are not scored here: the runner lists them
    separately, so that a provider outage never shows up as a model's parsing error."""
    answered = [t for t in tasks if t.identifier in answers]
    rows = [{"identifier": t.identifier, "llm_output": answers[t.identifier]} for t in answered]
    if module == "transition-modeling":
        return _transition_modeling(dataset, rows)
    from planproof.runs.reference_reading import readings, summary_and_rows, unavailable

    if unavailable(module, dataset) is None and module in MODULES:
        # both readings, as ``planproof evaluate`` by default
        scorer = readings(module, lambda: rows, logic=True)
        both = [scorer.score(t, answers[t.identifier]) for t in answered]
        scored, per_task, _ = summary_and_rows(scorer, both)
        return Evaluation(per_task, {**scored, "reading": "both"})
    results: list[Any]
    summary: dict[str, Any]
    if module == "action-sequencing":
        from planproof.metrics import action_sequencing as m_as

        results = [m_as.evaluate_response(t, answers[t.identifier], dataset) for t in answered]  # type: ignore[arg-type]
        summary = m_as.summarize(results)
    elif module == "goal-interpretation":
        from planproof.metrics import goal_interpretation as m_gi

        results = [m_gi.evaluate_goal_response(t, answers[t.identifier]) for t in answered]
        summary = m_gi.summarize(results)
    elif module == "subgoal-decomposition":
        from planproof.metrics import subgoal_decomposition as m_sd

        results = [m_sd.evaluate_subgoal_response(t, answers[t.identifier]) for t in answered]
        summary = m_sd.summarize(results)
    else:
        raise ValueError(f"unknown module {module!r}; choose one of {', '.join(MODULES)}")
    summary.update(reference_reading=None, reference_reading_note=unavailable(module, dataset))
    return Evaluation([r.to_dict() for r in results], summary)


def _transition_modeling(dataset: str, rows: Sequence[Mapping[str, Any]]) -> Evaluation:
    """Transition modeling's answers scored by planproof, with the logic form also counted
    as the reference counts (its reference reading)."""
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl
    from planproof.runs.reference_reading import logic_form_reading, logic_form_words

    data = load_eai_pddl(dataset)
    report = evaluate_responses(data, rows)
    reading, per_task = logic_form_reading(data, rows)
    summary = {
        **report.summary(),
        "reference_reading": reading,
        "reference_counting": reading["logic_form"],
        "reference_reading_note": reading["planner_success_note"],
        "reading": "both",
    }
    results = [
        {
            **r.to_dict(),
            "reference_reading": logic_form_words(per_task.get(r.identifier, {})),
            "reference_verdict": {"logic_form": per_task.get(r.identifier, {})},
        }
        for r in report.tasks
    ]
    return Evaluation(results, summary)
