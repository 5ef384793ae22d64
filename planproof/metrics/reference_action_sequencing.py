"""Action sequencing by the reference's rules (virtualhome-eval 0.1.1,
``evaluation/action_sequence/scripts/evaluate_results.py``, read and re-implemented, not
imported), on planproof's VirtualHome simulator: the "reference reading" of
``planproof reproduce eai``.

The reference's pipeline, per answer (``docs/action-sequencing.md``, "The reference
reading"; each step a class of ``docs/reference-differences.md``):

1. **gold test** — a task whose goals do not all hold in the dataset's final graph by its
   own check is left out of every denominator; its edge loop stops at the first matched
   relation goal, so every task with two or more relation goals is left out (``gold-test``);
2. **parsing** — a leading json fence cut, newlines dropped, ``'`` made ``"``,
   ``json.loads`` (one step per action name: first position, last arguments,
   ``repeated-keys``); an answer it cannot read counts twice as a parsing error (its
   ``except`` and its empty-plan test both count it), an empty plan once
   (``tolerant-parsing``);
3. **hallucination** — an action name outside its ``valid_actions`` (which lacks
   ``PLUGIN``, ``PLUGOUT``, ``RELEASE``: ``valid-actions``) or an argument outside its
   name → id map (``docs/published-answers.md``; an empty argument ``""`` too:
   ``empty-argument``, 509_2);
4. **argument count** — one ``""`` removed, then the count compared;
5. **gold-script shortcut** — a plan equal to the gold script is counted executable, not
   simulated, never successful and meets no goal (``gold-script-shortcut``: 511_1, 616_1);
6. **simulation** — by the reference executor's tests, in its order, with its error codes
   and its temporal-order checker, on planproof's states
   (:mod:`planproof.metrics.reference_executor`: the ``simulator:*`` classes), until the
   first failing step; an additional step is counted (every one, also in plans that later
   fail) and left out of the executed actions, so a goal action that was an additional
   step is unmet (``additional-goal-action``);
7. **goals** — in the state reached, whether the plan executed or not
   (``success-without-execution``); action goals matched as ordered substrings of the
   executed script in the order of ``list(set(...))`` under the reading's hash seed,
   stopping at the first miss (``ordered-action-goals``).

The states are planproof's VirtualHome states and the effects its operators'; the executor's
tests and its walk and grab rules are the reference's, so the reading's verdict equals the
reference code's on every task of the stored whole-file runs
(``tests/reproduce/test_reference_executor.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

VALID_ACTIONS: Mapping[str, int] = {
    **dict.fromkeys(
        [
            "DRINK",
            "EAT",
            "CUT",
            "TOUCH",
            "LOOKAT",
            "LOOKAT_SHORT",
            "LOOKAT_MEDIUM",
            "LOOKAT_LONG",
            "WATCH",
            "READ",
            "TYPE",
            "PUSH",
            "PULL",
            "MOVE",
            "SQUEEZE",
            "RINSE",
            "SCRUB",
            "WASH",
            "GRAB",
            "SWITCHOFF",
            "SWITCHON",
            "CLOSE",
            "FIND",
            "WALK",
            "OPEN",
            "POINTAT",
            "PUTOBJBACK",
            "RUN",
            "SIT",
            "TURNTO",
            "WIPE",
            "PUTON",
            "PUTOFF",
            "GREET",
            "DROP",
            "LIE",
        ],
        1,
    ),
    **dict.fromkeys(("SLEEP", "WAKEUP", "STANDUP"), 0),
    **dict.fromkeys(("PUTBACK", "PUTIN", "POUR"), 2),
}
"""The reference's ``valid_actions`` (name → argument count): 42 names; VirtualHome's
``PLUGIN``, ``PLUGOUT`` and ``RELEASE`` are missing (a hallucination there)."""

RUNTIME = {"wrong_order": 0, "missing_step": 1, "affordance": 2}


@dataclass(frozen=True)
class ReferenceTask:
    """One answer as the reference scores it. ``evaluated`` is False for a task its gold
    test leaves out; ``error`` is the reference's error type (``parsing``,
    ``hallucination``, ``argument_count``, ``wrong_order``, ``missing_step``,
    ``affordance``) or None; ``parsing_counts`` how many times it counts a parsing error
    (2 for an answer ``json.loads`` cannot read); ``additional`` the additional steps it
    counted; ``goals`` (met, total) per type; ``shortcut``: the plan equalled the gold
    script; ``steps`` the plan as the reference read it."""

    identifier: str
    evaluated: bool
    executable: bool = False
    success: bool = False
    error: str | None = None
    parsing_counts: int = 0
    additional: int = 0
    goals: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    shortcut: bool = False
    steps: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "evaluated": self.evaluated,
            "executable": self.executable,
            "success": self.success,
            "error": self.error,
            "additional_steps": self.additional,
            "shortcut": self.shortcut,
        }


def passes_gold_test(gold: Mapping[str, Any]) -> bool:
    """The reference's gold test on the dataset's own final graph: every node goal holds
    there (so by construction), and its edge loop counts at most one relation goal."""
    return len(gold["edge"]) <= 1


def reference_plan(text: str) -> Any:
    """The answer as the reference's ``json.loads`` reads it; raises ``ValueError``."""
    out = text[7:] if text.startswith("```json") else text
    out = out.strip().replace("\n", "").replace("'", '"')
    return json.loads(out)


