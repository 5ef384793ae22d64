"""Subgoal-decomposition evaluation (the EAI paper's module): a predicted subgoal
sequence is refined into actions by search, subgoal by subgoal, and the action sequence is
scored with the action-sequencing metrics (executability, error taxonomy, goal success).

Per subgoal the outcome says how it went: ``reached`` (with the actions found, possibly
none when the search for the previous subgoal happened to reach it too), ``already_true``
(it held before the previous subgoal was refined, so it is redundant: reported as an
additional-step warning),
``unreachable`` (no action sequence within the depth bound reaches it),
``unsatisfiable`` (Z3: no state satisfies it under the world's state axioms) or
``limit`` (the search budget ran out). Refinement stops at the first failed subgoal; the
trajectory error then comes from the action that would achieve the subgoal in one step,
replayed through the simulator's classifier (affordance, missing step, wrong order), or is
a missing step when no single action achieves it. Choices:
``docs/subgoal-decomposition.md``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from planproof.boundary.limits import DEFAULT_RLIMIT
from planproof.interface.subgoals import (
    ParsedSubgoals,
    SubgoalError,
    parse_subgoals,
    subgoals_from_plan,
)
from planproof.ltl.ast import Atom, Formula, Not, Or, atoms
from planproof.ltl.errors import LTLError
from planproof.ltl.printer import to_text
from planproof.ltl.simplify import conj
from planproof.ltl.trace import State, Universe
from planproof.metrics.action_sequencing import TaskResult, evaluate_actions
from planproof.metrics.action_sequencing import summarize as summarize_actions
from planproof.metrics.goal_interpretation import action_names, axioms_for, focus_universe
from planproof.metrics.memo import per_object
from planproof.simulators.core import Action, Bound, ErrorKind, StepError, Task, replay
from planproof.simulators.core.logic import Facts
from planproof.simulators.core.relaxed import live_actions
from planproof.simulators.core.replay import action_atom
from planproof.simulators.core.search import (
    DEFAULT_DEPTH,
    DEFAULT_MAX_STATES,
    SearchResult,
    changed_predicates,
    focus_objects,
    formula_goal,
    ground_actions,
    ground_literals,
    search,
)

REASONS = ("unreachable", "unsatisfiable", "limit")


@dataclass(frozen=True)
class SubgoalOutcome:
    """What refining one subgoal came to."""

    index: int
    subgoal: str
    status: str
    actions: tuple[Action, ...] = ()
    expanded: int = 0
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "subgoal": self.subgoal,
            "status": self.status,
            "actions": [str(a) for a in self.actions],
            "expanded": self.expanded,
            "message": self.message,
        }


@dataclass(frozen=True)
class SubgoalResult:
    """One response: the per-subgoal outcomes and the refined plan's action-sequencing
    score."""

    identifier: str
    dataset: str
    trajectory: TaskResult
    outcomes: tuple[SubgoalOutcome, ...] = ()
    grammar_error: SubgoalError | None = None
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> SubgoalOutcome | None:
        return next((o for o in self.outcomes if o.status in REASONS), None)

    def to_dict(self) -> dict[str, Any]:
        d = self.trajectory.to_dict()
        failed = self.failed
        d.update(
            subgoals=[o.to_dict() for o in self.outcomes],
            failed_subgoal=failed.to_dict() if failed else None,
            grammar_error=self.grammar_error.to_dict() if self.grammar_error else None,
        )
        d["notes"] = [*d["notes"], *self.notes]
        return d


def _state_part(f: Formula, acts: frozenset[str]) -> Formula | None:
    """``f`` without action atoms, for Z3 (None when it has none left or cannot drop
    them soundly)."""
    from planproof.ltl.ast import And

    if isinstance(f, Atom):
        return None if f.pred in acts else f
    if isinstance(f, And):
        kept = [p for c in f.children if (p := _state_part(c, acts)) is not None]
        return conj(*kept) if kept else None
    if any(isinstance(a, Atom) and a.pred in acts for a in _atoms(f)):
        return None
    return f


def _atoms(f: Formula) -> list[Formula]:
    from planproof.ltl.ast import walk

    return [a for a in walk(f) if isinstance(a, Atom)]


def unsatisfiable(
    task: Task, f: Formula, rlimit: int = DEFAULT_RLIMIT, *, near: State | None = None
) -> bool:
    """Whether Z3 proves that no state satisfies ``f``'s state part under the axioms
    (within ``rlimit`` resource units: a count, so the answer is the same under any load;
    a query that spends it proves nothing, and the answer is False).

    With ``near`` (a state), a witness near it is looked for first (:func:`_witnessed`):
    a state satisfying ``f`` and every axiom, so Z3 could not prove unsatisfiability (it
    would answer sat) and is not asked: the answer is the same, without a solver context
    per subgoal."""
    from planproof.ltl.smt import satisfiable

    state = _state_part(f, action_names(task.world))
    if state is None:
        return False
    universe = focus_universe(task.world, state)
    known = per_object(_AXIOMS, task.world)
    axioms = known.get(universe)
    if axioms is None:
        if len(known) >= _MEMO_LIMIT:
            known.clear()
        axioms = known[universe] = axioms_for(task, universe)
    if near is not None and _witnessed(task, state, universe, axioms, near):
        return False
    try:
        res = satisfiable(state, universe, axioms, rlimit=rlimit)
    except LTLError:
        return False
    return not res.sat and not res.unknown


WITNESS_STEPS = 8
"""Atoms the witness search may flip before it leaves the question to Z3."""


def _witnessed(
    task: Task, f: Formula, universe: Universe, axioms: Sequence[Formula], near: State
) -> bool:
    """Whether a state satisfying ``f`` (a conjunction of literals, or a disjunction of
    such) and ``axioms`` (every atom a free proposition, as Z3 reads them) is found near
    ``near``: ``near`` with ``f``'s literals imposed, then, while axioms are false, one
    atom of a false axiom flipped at a time (added or dropped, never one of ``f``'s
    literals) when that leaves fewer axioms false (``open(tv)`` imposed, ``closed(tv)``
    goes; a switch the state leaves neither on nor off is set off). False when none is
    found within :data:`WITNESS_STEPS` flips, for other formulas or any construct the
    interpreter does not read: Z3 then decides."""
    if isinstance(f, Or):  # a witness of one disjunct is one of ``f``
        return any(_witnessed(task, d, universe, axioms, near) for d in f.children)
    literals = ground_literals(f)
    if literals is None:
        return False
    pos, neg = literals
    fixed = frozenset(pos) | frozenset(neg)
    candidate = (near | task.world.static | frozenset(pos)) - frozenset(neg)

    def false_axioms(assignment: frozenset[Atom]) -> list[Formula]:
        facts = Facts(assignment, frozenset(), universe)
        return [ax for ax in axioms if not facts.holds(ax, {})]

    try:
        if not Facts(candidate, frozenset(), universe).holds(f, {}):
            return False
        false = false_axioms(candidate)
        for _ in range(WITNESS_STEPS):
            if not false:
                return True
            flips = sorted(
                {a for ax in false for a in atoms(ax) if a.is_ground and a not in fixed},
                key=to_text,
            )
            for a in flips:
                trial = candidate - {a} if a in candidate else candidate | {a}
                fewer = false_axioms(trial)
                if len(fewer) < len(false):
                    candidate, false = trial, fewer
                    break
            else:
                return False
    except (ValueError, KeyError, TypeError):
        return False
    return not false


def _diagnose(task: Task, prefix: Sequence[Action], f: Formula) -> StepError:
    """The classifier's error for the action that would reach ``f`` in one step from the
    end of ``prefix`` if its precondition held; a missing step when there is none."""
    world = task.world
    run = replay(world, task.initial, prefix)
    state = run.final
    goal = formula_goal(world, f)
    u = world.universe
    keys = world.key_facts(state)
    found: list[Action] = []
    literals = ground_literals(f)
    # from a state where a conjunction of literals is false, only an action that adds or
    # deletes one of its predicates (or is its action) can make it true
    preds = (
        None
        if literals is None or goal(state, None)
        else frozenset(a.pred for part in literals for a in part)
    )
    for name in sorted(world.domain.operators):
        op = world.domain.operators[name]
        if preds is not None and preds.isdisjoint(changed_predicates(op)):
            continue
        pools = [u.of_type(p.type) for p in op.params if p.name not in op.implicit]
        for objs in itertools.product(*pools):
            b = world.bind(Action(name, tuple(objs)))
            if not isinstance(b, Bound):
                continue
            eff = world.effects(b, state, keys)
            adds, dels = eff[0], eff[1]
            if goal((state - dels) | adds, action_atom(b.action)):
                found.append(b.action)
    return diagnosis(task, prefix, f, found)


def diagnosis(
    task: Task, prefix: Sequence[Action], f: Formula, found: Sequence[Action]
) -> StepError:
    """The error :func:`_diagnose` reports once it has ``found`` the actions that would
    reach ``f`` in one step: the first one's error that is not an affordance, else the
    first one's, else a missing step."""
    for a in found:
        err = replay(task.world, task.initial, [*prefix, a]).first_error
        if err is not None and err.kind is not ErrorKind.AFFORDANCE:
            return err
    if found:
        err = replay(task.world, task.initial, [*prefix, found[0]]).first_error
        if err is not None:
            return err
    return StepError(
        len(prefix),
        None,
        ErrorKind.MISSING_STEP,
        f"no single action reaches {to_text(f)}: steps are missing before it",
    )


