"""Fast Downward 23.06's reading of operators written by an LLM, planned by planproof.

The EAI reference (virtualhome-eval 0.1.1) writes each predicted operator's text verbatim
into a PDDL domain and asks Fast Downward 23.06 (lama-first) for a plan; "a plan found"
is its planner success. FD's translator reads some operators that planproof's own reader
refuses, and reads them by rules of its own, observed on small domains
(``tests/test_fd_reading.py``) and read in its source (``translate/pddl/conditions.py``,
``effects.py``, ``pddl_to_prolog.py``):

* **text is lower-cased** (``(p A)`` names object ``a``);
* **a free variable** (``?x`` neither a parameter nor bound by an enclosing quantifier)
  stays a literal name that is no object: an atom naming it is never true, so a positive
  condition on it is false, a negative one true, a delete of it does nothing; an *add*
  of it makes the translator crash (``Impossible`` raised outside its ``try``) whenever
  an instance of the operator is reached in the delete relaxation with that effect's
  condition not statically false: no plan at all;
* **an undeclared constant** (``dining_room`` that the problem does not declare) is a
  name of its own: its atoms may be added and then hold, but no parameter or quantifier
  ranges over it (FD grounds parameters over the declared objects of their type only);
  the same holds for an object the problem's facts mention without declaring it;
* **an undeclared type** has no objects: an operator with such a parameter never
  applies, ``forall`` over it holds, ``exists`` over it fails;
* **an unknown predicate or a wrong arity** stops the translator: no plan;
* **an operator name** that differs from a gold one only in case is a second operator
  (the reference adds the gold one too, FD keeps both).

:func:`fd_model` turns the texts into a planproof :class:`~planproof.pddl.schema.Domain`
and :class:`~planproof.pddl.schema.Problem` with those semantics made explicit (free
atoms → false / dropped / a crash marker; undeclared names → objects of a type no
parameter ranges over), and :func:`fd_planner_success` plans it with planproof's builtin
planner under a budget of expansions and, where that is spent, with Fast Downward itself
(lama-first, as the reference asks it) on the same model under a budget of CPU seconds
(:func:`fd_task` writes the model so that FD reads it as planproof does): the verdict is
the same on every machine, never a wall-clock limit. It is meant for any dataset
(VirtualHome and BEHAVIOR); nothing here knows EAI's files.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Binder,
    Const,
    Exists,
    Forall,
    Formula,
    Not,
    Or,
    map_atoms,
)
from planproof.ltl.bddl.errors import BDDLSyntaxError
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList
from planproof.ltl.nnf import nnf
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.plan_result import PlanStep
from planproof.pddl.reader import ROOT_TYPE, Problem
from planproof.pddl.schema import (
    Add,
    Delete,
    Domain,
    Effect,
    ForallEffect,
    Operator,
    Param,
    When,
)

FREE = "fd-free-variable-"
"""Prefix of the constant standing for a free variable ``?x`` (no PDDL name can start so
and be a variable)."""
UNDECLARED_TYPE = "fd-undeclared-name"
"""The type of undeclared constants: a root outside ``object``, so no parameter or
quantifier ranges over it."""
CRASH = "fd-translator-crash"
"""The nullary fact an add of a free variable makes instead: reaching it in the delete
relaxation is FD's translator crash."""


@dataclass(frozen=True)
class OperatorText:
    """One operator as the reference writes it into its domain."""

    name: str
    parameters: str
    precondition: str
    effect: str


@dataclass(frozen=True)
class FdOperator:
    """An operator as FD reads it: the actions it becomes (``operators``, several when
    its precondition is split to lift existential variables; none: FD cannot read it,
    ``problem`` says why), with the rules of the module docstring it needed (``rules``)."""

    operators: tuple[Operator, ...]
    problem: str = ""
    rules: frozenset[str] = frozenset()
    constants: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()
    atoms: frozenset[tuple[str, int]] = frozenset()
    """(predicate, arity) of every atom as written, before free atoms are rewritten: FD
    checks them all (an unknown predicate or a wrong arity stops its translator)."""


