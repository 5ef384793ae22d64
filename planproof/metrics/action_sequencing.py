"""Action-sequencing evaluation (the EAI paper's action-sequencing module): one response per task →
trajectory error category, goal satisfaction, and the paper's summary table.

Per task exactly one of {success, parsing, hallucination, argument count, wrong order,
missing step, affordance} is decided by the first blocking failure; additional steps are
non-blocking warnings counted separately. A task succeeds when its plan executes and
its goal holds (so task success ≤ execution success, as in every table of the paper).
Goals are read in the final state of the executed prefix: state (node) and relation
(edge) goals as atoms, action goals as actions that occur in the executed sequence.
Choices are documented in ``docs/action-sequencing.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from planproof.interface.object_names import (
    RepeatedKeys,
    collapse_repeated,
    has_id,
    resolve_names,
)
from planproof.interface.responses import Dataset, ParsedResponse, parse_actions
from planproof.ltl.ast import Atom, Formula, Literal, Not, Top
from planproof.ltl.errors import LTLError
from planproof.simulators.core import Action, ErrorKind, Replay, StepError, Task, replay
from planproof.simulators.core.logic import Cond, KeyFacts, atom_key, atom_text, compile_condition

GOAL_TYPES = ("state", "relation", "action")
ERROR_TYPES = (
    ErrorKind.PARSING,
    ErrorKind.HALLUCINATION,
    ErrorKind.ARGUMENT_COUNT,
    ErrorKind.WRONG_ORDER,
    ErrorKind.MISSING_STEP,
    ErrorKind.AFFORDANCE,
)


@dataclass(frozen=True)
class GoalCount:
    met: int = 0
    total: int = 0

    def __add__(self, other: GoalCount) -> GoalCount:
        return GoalCount(self.met + other.met, self.total + other.total)


@dataclass(frozen=True)
class TaskResult:
    """The evaluation of one response; plain data for the per-task JSONL."""

    identifier: str
    dataset: str
    executable: bool
    success: bool
    error: StepError | None
    warnings: tuple[StepError, ...]
    goals: dict[str, GoalCount]
    unmet_goals: tuple[str, ...]
    steps: int
    executed: int
    notes: tuple[str, ...] = ()
    actions: tuple[Action, ...] = field(default=(), repr=False)

    @property
    def error_type(self) -> str | None:
        return self.error.kind.value if self.error else None

    @property
    def partial(self) -> float:
        """Fraction of the task's goal conditions satisfied (1.0 for a task without any)."""
        total = sum(g.total for g in self.goals.values())
        met = sum(g.met for g in self.goals.values())
        return 1.0 if total == 0 else met / total

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "dataset": self.dataset,
            "executable": self.executable,
            "success": self.success,
            "error_type": self.error_type,
            "error": self.error.to_dict() if self.error else None,
            "additional_steps": [w.to_dict() for w in self.warnings],
            "goals": {k: {"met": v.met, "total": v.total} for k, v in self.goals.items()},
            "unmet_goals": list(self.unmet_goals),
            "partial_success": round(self.partial, 6),
            "steps": self.steps,
            "executed": self.executed,
            "notes": list(self.notes),
            "actions": [str(a) for a in self.actions],
        }


def _text(f: Formula) -> str:
    from planproof.ltl.printer import to_text

    return to_text(f)


def goal_counts(task: Task, run: Replay) -> tuple[dict[str, GoalCount], tuple[str, ...], bool]:
    """Per-type (met, total), the unmet goals in words, and task success."""
    world = task.world
    parts = task.parts
    if len(parts) or isinstance(task.goal, Top):
        # compiled conditions on atom keys (they agree with ``Facts.holds``: tested)
        final = world.key_facts(run.final)
        executed = KeyFacts({atom_key(a) for a in run.trace.actions}, world.universe)
        groups = {
            "state": (parts.states, final),
            "relation": (parts.relations, final),
            "action": (parts.actions, executed),
        }
        counts: dict[str, GoalCount] = {}
        unmet: list[str] = []
        for kind, (goals, facts) in groups.items():
            met = 0
            for g in goals:
                if _holds(g, facts):
                    met += 1
                else:
                    unmet.append(f"{kind}: {_text(g)}")
            counts[kind] = GoalCount(met, len(goals))
        return counts, tuple(unmet), not unmet
    return _option_counts(task, run)