_DIAGNOSED: dict[int, dict[tuple[tuple[Action, ...], Formula], StepError]] = {}
"""Per live task: (refined prefix, failed subgoal) → :func:`_diagnose`'s error."""


def _diagnosed(task: Task, prefix: Sequence[Action], f: Formula) -> StepError:
    """:func:`_diagnose`, a pure function of its arguments, remembered per task: the models'
    answers to a task fail at the same subgoal after the same refined actions, and each
    such diagnosis binds every operator to every object tuple."""
    memo = per_object(_DIAGNOSED, task)
    key = (tuple(prefix), f)
    hit = memo.get(key)
    if hit is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        hit = memo[key] = _diagnose(task, prefix, f)
    return hit


def _scorable(task: Task) -> Task:
    """``task`` as :func:`evaluate_actions` can score it: goal parts that are not ground
    literals (BEHAVIOR's quantified conjuncts) are dropped so that the goal options of the
    whole goal are used instead (``goal_counts`` reads ground parts only)."""
    from planproof.ltl.ast import Atom as A
    from planproof.simulators.core import GoalParts

    parts = (*task.parts.states, *task.parts.relations)
    if all(isinstance(p, A) or (isinstance(p, Not) and isinstance(p.body, A)) for p in parts):
        return task
    return dataclasses.replace(task, parts=GoalParts())


