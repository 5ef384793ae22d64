"""Planning a whole task: from its initial state to its goal, with the means-ends planner
of :mod:`planproof.interface.agents.means_ends`, checked by replaying the plan.

The planner sees only the world, the initial state and the goal (never the gold plan).
A task's goal is read as the action-sequencing evaluator reads it: VirtualHome's node and
edge goals must hold at the end and its action goals (``lookat or watch`` of anything) must
occur; a goal given only as a formula (BEHAVIOR's quantified BDDL goals) is planned for
through its goal options — the option closest to the initial state first, then others. A
plan is returned only once a replay in the task's world says it executes and reaches the
goal.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from planproof.interface.agents.means_ends import (
    BRANCH,
    DEPTH,
    Lit,
    MeansEnds,
    SearchAborted,
    key_of,
    lit_text,
)
from planproof.ltl.ast import TRUE, And, Atom, Formula, Literal, Not, Top, Var, walk
from planproof.ltl.errors import LTLError
from planproof.ltl.printer import to_text
from planproof.ltl.simplify import conj
from planproof.ltl.trace import State
from planproof.simulators.core import Action, Bound, Replay, Task, World, replay
from planproof.simulators.core.logic import Facts

__all__ = [
    "MAX_OPTIONS",
    "PlanOutcome",
    "PlanningFailed",
    "goal_reached",
    "plan_task",
    "state_goal",
]

MAX_OPTIONS = 200
"""Goal options considered per task besides the closest one (the first ones in the
goal's order)."""
ROUND_OPTIONS = 6
"""Options tried per round, fewest unmet literals first."""


class PlanningFailed(Exception):
    """No plan was found: ``kind`` is ``unsolvable`` (every option failed within the
    bounds) or ``gave-up`` (the work budget ran out)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class PlanOutcome:
    """A plan that replays to the goal. ``steps`` counts the simulator steps the search
    took, ``option`` is the goal option planned for (its text)."""

    actions: tuple[Action, ...]
    seconds: float
    steps: int
    option: str


def action_names(world: World) -> frozenset[str]:
    d = world.domain
    return frozenset(n for n in d.operators if n not in d.predicates)


def state_goal(task: Task) -> Formula:
    """The part of the goal that must hold in the final state (node and edge goals, or the
    whole goal when the dataset gives no parts)."""
    parts = task.parts
    if parts.states or parts.relations:
        return conj(*parts.states, *parts.relations)
    if parts.actions:
        return TRUE
    return task.goal


def goal_reached(task: Task, run: Replay) -> bool:
    """The action-sequencing evaluator's success: an executable plan whose final state
    satisfies the state goals and whose executed actions include every action goal
    (tasks with goal parts), or whose trace satisfies the whole goal (the others)."""
    if not run.executable:
        return False
    world = task.world
    parts = task.parts
    if len(parts) or isinstance(task.goal, Top):
        final = world.facts(run.final)
        done = Facts(frozenset(run.trace.actions), frozenset(), world.universe)
        return all(final.holds(g, {}) for g in (*parts.states, *parts.relations)) and all(
            done.holds(g, {}) for g in parts.actions
        )
    from planproof.ltl.evaluate import evaluate_final

    try:
        return evaluate_final(task.goal, run.trace, world.universe, world.domain.action_predicates)
    except LTLError:
        return False


def _options(task: Task) -> list[tuple[tuple[Lit, ...], str]]:
    """The goal options to plan for, as literal sets: one when the state goal is a
    conjunction of literals; else (BEHAVIOR's quantified goals) the option that agrees
    most with the initial state, then up to ``MAX_OPTIONS`` more in the goal's order."""
    from planproof.ltl.ground import ground_atoms
    from planproof.ltl.options import GoalOptions

    goal = state_goal(task)
    lits = _literals(goal)
    if lits is not None:
        return [(lits, to_text(goal))]
    world = task.world
    opts = GoalOptions(goal, world.universe, action_names(world), minimal=True)
    s0 = task.initial
    observed = [Literal(a, a in s0 or a in world.static) for a in ground_atoms(opts.ground)]
    found: list[frozenset[Literal]] = []
    best = opts.best(observed)
    if best is not None:
        found.append(best.option.literals)
    for o in itertools.islice(opts.options(), MAX_OPTIONS):
        if not o.actions and o.literals not in found:
            found.append(o.literals)
    out = []
    for option in found:
        lits = tuple(sorted((key_of(x.atom), x.positive) for x in option))
        out.append((lits, " and ".join(map(lit_text, lits)) or "true"))
    return out


def _literals(goal: Formula) -> tuple[Lit, ...] | None:
    """A conjunction of ground literals as literal keys (None for any other formula)."""
    parts = goal.children if isinstance(goal, And) else () if isinstance(goal, Top) else (goal,)
    out: list[Lit] = []
    for p in parts:
        positive = not isinstance(p, Not)
        a = p.body if isinstance(p, Not) else p
        if not isinstance(a, Atom) or not a.is_ground:
            return None
        out.append((key_of(a), positive))
    return tuple(out)


def _penalty(option: tuple[Lit, ...]) -> int:
    """A tie-break against options that are probably impossible: an object related to
    itself (``nextto(x, x)``), or one object in the same relation to two others
    (``ontop(x, a)`` and ``ontop(x, b)``)."""
    n = 0
    seen: set[tuple[str, str]] = set()
    for (pred, args), positive in option:
        if not positive or len(args) != 2:
            continue
        n += args[0] == args[1]
        n += (pred, args[0]) in seen
        seen.add((pred, args[0]))
    return n


def _action_candidates(world: World, goal: Formula) -> list[Bound]:
    """Every ground action that would satisfy an action goal such as
    ``exists x. lookat(x) or watch(x)`` (type-correct bindings only)."""
    out: list[Bound] = []
    for a in walk(goal):
        if not isinstance(a, Atom):
            continue
        op = world.domain.lookup(a.pred)
        if op is None or len(a.args) != op.arity:
            continue
        pools: list[Sequence[str]] = []
        for arg, p in zip(a.args, op.explicit, strict=True):
            if isinstance(arg, Var):
                pools.append(world.universe.of_type(p.type))
            else:
                pools.append((arg.name,))
        for combo in itertools.product(*pools):
            b = world.bind(Action(op.name, tuple(combo)))
            if isinstance(b, Bound):
                out.append(b)
    return out


def _idle(task: Task, state: State) -> Action | None:
    """One executable action that changes nothing the goal needs: the answer when the goal
    already holds (an empty plan is no answer)."""
    from planproof.simulators.core.search import ground_actions

    world = task.world
    fallback: Action | None = None
    for b in ground_actions(world):
        if not world.precondition_holds(b, state):
            continue
        adds, dels, _ = world.effects(b, state)
        if adds <= state and not dels:
            return b.action
        if fallback is None and goal_reached(task, replay(world, task.initial, [b.action])):
            fallback = b.action
    return fallback


def _satisfied(me: MeansEnds, option: Sequence[Lit], state: State) -> int:
    return sum(me.holds(x, state) for x in option)


def _macro(
    me: MeansEnds, option: Sequence[Lit], lit: Lit, state: State, acts: list[Action]
) -> State | None:
    """Achieve ``lit``, then re-achieve the literals of ``option`` that this broke; kept
    only when more of ``option`` holds than before (so rounds cannot cycle). When the
    first way to ``lit`` breaks some of ``option``, the second is looked at too and the
    one that breaks less is followed first (grasping the cake to put it by the plate,
    not the plate with the chicken on it to put it by the cake)."""
    before = _satisfied(me, option, state)
    mark = len(acts)
    budget = [BRANCH * BRANCH]
    found: list[tuple[int, int, State, list[Action]]] = []
    ways = me.ways(lit, state, acts, DEPTH)
    for i, s in enumerate(ways):
        broken = sum(me.holds(x, state) and not me.holds(x, s) for x in option)
        found.append((broken, i, s, acts[mark:]))
        if broken == 0 or i == 1:
            break
    del acts[mark:]
    found.sort(key=lambda w: w[:2])
    rest = (w for w in ways)  # the remaining ways, if those two fail

    def attempts() -> Iterator[State]:
        for *_, s, way in found:
            acts.extend(way)
            yield s
            del acts[mark:]
        for s in rest:
            yield s

    for s in attempts():
        broken_lits = [x for x in option if me.holds(x, state) and not me.holds(x, s)]
        broken_lits.sort(key=lambda x: (-me.estimate(x, s), x))
        done = _restore(me, option, broken_lits, s, acts, before=before, budget=budget)
        if done is not None:
            return done
        if budget[0] <= 0:
            break
    del acts[mark:]
    return None


def _restore(
    me: MeansEnds,
    option: Sequence[Lit],
    broken: Sequence[Lit],
    state: State,
    acts: list[Action],
    *,
    before: int,
    budget: list[int],
) -> State | None:
    """Re-achieve ``broken`` in order, backtracking over the ways of each (within
    ``budget``), until more of ``option`` holds than ``before``."""
    if not broken:
        return state if _satisfied(me, option, state) > before else None
    x, rest = broken[0], broken[1:]
    if me.holds(x, state):
        return _restore(me, option, rest, state, acts, before=before, budget=budget)
    mark = len(acts)
    tried = False
    for nxt in me.ways(x, state, acts, DEPTH):
        tried = True
        done = _restore(me, option, rest, nxt, acts, before=before, budget=budget)
        if done is not None:
            return done
        budget[0] -= 1
        if budget[0] <= 0:
            break
    del acts[mark:]
    if not tried:  # it cannot be had back: maybe the others are enough
        return _restore(me, option, rest, state, acts, before=before, budget=budget)
    return None


def _achieve_options(
    me: MeansEnds, options: Sequence[tuple[Lit, ...]], state: State, acts: list[Action]
) -> State | None:
    """Reach a state where one of ``options`` holds: each round makes progress on the
    option with the fewest unmet literals that allows any (see :func:`_macro`)."""
    if not options:
        return None
    biggest = max(len(o) for o in options)
    for _ in range(3 * biggest + 8):
        ranked = sorted(
            range(len(options)),
            key=lambda i: (
                len(options[i]) - _satisfied(me, options[i], state),
                _penalty(options[i]),
                i,
            ),
        )
        if _satisfied(me, options[ranked[0]], state) == len(options[ranked[0]]):
            return state
        progressed = None
        for i in ranked[:ROUND_OPTIONS]:
            option = options[i]
            unmet = [x for x in option if not me.holds(x, state)]
            unmet.sort(key=lambda x: (-me.estimate(x, state), x))
            for lit in unmet:
                progressed = _macro(me, option, lit, state, acts)
                if progressed is not None:
                    break
            if progressed is not None:
                break
        if progressed is None:
            return None
        state = progressed
    return None


def _attempt(
    me: MeansEnds,
    options: Sequence[tuple[Lit, ...]],
    action_goals: Sequence[list[Bound]],
    s0: State,
    first: str,
) -> list[Action] | None:
    acts: list[Action] = []
    s: State | None = s0
    if first == "state":
        s = _achieve_options(me, options, s0, acts)
    for cands in action_goals:
        if s is None:
            return None
        s = me.perform(cands, s, acts)
    if s is None:
        return None
    s = _achieve_options(me, options, s, acts)
    return None if s is None else acts


def plan_task(task: Task, *, max_steps: int = 50_000) -> PlanOutcome:
    """A plan from ``task.initial`` to ``task``'s goal that replays successfully.

    Raises :class:`PlanningFailed` when none is found: ``gave-up`` when more than
    ``max_steps`` simulated steps (or ten times as many search nodes) would be needed,
    ``unsolvable`` when the search ended without a plan (the search is incomplete, so
    neither is a proof that no plan exists). The budget is work, not time: the same task
    gets the same verdict on an idle and on a loaded machine."""
    t0 = time.monotonic()
    world = task.world
    me = MeansEnds(world, max_steps=max_steps)
    action_goals = [_action_candidates(world, g) for g in task.parts.actions]
    try:
        options = _options(task)
        for first in ("state", "actions") if action_goals else ("state",):
            acts = _attempt(me, [o for o, _ in options], action_goals, task.initial, first)
            if acts is None:
                continue
            if not acts:
                idle = _idle(task, task.initial)
                acts = [idle] if idle is not None else []
            plan = tuple(Action(a.name.upper(), a.args) for a in acts)
            run = replay(world, task.initial, plan)
            if plan and goal_reached(task, run):
                done = next((t for o, t in options if all(me.holds(x, run.final) for x in o)), "")
                return PlanOutcome(plan, time.monotonic() - t0, me.steps, done)
    except SearchAborted as exc:
        raise PlanningFailed("gave-up", f"{task.identifier}: no plan found: {exc}") from None
    except LTLError as exc:
        raise PlanningFailed("unsolvable", f"{task.identifier}: goal: {exc}") from None
    raise PlanningFailed(
        "unsolvable", f"{task.identifier}: no plan found ({me.steps} simulated steps)"
    )
