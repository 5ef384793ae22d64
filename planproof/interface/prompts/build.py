"""The four prompt builders. Each takes the task and a worked example (another task of the
same dataset with its gold answer computed by planproof) and returns a :class:`Prompt`."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.interface.modules import MODULES
from planproof.interface.prompts.render import (
    action_vocabulary,
    goal_text,
    objects_block,
    predicate_vocabulary,
    state_block,
)
from planproof.ltl.ast import Atom, Formula, Literal, walk
from planproof.ltl.options import GoalOptions
from planproof.ltl.printer import to_text
from planproof.ltl.simplify import conj
from planproof.simulators.core import Task


@dataclass(frozen=True)
class Prompt:
    """One prompt: the task it is for, the text, and the JSON schema of the answer."""

    identifier: str
    module: str
    dataset: str
    prompt: str
    schema: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "module": self.module,
            "dataset": self.dataset,
            "prompt": self.prompt,
            "output_schema": self.schema,
        }


_SYSTEM = (
    "You are a planning assistant for a household robot in a symbolic simulator. "
    "Answer with one JSON value only, with no explanation before or after it."
)


def _action_names(task: Task) -> frozenset[str]:
    d = task.world.domain
    return frozenset(n for n in d.operators if n not in d.predicates)


def _state_goal(task: Task) -> Formula:
    parts = task.parts
    if parts.states or parts.relations:
        return conj(*parts.states, *parts.relations)
    return conj() if parts.actions else task.goal


def _gold_literals(task: Task) -> list[Literal]:
    """The literals of the first goal option of the task's state goal."""
    opts = GoalOptions(_state_goal(task), task.world.universe, _action_names(task), minimal=True)
    first = next(iter(opts.options()), None)
    if first is None:
        return []
    return sorted(first.literals, key=lambda lit: (lit.atom.pred, str(lit.atom.args)))


def goal_json(task: Task) -> dict[str, Any]:
    """The task's gold goal in the EAI JSON form (node / edge / action goals)."""
    nodes: list[Any] = []
    edges: list[Any] = []
    for lit in _gold_literals(task):
        item = [lit.atom.pred, *(a.name for a in lit.atom.args)]
        entry: Any = item if lit.positive else ["not", item]
        (nodes if len(lit.atom.args) == 1 else edges).append(entry)
    out: dict[str, Any] = {"node goals": nodes, "edge goals": edges}
    if task.dataset == "virtualhome":
        acts = []
        for g in task.parts.actions:
            names = sorted({a.pred for a in walk(g) if isinstance(a, Atom)})
            acts.append({"action": names[0].upper(), "alternatives": [n.upper() for n in names]})
        out["action goals"] = acts
    return out


_ANSWERS: dict[tuple[str, str, str], str] = {}


def _answer(module: str, task: Task, make: Callable[[Task], str]) -> str:
    """The worked example's answer, computed once per (module, dataset, task)."""
    key = (module, task.dataset, task.identifier)
    if key not in _ANSWERS:
        _ANSWERS[key] = make(task)
    return _ANSWERS[key]


def _subgoals(task: Task) -> str:
    from planproof.interface.subgoals import subgoals_from_plan

    return json.dumps({"output": [to_text(f) for f in subgoals_from_plan(task)]})


def _task_block(task: Task, *, with_goal: bool, nl_goal: bool) -> str:
    parts = [
        f"Task: {task.name}",
        "Objects:\n" + objects_block(task),
        "Initial state:\n" + state_block(task.initial),
    ]
    if nl_goal:
        parts.append(f"Goal (in words): {task.description.strip() or task.name}")
    if with_goal:
        parts.append("Goal (LTL):\n" + goal_text(task.goal))
    return "\n\n".join(parts)


def _example_block(example: Task, answer: str, *, with_goal: bool, nl_goal: bool) -> str:
    return (
        "Example.\n"
        + _task_block(example, with_goal=with_goal, nl_goal=nl_goal)
        + "\n\nAnswer:\n"
        + answer
    )