@dataclass(frozen=True)
class FdVerdict:
    """The planner's verdict in FD 23.06's reading. ``status``: ``solved``,
    ``unsolvable``, ``unreadable`` (FD's translator refuses the domain), ``crash`` (its
    translator crashes), ``budget`` (the builtin search's budget and then Fast Downward's
    spent: no verdict, counted as no plan and reported)."""

    success: bool
    status: str
    reason: str = ""
    rules: frozenset[str] = frozenset()
    expanded: int = 0
    known: bool = False
    """Taken from a :class:`KnownVerdict` on the same model: nothing was planned."""


# --------------------------------------------------------------------- reading one text
def _read(text: str) -> SExpr:
    from planproof.ltl.bddl.reader import read_sexpr

    return read_sexpr(text.lower())


def _binder_names(e: SExpr) -> set[str]:
    if not isinstance(e, SList):
        return set()
    return {a.text for a in e.items if isinstance(a, SAtom) and a.text.startswith("?")}


def _bind_free(e: SExpr, bound: frozenset[str], free: set[str]) -> SExpr:
    """``e`` with every free variable ``?x`` replaced by the constant ``FREE + x``."""
    if isinstance(e, SAtom):
        if e.text.startswith("?") and e.text not in bound:
            free.add(e.text[1:])
            return SAtom(FREE + e.text[1:], e.line, e.column)
        return e
    items = e.items
    head = items[0].text if items and isinstance(items[0], SAtom) else ""
    if head in ("forall", "exists") and len(items) == 3:
        inner = bound | _binder_names(items[1])
        return dataclasses.replace(e, items=(items[0], items[1], _bind_free(items[2], inner, free)))
    return dataclasses.replace(e, items=tuple(_bind_free(i, bound, free) for i in items))


MAX_DISJUNCTS = 64
"""Most disjuncts a precondition is split into to lift its existential variables (beyond
it the variables stay unlifted)."""


Disjunct = tuple[tuple[Binder, ...], tuple[Formula, ...]]


def _disjuncts(f: Formula) -> list[Disjunct]:
    """FD's split of a precondition (in NNF) at its disjunctions, with the existential
    variables above them pulled out (``normalize.py``: ``build_DNF``,
    ``split_disjunctions``, ``move_existential_quantifiers``); a ``forall`` is a leaf (an
    axiom for FD)."""
    match f:
        case And(cs):
            out: list[Disjunct] = [((), ())]
            for c in cs:
                out = [(b1 + b2, p1 + p2) for b1, p1 in out for b2, p2 in _disjuncts(c)]
                if len(out) > MAX_DISJUNCTS:
                    raise OverflowError
            return out
        case Or(cs):
            return [d for c in cs for d in _disjuncts(c)]
        case Exists(b, body):
            return [((b, *bs), ps) for bs, ps in _disjuncts(body)]
    return [((), (f,))]


def _lifted_variants(
    name: str, params: tuple[Param, ...], pre: SExpr, eff: SExpr
) -> list[tuple[tuple[Param, ...], Formula, SExpr]] | None:
    """FD's actions for one operator whose effect names a variable that only an
    existential of its precondition binds: per disjunct, the parameters with the
    existential variables added and the precondition without those quantifiers (None:
    no such variable, or too many disjuncts)."""
    from planproof.pddl.sexpr_io import read_condition

    names = {p.name for p in params}
    free: set[str] = set()
    _bind_free(eff, frozenset("?" + n for n in names), free)
    if not free:
        return None
    pre_free: set[str] = set()
    condition = read_condition(_bind_free(pre, frozenset("?" + n for n in names), pre_free), names)
    try:
        parts = _disjuncts(nnf(condition))  # FD's parsed form: the plain tree
    except OverflowError:
        return None
    if not any(b.var in free for bs, _ in parts for b in bs):
        return None
    out: list[tuple[tuple[Param, ...], Formula, SExpr]] = []
    for bs, ps in parts:
        lifted = tuple(Param(b.var, b.type or "object") for b in bs if b.var not in names)
        scope = frozenset("?" + n for n in names | {p.name for p in lifted})
        body: Formula = ps[0] if len(ps) == 1 else And(ps) if ps else TRUE
        out.append(((*params, *lifted), body, _bind_free(eff, scope, set())))
    return out


def _is_free(a: Atom) -> bool:
    return any(isinstance(t, Const) and t.name.startswith(FREE) for t in a.args)


