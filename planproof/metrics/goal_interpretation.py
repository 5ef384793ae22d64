"""Goal-interpretation evaluation (the EAI paper's module): a predicted symbolic goal
against the task's gold goal.

Per task, state (unary) and relation goals are scored against the gold goal option that
maximises F1 (:meth:`planproof.ltl.options.GoalOptions.best`; quantified BEHAVIOR goals
have thousands of options), action goals against the gold action goals (each action goal
one element per distinct predicted item, matched once, alternatives ``touch|push``
accepted, as Table 9 and the reference count them). An item with an unknown state,
relation or action name but known objects is one false positive, as the reference scores
it; an unknown object leaves the item out. Precision, recall and F1 are micro-averaged
over all goals of all tasks, per type and overall. Beyond the paper, Z3 decides whether
the predicted state goal is satisfiable under the world's state axioms and whether it
entails / is entailed by the gold goal, so an equivalent goal written differently
(``not open(door)`` for ``closed(door)``) is recognised. Choices: ``docs/goal-interpretation.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from planproof.boundary.limits import DEFAULT_RLIMIT
from planproof.interface.goals import GoalIssue, PredictedGoal, parse_goal
from planproof.ltl.ast import Atom, Const, Formula, Literal, binders, constants, walk
from planproof.ltl.errors import LTLError
from planproof.ltl.ground import ground_atoms
from planproof.ltl.options import GoalOptions
from planproof.ltl.printer import to_text
from planproof.ltl.simplify import conj
from planproof.ltl.trace import Universe
from planproof.simulators.core import Task, World

GOAL_TYPES = ("state", "relation", "action")


@dataclass(frozen=True)
class Counts:
    """True positives, false positives, false negatives of one goal type."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float:
        d = self.tp + self.fp
        return self.tp / d if d else 0.0

    @property
    def recall(self) -> float:
        d = self.tp + self.fn
        return self.tp / d if d else 0.0

    @property
    def f1(self) -> float:
        d = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / d if d else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": round(100 * self.precision, 4),
            "recall": round(100 * self.recall, 4),
            "f1": round(100 * self.f1, 4),
        }


@dataclass(frozen=True)
class LogicCheck:
    """Z3's verdicts on the predicted state goal (``None``: not decided; ``message`` then
    says why, ``budget`` when a query spent its resource budget)."""

    satisfiable: bool | None
    entails_gold: bool | None
    entailed_by_gold: bool | None
    message: str = ""

    @property
    def equivalent(self) -> bool | None:
        if self.entails_gold is None or self.entailed_by_gold is None:
            return None
        return self.entails_gold and self.entailed_by_gold

    def to_dict(self) -> dict[str, Any]:
        return {
            "satisfiable": self.satisfiable,
            "entails_gold": self.entails_gold,
            "entailed_by_gold": self.entailed_by_gold,
            "equivalent": self.equivalent,
            "message": self.message,
        }


@dataclass(frozen=True)
class GoalResult:
    """The evaluation of one response; plain data for the per-task JSONL."""

    identifier: str
    dataset: str
    counts: dict[str, Counts]
    issues: tuple[GoalIssue, ...] = ()
    parse_error: str | None = None
    option: str = ""
    missed: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    logic: LogicCheck | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def total(self) -> Counts:
        out = Counts()
        for c in self.counts.values():
            out = out + c
        return out

    def to_dict(self) -> dict[str, Any]:
        total = self.total
        return {
            "identifier": self.identifier,
            "dataset": self.dataset,
            "parse_error": self.parse_error,
            "f1": round(100 * total.f1, 4),
            "precision": round(100 * total.precision, 4),
            "recall": round(100 * total.recall, 4),
            "counts": {k: v.to_dict() for k, v in self.counts.items()},
            "format_errors": [i.to_dict() for i in self.issues if i.kind == "format"],
            "hallucinations": [i.to_dict() for i in self.issues if i.kind == "hallucination"],
            "best_gold_option": self.option,
            "missed_goals": list(self.missed),
            "extra_goals": list(self.extra),
            "logic": self.logic.to_dict() if self.logic else None,
            "notes": list(self.notes),
        }


def _kind(lit: Literal) -> str:
    return "state" if len(lit.atom.args) <= 1 else "relation"


def action_names(world: World) -> frozenset[str]:
    """Operator names that are not state predicates (BEHAVIOR's ``open`` is a state)."""
    d = world.domain
    return frozenset(n for n in d.operators if n not in d.predicates)


def gold_state_goal(task: Task) -> Formula:
    """The gold state part: the node and edge goals (the whole goal when the dataset
    gives no parts)."""
    parts = task.parts
    if parts.states or parts.relations:
        return conj(*parts.states, *parts.relations)
    if parts.actions:
        return conj()
    return task.goal


def _lit_text(lit: Literal) -> str:
    return to_text(lit.as_formula())


