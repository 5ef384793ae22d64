"""Run directories for the report tests, built the way ``planproof run`` builds them: real
EAI tasks, the real prompt builder, response texts (gold answers and mutations of them),
and the runner's own scoring (:func:`planproof.runs.modules.evaluate_answers`, the module
evaluators) for results.jsonl and summary.json. Only the call metadata (tokens, cost,
timings) is invented, since no model is called."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planproof.simulators.core import Action, Task

PAYLOAD = "<script>alert(1)</script></textarea></pre><img src=x onerror=alert(2)>\"'&amp;"
EVIL_OBJECT = "<img src=x onerror=alert(3)>"


@dataclass(frozen=True)
class Failure:
    """A model call that failed after retries (the response has no output)."""

    kind: str
    message: str


Answer = str | Failure
Responder = Callable[[Task, int], Answer]


def write_run(
    out: Path,
    *,
    model: str,
    module: str,
    tasks: Sequence[Task],
    answer: Responder,
    planner: bool = True,
) -> Path:
    """Write ``out`` as the runner would: run.json, responses.jsonl, results.jsonl and
    summary.json (same layout as ``planproof evaluate`` plus model/module/dataset)."""
    from planproof.interface.prompts import build_prompts

    dataset = tasks[0].dataset
    prompts = {p.identifier: p.prompt for p in build_prompts(tasks, module)}
    answers = [answer(t, i) for i, t in enumerate(tasks)]
    responses: list[dict[str, Any]] = []
    for i, (t, a) in enumerate(zip(tasks, answers, strict=True)):
        text = a if isinstance(a, str) else None
        error = None if isinstance(a, str) else {"kind": a.kind, "message": a.message}
        prompt = prompts[t.identifier]
        responses.append(
            {
                "identifier": t.identifier,
                "module": module,
                "dataset": dataset,
                "model": model,
                "prompt": prompt,
                "llm_output": text,
                "error": error,
                "cached": i % 3 == 0,
                "usage": {
                    "prompt_tokens": len(prompt) // 4,
                    "completion_tokens": len(text or "") // 4,
                },
                "cost_usd": None if text is None else round(len(prompt) * 1e-7, 6),
                "seconds": 0.5 + i / 10 if text is not None else 0.0,
                "attempts": 1 if text is not None else 0,
            }
        )
    answered = {t.identifier: a for t, a in zip(tasks, answers, strict=True) if isinstance(a, str)}
    if module == "transition-modeling" and not planner:  # logic-form scores only (faster)
        from planproof.metrics.transition_modeling.evaluate import evaluate_responses
        from planproof.pddl.eai import load_eai_pddl

        report = evaluate_responses(
            load_eai_pddl(dataset),
            [{"identifier": i, "llm_output": a} for i, a in answered.items()],
            run_planner=False,
        )
        results, summary = [r.to_dict() for r in report.tasks], report.summary()
    else:  # what `planproof run` does: failed calls are not scored
        from planproof.runs.modules import evaluate_answers

        evaluation = evaluate_answers(module, dataset, tasks, answered)
        results, summary = evaluation.results, evaluation.summary
    summary.update(
        model=model,
        module=module,
        dataset=dataset,
        tasks_in_run=len(tasks),
        tasks_scored=len(results),
        call_errors=[
            {"identifier": r["identifier"], **r["error"]} for r in responses if r["error"]
        ],
    )
    failed = sum(r["llm_output"] is None for r in responses)
    cached = sum(bool(r["cached"]) for r in responses)
    costs = [r["cost_usd"] for r in responses if r["cost_usd"] is not None]
    run = {
        "planproof_version": "0.1.0",
        "model": model,
        "module": module,
        "dataset": dataset,
        "params": {"temperature": 0.0, "max_tokens": 2048, "top_p": None, "seed": 7},
        "api_base": None,
        "started": "2025-01-02T03:04:05+00:00",
        "finished": "2025-01-02T03:09:05+00:00",
        "tasks": len(tasks),
        "calls": {"made": len(tasks) - cached, "cached": cached, "failed": failed},
        "tokens": {
            "prompt": sum(r["usage"]["prompt_tokens"] for r in responses),
            "completion": sum(r["usage"]["completion_tokens"] for r in responses),
        },
        "cost_usd": round(sum(costs), 6) if costs else None,
        "cost_usd_with_cached": round(sum(costs), 6),
        "seconds": {"calls": 12.5, "evaluation": 1.25, "total": 13.75},
        "cache": str(out.parent / "responses.sqlite3"),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps(run, indent=2), encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    with (out / "responses.jsonl").open("w", encoding="utf-8") as f:
        for r in responses:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with (out / "results.jsonl").open("w", encoding="utf-8") as f:
        for res in results:
            f.write(json.dumps(res, ensure_ascii=False) + "\n")
    return out


# --- answers ------------------------------------------------------------------------------


def _render(task: Task, actions: Sequence[Action]) -> str:
    from planproof.interface.responses import render_behavior, render_virtualhome

    if task.dataset == "virtualhome":
        return render_virtualhome(actions)
    return render_behavior(actions)


def gold_answer(module: str) -> Responder:
    """The dataset's gold answer for each task, as the gold agent would write it."""
    if module == "action-sequencing":
        return lambda t, _i: _render(t, t.gold)
    if module == "goal-interpretation":
        from planproof.metrics.goal_interpretation import gold_response

        return lambda t, _i: gold_response(t)
    if module == "subgoal-decomposition":
        from planproof.metrics.subgoal_decomposition import gold_response as sd_gold

        return lambda t, _i: sd_gold(t)
    from planproof.pddl.eai import load_eai_pddl

    def tm(t: Task, _i: int) -> str:
        return load_eai_pddl(t.dataset).gold_response(t.identifier)

    return tm


