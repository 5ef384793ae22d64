"""The task model shared by the EAI worlds: a world, its initial state, its goal and the
dataset's gold plan."""

from __future__ import annotations

from dataclasses import dataclass

from planproof.ltl.ast import Formula
from planproof.ltl.trace import State
from planproof.simulators.core.outcome import Action
from planproof.simulators.core.world import World


@dataclass(frozen=True)
class GoalParts:
    """The paper's three goal types as ground formulas: state (node) goals, relation
    (edge) goals and action goals (an action goal may be an ``or`` of alternatives, e.g.
    ``lookat(tv.1) or watch(tv.1)``; an action-goal atom's arguments may be variables,
    matched against any object)."""

    states: tuple[Formula, ...] = ()
    relations: tuple[Formula, ...] = ()
    actions: tuple[Formula, ...] = ()

    def __len__(self) -> int:
        return len(self.states) + len(self.relations) + len(self.actions)


@dataclass(frozen=True)
class Task:
    """One benchmark task, ready to replay: ``goal`` is the task's LTL goal (``tl_goal``),
    ``parts`` its node / edge / action goals where the dataset gives them."""

    dataset: str
    identifier: str
    name: str
    description: str
    world: World
    initial: State
    goal: Formula
    parts: GoalParts
    gold: tuple[Action, ...]