def _match_actions(
    predicted: Sequence[Literal], gold: Sequence[Formula]
) -> tuple[Counts, list[str], list[str]]:
    """Each predicted action goal takes the first unmatched gold action goal it fits."""
    used = [False] * len(gold)
    tp = 0
    extra: list[str] = []
    for p in predicted:
        for i, g in enumerate(gold):
            if not used[i] and _fits(p.atom, g):
                used[i] = True
                tp += 1
                break
        else:
            extra.append(_lit_text(p))
    missed = [to_text(g) for i, g in enumerate(gold) if not used[i]]
    return Counts(tp, len(predicted) - tp, len(gold) - tp), missed, extra


def _fits(atom: Atom, gold: Formula) -> bool:
    for a in walk(gold):
        if not isinstance(a, Atom) or a.pred != atom.pred:
            continue
        if not atom.args:
            return True
        if len(a.args) == len(atom.args) and all(
            not isinstance(g, Const) or g == p for g, p in zip(a.args, atom.args, strict=True)
        ):
            return True
    return False


def focus_universe(world: World, *formulas: Formula) -> Universe:
    """The objects the formulas can talk about: their constants, and the objects of every
    type a quantifier ranges over (all objects for an untyped one). Axioms about other
    objects are independent of the formulas, so dropping them keeps every verdict and
    makes Z3 queries an order of magnitude smaller."""
    u = world.universe
    keep: set[str] = set()
    for f in formulas:
        for b in binders(f):
            keep.update(u.of_type(b.type))
        keep.update(c for c in constants(f) if c in u)
    return Universe.of({n: u.types_of(n) for n in keep})


def axioms_for(task: Task, universe: Universe | None = None) -> tuple[Formula, ...]:
    """The dataset's state axioms over ``universe`` (default: the task's objects); static
    properties come from the world, so e.g. only switchable objects must be on or off."""
    from planproof.ltl.axioms import behavior_state_axioms, virtualhome_state_axioms

    world = task.world
    universe = universe or world.universe
    if task.dataset == "behavior":
        return behavior_state_axioms(universe)
    props: dict[str, list[str]] = {}
    for a in world.static:
        if len(a.args) == 1 and a.args[0].name in universe:
            props.setdefault(a.pred, []).append(a.args[0].name)
    return virtualhome_state_axioms(
        universe,
        with_property={p: props.get(p, []) for p in ("can_open", "has_switch", "has_plug")},
    )


def logic_check(task: Task, predicted: Formula, gold: Formula, rlimit: int) -> LogicCheck:
    """Satisfiability of the prediction and entailment both ways, under the axioms, each
    query within ``rlimit`` Z3 resource units (a count: the same verdicts under any load)."""
    from planproof.ltl.smt import entails, satisfiable

    world = task.world
    universe = focus_universe(world, predicted, gold)
    axioms = axioms_for(task, universe)
    acts = action_names(world)
    try:
        sat = satisfiable(predicted, universe, axioms, rlimit=rlimit)
        fwd = entails(predicted, gold, universe, axioms, rlimit=rlimit, action_predicates=acts)
        back = entails(gold, predicted, universe, axioms, rlimit=rlimit, action_predicates=acts)
    except LTLError as exc:
        return LogicCheck(None, None, None, f"not decided: {exc}")
    return LogicCheck(
        None if sat.unknown else sat.sat,
        None if fwd.unknown else fwd.holds,
        None if back.unknown else back.holds,
        next((r.status for r in (sat, fwd, back) if r.unknown), ""),
    )


def evaluate_goal(
    task: Task, predicted: PredictedGoal, *, logic: bool = True, rlimit: int = DEFAULT_RLIMIT
) -> GoalResult:
    """Score a parsed prediction against the task's gold goal."""
    world = task.world
    gold = gold_state_goal(task)
    gold_actions = task.parts.actions
    if predicted.error is not None:
        return parse_error_result(task, predicted.error.message, predicted.notes)
    try:
        opts = GoalOptions(gold, world.universe, action_names(world), minimal=True)
        gold_atoms = ground_atoms(opts.ground)
    except LTLError as exc:
        return GoalResult(
            task.identifier,
            task.dataset,
            {},
            predicted.issues,
            parse_error=f"gold goal cannot be grounded: {exc}",
        )
    chosen: list[Literal] = []
    acts: list[Literal] = []
    act_items: set[str] = set()
    for item in predicted.items:
        if item.kind == "action":
            if item.text not in act_items:  # one per distinct item, as the reference
                act_items.add(item.text)
                acts.append(item.candidates[0])
            continue
        pick = next(
            (c for c in item.candidates if c.atom in gold_atoms and c not in chosen),
            item.candidates[0],
        )
        if pick not in chosen:
            chosen.append(pick)
    best = opts.best(chosen)
    option = best.option.literals if best is not None else frozenset()
    counts = {k: Counts() for k in ("state", "relation")}
    extra: list[str] = []
    for lit in chosen:
        hit = lit in option
        counts[_kind(lit)] = counts[_kind(lit)] + Counts(int(hit), int(not hit), 0)
        if not hit:
            extra.append(_lit_text(lit))
    missed = []
    for lit in sorted(option, key=_lit_text):
        if lit not in chosen:
            counts[_kind(lit)] = counts[_kind(lit)] + Counts(0, 0, 1)
            missed.append(_lit_text(lit))
    if gold_actions or acts:
        counts["action"], m, e = _match_actions(acts, gold_actions)
        missed += m
        extra += e
    for kind, text in dict.fromkeys(
        (i.counted_as, i.item) for i in predicted.issues if i.counted_as
    ):
        counts[kind] = counts.get(kind, Counts()) + Counts(0, 1, 0)
        extra.append(text)
    check = None
    if logic and chosen:
        pred_formula = conj(*(c.as_formula() for c in chosen))
        check = logic_check(task, pred_formula, gold, rlimit)
    option_text = to_text(best.option.to_formula()) if best is not None else ""
    return GoalResult(
        task.identifier,
        task.dataset,
        counts,
        predicted.issues,
        None,
        option_text,
        tuple(missed),
        tuple(extra),
        check,
        predicted.notes,
    )