RATE_LIMIT = Failure("rate-limit", "429 Too Many Requests <b>slow down</b>")


def _as_mutant(t: Task, i: int) -> Answer:
    acts = list(t.gold)
    k = (len(acts) - 1) // 2  # a middle step with a successor
    gold = _render(t, acts)
    match i % 9:
        case 0 | 1 | 2 | 3 | 7 if len(acts) < 2:
            return gold
        case 0:
            return gold
        case 1:  # a dropped step
            return _render(t, acts[:k] + acts[k + 1 :])
        case 2:  # an invented object
            name = "unicorn.4242" if t.dataset == "virtualhome" else EVIL_OBJECT
            return _render(t, [*acts[:k], Action(acts[k].name, (name,)), *acts[k + 1 :]])
        case 3:  # two steps swapped
            return _render(t, [*acts[:k], acts[k + 1], acts[k], *acts[k + 2 :]])
        case 4:
            return "Sure! First walk to the kitchen, then finish the task."
        case 5:
            return PAYLOAD
        case 6:
            return f"```json\n{gold}\n```"
        case 7:  # a repeated step
            return _render(t, [*acts[: k + 1], acts[k], *acts[k + 1 :]])
        case _:
            return RATE_LIMIT


def _gi_mutant(t: Task, i: int) -> Answer:
    from planproof.metrics.goal_interpretation import gold_response

    gold = gold_response(t)
    match i % 6:
        case 0:
            return gold
        case 1:
            return gold.rsplit(" and ", 1)[0]
        case 2:
            return f"{gold} and closed(unicorn.4242)"
        case 3:
            return "The goal is to make the room tidy."
        case 4:
            return PAYLOAD
        case _:
            return RATE_LIMIT


def _sd_mutant(t: Task, i: int) -> Answer:
    from planproof.metrics.subgoal_decomposition import gold_response

    subgoals: list[str] = json.loads(gold_response(t))["output"]
    k = len(subgoals) // 2
    match i % 5:
        case 0:
            return json.dumps({"output": subgoals})
        case 1:
            return json.dumps({"output": subgoals[:k] + subgoals[k + 1 :]})
        case 2:
            return json.dumps({"output": [*subgoals[:k], "closed(unicorn.4242)", *subgoals[k:]]})
        case 3:
            return PAYLOAD
        case _:
            return json.dumps({"output": subgoals[::-1]})


def _tm_mutant(t: Task, i: int) -> Answer:
    from planproof.pddl.eai import load_eai_pddl

    gold = load_eai_pddl(t.dataset).gold_response(t.identifier)
    match i % 4:
        case 0:
            return gold
        case 1:
            return gold.replace("(:action ", "(:action teleport_", 1)
        case 2:
            return PAYLOAD
        case _:
            return gold.replace(":precondition (and", ":precondition (and (unicorn ?x)", 1)


MUTANTS: dict[str, Responder] = {
    "action-sequencing": _as_mutant,
    "goal-interpretation": _gi_mutant,
    "subgoal-decomposition": _sd_mutant,
    "transition-modeling": _tm_mutant,
}


def tm_tasks(tasks: Sequence[Task]) -> list[Task]:
    """The tasks the transition-modeling evaluation covers (the paper's solved set)."""
    from planproof.pddl.eai import load_eai_pddl

    solved = set(load_eai_pddl(tasks[0].dataset).solved)
    return [t for t in tasks if t.identifier in solved]