def _iterate(objects: Any) -> list[Any]:
    """What ``for obj in objects`` visits."""
    if isinstance(objects, str | list | dict):
        return list(objects)
    return [objects]


def check_order(goals: Sequence[str], script: str) -> int:
    """``check_order_with_or_score``: goal groups found as ordered substrings (any of a
    group's ``|`` alternatives), stopping at the first group not found."""
    count, start = 0, 0
    for group in goals:
        for alternative in group.split("|"):
            option = alternative.upper().replace(" ", "")
            at = script.find(option, start)
            if at != -1:
                start = at + len(option)
                count += 1
                break
        else:
            break
    return count


def _line(name: str, args: Sequence[tuple[str, int]]) -> str:
    return f"[{name}]" + "".join(f" <{n}> ({i})" for n, i in args)


def score_answer(task: Any, text: str, gold: Mapping[str, Any]) -> ReferenceTask:
    """Score one answer by the reference's pipeline on planproof's simulator."""
    ident = task.identifier
    if not passes_gold_test(gold):
        return ReferenceTask(ident, evaluated=False)
    totals = {
        "state": len(gold["node"]),
        "relation": len(gold["edge"]),
        "action": len(gold["action_order"]),
    }
    unmet = {k: (0, n) for k, n in totals.items()}
    try:
        plan = reference_plan(text)
    except ValueError:
        return ReferenceTask(ident, True, error="parsing", parsing_counts=2, goals=unmet)
    if not isinstance(plan, dict) or len(plan) == 0:
        return ReferenceTask(ident, True, error="parsing", parsing_counts=1, goals=unmet)
    names: Mapping[str, int] = gold["action_names"]
    hallucinated = any(str(k).upper() not in VALID_ACTIONS for k in plan) or any(
        not isinstance(o, str) or o not in names for v in plan.values() for o in _iterate(v)
    )
    read = tuple((str(k), tuple(str(o) for o in _iterate(v))) for k, v in plan.items())
    if hallucinated:
        return ReferenceTask(ident, True, error="hallucination", goals=unmet, steps=read)
    steps: list[tuple[str, list[tuple[str, int]]]] = []
    for name, params in plan.items():
        args = [str(o) for o in _iterate(params)]
        if "" in args:
            args.remove("")
        if len(args) != VALID_ACTIONS.get(name, -1):
            return ReferenceTask(ident, True, error="argument_count", goals=unmet, steps=read)
        steps.append((name, [(a, names[a]) for a in args]))
    lines = [_line(n, a) for n, a in steps]
    if lines == list(gold["gold_script"]):
        return ReferenceTask(ident, True, True, shortcut=True, goals=unmet, steps=read)
    return _simulate(task, gold, steps, totals, read)