def parse_error_result(task: Task, message: str, notes: Sequence[str] = ()) -> GoalResult:
    """A response that is not a goal: nothing predicted, every gold goal missed (of the
    option with fewest elements)."""
    world = task.world
    counts: dict[str, Counts] = {k: Counts() for k in ("state", "relation")}
    try:
        opts = GoalOptions(gold_state_goal(task), world.universe, action_names(world), minimal=True)
        best = opts.best(())
    except LTLError:
        best = None
    if best is not None:
        for lit in best.option.literals:
            counts[_kind(lit)] = counts[_kind(lit)] + Counts(0, 0, 1)
    if task.parts.actions:
        counts["action"] = Counts(0, 0, len(task.parts.actions))
    return GoalResult(task.identifier, task.dataset, counts, (), message, notes=tuple(notes))


def evaluate_goal_response(
    task: Task, text: str, *, logic: bool = True, rlimit: int = DEFAULT_RLIMIT
) -> GoalResult:
    """Parse an LLM response and score it."""
    return evaluate_goal(task, parse_goal(text, task.world), logic=logic, rlimit=rlimit)


def gold_response(task: Task) -> str:
    """The task's gold goal written as an LTL response (``--gold``)."""
    return to_text(gold_as_simple_goal(task))


def gold_as_simple_goal(task: Task) -> Formula:
    """The gold goal as a prediction: actions (one alternative each), then the first
    option of the state goal."""
    from planproof.ltl.ast import Then

    world = task.world
    opts = GoalOptions(gold_state_goal(task), world.universe, action_names(world), minimal=True)
    first = next(iter(opts.options()), None)
    state = first.to_formula() if first is not None else conj()
    acts: list[Formula] = []
    for g in task.parts.actions:
        atom = next((a for a in walk(g) if isinstance(a, Atom)), None)
        if atom is not None:
            acts.append(Atom(atom.pred, ()))
    if not acts:
        return state
    return (
        Then((*acts, state))
        if first is not None and first.literals
        else (Then(tuple(acts)) if len(acts) > 1 else acts[0])
    )


def summarize(results: Sequence[GoalResult]) -> dict[str, Any]:
    """Table 9's columns: micro P/R/F1 per goal type and overall, plus grammar-error
    rates (per predicted item, as the reference) and the logic verdicts."""
    totals = {k: Counts() for k in GOAL_TYPES}
    for r in results:
        for k, v in r.counts.items():
            totals[k] = totals[k] + v
    overall = Counts()
    for v in totals.values():
        overall = overall + v
    fmt = sum(1 for r in results for i in r.issues if i.kind == "format")
    hall = sum(1 for r in results for i in r.issues if i.kind == "hallucination")
    scored = sum(len({(i.counted_as, i.item) for i in r.issues if i.counted_as}) for r in results)
    items = overall.tp + overall.fp - scored + fmt + hall
    checks = [r.logic for r in results if r.logic is not None]

    def _pct(n: int, d: int) -> float | None:
        return round(100.0 * n / d, 4) if d else None

    return {
        "tasks": len(results),
        "goal_evaluation": {
            **{k: totals[k].to_dict() for k in GOAL_TYPES},
            "overall": overall.to_dict(),
            "perfect_tasks": sum(1 for r in results if r.total.fn == r.total.fp == 0),
        },
        "grammar": {
            "unparsable_responses": sum(1 for r in results if r.parse_error is not None),
            "format_error_items": fmt,
            "hallucination_items": hall,
            "scored_as_false_positive": scored,
            "format_error_rate": _pct(fmt, items),
            "hallucination_rate": _pct(hall, items),
        },
        "logic": {
            "checked": len(checks),
            "satisfiable": sum(1 for c in checks if c.satisfiable),
            "unsatisfiable": sum(1 for c in checks if c.satisfiable is False),
            "entails_gold": sum(1 for c in checks if c.entails_gold),
            "entailed_by_gold": sum(1 for c in checks if c.entailed_by_gold),
            "equivalent": sum(1 for c in checks if c.equivalent),
            "undecided": sum(1 for c in checks if c.satisfiable is None),
            "budget_spent": sum(1 for c in checks if c.message == "budget"),
        },
    }
