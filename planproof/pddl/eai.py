"""The EAI data's PDDL side, read from the eai-eval wheel: the VirtualHome and BEHAVIOR
domains, per-task problems, gold plans, the tasks the authors' planner solved, and the
transition-modeling gold (operators per task, predicate categories, task categories)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planproof.pddl.reader import Problem, read_domain, read_problem
from planproof.pddl.schema import Domain

if TYPE_CHECKING:
    from planproof.pddl.checks import Issue
    from planproof.pddl.schema import Operator

DATASETS = ("virtualhome", "behavior")
_ROOT = "virtualhome_eval/resources/"

CATEGORIES = (
    "object_states",
    "object_orientation",
    "object_affordance",
    "spatial_relations",
    "non-spatial_relations",
)
"""The paper's five predicate categories (App. L.5). The data also labels ``recipient``,
``containers`` and ``cover_object`` as ``object_tools``, which no table reports."""


@dataclass(frozen=True)
class GoldOperator:
    """One gold operator as the data gives it (PDDL text fragments)."""

    name: str
    parameters: str
    precondition: str
    effect: str

    def pddl(self) -> str:
        return (
            f"(:action {self.name}\n  :parameters {self.parameters}\n"
            f"  :precondition {self.precondition}\n  :effect {self.effect}\n)"
        )


@dataclass(frozen=True)
class EaiPddl:
    """One dataset's PDDL resources. Problems are kept as text and parsed on demand."""

    dataset: str
    domain_text: str
    problem_texts: Mapping[str, str]
    task_names: Mapping[str, str]
    solved: tuple[str, ...]
    gold_plans: Mapping[str, tuple[str, ...]]
    gold_operators: Mapping[str, GoldOperator]
    task_actions: Mapping[str, tuple[str, ...]]
    task_categories: Mapping[str, tuple[str, ...]]
    predicate_categories: Mapping[str, str]

    @functools.cached_property
    def domain(self) -> Domain:
        return read_domain(self.domain_text)

    @functools.cached_property
    def operator_checks(self) -> dict[object, dict[Operator, tuple[Issue, ...]]]:
        """The static checks of operators by the state axioms used, memoised for the life
        of this data: the published models repeat one another's operators, file after
        file."""
        return {}

    def problem(self, identifier: str) -> Problem:
        return read_problem(self.problem_texts[identifier])

    def gold_response(self, identifier: str) -> str:
        """The gold operators of a task, formatted as an LLM answer (``{"output": ...}``)."""
        import json

        text = "\n".join(self.gold_operators[a].pddl() for a in self.task_actions[identifier])
        return json.dumps({"output": text})


def _ops(raw: Mapping[str, Any]) -> dict[str, GoldOperator]:
    return {
        k: GoldOperator(k, v["action_parameters"], v["action_preconditions"], v["action_effects"])
        for k, v in raw.items()
    }


def _norm_category(c: str) -> str:
    return c.strip().replace(" ", "_")


@functools.cache
def load_eai_pddl(dataset: str, wheel: Path | None = None) -> EaiPddl:
    """Read one dataset (``virtualhome`` or ``behavior``) from the eai-eval wheel."""
    from planproof.data.eai_wheel import open_wheel

    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}")
    base = _ROOT + dataset + "/"
    with open_wheel(wheel) as w:
        domain_text = w.read_text(base + f"{dataset}.pddl")
        id2task: dict[str, str] = w.read_json(base + "id2task.json")
        problems: dict[str, str] = {}
        for m in w.members(base + "problem_pddl/", ".pddl"):
            ident = m.rsplit("/", 1)[1].removesuffix(".pddl")
            problems[ident] = w.read_text(m)
        solved = tuple(w.read_json(base + "success_task.json"))
        plans = {k: tuple(v) for k, v in w.read_json(base + "gold_pddl_plan.json").items()}
        gold = _ops(w.read_json(base + "gold_action.json"))
        actions = {k: tuple(v) for k, v in w.read_json(base + "id2action.json").items()}
        cats = {
            k: tuple(_norm_category(c) for c in v)
            for k, v in w.read_json(base + "id2category_2.json").items()
        }
        preds = {
            k: _norm_category(v) for k, v in w.read_json(base + "predicates_category.json").items()
        }
    return EaiPddl(
        dataset,
        domain_text,
        problems,
        {k: v for k, v in id2task.items() if k in problems},
        solved,
        plans,
        gold,
        actions,
        cats,
        preds,
    )