def _free_false(a: Atom) -> Formula:
    return FALSE if _is_free(a) else a


def _effects(effects: Iterable[Effect], rules: set[str]) -> tuple[Effect, ...]:
    out: list[Effect] = []
    for e in effects:
        if isinstance(e, Add) and _is_free(e.atom):
            rules.add("free-variable-add")
            out.append(Add(Atom(CRASH, ())))
        elif isinstance(e, Delete) and _is_free(e.atom):
            rules.add("free-variable-delete")
        elif isinstance(e, When):
            cond = map_atoms(e.condition, _free_false)
            if cond != e.condition:
                rules.add("free-variable-condition")
            out.append(When(cond, _effects(e.effects, rules)))
        elif isinstance(e, ForallEffect):
            out.append(ForallEffect(e.binder, _effects(e.effects, rules)))
        else:
            out.append(e)
    return tuple(out)


def _types(f: Formula | Iterable[Effect]) -> set[str]:
    """The types of the quantifiers in a condition or effects."""
    from planproof.ltl.ast import binders

    if isinstance(f, tuple | list):
        out: set[str] = set()
        for e in f:
            if isinstance(e, When):
                out |= _types(e.condition) | _types(e.effects)
            elif isinstance(e, ForallEffect):
                out |= {e.binder.type or "object"} | _types(e.effects)
        return out
    from planproof.ltl.ast import walk

    return {b.type or "object" for g in walk(f) for b in binders(g)}  # type: ignore[arg-type]


def _constants(op: Operator) -> set[str]:
    from planproof.pddl.schema import operator_atoms

    return {
        t.name
        for a in operator_atoms(op)
        for t in a.args
        if isinstance(t, Const) and not t.name.startswith(FREE)
    }


@functools.lru_cache(maxsize=8192)
def fd_operator(text: OperatorText) -> FdOperator:
    """One operator text as FD 23.06 reads it (the module docstring); memoised, as the
    published answers repeat one another's operators."""
    from planproof.pddl.sexpr_io import read_condition, read_effect, read_parameters

    rules: set[str] = set()
    name = text.name.lower()
    try:
        params = read_parameters(_read(text.parameters))
        pre, eff = _read(text.precondition), _read(text.effect)
        variants = _lifted_variants(name, params, pre, eff)
        if variants is None:
            names = {p.name for p in params}
            scope = frozenset("?" + n for n in names)
            raw = [
                Operator(
                    name,
                    params,
                    read_condition(_bind_free(pre, scope, set()), names),
                    read_effect(_bind_free(eff, scope, set()), names),
                )
            ]
        else:
            rules.add("existential-lifted")
            raw = [
                Operator(
                    name if k == 0 else f"{name}#{k}",
                    ps,
                    condition,
                    read_effect(effect, {p.name for p in ps}),
                )
                for k, (ps, condition, effect) in enumerate(variants)
            ]
    except (PDDLSyntaxError, BDDLSyntaxError, ValueError) as exc:  # unbalanced text too
        return FdOperator((), getattr(exc, "message", str(exc)))
    from planproof.pddl.schema import operator_atoms

    ops: list[Operator] = []
    types: set[str] = set()
    constants: set[str] = set()
    atoms = {(a.pred, len(a.args)) for op in raw for a in operator_atoms(op)}
    for op in raw:
        precondition = map_atoms(op.precondition, _free_false)
        if precondition != op.precondition:
            rules.add("free-variable-condition")
        effects = _effects(op.effects, rules)
        types |= {p.type for p in op.params} | _types(op.precondition) | _types(op.effects)
        constants |= _constants(op)
        ops.append(dataclasses.replace(op, precondition=precondition, effects=effects))
    return FdOperator(
        tuple(ops),
        rules=frozenset(rules),
        constants=frozenset(constants),
        types=frozenset(types),
        atoms=frozenset(atoms),
    )


# ----------------------------------------------------------------------- the whole model
@dataclass(frozen=True)
class FdModel:
    """The domain and problem FD 23.06 would plan (``domain`` None: its translator
    refuses them, ``problem_text`` says why)."""

    domain: Domain | None
    problem: Problem
    why: str = ""
    rules: frozenset[str] = frozenset()


