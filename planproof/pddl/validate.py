"""A sequential plan validator with VAL's semantics, for any classical PDDL domain.

A plan is valid when every step names a known action with the right number of declared,
well-typed objects, every step's precondition holds in the state it runs in, and the goal
holds at the end. Checking goes step by step in plan order and stops at the first
failing step (numbered from 1, as VAL and PlanBench count), keeping the trace of the
valid prefix. Unlike the EAI simulators, a step whose precondition fails is a failure even
when its effects already hold (the EAI "additional step" is kept for the EAI worlds:
``planproof verify --lenient``).

Effects follow PDDL: every condition of a ``when`` and every numeric value is read in the
state *before* the step; deletions are applied, then additions (an atom both deleted and
added stays true). Numeric fluents without an initial value are undefined, and reading
one is a failure (``undefined-value``), as in VAL. Derived predicates are evaluated from
their rules on demand.

Work is bounded up front: a formula whose quantifiers would range over more than
:data:`MAX_EVALUATION` assignments, or nest deeper than :data:`MAX_QUANTIFIER_DEPTH`,
makes :func:`compile_task` raise :class:`ValidationLimitError` naming the number.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import product
from typing import Any

from planproof.ltl.ast import (
    And,
    Atom,
    Bottom,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Top,
    Var,
    walk,
)
from planproof.ltl.ast import depth as formula_depth
from planproof.pddl.axioms import Strata, stratify
from planproof.pddl.numeric import (
    NUMERIC_PREFIX,
    Comparison,
    GroundFluent,
    NumericEffect,
    NumericError,
    combine,
    compare,
    evaluate,
    fluent_text,
    ground_fluent,
)
from planproof.pddl.reader import ROOT_TYPE, Problem
from planproof.pddl.schema import (
    Add,
    Delete,
    Domain,
    Effect,
    ForallEffect,
    Operator,
    When,
    all_effects,
)

MAX_EVALUATION = 1_000_000
"""Most quantifier assignments one condition or effect may range over (the product of the
sizes of the types its nested quantifiers bind); beyond it the task is refused."""
MAX_QUANTIFIER_DEPTH = 16
"""Deepest nesting of quantifiers accepted."""
MAX_AXIOM_CACHE = 4096
"""Most cached extensions of recursive derived predicates per task (see
:attr:`Task.axiom_inputs`)."""

GAtom = tuple[str, ...]
"""A ground atom as plain strings: ``("on", "a", "b")``."""

PlanStep = tuple[str, tuple[str, ...]]


class ValidationLimitError(ValueError):
    """The domain's quantifiers would make checking a step too much work (see the module
    docstring); the message names the number that was too large."""


@dataclass(frozen=True)
class StepFailure:
    """Why step ``step`` (1-based) failed. ``kind``: ``unknown-action``, ``wrong-arity``,
    ``unknown-object``, ``wrong-type``, ``precondition`` (a logical part unmet),
    ``numeric-precondition`` (only numeric comparisons unmet), ``undefined-value`` or
    ``arithmetic`` (a numeric expression could not be evaluated)."""

    step: int
    action: str
    kind: str
    message: str
    unmet: tuple[str, ...] = ()
    repair: tuple[str, ...] | None = None
    repair_note: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.step,
            "action": self.action,
            "error_type": self.kind,
            "message": self.message,
            "unmet": list(self.unmet),
            "repair": list(self.repair) if self.repair is not None else None,
            "repair_note": self.repair_note or None,
        }


@dataclass(frozen=True)
class TraceStep:
    """One executed step: the atoms it added and deleted, the numbers it changed."""

    step: int
    action: str
    added: tuple[str, ...]
    deleted: tuple[str, ...]
    changed: Mapping[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.step,
            "action": self.action,
            "added": list(self.added),
            "deleted": list(self.deleted),
            "changed": dict(self.changed),
        }


@dataclass(frozen=True)
class Validation:
    """The verdict on a plan. ``goal_holds`` is judged on the state the executed steps
    reach (after a failure: the valid prefix)."""

    steps: int
    trace: tuple[TraceStep, ...]
    failure: StepFailure | None
    goal_holds: bool
    unmet_goal: tuple[str, ...]
    metric: float | None = None
    metric_text: str = ""
    goal_error: str = ""
    metric_error: str = ""
    notes: tuple[str, ...] = ()

    @property
    def executable(self) -> bool:
        return self.failure is None

    @property
    def valid(self) -> bool:
        return self.failure is None and self.goal_holds

    def to_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "executable": self.executable,
            "goal_holds": self.goal_holds,
            "unmet_goal": list(self.unmet_goal),
            "steps": self.steps,
            "executed": len(self.trace),
            "failed_step": self.failure.step if self.failure else None,
            "error": self.failure.to_dict() if self.failure else None,
            "metric": self.metric,
            "metric_expression": self.metric_text or None,
            "goal_error": self.goal_error or None,
            "metric_error": self.metric_error or None,
            "trace": [t.to_dict() for t in self.trace],
        }


@dataclass
class State:
    """Atoms that hold (closed world) and the values of the numeric fluents."""

    atoms: set[GAtom]
    values: dict[GroundFluent, float]


@dataclass(frozen=True)
class Task:
    """A domain and problem compiled once for checking many plans."""

    domain: Domain
    problem: Problem
    objects: Mapping[str, str]
    by_type: Mapping[str, tuple[str, ...]]
    operators: Mapping[str, Operator]
    numeric: Mapping[str, Comparison]
    init: frozenset[GAtom]
    values: Mapping[GroundFluent, float]
    strata: Strata = field(default_factory=lambda: Strata((), {}))
    rule_depth: Mapping[str, int] = field(default_factory=dict)
    """Formula depth of each derived predicate's deepest rule (bounds Python nesting)."""
    notes: tuple[str, ...] = ()
    """How the task was read where PDDL leaves a choice (fluents started at 0)."""
    axiom_inputs: Mapping[int, tuple[frozenset[str], bool]] = field(default_factory=dict)
    """For each recursive component: the changing predicates its rules read (through
    every rule below it) and whether they read numbers; its extension is a function of
    those atoms alone, so it is cached by them."""
    axiom_cache: dict[object, frozenset[GAtom]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def initial_state(self) -> State:
        return State(set(self.init), dict(self.values))

    def of_type(self, t: str | None) -> tuple[str, ...]:
        return self.by_type.get(t or ROOT_TYPE, ())


def compile_task(domain: Domain, problem: Problem, *, strict_numeric: bool = False) -> Task:
    """Index ``problem`` under ``domain`` for validation; raises
    :class:`ValidationLimitError` when a quantified formula is too large to check.

    A numeric fluent the problem leaves without a value, of a function that actions only
    ever ``increase`` (``total-cost``, ``total-fuel-used``), starts at 0, as VAL and Fast
    Downward read it, with a note; ``strict_numeric`` keeps it undefined (the letter of
    PDDL 2.1: reading or increasing it is an ``undefined-value`` failure)."""
    objects = {**problem.constants, **problem.objects}
    by_type: dict[str, list[str]] = {}
    for o, t in sorted(objects.items()):
        anc = {a for m in domain.members(t) for a in domain.ancestors(m)} | {t, ROOT_TYPE}
        for a in anc:
            by_type.setdefault(a, []).append(o)
    for t in domain.types:
        if t.startswith("(either "):
            by_type[t] = sorted({o for m in domain.members(t) for o in by_type.get(m, [])})
    frozen = {t: tuple(v) for t, v in by_type.items()}
    values = dict(problem.numeric_init)
    notes: list[str] = []
    if not strict_numeric:
        notes = _start_accumulators_at_zero(domain, frozen, values)
    set_derived = sorted(
        (a.pred, *(t.name for t in a.args)) for a in problem.init if a.pred in domain.derived
    )
    if set_derived:
        shown = ", ".join(gatom_text(g) for g in set_derived[:3])
        notes.append(
            f"{len(set_derived)} fact(s) of :init name derived predicates ({shown}"
            f"{', ...' if len(set_derived) > 3 else ''}): ignored, as VAL does; a derived "
            "predicate's value comes from its rules"
        )
    task = Task(
        domain,
        problem,
        objects,
        frozen,
        {name.lower(): op for name, op in domain.operators.items()},
        {**domain.numeric, **problem.numeric},
        frozenset(
            (a.pred, *(t.name for t in a.args))
            for a in problem.init
            if a.pred not in domain.derived
        ),
        values,
        stratify(domain.derived),
        {
            name: max(formula_depth(r.condition) for r in d.rules)
            for name, d in domain.derived.items()
        },
        tuple(notes),
    )
    task = replace(task, axiom_inputs=_axiom_inputs(domain, task.strata))
    for op in domain.operators.values():
        _bound(task, f"action {op.name}", _op_formulas(op))
    _bound(task, "the goal", [problem.goal])
    for name, d in domain.derived.items():
        _bound(task, f"derived predicate {name}", [r.condition for r in d.rules])
        if name in task.strata.recursive:
            size = 1
            for q in d.params:
                size *= max(1, len(task.of_type(q.type)))
            if size > MAX_EVALUATION:
                raise ValidationLimitError(
                    f"recursive derived predicate {name}: {size:,} ground atoms to compute, "
                    f"over the limit of {MAX_EVALUATION:,}"
                )
    return task


def _axiom_inputs(domain: Domain, strata: Strata) -> dict[int, tuple[frozenset[str], bool]]:
    """See :attr:`Task.axiom_inputs`."""
    reads: dict[str, set[str]] = {}
    numeric: dict[str, bool] = {}
    for comp in strata.components:  # dependency order: what a rule reads is known
        for p in comp:
            preds: set[str] = set()
            uses_numbers = False
            for rule in domain.derived[p].rules:
                for f in walk(rule.condition):
                    if not isinstance(f, Atom):
                        continue
                    if f.pred.startswith(NUMERIC_PREFIX):
                        uses_numbers = True
                    elif f.pred in domain.derived and f.pred not in comp:
                        preds |= reads[f.pred]
                        uses_numbers = uses_numbers or numeric[f.pred]
                    elif f.pred not in domain.derived:
                        preds.add(f.pred)
            reads[p], numeric[p] = preds, uses_numbers
        if len(comp) > 1:
            union = set().union(*(reads[p] for p in comp))
            for p in comp:
                reads[p], numeric[p] = union, any(numeric[q] for q in comp)
    out: dict[int, tuple[frozenset[str], bool]] = {}
    for p, i in strata.recursive.items():
        out[i] = (frozenset(reads[p]) & domain.fluents, numeric[p])
    return out


def _start_accumulators_at_zero(
    domain: Domain, by_type: Mapping[str, tuple[str, ...]], values: dict[GroundFluent, float]
) -> list[str]:
    """Set to 0 every undefined fluent of a function that is only ever increased (see
    :func:`compile_task`); the notes say which."""
    ops: dict[str, set[str]] = {}
    for op in domain.operators.values():
        for e in all_effects(op.effects):
            if isinstance(e, NumericEffect):
                ops.setdefault(e.fluent.name, set()).add(e.op)
    notes: list[str] = []
    for name, kinds in sorted(ops.items()):
        if kinds != {"increase"} or name not in domain.functions:
            continue
        types = domain.functions[name]
        size = 1
        for t in types:
            size *= len(by_type.get(t, ()))
        if size > MAX_EVALUATION:
            raise ValidationLimitError(
                f"function {name}: {size:,} ground fluents, over the limit of {MAX_EVALUATION:,}"
            )
        started = 0
        for args in product(*(by_type.get(t, ()) for t in types)):
            if (name, args) not in values:
                values[(name, args)] = 0.0
                started += 1
        if started:
            what = fluent_text((name, ())) if not types else f"{started} values of {name}"
            notes.append(
                f"{what} had no initial value; it is only ever increased, so it starts at 0 "
                "(as VAL and Fast Downward read it; --strict-numeric keeps it undefined)"
            )
    return notes


def _op_formulas(op: Operator) -> list[Formula | Effect]:
    return [op.precondition, *op.effects]


def _bound(task: Task, where: str, items: Sequence[Formula | Effect]) -> None:
    for item in items:
        size, depth = _cost(task, item)
        if depth > MAX_QUANTIFIER_DEPTH:
            raise ValidationLimitError(
                f"{where}: quantifiers nest {depth} deep, over the limit of {MAX_QUANTIFIER_DEPTH}"
            )
        if size > MAX_EVALUATION:
            raise ValidationLimitError(
                f"{where}: its quantifiers range over {size:,} assignments, over the limit "
                f"of {MAX_EVALUATION:,}"
            )


def _cost(task: Task, f: Formula | Effect) -> tuple[int, int]:
    """(assignments the nested quantifiers of ``f`` range over, nesting depth); iterative
    over a bounded tree (the reader caps nesting at 100)."""
    best_size, best_depth = 1, 0
    stack: list[tuple[Any, int, int]] = [(f, 1, 0)]
    while stack:
        x, size, depth = stack.pop()
        best_size, best_depth = max(best_size, size), max(best_depth, depth)
        match x:
            case Exists(b, body) | Forall(b, body):
                stack.append((body, size * max(1, len(task.of_type(b.type))), depth + 1))
            case ForallEffect(b, inner):
                n = max(1, len(task.of_type(b.type)))
                stack.extend((e, size * n, depth + 1) for e in inner)
            case When(c, inner):
                stack.append((c, size, depth))
                stack.extend((e, size, depth) for e in inner)
            case Not(body):
                stack.append((body, size, depth))
            case And(cs) | Or(cs):
                stack.extend((c, size, depth) for c in cs)
            case Implies(a, b2):
                stack.extend(((a, size, depth), (b2, size, depth)))
    return best_size, best_depth


# --- evaluation -------------------------------------------------------------------------

_MAX_NESTING = 120
"""Most formula levels that derived-predicate evaluation nests in Python calls before it
hands the next atom to the driver loop (see ``_Eval.derived_atom``)."""


class _Pending(Exception):
    """Raised when evaluation would nest too deep: ``key`` is computed first, then the
    interrupted atom again."""

    def __init__(self, key: GAtom | int) -> None:
        super().__init__(key)
        self.key = key


class _Eval:
    """Evaluates formulas in one state (derived predicates memoised for that state).

    The simulator core has the same evaluator (``simulators.core.logic.Facts``) over
    ``Atom`` states, but it sits in a higher layer; this one reads PDDL's plain-string
    atoms, numeric comparisons and derived predicates."""

    def __init__(self, task: Task, state: State) -> None:
        self.task = task
        self.state = state
        self.derived: dict[GAtom, bool] = {}
        self.done: set[int] = set()
        self.partial: dict[int, set[GAtom]] = {}
        self.optimistic: set[int] = set()
        self.reads: list[GAtom] | None = None
        self.nesting = 0

    def ground(self, a: Atom, env: Mapping[str, str]) -> GAtom:
        return (a.pred, *(env[t.name] if isinstance(t, Var) else t.name for t in a.args))

    def atom(self, a: Atom, env: Mapping[str, str]) -> bool:
        if a.pred == "=":
            g = self.ground(a, env)
            return g[1] == g[2]
        if a.pred.startswith(NUMERIC_PREFIX):
            c = self.task.numeric[a.pred]
            cenv = {
                p: env[t.name] if isinstance(t, Var) else t.name
                for p, t in zip(c.params, a.args, strict=True)
            }
            return compare(c, cenv, self.state.values)
        g = self.ground(a, env)
        if a.pred not in self.task.domain.derived:
            return g in self.state.atoms
        return self.derived_atom(g)

    # Derived atoms. A non-recursive predicate is evaluated on demand, one atom at a
    # time (memoised); a recursive component is computed whole, as the least fixpoint of
    # its rules, the first time one of its atoms is read. Evaluation nests (a rule reads
    # a derived atom whose rule reads another ...), but never deeper than
    # _MAX_NESTING formula levels: deeper, the atom is handed to the driver loop in
    # ``derived_atom``, which computes it first and retries, so a 5,000-long chain of
    # rules costs no Python recursion.

    def derived_atom(self, g: GAtom) -> bool:
        hit = self.derived.get(g)
        if hit is not None:
            return hit
        comp = self.task.strata.recursive.get(g[0])
        if comp is not None:
            if comp in self.optimistic:
                return True
            partial = self.partial.get(comp)
            if partial is not None:
                if g in partial:
                    return True
                if self.reads is not None:
                    self.reads.append(g)
                return False
            if comp in self.done:
                return False
            self._demand(comp)
            return self.derived.get(g, False)
        self._demand(g)
        return self.derived[g]

    def _demand(self, key: GAtom | int) -> None:
        cost = self._nesting_cost(key)
        if self.nesting > 0 and self.nesting + cost > _MAX_NESTING:
            raise _Pending(key)
        if self.nesting > 0:
            self.nesting += cost
            try:
                self._compute(key)
            finally:
                self.nesting -= cost
            return
        todo: list[GAtom | int] = [key]
        while todo:
            k = todo[-1]
            if self._known(k):
                todo.pop()
                continue
            self.nesting = self._nesting_cost(k)
            try:
                self._compute(k)
                todo.pop()
            except _Pending as more:
                todo.append(more.key)
            finally:
                self.nesting = 0
                self.partial.clear()
                self.optimistic.clear()

    def _known(self, key: GAtom | int) -> bool:
        return key in self.done if isinstance(key, int) else key in self.derived

    def _nesting_cost(self, key: GAtom | int) -> int:
        if isinstance(key, int):
            return 1 + max(self.task.rule_depth[p] for p in self.task.strata.components[key])
        return 1 + self.task.rule_depth[key[0]]

    def _compute(self, key: GAtom | int) -> None:
        if isinstance(key, int):
            self._fixpoint(key)
            return
        self.derived[key] = self._some_rule(key)

    def _some_rule(self, g: GAtom) -> bool:
        d = self.task.domain.derived[g[0]]
        for rule in d.rules:
            if rule.params != d.params and not all(
                self.task.domain.is_subtype(self.task.objects.get(o, ROOT_TYPE), p.type)
                or p.type == ROOT_TYPE
                for o, p in zip(g[1:], rule.params, strict=True)
            ):
                continue
            env = {p.name: v for p, v in zip(rule.params, g[1:], strict=True)}
            if self.holds(rule.condition, env):
                return True
        return False

    def _fixpoint(self, comp: int) -> None:
        """The least fixpoint of a recursive component (its rules read it only
        positively, so derived atoms stay derived): candidates whose rules fail even
        with the whole component true are dropped, the others go through a worklist
        that tries an atom again when an atom it read has been derived."""
        fluents, numbers = self.task.axiom_inputs.get(comp, (None, True))
        key: object = None
        if fluents is not None:
            key = (
                comp,
                frozenset(a for a in self.state.atoms if a[0] in fluents),
                frozenset(self.state.values.items()) if numbers else None,
            )
            hit = self.task.axiom_cache.get(key)
            if hit is not None:
                for g in hit:
                    self.derived[g] = True
                self.done.add(comp)
                return
        true: set[GAtom] = set()
        self.optimistic.add(comp)
        try:
            # an atom whose rules fail even with every atom of the component true never
            # holds (the component reads itself only positively): tried once, dropped
            candidates = [
                g
                for p in self.task.strata.components[comp]
                for args in product(
                    *(self.task.of_type(q.type) for q in self.task.domain.derived[p].params)
                )
                if self._some_rule(g := (p, *args))
            ]
        finally:
            self.optimistic.discard(comp)
        self.partial[comp] = true
        # a worklist: a failed atom is tried again only once an atom of the component it
        # read (false then) has been derived; its rules read nothing else that changes
        watchers: dict[GAtom, list[GAtom]] = {}
        work = deque(candidates)
        queued = set(candidates)
        outer = self.reads
        try:
            while work:
                g = work.popleft()
                queued.discard(g)
                self.reads = []
                ok = self._some_rule(g)
                if ok:
                    true.add(g)
                    for c in watchers.pop(g, ()):
                        if c not in true and c not in queued:
                            work.append(c)
                            queued.add(c)
                else:
                    for a in self.reads:
                        watchers.setdefault(a, []).append(g)
        finally:
            self.reads = outer
            del self.partial[comp]
        for g in true:
            self.derived[g] = True
        self.done.add(comp)
        if key is not None:
            if len(self.task.axiom_cache) >= MAX_AXIOM_CACHE:
                self.task.axiom_cache.clear()
            self.task.axiom_cache[key] = frozenset(true)

    def holds(self, f: Formula, env: Mapping[str, str]) -> bool:
        match f:
            case Atom():
                return self.atom(f, env)
            case Not(body):
                return not self.holds(body, env)
            case And(cs):
                return all(self.holds(c, env) for c in cs)
            case Or(cs):
                return any(self.holds(c, env) for c in cs)
            case Implies(a, b):
                return not self.holds(a, env) or self.holds(b, env)
            case Exists(b, body):
                return any(self.holds(body, {**env, b.var: o}) for o in self.task.of_type(b.type))
            case Forall(b, body):
                return all(self.holds(body, {**env, b.var: o}) for o in self.task.of_type(b.type))
            case Top():
                return True
            case Bottom():
                return False
        raise ValueError(f"{type(f).__name__} cannot appear in a PDDL condition")

    def unmet(self, f: Formula, env: Mapping[str, str], limit: int = 50) -> list[str]:
        """The parts of ``f`` that fail, as PDDL text: failing atoms and negated atoms of a
        conjunction (and of every failing instance of a ``forall``), else the whole
        failing sub-formula."""
        match f:
            case And(cs):
                out: list[str] = []
                for c in cs:
                    out.extend(self._unmet_part(c, env, limit - len(out)))
                    if len(out) >= limit:
                        break
                return out
            case Forall(b, body):
                out = []
                for o in self.task.of_type(b.type):
                    out.extend(self._unmet_part(body, {**env, b.var: o}, limit - len(out)))
                    if len(out) >= limit:
                        break
                return out
        try:
            self.holds(f, env)
        except NumericError as exc:
            return [f"{self.text(f, env)} [{exc}]"]
        return [self.text(f, env)]

    def _unmet_part(self, f: Formula, env: Mapping[str, str], limit: int) -> list[str]:
        """``unmet`` of a part that fails; a part whose arithmetic fails is unmet with the
        error named (``(> (/ (f) (g)) 1) [division by zero in (/ (f) (g))]``)."""
        try:
            if self.holds(f, env):
                return []
        except NumericError as exc:
            return [f"{self.text(f, env)} [{exc}]"]
        return self.unmet(f, env, limit)

    def text(self, f: Formula, env: Mapping[str, str]) -> str:
        return formula_text(f, env, self.task.numeric)


def derived_atoms(task: Task, state: State) -> frozenset[GAtom]:
    """Every ground derived atom that holds in ``state`` (the stratified least fixpoint
    of the domain's rules over its facts)."""
    ev = _Eval(task, state)
    return frozenset(
        (name, *args)
        for name, d in task.domain.derived.items()
        for args in product(*(task.of_type(q.type) for q in d.params))
        if ev.derived_atom((name, *args))
    )


def formula_text(f: Formula, env: Mapping[str, str], numeric: Mapping[str, Comparison]) -> str:
    """PDDL text of ``f`` with the variables of ``env`` replaced by objects."""
    match f:
        case Atom():
            if f.pred.startswith(NUMERIC_PREFIX):
                c = numeric[f.pred]
                text = f.pred[len(NUMERIC_PREFIX) :]
                for p, t in zip(c.params, f.args, strict=True):
                    v = env.get(t.name, "?" + t.name) if isinstance(t, Var) else t.name
                    text = text.replace(f"?{p})", f"{v})").replace(f"?{p} ", f"{v} ")
                return text
            args = [env.get(t.name, "?" + t.name) if isinstance(t, Var) else t.name for t in f.args]
            return "(" + " ".join([f.pred, *args]) + ")"
        case Not(body):
            return f"(not {formula_text(body, env, numeric)})"
        case And(cs) | Or(cs):
            op = "and" if isinstance(f, And) else "or"
            return f"({op} " + " ".join(formula_text(c, env, numeric) for c in cs) + ")"
        case Implies(a, b):
            return f"(imply {formula_text(a, env, numeric)} {formula_text(b, env, numeric)})"
        case Exists(b, body) | Forall(b, body):
            q = "exists" if isinstance(f, Exists) else "forall"
            inner = {k: v for k, v in env.items() if k != b.var}
            return f"({q} (?{b.var} - {b.type or ROOT_TYPE}) {formula_text(body, inner, numeric)})"
        case Top():
            return "(and)"
        case Bottom():
            return "(or)"
    return str(f)


def gatom_text(g: GAtom) -> str:
    return "(" + " ".join(g) + ")"


# --- one step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Bound:
    op: Operator
    env: Mapping[str, str]
    text: str


def bind(task: Task, index: int, step: PlanStep) -> _Bound | StepFailure:
    """Match a plan step to an operator and declared objects of the right types."""
    name, args = step[0].lower(), tuple(a.lower() for a in step[1])
    text = "(" + " ".join([name, *args]) + ")"
    op = task.operators.get(name)
    if op is None:
        near = task.domain.lookup(name)
        hint = f"; did you mean {near.name}?" if near is not None else ""
        return StepFailure(index, text, "unknown-action", f"the domain has no action {name}{hint}")
    if len(args) != len(op.params):
        return StepFailure(
            index,
            text,
            "wrong-arity",
            f"{op.name} takes {len(op.params)} arguments, got {len(args)}",
        )
    for a, p in zip(args, op.params, strict=True):
        t = task.objects.get(a)
        if t is None:
            return StepFailure(index, text, "unknown-object", f"unknown object {a}")
        if not task.domain.is_subtype(t, p.type) and p.type != ROOT_TYPE:
            return StepFailure(
                index,
                text,
                "wrong-type",
                f"{a} is a {t}, but ?{p.name} of {op.name} must be a {p.type}",
            )
    return _Bound(op, {p.name: a for p, a in zip(op.params, args, strict=True)}, text)


def _precondition_failure(task: Task, state: State, b: _Bound, index: int) -> StepFailure | None:
    ev = _Eval(task, state)
    try:
        if ev.holds(b.op.precondition, b.env):
            return None
        unmet = tuple(ev.unmet(b.op.precondition, b.env))
    except NumericError as exc:
        return StepFailure(index, b.text, _numeric_kind(exc), f"precondition: {exc}")
    numeric = bool(unmet) and all(_is_comparison(u) for u in unmet)
    kind = "numeric-precondition" if numeric else "precondition"
    return StepFailure(
        index, b.text, kind, f"precondition of {b.text} unmet: {', '.join(unmet)}", unmet
    )


_COMPARISON_HEADS = ("(< ", "(<= ", "(= ", "(>= ", "(> ")


def _is_comparison(text: str) -> bool:
    return text.startswith(_COMPARISON_HEADS) and "(" in text[1:]


def _numeric_kind(exc: NumericError) -> str:
    return "undefined-value" if exc.kind == "undefined-fluent" else "arithmetic"


def apply(task: Task, state: State, b: _Bound) -> tuple[State, TraceStep]:
    """The state after step ``b`` (whose precondition holds); raises
    :class:`NumericError` when a numeric effect cannot be evaluated."""
    ev = _Eval(task, state)
    adds: set[GAtom] = set()
    dels: set[GAtom] = set()
    numbers: list[tuple[NumericEffect, Mapping[str, str]]] = []
    _collect(ev, b.op.effects, b.env, adds, dels, numbers)
    atoms = (state.atoms - dels) | adds
    values = dict(state.values)
    changed: dict[str, float] = {}
    for e, env in numbers:
        # the value is read before the step; two effects on one fluent accumulate
        g, v = ground_fluent(e.fluent, env), evaluate(e.value, env, state.values)
        values[g] = combine(e.op, g, values.get(g), v)
        changed[fluent_text(g)] = values[g]
    trace = TraceStep(
        0,
        b.text,
        tuple(sorted(gatom_text(a) for a in atoms - state.atoms)),
        tuple(sorted(gatom_text(a) for a in state.atoms - atoms)),
        changed,
    )
    return State(atoms, values), trace


def _collect(  # noqa: PLR0917 - the accumulators travel down the recursion
    ev: _Eval,
    effects: Sequence[Effect],
    env: Mapping[str, str],
    adds: set[GAtom],
    dels: set[GAtom],
    numbers: list[tuple[NumericEffect, Mapping[str, str]]],
) -> None:
    for e in effects:
        match e:
            case Add(atom):
                adds.add(ev.ground(atom, env))
            case Delete(atom):
                dels.add(ev.ground(atom, env))
            case When(c, inner):
                if ev.holds(c, env):
                    _collect(ev, inner, env, adds, dels, numbers)
            case ForallEffect(bnd, inner):
                for o in ev.task.of_type(bnd.type):
                    _collect(ev, inner, {**env, bnd.var: o}, adds, dels, numbers)
            case NumericEffect():
                numbers.append((e, env))


# --- whole plans ------------------------------------------------------------------------


def validate(
    task: Task,
    steps: Sequence[PlanStep],
    *,
    repair: bool = False,
    repair_depth: int = 3,
    repair_nodes: int = 20_000,
) -> Validation:
    """Check ``steps`` from the initial state (see the module docstring). With ``repair``,
    a failing precondition comes with the shortest sequence of actions (at most
    ``repair_depth``, found by breadth-first search over at most ``repair_nodes``
    states) that, inserted before the failing step, makes it applicable."""
    state = task.initial_state()
    trace: list[TraceStep] = []
    failure: StepFailure | None = None
    for i, step in enumerate(steps, start=1):
        b = bind(task, i, step)
        if isinstance(b, StepFailure):
            failure = b
            break
        failure = _precondition_failure(task, state, b, i)
        if failure is not None:
            if repair and failure.kind in ("precondition", "numeric-precondition"):
                failure = _with_repair(task, state, b, failure, repair_depth, repair_nodes)
            break
        try:
            state, t = apply(task, state, b)
        except NumericError as exc:
            failure = StepFailure(i, b.text, _numeric_kind(exc), f"effect: {exc}")
            break
        trace.append(TraceStep(i, t.action, t.added, t.deleted, t.changed))
    return judge(task, state, len(steps), tuple(trace), failure, float(len(steps)))


def judge(  # noqa: PLR0917
    task: Task,
    state: State,
    steps: int,
    trace: tuple[TraceStep, ...],
    failure: StepFailure | None,
    total_time: float,
) -> Validation:
    """The verdict once the steps ran: the goal on ``state``, the metric (when every
    step ran) with ``total-time`` = ``total_time`` (the step count of a sequential plan,
    the makespan of a temporal one)."""
    ev = _Eval(task, state)
    goal_error = ""
    try:
        holds = ev.holds(task.problem.goal, {})
    except NumericError as exc:
        holds, goal_error = False, f"the goal cannot be evaluated: {exc}"
    unmet = () if holds else tuple(ev.unmet(task.problem.goal, {}))
    metric, metric_text, metric_error = None, "", ""
    m = task.problem.metric
    if m is not None:
        metric_text = m.text
        if failure is None:
            values = {**state.values, ("total-time", ()): total_time}
            try:
                metric = evaluate(m.expression, {}, values)
            except NumericError as exc:
                metric_error = f"the metric {m.text} cannot be evaluated: {exc}"
    return Validation(
        steps,
        trace,
        failure,
        holds,
        unmet,
        metric,
        metric_text,
        goal_error,
        metric_error,
        task.notes,
    )


# --- repair -----------------------------------------------------------------------------


@dataclass
class Budget:
    """Candidate ground actions a search may still enumerate."""

    left: int


def applicable(task: Task, state: State, budget: Budget) -> Iterator[_Bound]:
    """Every ground action applicable in ``state``; raises
    :class:`ValidationLimitError` once ``budget`` candidate groundings are spent."""
    ev = _Eval(task, state)
    for op in task.domain.operators.values():
        for args in product(*(task.of_type(p.type) for p in op.params)):
            budget.left -= 1
            if budget.left < 0:
                raise ValidationLimitError(
                    f"stopped after {MAX_REPAIR_WORK:,} candidate ground actions"
                )
            env = {p.name: a for p, a in zip(op.params, args, strict=True)}
            try:
                if ev.holds(op.precondition, env):
                    yield _Bound(op, env, "(" + " ".join([op.name.lower(), *args]) + ")")
            except NumericError:
                continue


MAX_REPAIR_WORK = 200_000
"""Most candidate ground actions one repair search may enumerate in all (it checks each
one's precondition): the bound on its work."""


def _with_repair(  # noqa: PLR0917
    task: Task, state: State, target: _Bound, failure: StepFailure, depth: int, nodes: int
) -> StepFailure:

    def key(s: State) -> tuple[frozenset[GAtom], frozenset[tuple[GroundFluent, float]]]:
        return frozenset(s.atoms), frozenset(s.values.items())

    frontier: deque[tuple[State, tuple[str, ...]]] = deque([(state, ())])
    seen = {key(state)}
    budget = Budget(MAX_REPAIR_WORK)
    try:
        while frontier:
            s, path = frontier.popleft()
            if len(path) >= depth:
                continue
            for b in applicable(task, s, budget):
                try:
                    nxt, _ = apply(task, s, b)
                except NumericError:
                    continue
                k = key(nxt)
                if k in seen:
                    continue
                seen.add(k)
                new_path = (*path, b.text)
                try:
                    if _Eval(task, nxt).holds(target.op.precondition, target.env):
                        return replace(failure, repair=new_path)
                except NumericError:
                    pass
                if len(seen) > nodes:
                    return replace(
                        failure, repair_note=f"no repair within {nodes:,} states searched"
                    )
                frontier.append((nxt, new_path))
    except ValidationLimitError as exc:
        return replace(failure, repair_note=f"no repair found: the search {exc}")
    note = f"no insertion of at most {depth} actions makes it applicable"
    return replace(failure, repair_note=note)