def _simulate(
    task: Any,
    gold: Mapping[str, Any],
    steps: Sequence[tuple[str, Sequence[tuple[str, int]]]],
    totals: Mapping[str, int],
    read: tuple[tuple[str, tuple[str, ...]], ...],
) -> ReferenceTask:
    from planproof.ltl.trace import Trace
    from planproof.metrics.action_sequencing import goal_counts
    from planproof.metrics.reference_executor import replay_reference_executor
    from planproof.simulators.core import Action, Replay
    from planproof.simulators.virtualhome.convert import object_name

    actions = [Action(n.upper(), tuple(object_name(a, i) for a, i in args)) for n, args in steps]
    final, done, additional, error = replay_reference_executor(task, actions)
    history = [_line(steps[i][0], steps[i][1]) for i in done]
    counts, _, _ = goal_counts(task, Replay(Trace((final,)), (), None, (), len(actions)))
    met = {
        "state": counts["state"].met if "state" in counts else 0,
        "relation": counts["relation"].met if "relation" in counts else 0,
        "action": check_order(gold["action_order"], " ".join(history))
        if gold["action_order"]
        else 0,
    }
    success = all(met[k] == totals[k] for k in totals)
    return ReferenceTask(
        task.identifier,
        True,
        error is None,
        success,
        error,
        additional=additional,
        goals={k: (met[k], totals[k]) for k in totals},
        steps=read,
    )


def unevaluated(identifier: str) -> ReferenceTask:
    """A task whose answer has no text: the reference would stop on it; left out."""
    return ReferenceTask(identifier, evaluated=False)


def summarize_reference(results: Sequence[ReferenceTask]) -> dict[str, Any]:
    """The reference's summary (its keys, its denominators: the tasks that pass its gold
    test; execution success rounded to one decimal as it rounds it)."""
    done = [r for r in results if r.evaluated]
    n = len(done)

    def pct(x: int, d: int, digits: int = 4) -> float | None:
        return round(100.0 * x / d, digits) if d else None

    goals = {k: [0, 0] for k in ("state", "relation", "action")}
    for r in done:
        for k, (m, t) in r.goals.items():
            goals[k][0] += m
            goals[k][1] += t
    runtime = {k: sum(1 for r in done if r.error == k) for k in RUNTIME}
    return {
        "tasks": len(results),
        "evaluated": n,
        "reading": "reference",
        "goal_evaluation": {
            "task_success_rate": pct(sum(r.success for r in done), n),
            "state_goal": pct(*goals["state"]),
            "relation_goal": pct(*goals["relation"]),
            "action_goal": pct(*goals["action"]),
            "total_goal": pct(sum(g[0] for g in goals.values()), sum(g[1] for g in goals.values())),
        },
        "trajectory_evaluation": {
            "execution_success_rate": pct(sum(r.executable for r in done), n, 1),
            "grammar_error": {
                "parsing": pct(sum(r.parsing_counts for r in done), n),
                "hallucination": pct(sum(r.error == "hallucination" for r in done), n),
                "predicate_argument_number": pct(sum(r.error == "argument_count" for r in done), n),
            },
            "runtime_error": {
                "wrong_order": pct(runtime["wrong_order"], n),
                "missing_step": pct(runtime["missing_step"], n),
                "affordance_error": pct(runtime["affordance"], n),
                "additional_step": pct(sum(r.additional for r in done), n),
            },
        },
        "counts": {
            "evaluated": n,
            "success": sum(r.success for r in done),
            "executable": sum(r.executable for r in done),
            "shortcut": sum(r.shortcut for r in done),
        },
    }
