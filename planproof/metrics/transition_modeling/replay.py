"""Replaying a plan under a PDDL transition model with the generic simulator core.

A PDDL problem becomes a core :class:`~planproof.simulators.core.World` (objects, static
properties) plus an initial state and a goal, so ``planproof verify``, the transition-
modeling evaluation and every simulator share one executor and one error classifier.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planproof.ltl.ast import Formula
from planproof.ltl.trace import State
from planproof.pddl.reader import Problem
from planproof.pddl.schema import Domain
from planproof.simulators.core import Action, Bound, Replay, World, initial_state, replay
from planproof.simulators.core.logic import Facts, atom_text


@dataclass(frozen=True)
class PddlTask:
    """A PDDL problem ready to replay."""

    world: World
    initial: State
    goal: Formula


def pddl_task(domain: Domain, problem: Problem) -> PddlTask:
    s0, static = initial_state(problem.init, domain)
    world = World(domain, problem.objects_with_types(), static)
    return PddlTask(world, s0, problem.goal)


@dataclass(frozen=True)
class StepView:
    """One executed step for a readable trace: what it added and deleted."""

    index: int
    action: str
    added: tuple[str, ...]
    deleted: tuple[str, ...]
    warning: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.index,
            "action": self.action,
            "added": list(self.added),
            "deleted": list(self.deleted),
            "warning": self.warning or None,
        }


@dataclass(frozen=True)
class PlanCheck:
    """The verdict on a plan. ``valid``: every step ran (additional steps are warnings, as
    in the simulators) and the goal holds at the end. ``strict`` additionally demands, as
    a PDDL validator does, that every step's precondition held when it ran."""

    replay: Replay
    steps: tuple[StepView, ...]
    goal_holds: bool
    unmet_goal: tuple[str, ...]
    strict: bool

    @property
    def executable(self) -> bool:
        return self.replay.executable

    @property
    def valid(self) -> bool:
        return self.replay.executable and self.goal_holds

    def to_dict(self) -> dict[str, object]:
        err = self.replay.first_error
        return {
            "valid": self.valid,
            "strict_valid": self.strict,
            "executable": self.executable,
            "goal_holds": self.goal_holds,
            "unmet_goal": list(self.unmet_goal),
            "steps": self.replay.length,
            "executed": len(self.replay.executed),
            "trace": [s.to_dict() for s in self.steps],
            "error": err.to_dict() if err else None,
            "warnings": [w.to_dict() for w in self.replay.warnings],
        }


def check_plan(task: PddlTask, actions: Sequence[Action]) -> PlanCheck:
    """Replay ``actions`` from the task's initial state, then test the goal in the state
    reached (a plan that stops early is judged on its executed prefix)."""
    r = replay(task.world, task.initial, actions)
    states = r.trace.states
    warn = {w.index: w.message for w in r.warnings}
    views: list[StepView] = []
    strict = r.executable
    for i, a in enumerate(r.executed):
        before, after = states[i], states[i + 1]
        views.append(
            StepView(
                i,
                str(a),
                tuple(sorted(atom_text(x) for x in after - before)),
                tuple(sorted(atom_text(x) for x in before - after)),
                warn.get(i, ""),
            )
        )
        if strict and i in warn:
            bound = task.world.bind(a, i)
            strict = isinstance(bound, Bound) and task.world.precondition_holds(bound, before)
    facts = Facts(r.final, task.world.static, task.world.universe)
    holds = facts.holds(task.goal, {})
    unmet = () if holds else tuple(facts.unmet(task.goal, {}))
    return PlanCheck(r, tuple(views), holds, unmet, strict and holds)


def to_actions(steps: Sequence[tuple[str, tuple[str, ...]]]) -> tuple[Action, ...]:
    return tuple(Action(n, args) for n, args in steps)