def goal_interpretation(task: Task, example: Task) -> Prompt:
    d = task.world.domain
    vh = task.dataset == "virtualhome"
    answer = _answer("gi", example, lambda t: json.dumps(goal_json(t)))
    fmt = (
        'Answer with {"node goals": [[state, object], ...], "edge goals": '
        "[[relation, object, object], ...]"
        + (', "action goals": [{"action": ACTION}, ...]' if vh else "")
        + '}. Negate a goal as ["not", [state, object]]. Use only the objects, states, '
        "relations" + (" and actions" if vh else "") + " listed above."
    )
    text = "\n\n".join(
        [
            _SYSTEM,
            "Turn the natural-language goal of a household task into a symbolic goal: "
            "node goals (one object's state), edge goals (a relation between two objects)"
            + (" and action goals (actions that must happen)" if vh else "")
            + ", all describing the final state.",
            "States:\n" + predicate_vocabulary(d, arity=1),
            "Relations:\n" + predicate_vocabulary(d, arity=2),
            *(["Actions:\n" + action_vocabulary(d)] if vh else []),
            _example_block(example, answer, with_goal=False, nl_goal=True),
            "Now the task.\n" + _task_block(task, with_goal=False, nl_goal=True),
            fmt,
        ]
    )
    goal_list: dict[str, Any] = {"type": "array", "items": {"type": "array"}}
    props: dict[str, Any] = {"node goals": goal_list, "edge goals": goal_list}
    if vh:
        props["action goals"] = {"type": "array", "items": {"type": "object"}}
    schema = {"type": "object", "properties": props, "required": sorted(props)}
    return Prompt(task.identifier, "goal-interpretation", task.dataset, text, schema)


def subgoal_decomposition(task: Task, example: Task) -> Prompt:
    d = task.world.domain
    answer = _answer("sd", example, _subgoals)
    rules = (
        "Rules: each subgoal is a boolean formula over the states and relations above "
        "(and, or, not; an action name may stand for 'this action happens'); subgoals are "
        "reached in the order given, as if joined by 'then'; write concrete objects, no "
        "quantifiers; a hand holds one object at a time; do not repeat states that already "
        "hold."
    )
    text = "\n\n".join(
        [
            _SYSTEM,
            "Decompose the goal of a household task into an ordered list of subgoals "
            "(intermediate states) that lead from the initial state to the goal.",
            "States and relations:\n" + predicate_vocabulary(d),
            "Actions:\n" + action_vocabulary(d),
            rules,
            _example_block(example, answer, with_goal=True, nl_goal=False),
            "Now the task.\n" + _task_block(task, with_goal=True, nl_goal=False),
            'Answer with {"output": ["subgoal 1", "subgoal 2", ...]}.',
        ]
    )
    schema = {
        "type": "object",
        "properties": {"output": {"type": "array", "items": {"type": "string"}}},
        "required": ["output"],
    }
    return Prompt(task.identifier, "subgoal-decomposition", task.dataset, text, schema)


def action_sequencing(task: Task, example: Task) -> Prompt:
    from planproof.interface.responses import render_behavior, render_virtualhome

    d = task.world.domain
    vh = task.dataset == "virtualhome"
    answer = render_virtualhome(example.gold) if vh else render_behavior(example.gold)
    fmt = (
        "Answer with one JSON object whose keys are actions in order, each with its "
        'arguments as a list of name, id pairs: {"WALK": ["kitchen", "11"], "GRAB": '
        '["cup", "1000"]} (repeat a key for a repeated action).'
        if vh
        else 'Answer with a JSON list of {"action": ACTION, "object": "obj"} records '
        '(two objects as "obj1,obj2"), in order.'
    )
    text = "\n\n".join(
        [
            _SYSTEM,
            "Write the sequence of actions that takes the robot from the initial state to a "
            "state satisfying the goal.",
            "Actions:\n" + action_vocabulary(d),
            "States and relations:\n" + predicate_vocabulary(d),
            _example_block(example, answer, with_goal=True, nl_goal=False),
            "Now the task.\n" + _task_block(task, with_goal=True, nl_goal=False),
            fmt,
        ]
    )
    schema: dict[str, Any] = (
        {"type": "object", "additionalProperties": {"type": "array"}}
        if vh
        else {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"action": {"type": "string"}, "object": {"type": "string"}},
                "required": ["action", "object"],
            },
        }
    )
    return Prompt(task.identifier, "action-sequencing", task.dataset, text, schema)