def fd_model(
    vocabulary: Domain,
    gold: Mapping[str, OperatorText],
    predicted: Sequence[OperatorText],
    problem: Problem,
) -> FdModel:
    """The reference's domain: ``vocabulary``'s types and predicates, the ``predicted``
    operators, then every ``gold`` operator whose name (exactly, case included, as the
    reference's set difference) is not predicted; read as FD 23.06 reads it, for
    ``problem`` (a :class:`~planproof.pddl.schema.Problem`)."""
    given = {t.name for t in predicted}
    texts = [*predicted, *(t for n, t in gold.items() if n not in given)]
    ops: dict[str, Operator] = {}
    rules: set[str] = set()
    constants: set[str] = set()
    types: set[str] = set()
    for t in texts:
        fo = fd_operator(t)
        if not fo.operators:
            return FdModel(None, problem, f"operator {t.name}: {fo.problem}", frozenset(rules))
        for pred, arity in sorted(fo.atoms):
            signature = vocabulary.predicates.get(pred)
            if pred != "=" and (signature is None or len(signature) != arity):
                why = "unknown predicate" if signature is None else "wrong arity"
                return FdModel(None, problem, f"operator {t.name}: {why} {pred}/{arity}")
        rules |= fo.rules
        constants |= fo.constants
        types |= fo.types
        for op in fo.operators:
            name = op.name
            if name in ops:  # FD keeps both operators of one lower-cased name
                rules.add("case-duplicate-operator")
                name = f"{name}#{len(ops)}"
            ops[name] = dataclasses.replace(op, name=name)
    unknown_types = sorted(types - set(vocabulary.types))
    if unknown_types:
        rules.add("undeclared-type")
    domain_types = {**vocabulary.types, **dict.fromkeys(unknown_types), UNDECLARED_TYPE: None}
    predicates = {**vocabulary.predicates, CRASH: ()}
    try:
        domain = dataclasses.replace(
            vocabulary, types=domain_types, predicates=predicates, operators=ops
        )
    except ValueError as exc:  # an unknown predicate or a wrong arity: FD stops
        return FdModel(None, problem, str(exc), frozenset(rules))
    mentioned = constants | _problem_names(problem)
    known = set(problem.objects) | set(problem.constants)
    undeclared = sorted(mentioned - known)
    if constants - known:
        rules.add("undeclared-constant")
    problem = dataclasses.replace(
        problem, objects={**problem.objects, **dict.fromkeys(undeclared, UNDECLARED_TYPE)}
    )
    return FdModel(domain, problem, rules=frozenset(rules))


def _problem_names(problem: Problem) -> set[str]:
    from planproof.ltl.ast import walk

    atoms = [*problem.init, *(f for f in walk(problem.goal) if isinstance(f, Atom))]
    return {t.name for a in atoms for t in a.args if isinstance(t, Const)}


def _explored(f: Formula, fluent: frozenset[str]) -> Formula:
    """A condition (in NNF) as FD decides whether to instantiate an operator it reached:
    its relaxed exploration keeps positive conditions only, and its instantiation then
    drops the instance only for a negative literal of a *static* predicate (one no effect
    names) that the initial state holds (``NegatedAtom.instantiate``); so a negative
    literal of a fluent predicate holds, and so does a universal quantifier (compiled into
    a negated axiom, a fluent). Found by ``benchmarks/fuzz_tm_reading.py``: an add of a
    free variable under ``(forall (?y - object) (next_to ?char ?y))`` crashes FD 23.06."""
    match f:
        case And(cs):
            return And(tuple(_explored(c, fluent) for c in cs))
        case Or(cs):
            return Or(tuple(_explored(c, fluent) for c in cs))
        case Exists(b, body):
            return Exists(b, _explored(body, fluent))
        case Forall():
            return TRUE
        case Not(Atom(pred)) if pred in fluent:
            return TRUE
    return f


def _effect_predicates(effects: Iterable[Effect]) -> set[str]:
    out: set[str] = set()
    for e in effects:
        if isinstance(e, Add | Delete):
            out.add(e.atom.pred)
        elif isinstance(e, When | ForallEffect):
            out |= _effect_predicates(e.effects)
    return out