def _holds(goal: Formula, facts: KeyFacts) -> bool:
    if isinstance(goal, Atom) and goal.pred != "=" and goal.is_ground:
        return atom_key(goal) in facts.keys
    return _compiled_goal(goal)(facts, {})


@lru_cache(maxsize=4096)
def _compiled_goal(goal: Formula) -> Cond:
    return compile_condition(goal)


def _option_counts(task: Task, run: Replay) -> tuple[dict[str, GoalCount], tuple[str, ...], bool]:
    """Quantified goals (BEHAVIOR): success is the goal itself on the trace; the per-type
    counts come from the goal option closest to the final state."""
    from planproof.ltl.evaluate import evaluate_final  # numpy: only quantified goals need it
    from planproof.ltl.ground import ground_atoms
    from planproof.ltl.options import GoalOptions

    world = task.world
    actions = world.domain.action_predicates
    try:
        success = evaluate_final(task.goal, run.trace, world.universe, actions)
        opts = GoalOptions(task.goal, world.universe, actions, minimal=True)
    except LTLError as exc:
        return {}, (f"goal cannot be evaluated: {exc}",), False
    facts = world.facts(run.final)
    observed: list[Literal] = []
    for a in ground_atoms(opts.ground):
        observed.append(Literal(a, facts.holds(a, {})))
    best = opts.best(observed)
    counts = {"state": GoalCount(), "relation": GoalCount()}
    unmet: list[str] = []
    if best is not None:
        # a set of literals: listed in a fixed order, the same in every process
        for lit in sorted(best.option.literals, key=lambda x: (atom_text(x.atom), x.positive)):
            kind = "state" if len(lit.atom.args) <= 1 else "relation"
            ok = facts.holds(lit.atom, {}) == lit.positive
            counts[kind] = counts[kind] + GoalCount(int(ok), 1)
            if not ok:
                f: Formula = lit.atom if lit.positive else Not(lit.atom)
                unmet.append(f"{kind}: {_text(f)}")
    return counts, tuple(unmet), success


_SCORED: dict[int, dict[tuple[Action, ...], TaskResult]] = {}
"""Per live task: plan → its result without notes (:func:`evaluate_actions`)."""
_SCORED_PER_TASK = 512


def evaluate_actions(
    task: Task, actions: Sequence[Action], notes: Iterable[str] = ()
) -> TaskResult:
    """Replay a parsed plan and score it. A pure function of the task and the plan,
    remembered per task: the sweep scores the same plan of a task again in another reading
    (action sequencing's two readings of repeated keys read most answers alike; subgoal
    decomposition's readings often execute the same actions)."""
    from planproof.metrics.memo import per_object

    plan = tuple(actions)
    memo = per_object(_SCORED, task)
    try:
        done = memo.get(plan)
    except TypeError:  # an action that is no hashable value: scored, not remembered
        memo, done = {}, None
    if done is None:
        run = replay(task.world, task.initial, plan)
        goals, unmet, reached = goal_counts(task, run)
        done = TaskResult(
            identifier=task.identifier,
            dataset=task.dataset,
            executable=run.executable,
            success=reached and run.executable,
            error=run.first_error,
            warnings=run.warnings,
            goals=goals,
            unmet_goals=unmet,
            steps=len(plan),
            executed=len(run.executed),
            actions=plan,
        )
        if len(memo) >= _SCORED_PER_TASK:
            memo.clear()
        memo[plan] = done
    return dataclasses.replace(done, goals=dict(done.goals), notes=tuple(notes))


