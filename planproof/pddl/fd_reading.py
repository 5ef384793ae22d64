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
planner under a budget of expansions: the verdict is the same on every machine, never a
wall-clock limit. It is meant for any dataset (VirtualHome and BEHAVIOR); nothing here
knows EAI's files.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from planproof.ltl.ast import FALSE, Atom, Const, Formula, map_atoms
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.reader import Problem
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, Operator, When

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
    """An operator as FD reads it (``operator`` None: FD cannot read it, ``problem`` says
    why), with the rules of the module docstring it needed (``rules``)."""

    operator: Operator | None
    problem: str = ""
    rules: frozenset[str] = frozenset()
    constants: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()


@dataclass(frozen=True)
class FdVerdict:
    """The planner's verdict in FD 23.06's reading. ``status``: ``solved``,
    ``unsolvable``, ``unreadable`` (FD's translator refuses the domain), ``crash`` (its
    translator crashes), ``budget`` (planproof's budget spent: no verdict, counted as no
    plan and reported)."""

    success: bool
    status: str
    reason: str = ""
    rules: frozenset[str] = frozenset()
    expanded: int = 0


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
    return {b.type or "object" for b in binders(f)}  # type: ignore[arg-type]


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

    try:
        params = read_parameters(_read(text.parameters))
        scope = frozenset("?" + p.name for p in params)
        free: set[str] = set()
        pre = _bind_free(_read(text.precondition), scope, free)
        eff = _bind_free(_read(text.effect), scope, free)
        names = {p.name for p in params}
        op = Operator(
            text.name.lower(), params, read_condition(pre, names), read_effect(eff, names)
        )
    except (PDDLSyntaxError, ValueError) as exc:
        return FdOperator(None, getattr(exc, "message", str(exc)))
    rules: set[str] = set()
    precondition = map_atoms(op.precondition, _free_false)
    if precondition != op.precondition:
        rules.add("free-variable-condition")
    effects = _effects(op.effects, rules)
    types = {p.type for p in op.params} | _types(op.precondition) | _types(op.effects)
    return FdOperator(
        dataclasses.replace(op, precondition=precondition, effects=effects),
        rules=frozenset(rules),
        constants=frozenset(_constants(op)),
        types=frozenset(types),
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
        if fo.operator is None:
            return FdModel(None, problem, f"operator {t.name}: {fo.problem}", frozenset(rules))
        rules |= fo.rules
        constants |= fo.constants
        types |= fo.types
        name = fo.operator.name
        if name in ops:  # FD keeps both operators of one lower-cased name
            rules.add("case-duplicate-operator")
            name = f"{name}#{len(ops)}"
        ops[name] = dataclasses.replace(fo.operator, name=name)
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


def _crashes(domain: Domain, problem: Problem) -> bool:
    """Whether FD's translator reaches an add of a free variable: :data:`CRASH` reachable
    in the delete relaxation (planproof's grounder answers "unreachable even ignoring
    delete effects" for a goal that is not)."""
    from planproof.pddl.ground import ground_task
    from planproof.pddl.planners import planning_domain

    goal = dataclasses.replace(problem, goal=Atom(CRASH, ()))
    return not ground_task(planning_domain(domain), goal).trivially_unsolvable


def fd_planner_success(
    vocabulary: Domain,
    gold: Mapping[str, OperatorText],
    predicted: Sequence[OperatorText],
    problem: Problem,
    *,
    max_expansions: int,
) -> FdVerdict:
    """Whether FD 23.06 finds a plan for ``problem`` in the reference's domain
    (:func:`fd_model`), decided by planproof's builtin planner under ``max_expansions``."""
    from planproof.pddl.ground import GroundingLimitError
    from planproof.pddl.planners import PlanStatus, plan

    model = fd_model(vocabulary, gold, predicted, problem)
    if model.domain is None:
        return FdVerdict(False, "unreadable", model.why, model.rules)
    if "free-variable-add" in model.rules:
        try:
            if _crashes(model.domain, model.problem):
                return FdVerdict(False, "crash", "an add effect names a free variable", model.rules)
        except GroundingLimitError as exc:
            return FdVerdict(False, "budget", str(exc), model.rules)
    res = plan(model.domain, model.problem, engine="builtin", max_expansions=max_expansions)
    if res.status == PlanStatus.SOLVED:
        return FdVerdict(True, "solved", "", model.rules, res.expanded)
    status = "budget" if res.status in (PlanStatus.BUDGET, PlanStatus.TIMEOUT) else "unsolvable"
    if res.status == PlanStatus.UNSUPPORTED:
        status = "budget"
    return FdVerdict(False, status, res.reason, model.rules, res.expanded)