def _flat(op: Operator, fluent: frozenset[str]) -> list[Operator]:
    """``op`` without conditional or quantified effects, for reachability in the delete
    relaxation as FD's exploration sees it: the unconditional effects, and one operator
    per conditional effect whose precondition adds its conditions and whose parameters add
    its ``forall`` variables (planproof's grounder compiles conditional effects into step
    sequences whose relaxation would let every branch fire); conditions as FD's
    instantiation reads them (:func:`_explored`)."""
    main: list[Effect] = []
    extra: list[Operator] = []

    def walk(
        effects: Iterable[Effect], params: tuple[Param, ...], conds: tuple[Formula, ...]
    ) -> None:
        for e in effects:
            if isinstance(e, When):
                walk(e.effects, params, (*conds, e.condition))
            elif isinstance(e, ForallEffect):
                p = Param(e.binder.var, e.binder.type or "object")
                if p.name in {q.name for q in (*op.params, *params)}:
                    continue  # a binder shadowing a parameter: left out of the probe
                walk(e.effects, (*params, p), conds)
            elif params or conds:
                pre = _explored(nnf(And((op.precondition, *conds))), fluent)
                name = f"{op.name}#probe{len(extra)}"
                extra.append(Operator(name, (*op.params, *params), pre, (e,)))
            else:
                main.append(e)

    walk(op.effects, (), ())
    main_op = dataclasses.replace(op, precondition=_explored(nnf(op.precondition), fluent))
    return [dataclasses.replace(main_op, effects=tuple(main)), *extra]


def _crashes(domain: Domain, problem: Problem) -> bool:
    """Whether FD's translator reaches an add of a free variable: :data:`CRASH` reachable
    in the delete relaxation of the flattened domain (:func:`_flat`; planproof's grounder
    answers "unreachable even ignoring delete effects" for a goal that is not)."""
    from planproof.pddl.ground import ground_task
    from planproof.pddl.planners import planning_domain

    fluent = frozenset(
        p for op in domain.operators.values() for p in _effect_predicates(op.effects)
    )
    ops = {o.name: o for op in domain.operators.values() for o in _flat(op, fluent)}
    flat = dataclasses.replace(domain, operators=ops)
    goal = dataclasses.replace(problem, goal=Atom(CRASH, ()))
    return not ground_task(planning_domain(flat), goal).trivially_unsolvable


FD_CPU_BUDGET = 100.0
"""Fast Downward's budget in CPU seconds when the builtin search spends its expansions:
the reference's own limit (``timeout 100``, wall seconds on its machine), as CPU time,
which the machine's load does not change."""
DECLARED = "fd-declared-object"
"""The type every declared object is put under when the model is handed to Fast Downward
(:func:`fd_task`)."""


def fd_task(domain: Domain, problem: Problem) -> tuple[Domain, Problem]:
    """The model as text for Fast Downward, with the same meaning as planproof's: PDDL puts
    every type under ``object``, so an undeclared constant (type :data:`UNDECLARED_TYPE`,
    a root outside ``object`` here) would fall in the range of every ``object`` parameter
    and quantifier. Every declared object goes under :data:`DECLARED` instead, and every
    parameter or quantifier over ``object`` ranges over :data:`DECLARED`; the undeclared
    names stay under ``object`` alone, as in FD's own reading of the raw text."""

    def retype(t: str | None) -> str:
        return DECLARED if t in (None, ROOT_TYPE) else t

    def binder(b: Binder) -> Binder:
        return Binder(b.var, retype(b.type))

    def effects(es: Iterable[Effect]) -> tuple[Effect, ...]:
        out: list[Effect] = []
        for e in es:
            if isinstance(e, When):
                out.append(When(map_atoms(e.condition, _same, binder), effects(e.effects)))
            elif isinstance(e, ForallEffect):
                out.append(ForallEffect(binder(e.binder), effects(e.effects)))
            else:
                out.append(e)
        return tuple(out)

    ops = {
        n: dataclasses.replace(
            op,
            params=tuple(Param(p.name, retype(p.type)) for p in op.params),
            precondition=map_atoms(op.precondition, _same, binder),
            effects=effects(op.effects),
        )
        for n, op in domain.operators.items()
    }
    types = {
        t: DECLARED if parent == ROOT_TYPE else parent
        for t, parent in domain.types.items()
        if t != ROOT_TYPE
    }
    types = {ROOT_TYPE: None, DECLARED: ROOT_TYPE, **types}
    objects = {o: retype(t) for o, t in problem.objects.items()}
    constants = {o: retype(t) for o, t in problem.constants.items()}
    return (
        dataclasses.replace(domain, types=types, operators=ops),
        dataclasses.replace(problem, objects=objects, constants=constants),
    )