_MEMO: dict[int, dict[tuple[object, ...], SearchResult]] = {}
"""Per live world (by ``id``; dropped when the world is collected): (start state, subgoal,
search settings) → the search's result. Answers of
different models share most subgoals from the same states (the published files repeat
``NEXT_TO(character.65, ...)`` openings), and the search is a pure function of these, so
a process scoring many files searches each once."""
_UNSAT: dict[int, dict[Formula, bool]] = {}
"""Per live world: subgoal → :func:`unsatisfiable` (a function of the task and the
formula alone, asked again for every start state and every model's answer otherwise)."""
_AXIOMS: dict[int, dict[Universe, tuple[Formula, ...]]] = {}
"""Per live world: universe → its state axioms (subgoals about the same objects share
them)."""
_MEMO_LIMIT = 50_000


def _memo_for(world: object) -> dict[tuple[object, ...], SearchResult]:
    return per_object(_MEMO, world)


_LIVE: dict[int, dict[State, tuple[Bound, ...]]] = {}
"""Per live world: initial state → the ground actions that can ever apply from it
(:func:`~planproof.simulators.core.relaxed.live_actions`), the pool of every search of
the task's refinements (they all start from states reached from it)."""


def _live(task: Task) -> tuple[Bound, ...]:
    table = per_object(_LIVE, task.world)
    hit = table.get(task.initial)
    if hit is None:
        world = task.world
        hit = table[task.initial] = live_actions(world, task.initial, ground_actions(world))
    return hit


def _unsat(memo: dict[Formula, bool], task: Task, f: Formula, near: State) -> bool:
    hit = memo.get(f)
    if hit is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        hit = memo[f] = unsatisfiable(task, f, near=near)
    return hit


def refine(
    task: Task,
    subgoals: Sequence[Formula],
    *,
    depth: int = DEFAULT_DEPTH,
    mode: str = "bfs",
    max_states: int = DEFAULT_MAX_STATES,
    check_unsat: bool = True,
    all_objects: bool = False,
) -> tuple[tuple[SubgoalOutcome, ...], tuple[Action, ...]]:
    """Search from the initial state to each subgoal in turn; stops at the first failure."""
    world = task.world
    state = previous = task.initial
    actions: list[Action] = []
    outcomes: list[SubgoalOutcome] = []
    memo = _memo_for(world)
    unsat = per_object(_UNSAT, world)
    for i, f in enumerate(subgoals):
        text = to_text(f)
        goal = formula_goal(world, f)
        key = (state, f, depth, mode, max_states, check_unsat, all_objects)
        res = memo.get(key)
        if res is None:
            if check_unsat and not goal(state, None) and _unsat(unsat, task, f, state):
                res = SearchResult("unsatisfiable")
            else:
                res = search(
                    world,
                    state,
                    goal,
                    depth=depth,
                    mode=mode,
                    max_states=max_states,
                    heuristic_of=f,
                    actions=_live(task),
                    focus=None if all_objects else focus_objects(world, f, state),
                )
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[key] = res
        if res.status == "unsatisfiable":
            message = "no state satisfies it (Z3, with state axioms)"
            outcomes.append(SubgoalOutcome(i, text, "unsatisfiable", (), 0, message))
            break
        if res.found:
            status, message = res.status, ""
            if status == "already_true":
                if goal(previous, None) or (outcomes and outcomes[-1].subgoal == text):
                    message = "it already held before the previous subgoal (or repeats it)"
                else:
                    status = "reached"
                    message = "reached on the way to the previous subgoal"
            outcomes.append(SubgoalOutcome(i, text, status, res.actions, res.expanded, message))
            actions.extend(res.actions)
            previous = state
            if res.states:
                state = res.states[-1]
            continue
        status = res.status
        message = (
            f"no sequence of at most {depth} actions reaches it"
            if status == "unreachable"
            else f"search stopped after {res.expanded} states"
        )
        outcomes.append(SubgoalOutcome(i, text, status, (), res.expanded, message))
        break
    return tuple(outcomes), tuple(actions)