def parse_error_result(
    task: Task, message: str, notes: Iterable[str] = (), kind: ErrorKind = ErrorKind.PARSING
) -> TaskResult:
    """A response that could not be read as a plan: a parsing error; nothing ran, so no
    goal is met (the totals still count, so nothing leaves the denominators)."""
    goals, unmet, _ = goal_counts(task, replay(task.world, task.initial, ()))
    return TaskResult(
        identifier=task.identifier,
        dataset=task.dataset,
        executable=False,
        success=False,
        error=StepError(0, None, kind, message),
        warnings=(),
        goals={k: GoalCount(0, v.total) for k, v in goals.items()},
        unmet_goals=unmet,
        steps=0,
        executed=0,
        notes=tuple(notes),
    )


@lru_cache(maxsize=1024)
def _parsed(text: str, dataset: Dataset) -> ParsedResponse:
    """:func:`parse_actions`, remembered for the latest answers (the sweep reads a file's
    answers once per reading of repeated keys; a result is immutable)."""
    return parse_actions(text, dataset)


def evaluate_response(
    task: Task, text: str, dataset: Dataset, repeated: RepeatedKeys = "steps"
) -> TaskResult:
    """Parse an LLM response and score it. VirtualHome objects written without an id are
    resolved by the reference's name rule; ``repeated="last"`` reads repeated action keys
    as virtualhome-eval 0.1.1's ``json.loads`` did (``docs/published-answers.md``)."""
    parsed = _parsed(text, dataset)
    if parsed.error is not None:
        e = parsed.error
        return parse_error_result(task, e.message, parsed.notes, ErrorKind(e.kind))
    actions, notes = parsed.actions, parsed.notes
    if repeated == "last":
        actions, more = collapse_repeated(actions)
        notes = (*notes, *more)
    if dataset == "virtualhome" and any(not has_id(a) for x in actions for a in x.args):
        from planproof.simulators.virtualhome.reference_names import reference_names

        actions, more = resolve_names(actions, reference_names().get(task.identifier, {}))
        notes = (*notes, *more)
    return evaluate_actions(task, actions, notes)


def _pct(n: float, d: float) -> float | None:
    """A percentage; None (null in JSON, "—" on screen) when nothing was counted."""
    return round(100.0 * n / d, 4) if d else None


def summarize(results: Sequence[TaskResult]) -> dict[str, Any]:
    """The paper's table columns (Tables 10-12): goal evaluation and trajectory
    evaluation, in percent of tasks (goal rates in percent of goals, micro-averaged)."""
    n = len(results)
    kinds = {k: sum(1 for r in results if r.error_type == k.value) for k in ERROR_TYPES}
    totals: dict[str, GoalCount] = {}
    for r in results:
        for k, v in r.goals.items():
            totals[k] = totals.get(k, GoalCount()) + v
    all_goals = GoalCount(
        sum(v.met for v in totals.values()), sum(v.total for v in totals.values())
    )
    return {
        "tasks": n,
        "goal_evaluation": {
            "task_success_rate": _pct(sum(r.success for r in results), n),
            **{
                f"{k}_goal": _pct(totals[k].met, totals[k].total) for k in GOAL_TYPES if k in totals
            },
            "total_goal": _pct(all_goals.met, all_goals.total),
            "partial_success": _pct(sum(r.partial for r in results), n),
        },
        "trajectory_evaluation": {
            "execution_success_rate": _pct(sum(r.executable for r in results), n),
            "grammar_error": {
                "parsing": _pct(kinds[ErrorKind.PARSING], n),
                "hallucination": _pct(kinds[ErrorKind.HALLUCINATION], n),
                "predicate_argument_number": _pct(kinds[ErrorKind.ARGUMENT_COUNT], n),
            },
            "runtime_error": {
                "wrong_order": _pct(kinds[ErrorKind.WRONG_ORDER], n),
                "missing_step": _pct(kinds[ErrorKind.MISSING_STEP], n),
                "affordance_error": _pct(kinds[ErrorKind.AFFORDANCE], n),
                "additional_step": _pct(sum(bool(r.warnings) for r in results), n),
            },
        },
        "counts": {
            "goals": {k: {"met": v.met, "total": v.total} for k, v in totals.items()},
            "errors": {k.value: c for k, c in kinds.items()},
            "additional_step_tasks": sum(bool(r.warnings) for r in results),
        },
    }