def _same(a: Atom) -> Formula:
    return a


def _fast_downward_verdict(model: FdModel, builtin: str, cpu_budget: float) -> FdVerdict:
    """The verdict of Fast Downward (lama-first, as the reference runs it) on the model
    (:func:`fd_task`) under ``cpu_budget`` CPU seconds, for a task whose builtin search
    spent its budget (``builtin``: why). Its plan is replayed in the model by planproof's
    validator before it counts: a plan found is a plan of the reading's own task."""
    from planproof.pddl.plan_cache import cached_plan
    from planproof.pddl.plan_result import PlanStatus
    from planproof.pddl.validate import compile_task, validate

    assert model.domain is not None
    task = fd_task(model.domain, model.problem)
    res, _ = cached_plan(*task, engine="fast-downward", cpu_budget=cpu_budget)
    after = f"{builtin}; Fast Downward (lama-first, {cpu_budget:g} CPU s)"
    if res.status == PlanStatus.SOLVED:
        check = validate(compile_task(model.domain, model.problem), res.plan)
        if check.valid:
            return _negative_goal(FdVerdict(True, "solved", f"{after}: a plan", model.rules), *task)
        return FdVerdict(False, "budget", f"{after}: its plan fails in the model", model.rules)
    if res.status == PlanStatus.UNSOLVABLE:
        return FdVerdict(False, "unsolvable", f"{after}: {res.reason}", model.rules)
    return FdVerdict(False, "budget", f"{after}: {res.reason}", model.rules)


NEGATIVE_GOAL = "negative-goal-unsupported"
"""The status of a task planned in the model whose goal FD 23.06's translator refuses
(:mod:`planproof.pddl.fd_negative_goal`)."""


def _negative_goal(found: FdVerdict, domain: Domain, problem: Problem) -> FdVerdict:
    """``found`` (a plan in the model), or no plan when FD 23.06's translator stops on a
    negated goal atom of a many-valued variable ("Negative goal not supported", before
    any search); tested only for a goal with a negated literal. A task the translator
    cannot read that far keeps its plan (never the case on the published answers)."""
    import json

    from planproof.ltl.ast import walk

    if not any(isinstance(f, Not) for f in walk(problem.goal)):
        return found
    from planproof.pddl.fd_negative_goal import GoalEncodingError, negative_goal_unsupported
    from planproof.pddl.plan_cache import fact_key, plan_cache
    from planproof.pddl.planners import export_for_planner

    domain_text, problem_text, _ = export_for_planner(domain, problem)
    store = plan_cache()  # the test costs a translator pass: kept with the plans
    key = fact_key(NEGATIVE_GOAL, domain_text, problem_text)
    known = store.get_fact(key)
    if known is not None:
        atom = json.loads(known)
    else:
        try:
            atom = negative_goal_unsupported(domain_text, problem_text)
        except GoalEncodingError:
            return found
        store.put_fact(key, json.dumps(atom))
    if atom is None:
        return found
    why = f"Fast Downward 23.06: negative goal not supported ({atom})"
    return dataclasses.replace(found, success=False, status=NEGATIVE_GOAL, reason=why)


@dataclass(frozen=True)
class KnownVerdict:
    """A definitive planner verdict another reading found on its own model (``domain``,
    ``problem``): a plan (``plan``, validated again before it is used) or unsolvability
    proven (``plan`` None). Never a spent budget, which depends on the planner."""

    domain: Domain
    problem: Problem
    plan: tuple[PlanStep, ...] | None
    source: str = "another reading"