def evaluate_subgoals(
    task: Task,
    parsed: ParsedSubgoals,
    *,
    depth: int = DEFAULT_DEPTH,
    mode: str = "bfs",
    max_states: int = DEFAULT_MAX_STATES,
) -> SubgoalResult:
    """Refine parsed subgoals and score the resulting plan."""
    if parsed.error is not None:
        e = parsed.error
        return grammar_error_result(task, e, parsed.notes)
    outcomes, actions = refine(task, parsed.subgoals, depth=depth, mode=mode, max_states=max_states)
    traj = evaluate_actions(_scorable(task), actions)
    warnings = [
        StepError(
            sum(len(x.actions) for x in outcomes[: o.index]),
            None,
            ErrorKind.ADDITIONAL_STEP,
            f"subgoal {o.index + 1} ({o.subgoal}) already holds",
        )
        for o in outcomes
        if o.status == "already_true"
    ]
    failed = next((o for o in outcomes if o.status in REASONS), None)
    if failed is not None:
        err = _diagnosed(task, actions, parsed.subgoals[failed.index])
        err = dataclasses.replace(
            err, message=f"subgoal {failed.index + 1} {failed.status}: {err.message}"
        )
        traj = dataclasses.replace(traj, executable=False, success=False, error=err)
    if warnings:
        traj = dataclasses.replace(traj, warnings=(*traj.warnings, *warnings))
    return SubgoalResult(task.identifier, task.dataset, traj, outcomes, None, parsed.notes)


def grammar_error_result(
    task: Task, error: SubgoalError, notes: Sequence[str] = ()
) -> SubgoalResult:
    """A response that fails the grammar check: nothing runs."""
    from planproof.metrics.action_sequencing import parse_error_result

    traj = parse_error_result(_scorable(task), error.message, notes, error.kind)
    return SubgoalResult(task.identifier, task.dataset, traj, (), error, tuple(notes))


def evaluate_subgoal_response(
    task: Task,
    text: str,
    *,
    depth: int = DEFAULT_DEPTH,
    mode: str = "bfs",
    max_states: int = DEFAULT_MAX_STATES,
) -> SubgoalResult:
    """Parse an LLM response and score it."""
    return evaluate_subgoals(
        task, parse_subgoals(text, task.world), depth=depth, mode=mode, max_states=max_states
    )


def gold_subgoals(task: Task) -> tuple[Formula, ...]:
    """The subgoals derived from the gold plan (:func:`subgoals_from_plan`)."""
    return subgoals_from_plan(task)


def gold_response(task: Task) -> str:
    """The derived gold subgoals as an EAI response (``--gold``)."""
    import json

    return json.dumps({"output": [to_text(f) for f in gold_subgoals(task)]})


def summarize(results: Sequence[SubgoalResult]) -> dict[str, Any]:
    """The action-sequencing table for the refined plans, plus subgoal statistics."""
    out = summarize_actions([r.trajectory for r in results])
    outcomes = [o for r in results for o in r.outcomes]
    out["subgoals"] = {
        "total": len(outcomes),
        "reached": sum(o.status == "reached" for o in outcomes),
        "already_true": sum(o.status == "already_true" for o in outcomes),
        **{k: sum(o.status == k for o in outcomes) for k in REASONS},
        "tasks_with_failed_subgoal": sum(r.failed is not None for r in results),
        "grammar_errors": sum(r.grammar_error is not None for r in results),
        "refined_actions": sum(len(o.actions) for o in outcomes),
        "states_expanded": sum(o.expanded for o in outcomes),
    }
    return out