@functools.lru_cache(maxsize=2)
def _eai_pddl(dataset: str) -> Any:
    from planproof.pddl.eai import load_eai_pddl

    return load_eai_pddl(dataset)


def _predicates_block(domain_text: str) -> str:
    """The ``(:predicates ...)`` section of the EAI domain, comments included, as printed
    in the paper's prompt."""
    start = domain_text.find("(:predicates")
    if start < 0:
        return domain_text
    depth = 0
    for i in range(start, len(domain_text)):
        c = domain_text[i]
        if c == ";":
            continue
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return domain_text[start : i + 1]
    return domain_text[start:]


def transition_modeling(task: Task, example: Task) -> Prompt:
    """The paper's TM prompt (Fig. 50): the EAI domain's predicates, the task's PDDL
    problem, and the task's actions to complete. It is built from the EAI PDDL data, not
    the simulator's schemas, because the answers are scored against the EAI gold operators
    (their names and parameters: ``walk_towards``, ``put_on``...)."""
    data = _eai_pddl(task.dataset)
    wanted = data.task_actions.get(task.identifier, ())
    templates = "\n".join(
        f"(:action {n}\n  :parameters {data.gold_operators[n].parameters}\n"
        "  :precondition ()\n  :effect ())"
        for n in wanted
        if n in data.gold_operators
    )
    others = sorted(set(data.gold_operators) - set(wanted))
    shown = data.gold_operators[others[0]].pddl().strip() if others else ""
    text = "\n\n".join(
        [
            _SYSTEM,
            "You are a software engineer writing the action definitions of a PDDL domain. "
            "Write the precondition and effect of each action below so that a planner can "
            "reach the goal of this problem from its :init. Preconditions are in disjunctive "
            "normal form using and / or / not / exists; effects use and / not / when / "
            "forall, where (when C E) evaluates C before the action. Use only the domain's "
            "predicates and types and the given parameters; an empty precondition or effect "
            "is allowed.",
            "Domain predicates:\n" + _predicates_block(data.domain_text),
            *(["Example of a complete action:\n" + shown] if shown else []),
            "Problem:\n" + data.problem_texts.get(task.identifier, "").strip(),
            "Actions to complete:\n" + (templates or "(none)"),
            'Answer with {"output": "the completed PDDL actions, concatenated"}.',
        ]
    )
    schema = {
        "type": "object",
        "properties": {"output": {"type": "string"}},
        "required": ["output"],
    }
    return Prompt(task.identifier, "transition-modeling", task.dataset, text, schema)


BUILDERS: dict[str, Callable[[Task, Task], Prompt]] = {
    "goal-interpretation": goal_interpretation,
    "subgoal-decomposition": subgoal_decomposition,
    "action-sequencing": action_sequencing,
    "transition-modeling": transition_modeling,
}


def _example_for(tasks: Sequence[Task], task: Task) -> Task:
    """The worked example: the first task with a gold plan and a non-trivial goal that is
    not ``task`` itself (another task, so the answer is never given away)."""
    for t in tasks:
        if t.identifier != task.identifier and t.gold and len(t.parts):
            return t
    return task


def build_prompts(
    tasks: Sequence[Task], module: str, only: Collection[str] | None = None
) -> list[Prompt]:
    """One prompt per task for ``module`` (one of :data:`MODULES`); with ``only``, just for
    those identifiers, the worked examples still chosen from all of ``tasks``."""
    if module not in BUILDERS:
        raise ValueError(f"module must be one of {', '.join(MODULES)}, not {module!r}")
    build = BUILDERS[module]
    first = _example_for(tasks, tasks[0]) if tasks else None
    second = (
        _example_for([t for t in tasks if first is None or t is not first], first)
        if first
        else None
    )
    out = []
    for t in tasks:
        if only is not None and t.identifier not in only:
            continue
        ex = first if first is not None and t.identifier != first.identifier else second
        out.append(build(t, ex or t))
    return out