def same_model(model: FdModel, known: KnownVerdict) -> bool:
    """Whether FD 23.06's model is exactly ``known``'s: no reading rule of this module fired
    (no free variable, undeclared name or type, duplicate, lifted existential), the same
    problem, and the same domain once the type and predicate this module always declares
    (:data:`UNDECLARED_TYPE`, :data:`CRASH`, unused when no rule fired) are set aside; so
    the same operators, none extra, none filled in differently."""
    if model.domain is None or model.rules or model.problem != known.problem:
        return False
    types = {t: p for t, p in model.domain.types.items() if t != UNDECLARED_TYPE}
    predicates = {p: s for p, s in model.domain.predicates.items() if p != CRASH}
    return dataclasses.replace(model.domain, types=types, predicates=predicates) == known.domain


def _known_verdict(model: FdModel, known: KnownVerdict) -> FdVerdict | None:
    """``known``'s verdict as this model's, when the models are the same (:func:`same_model`)
    and its plan replays in the model (None: plan the model here)."""
    from planproof.pddl.validate import compile_task, validate

    if not same_model(model, known):
        return None
    assert model.domain is not None
    if known.plan is None:
        why = f"{known.source}, the same model: no plan exists"
        return FdVerdict(False, "unsolvable", why, model.rules, known=True)
    if not validate(compile_task(model.domain, model.problem), known.plan).valid:
        return None
    why = f"{known.source}, the same model: a plan"
    found = FdVerdict(True, "solved", why, model.rules, known=True)
    return _negative_goal(found, *fd_task(model.domain, model.problem))


def fd_planner_success(
    vocabulary: Domain,
    gold: Mapping[str, OperatorText],
    predicted: Sequence[OperatorText],
    problem: Problem,
    *,
    max_expansions: int | None,
    cpu_budget: float | None = FD_CPU_BUDGET,
    known: KnownVerdict | None = None,
) -> FdVerdict:
    """Whether FD 23.06 finds a plan for ``problem`` in the reference's domain
    (:func:`fd_model`), decided by planproof's builtin planner under ``max_expansions``;
    when it spends them, by Fast Downward itself on the same model under ``cpu_budget``
    CPU seconds (None: not asked, the verdict stays ``budget``). ``max_expansions`` None
    skips the builtin search: Fast Downward alone decides (BEHAVIOR, whose groundings
    are too big for the builtin search). Both go through the persistent planner cache,
    keyed by the model as planned: the verdict under a budget is the same on every run,
    so a warm sweep plans nothing. ``known``: another reading's definitive verdict, used
    instead of planning when its model is this one (:func:`same_model`; ``reproduce`` passes
    planproof's own, planned just before on the same answer)."""
    from planproof.pddl.ground import GroundingLimitError
    from planproof.pddl.plan_cache import cached_plan
    from planproof.pddl.plan_result import PlanStatus

    model = fd_model(vocabulary, gold, predicted, problem)
    if model.domain is None:
        return FdVerdict(False, "unreadable", model.why, model.rules)
    if "free-variable-add" in model.rules:
        try:
            if _crashes(model.domain, model.problem):
                return FdVerdict(False, "crash", "an add effect names a free variable", model.rules)
        except GroundingLimitError as exc:
            return FdVerdict(False, "budget", str(exc), model.rules)
    if known is not None:
        reused = _known_verdict(model, known)
        if reused is not None:
            return reused
    if max_expansions is None:
        if cpu_budget is None:
            raise ValueError("no planner: neither max_expansions nor cpu_budget")
        return _fast_downward_verdict(model, "no builtin search", cpu_budget)
    res, _ = cached_plan(
        model.domain, model.problem, engine="builtin", max_expansions=max_expansions
    )
    if res.status == PlanStatus.SOLVED:
        found = FdVerdict(True, "solved", "", model.rules, res.expanded)
        return _negative_goal(found, *fd_task(model.domain, model.problem))
    if res.status == PlanStatus.UNSOLVABLE:
        return FdVerdict(False, "unsolvable", res.reason, model.rules, res.expanded)
    # budget, a grounding over its limit (unsupported) or a timeout: no verdict yet
    if cpu_budget is None:
        return FdVerdict(False, "budget", res.reason, model.rules, res.expanded)
    return dataclasses.replace(
        _fast_downward_verdict(model, res.reason, cpu_budget), expanded=res.expanded
    )
