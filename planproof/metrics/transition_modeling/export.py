"""A simulator task as a PDDL problem, so that any world's gold transition model (or one an
LLM wrote) can be handed to a planner or to ``planproof verify``.

A core :class:`~planproof.simulators.core.World` gives each object a set of types; PDDL
gives one, so the most specific type the domain declares is kept (``World.objects``
types the domain does not declare are properties the world's static facts also carry).
Surface actions leave the acting agent implicit; in PDDL every parameter is explicit, so
:func:`pddl_action` puts the agent back in its parameter's place.
"""

from __future__ import annotations

from collections.abc import Sequence

from planproof.ltl.ast import Formula, is_temporal
from planproof.ltl.trace import State
from planproof.pddl.reader import ROOT_TYPE, Problem
from planproof.pddl.schema import Domain
from planproof.pddl.writer import domain_to_pddl, problem_to_pddl
from planproof.simulators.core import Action, World


def _pddl_type(domain: Domain, types: frozenset[str]) -> str:
    known = [t for t in types if t in domain.types]
    if not known:
        return ROOT_TYPE
    # the most specific: the one with the longest ancestor chain
    return max(sorted(known), key=lambda t: len(domain.ancestors(t)))


def world_problem(world: World, initial: State, goal: Formula, name: str = "task") -> Problem:
    """The PDDL problem of a world in state ``initial`` with goal ``goal`` (a then-free,
    non-counting formula: a temporal goal has no PDDL form)."""
    if is_temporal(goal):
        raise ValueError("a temporal goal (then) has no PDDL form")
    objects = {o: _pddl_type(world.domain, ts) for o, ts in world.objects.items()}
    return Problem(name, world.domain.name, objects, frozenset(initial | world.static), goal)


def task_to_pddl(
    world: World, initial: State, goal: Formula, name: str = "task"
) -> tuple[str, str]:
    """(domain text, problem text) of a simulator task, with the domain's own names."""
    problem = world_problem(world, initial, goal, name)
    return domain_to_pddl(world.domain), problem_to_pddl(problem, world.domain.name)


def pddl_action(world: World, action: Action, agent: str | None = None) -> Action:
    """``action`` with its arguments resolved through the world's aliases (``bow_0`` →
    ``bow_n_08.1``) and the operator's implicit parameters (the agent) filled in, in
    parameter order; unknown names, actions and wrong arities pass through unchanged
    (the replay reports them)."""
    action = Action(action.name, tuple(world.resolve(a) or a for a in action.args))
    op = world.domain.lookup(action.name)
    who = agent or world.agent
    if op is None or not op.implicit or who is None or len(action.args) != op.arity:
        return action
    args = iter(action.args)
    full = tuple(who if p.name in op.implicit else next(args) for p in op.params)
    return Action(op.name, full)


def pddl_plan(world: World, actions: Sequence[Action]) -> tuple[Action, ...]:
    return tuple(pddl_action(world, a) for a in actions)
