"""Compare two operators of one vocabulary with Z3: the core every operator comparison
(``planproof compare-domains``, transition modeling) calls.

Both operators are grounded on one small symbolic universe: the reference's parameters
become objects named ``?x`` (so a ground atom reads as the lifted literal), the
candidate's parameters are bound to the same objects (by position, or by a detected
permutation), and two spare objects per type give quantifiers something to range over.
Quantifiers are expanded and equality decided before Z3 sees anything, so each query is
propositional. Then:

* preconditions: each reference conjunct the candidate does not entail is a *missing
  precondition*, each candidate conjunct the reference does not entail an *extra* one;
* effects: for every ground atom either side may change, its value after the action
  (``add ∨ (atom ∧ ¬del)``, PDDL's delete-then-add) must agree on every state both
  preconditions allow; a state where it does not names the difference (missing add,
  missing delete, extra add/delete, wrong polarity, possibly under a ``when`` condition).

Every counterexample is a Z3 model made subset-minimal: true atoms are dropped one by one
while the state still shows the difference (docs/compare-domains.md).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from planproof.boundary.limits import DEFAULT_RLIMIT
from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Bottom,
    Const,
    Exists,
    Forall,
    Formula,
    ForN,
    Implies,
    Not,
    Or,
    Top,
    map_atoms,
    substitute,
    walk,
)
from planproof.ltl.errors import LTLError
from planproof.ltl.simplify import conj, disj
from planproof.ltl.trace import Universe
from planproof.pddl.compare.model import Finding, OperatorComparison, Verdict, combine
from planproof.pddl.numeric import NUMERIC_PREFIX, NumericEffect, expr_text
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

SMT_RLIMIT = DEFAULT_RLIMIT
"""Z3 resource units one query may spend before the comparison says ``unknown`` (resource
limit). A deterministic count, not seconds: the verdict is the same under any load. The
queries are propositional; the largest on the IPC domains and their mutations spends
1,922 units, on 30 published transition-modeling files 18,614
(``benchmarks/bench_smt_budget.py``). An ``unknown`` is reported as such, never as a
difference."""

MAX_PERMUTED_ARITY = 6
"""Operators with more parameters are compared by position only (6! = 720 orders are
scored syntactically before any Z3 query)."""

MAX_EXPANSION = 200_000
"""Most formula nodes the expansion of one comparison's quantifiers may visit."""

Axioms = Callable[[Universe], Iterable[Formula]]


class UnsupportedComparison(ValueError):
    """A formula outside what the comparison decides (a temporal or counting operator)."""


# --------------------------------------------------------------------------- grounding


def operator_universe(
    domain: Domain,
    ops: Sequence[Operator],
    objects: Mapping[str, str],
    constants: Mapping[str, str] = {},
) -> Universe:
    """The symbolic universe of a comparison or a static check: ``objects`` (object →
    type, one per parameter), the domain's constants, and two spare objects for every type
    a parameter or quantifier of ``ops`` uses."""
    out: dict[str, set[str]] = {}

    def types(t: str) -> set[str]:
        return set(domain.ancestors(t)) if t in domain.types else {t}

    for name, t in {**constants, **objects}.items():
        out.setdefault(name, set()).update(types(t))
    wanted = {p.type for op in ops for p in op.params}
    for op in ops:
        wanted |= binder_types(op)
    for t in sorted(wanted):
        for k in (1, 2):
            name = f"{t}_{k}"
            while name in out:
                name += "'"
            out[name] = types(t)
    return Universe.of(out)


def binder_types(op: Operator) -> set[str]:
    """Types every quantifier of ``op`` (precondition, conditions, forall effects) binds."""
    formulas: list[Formula] = [op.precondition]
    out: set[str] = set()
    stack: list[Effect] = list(op.effects)
    while stack:
        e = stack.pop()
        if isinstance(e, When):
            formulas.append(e.condition)
            stack.extend(e.effects)
        elif isinstance(e, ForallEffect):
            out.add(e.binder.type or "object")
            stack.extend(e.effects)
    for f in formulas:
        out |= {n.binder.type or "object" for n in walk(f) if isinstance(n, Exists | Forall)}
    return out


def decide_equality(a: Atom) -> Formula:
    """``true`` / ``false`` for ``(= c d)`` between two constants; any other atom as is
    (the solver would read ``=`` as a proposition)."""
    if a.pred == "=" and len(a.args) == 2 and all(isinstance(t, Const) for t in a.args):
        return TRUE if a.args[0] == a.args[1] else FALSE
    return a


def expand(f: Formula, universe: Universe, budget: list[int] | None = None) -> Formula:
    """``f`` (ground but for its quantifiers) with quantifiers expanded over ``universe``
    and equality between objects decided: a quantifier-free formula. ``budget`` (one
    count shared by the calls of one comparison) bounds the nodes visited; past it the
    comparison is refused (a hostile nesting of quantifiers), not computed for minutes."""
    if budget is None:
        budget = [MAX_EXPANSION]
    budget[0] -= 1
    if budget[0] < 0:
        raise UnsupportedComparison(f"quantifiers expand to more than {MAX_EXPANSION:,} nodes")
    match f:
        case Atom():
            return decide_equality(f)
        case Top() | Bottom():
            return f
        case Not(body):
            inner = expand(body, universe, budget)
            if isinstance(inner, Top | Bottom):
                return FALSE if isinstance(inner, Top) else TRUE
            return inner.body if isinstance(inner, Not) else Not(inner)
        case And(cs):
            return conj(*(expand(c, universe, budget) for c in cs))
        case Or(cs):
            return disj(*(expand(c, universe, budget) for c in cs))
        case Implies(a, b):
            return disj(expand(Not(a), universe, budget), expand(b, universe, budget))
        case Forall(b, body):
            return conj(
                *(
                    expand(substitute(body, {b.var: o}), universe, budget)
                    for o in universe.of_type(b.type)
                )
            )
        case Exists(b, body):
            return disj(
                *(
                    expand(substitute(body, {b.var: o}), universe, budget)
                    for o in universe.of_type(b.type)
                )
            )
        case ForN(n, b, body):  # exactly n instances hold (BEHAVIOR's state axioms count)
            items = [
                expand(substitute(body, {b.var: o}), universe, budget)
                for o in universe.of_type(b.type)
            ]
            budget[0] -= math.comb(len(items), n) if n <= len(items) else 0
            if budget[0] < 0:
                raise UnsupportedComparison(
                    f"quantifiers expand to more than {MAX_EXPANSION:,} nodes"
                )
            return disj(
                *(
                    conj(*(x if k in chosen else Not(x) for k, x in enumerate(items)))
                    for chosen in map(set, itertools.combinations(range(len(items)), n))
                )
            )
    raise UnsupportedComparison(f"cannot compare a {type(f).__name__} formula")


def holds(f: Formula, true: frozenset[Atom]) -> bool:
    """Truth of a quantifier-free ground formula in the state whose true atoms are ``true``."""
    match f:
        case Atom():
            return f in true
        case Top():
            return True
        case Bottom():
            return False
        case Not(body):
            return not holds(body, true)
        case And(cs):
            return all(holds(c, true) for c in cs)
        case Or(cs):
            return any(holds(c, true) for c in cs)
        case Implies(a, b):
            return not holds(a, true) or holds(b, true)
    raise UnsupportedComparison(f"cannot evaluate a {type(f).__name__} formula")


def conjuncts(f: Formula) -> tuple[Formula, ...]:
    """The top-level conjuncts of ``f`` (``f`` itself when it is no conjunction)."""
    if isinstance(f, And):
        return tuple(c for x in f.children for c in conjuncts(x))
    return () if isinstance(f, Top) else (f,)


def text(f: Formula) -> str:
    """PDDL-like text of a ground formula (objects named ``?x`` read as variables)."""
    match f:
        case Atom(pred, args):
            return "(" + " ".join([pred, *(a.name for a in args)]) + ")"
        case Top():
            return "(and)"
        case Bottom():
            return "(or)"
        case Not(body):
            return f"(not {text(body)})"
        case And(cs):
            return "(and " + " ".join(text(c) for c in cs) + ")"
        case Or(cs):
            return "(or " + " ".join(text(c) for c in cs) + ")"
        case Implies(a, b):
            return f"(imply {text(a)} {text(b)})"
    return repr(f)


@dataclass
class EffectTable:
    """Per ground atom, the conditions under which an operator adds and deletes it."""

    adds: dict[Atom, list[Formula]] = field(default_factory=dict)
    dels: dict[Atom, list[Formula]] = field(default_factory=dict)
    numeric: bool = False
    bound: dict[str, str] = field(default_factory=dict)
    """Spare object → the ``forall`` variable it stood for (to write findings lifted)."""

    def add_condition(self, a: Atom) -> Formula:
        return disj(*self.adds.get(a, ()))

    def delete_condition(self, a: Atom) -> Formula:
        return disj(*self.dels.get(a, ()))

    def next_value(self, a: Atom) -> Formula:
        """``a`` after the action: added, or true before and not deleted."""
        return disj(self.add_condition(a), conj(a, Not(self.delete_condition(a))))

    def atoms(self) -> list[Atom]:
        return list(dict.fromkeys([*self.adds, *self.dels]))


def effect_table(
    effects: Iterable[Effect],
    env: Mapping[str, str],
    universe: Universe,
    budget: list[int] | None = None,
) -> EffectTable:
    """Ground ``effects`` under ``env`` (variable → object), expanding ``forall``
    (``budget`` as for :func:`expand`)."""
    table = EffectTable()

    def walk_effects(items: Iterable[Effect], cond: Formula, env: Mapping[str, str]) -> None:
        for e in items:
            match e:
                case Add(atom) | Delete(atom):
                    ground = substitute(atom, dict(env))
                    assert isinstance(ground, Atom)
                    side = table.adds if isinstance(e, Add) else table.dels
                    side.setdefault(ground, []).append(cond)
                case When(c, inner):
                    here = expand(substitute(c, dict(env)), universe, budget)
                    walk_effects(inner, conj(cond, here), env)
                case ForallEffect(b, inner):
                    for o in universe.of_type(b.type):
                        if not o.startswith("?"):
                            table.bound.setdefault(o, b.var)
                        walk_effects(inner, cond, {**env, b.var: o})
                case NumericEffect():
                    table.numeric = True

    walk_effects(effects, TRUE, env)
    return table


# --------------------------------------------------------------------------- Z3 queries


@dataclass
class _Solver:
    """Counts the Z3 queries of one comparison and turns models into minimal states.

    Only the background conjuncts (state axioms) connected to a query's atoms are sent
    with it: the others mention atoms nothing else constrains and, the axioms being
    satisfiable, cannot change the answer; they only cost encoding time."""

    universe: Universe
    background: Formula
    rlimit: int
    queries: int = 0
    unknown: bool = False
    reason: str = ""
    _parts: list[tuple[Formula, frozenset[Atom]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._parts = [(c, _atoms(c)) for c in conjuncts(self.background)]

    def _relevant(self, f: Formula) -> Formula:
        atoms = set(_atoms(f))
        left = list(self._parts)
        taken: list[Formula] = []
        grew = True
        while grew:
            grew = False
            rest = []
            for c, ats in left:
                if atoms & ats or not ats:  # an atom-free part (false) always counts
                    taken.append(c)
                    atoms |= ats
                    grew = True
                else:
                    rest.append((c, ats))
            left = rest
        return conj(*taken, f)

    def witness(self, f: Formula) -> frozenset[Atom] | None:
        """A subset-minimal state satisfying ``f`` and the background, or None (none
        exists, or Z3 gave up: then ``unknown`` is set)."""
        from planproof.ltl.smt import satisfiable

        goal = self._relevant(f)
        if goal == FALSE:
            return None
        self.queries += 1
        res = satisfiable(goal, self.universe, rlimit=self.rlimit)
        if res.unknown:
            self.unknown = True
            self.reason = res.reason
        if not res.sat or res.model is None:
            return None
        state = set(res.model)
        for a in sorted(res.model, key=text):
            state.discard(a)
            if not holds(goal, frozenset(state)):
                state.add(a)
        return frozenset(state)


def _atoms(f: Formula) -> frozenset[Atom]:
    return frozenset(x for x in walk(f) if isinstance(x, Atom))


def _state_text(state: frozenset[Atom] | None) -> tuple[str, ...]:
    return tuple(sorted(text(a) for a in state or ()))


# --------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Context:
    """What comparing operators needs from the reference domain: its types (for the
    universe and for parameter types), its constants and its state axioms, if any."""

    domain: Domain
    constants: Mapping[str, str] = field(default_factory=dict)
    axioms: Axioms | None = None
    rlimit: int = SMT_RLIMIT


def compare_operators(
    reference: Operator, candidate: Operator, context: Context
) -> OperatorComparison:
    """The verdict on ``candidate`` (already in the reference's vocabulary) against
    ``reference`` (see the module docstring). Never raises for what a candidate contains:
    a formula the comparison cannot decide becomes an ``unsupported`` finding."""
    try:
        return _compare(reference, candidate, context)
    except (UnsupportedComparison, LTLError, ValueError, RecursionError) as exc:
        finding = Finding(reference.name, "unsupported", "", f"not compared: {exc}")
        return OperatorComparison(reference.name, candidate.name, Verdict.UNKNOWN, (finding,))


_VARIABLE = re.compile(r"\?([^\s()]+)")


def _numeric_atom(a: Atom) -> Atom:
    """A numeric comparison's reserved atom (``#(>= (fuel ?p) 1)``, variables in the order
    of its arguments) with its variables named by position, so that the same comparison
    written with other variable names is the same atom."""
    if not a.pred.startswith(NUMERIC_PREFIX):
        return a
    index = {t.name: i for i, t in enumerate(a.args) if not isinstance(t, Const)}
    pred = _VARIABLE.sub(lambda m: f"?{index.get(m.group(1), m.group(1))}", a.pred)
    return Atom(pred, a.args)


def _with_numeric_normal(op: Operator) -> Operator:
    if not any(
        isinstance(x, Atom) and x.pred.startswith(NUMERIC_PREFIX) for x in walk(op.precondition)
    ):
        return op
    return dataclasses.replace(op, precondition=map_atoms(op.precondition, _numeric_atom))


def _numeric_effects(op: Operator, env: Mapping[str, str]) -> list[str]:
    """Every numeric effect of ``op`` as text, variables replaced by their objects."""
    out = []
    for e in all_effects(op.effects):
        if isinstance(e, NumericEffect):
            t = f"({e.op} {expr_text(e.fluent)} {expr_text(e.value)})"
            out.append(_VARIABLE.sub(lambda m: env.get(m.group(1), "?" + m.group(1)), t))
    return sorted(out)


def _compare(reference: Operator, candidate: Operator, ctx: Context) -> OperatorComparison:
    name = reference.name
    reference, candidate = _with_numeric_normal(reference), _with_numeric_normal(candidate)
    if len(reference.params) != len(candidate.params):
        return _wrong_arity(reference, candidate, ctx)
    orders = _orders(reference, candidate, ctx.domain)
    first = _under(reference, candidate, orders[0], ctx)
    if first.verdict is Verdict.EQUIVALENT or len(orders) == 1:
        return first
    second = _under(reference, candidate, orders[1], ctx)
    if len(second.findings) >= len(first.findings) and second.verdict is not Verdict.EQUIVALENT:
        return first
    moved = [f"its parameter {j + 1} is the reference's {i + 1}" for j, i in enumerate(orders[1])]
    declared = " ".join(f"?{p.name}" for p in candidate.params)
    wanted = " ".join(f"?{p.name}" for p in reference.params)
    swapped = Finding(
        name,
        "swapped-parameters",
        f"({declared})",
        f"the candidate declares ({declared}) against the reference's ({wanted}) and "
        "matches it only with the parameters reordered: "
        + ", ".join(m for m, (j, i) in zip(moved, enumerate(orders[1]), strict=True) if i != j),
    )
    return OperatorComparison(
        name,
        candidate.name,
        combine(second.verdict, Verdict.INCOMPARABLE),
        (swapped, *second.findings),
        second.parameters,
        first.queries + second.queries,
    )


Order = tuple[int | None, ...]
"""For each candidate parameter, the reference parameter it is bound to (None: none)."""


def _candidate_env(reference: Operator, candidate: Operator, order: Order) -> dict[str, str]:
    taken = {f"?{p.name}" for p in reference.params}
    env = {}
    for p, i in zip(candidate.params, order, strict=True):
        if i is not None:
            env[p.name] = f"?{reference.params[i].name}"
        else:
            obj = f"?{p.name}"
            while obj in taken:
                obj += "'"
            taken.add(obj)
            env[p.name] = obj
    return env


def _wrong_arity(reference: Operator, candidate: Operator, ctx: Context) -> OperatorComparison:
    """A different number of parameters: say so, then compare under the binding of the
    shared parameters that shares the most literals, so the rest of the review still
    says what else differs."""
    n, m = len(reference.params), len(candidate.params)
    order = _arity_order(reference, candidate, ctx.domain)
    inner = _under(reference, candidate, order, ctx)
    unbound = [f"?{p.name}" for p, i in zip(candidate.params, order, strict=True) if i is None]
    bound = {i for i in order if i is not None}
    lacking = [f"?{p.name}" for k, p in enumerate(reference.params) if k not in bound]
    detail = (
        f"; the candidate's {', '.join(unbound)} has no counterpart"
        if unbound
        else f"; the reference's {', '.join(lacking)} has no counterpart"
    )
    finding = Finding(
        reference.name,
        "wrong-arity",
        "(" + " ".join(f"?{p.name}" for p in candidate.params) + ")",
        f"the reference takes {n} parameters, the candidate {m}" + detail,
    )
    verdict = Verdict.UNKNOWN if inner.verdict is Verdict.UNKNOWN else Verdict.INCOMPARABLE
    return OperatorComparison(
        reference.name,
        candidate.name,
        verdict,
        (finding, *inner.findings),
        inner.parameters,
        inner.queries,
    )


def _arity_order(reference: Operator, candidate: Operator, domain: Domain) -> Order:
    """The type-compatible binding of min(n, m) parameters sharing the most literals
    (positional when there are more than MAX_PERMUTED_ARITY parameters)."""
    n, m = len(reference.params), len(candidate.params)
    k = min(n, m)
    positional: Order = tuple(j if j < k else None for j in range(m))
    if max(n, m) > MAX_PERMUTED_ARITY:
        return positional
    ref_sig = _signature(reference, {p.name: f"?{p.name}" for p in reference.params})
    best, best_score = positional, -1
    for cand_pos in itertools.combinations(range(m), k):
        for ref_pos in itertools.permutations(range(n), k):
            slots: list[int | None] = [None] * m
            for c, r in zip(cand_pos, ref_pos, strict=True):
                slots[c] = r
            order = tuple(slots)
            if not all(
                _related(domain, candidate.params[j].type, reference.params[i].type)
                for j, i in enumerate(order)
                if i is not None
            ):
                continue
            score = len(
                ref_sig & _signature(candidate, _candidate_env(reference, candidate, order))
            )
            if score > best_score:
                best, best_score = order, score
    return best


def _orders(reference: Operator, candidate: Operator, domain: Domain) -> list[tuple[int, ...]]:
    """The positional order, then the best-scoring other order of the candidate's
    parameters (candidate position j ↦ reference position order[j]), if one scores higher.
    Scoring is syntactic (shared literals), so no Z3 query is spent on hopeless orders."""
    n = len(reference.params)
    identity = tuple(range(n))
    if n < 2 or n > MAX_PERMUTED_ARITY:
        return [identity]
    ref_sig = _signature(reference, {p.name: f"?{p.name}" for p in reference.params})

    def score(order: tuple[int, ...]) -> int:
        env = {
            candidate.params[j].name: f"?{reference.params[i].name}" for j, i in enumerate(order)
        }
        return len(ref_sig & _signature(candidate, env))

    def fits(order: tuple[int, ...]) -> bool:
        return all(
            _related(domain, candidate.params[j].type, reference.params[i].type)
            for j, i in enumerate(order)
        )

    base = score(identity)
    best, best_score = identity, base
    for order in itertools.permutations(range(n)):
        if order != identity and fits(order):
            s = score(order)
            if s > best_score:
                best, best_score = order, s
    return [identity] if best == identity else [identity, best]


def _related(domain: Domain, a: str, b: str) -> bool:
    if a == b:
        return True
    if a not in domain.types or b not in domain.types:
        return False
    return domain.is_subtype(a, b) or domain.is_subtype(b, a)


def _signature(op: Operator, env: dict[str, str]) -> set[tuple[str, str]]:
    out = {("pre", text(substitute(c, env))) for c in conjuncts(op.precondition)}
    stack: list[Effect] = list(op.effects)
    while stack:
        e = stack.pop()
        if isinstance(e, Add | Delete):
            out.add((type(e).__name__, text(substitute(e.atom, env))))
        elif isinstance(e, When | ForallEffect):
            stack.extend(e.effects)
    return out


def _under(
    reference: Operator, candidate: Operator, order: Order, ctx: Context
) -> OperatorComparison:
    """The comparison with candidate parameter j bound to reference parameter order[j]
    (None: a parameter the reference lacks, bound to an object of its own)."""
    name = reference.name
    env_r = {p.name: f"?{p.name}" for p in reference.params}
    env_c = _candidate_env(reference, candidate, order)
    objects = {f"?{p.name}": p.type for p in reference.params}
    objects |= {
        env_c[p.name]: p.type for p, i in zip(candidate.params, order, strict=True) if i is None
    }
    universe = operator_universe(ctx.domain, (reference, candidate), objects, ctx.constants)
    _guard((reference, candidate), universe)
    budget = [MAX_EXPANSION]
    axioms = (
        conj(*(expand(a, universe, budget) for a in ctx.axioms(universe))) if ctx.axioms else TRUE
    )
    solver = _Solver(universe, axioms, ctx.rlimit)
    findings: list[Finding] = []
    verdict = Verdict.EQUIVALENT
    for j, i in enumerate(order):
        if i is None:
            continue
        t_r, t_c = reference.params[i].type, candidate.params[j].type
        if t_r != t_c:
            found, v = _type_finding(name, reference.params[i].name, t_r, t_c, ctx.domain)
            findings.append(found)
            verdict = combine(verdict, v)
    pre_r = expand(substitute(reference.precondition, env_r), universe, budget)
    pre_c = expand(substitute(candidate.precondition, env_c), universe, budget)
    pre_findings, pre_verdict = _preconditions(name, pre_r, pre_c, solver)
    findings += pre_findings
    verdict = combine(verdict, pre_verdict)
    eff = _effects(
        name,
        effect_table(reference.effects, env_r, universe, budget),
        effect_table(candidate.effects, env_c, universe, budget),
        conj(pre_r, pre_c),
        solver,
        frozenset(universe.names) - set(objects) - set(ctx.constants),
    )
    findings += eff
    num_r, num_c = _numeric_effects(reference, env_r), _numeric_effects(candidate, env_c)
    if num_r != num_c:
        eff = [*eff, _numeric_finding(name, num_r, num_c)]
        findings.append(eff[-1])
    if eff:
        verdict = combine(verdict, Verdict.INCOMPARABLE)
    if solver.unknown:
        verdict = Verdict.UNKNOWN
        why = (
            f"unknown (resource limit): Z3 spent its budget of {solver.rlimit:,} units on a query"
            if solver.reason == "budget"
            else f"Z3 gave up on a query ({solver.reason})"
        )
        findings.append(Finding(name, "unknown", "", why))
    pairs = tuple(
        (reference.params[i].name, candidate.params[j].name)
        for j, i in sorted(
            ((j, i) for j, i in enumerate(order) if i is not None), key=lambda x: x[1]
        )
    )
    return OperatorComparison(name, candidate.name, verdict, tuple(findings), pairs, solver.queries)


def _numeric_finding(op: str, ref: list[str], cand: list[str]) -> Finding:
    """Numeric effects (action costs, fuel) are compared as written, up to order and
    variable names; docs/compare-domains.md."""
    missing = [t for t in ref if t not in cand]
    extra = [t for t in cand if t not in ref]
    parts = ([f"lacks {', '.join(missing)}"] if missing else []) + (
        [f"adds {', '.join(extra)}"] if extra else []
    )
    literal = (missing or extra)[0]
    return Finding(op, "numeric-effect", literal, "the candidate " + " and ".join(parts))


def _guard(ops: Sequence[Operator], universe: Universe) -> None:
    """Refuse, before grounding anything, ``forall`` effects nested so deep that their
    instances would exceed MAX_EXPANSION (conditions are bounded inside :func:`expand`)."""
    for op in ops:
        stack: list[tuple[Effect, int]] = [(e, 1) for e in op.effects]
        while stack:
            e, times = stack.pop()
            if isinstance(e, When):
                stack.extend((x, times) for x in e.effects)
            elif isinstance(e, ForallEffect):
                times *= max(1, len(universe.of_type(e.binder.type)))
                if times > MAX_EXPANSION:
                    raise UnsupportedComparison(
                        f"forall effects ground to more than {MAX_EXPANSION:,} instances"
                    )
                stack.extend((x, times) for x in e.effects)


def _type_finding(
    op: str, param: str, t_ref: str, t_cand: str, domain: Domain
) -> tuple[Finding, Verdict]:
    known = t_ref in domain.types and t_cand in domain.types
    if known and domain.is_subtype(t_cand, t_ref):
        how, v = "narrower", Verdict.STRONGER
    elif known and domain.is_subtype(t_ref, t_cand):
        how, v = "wider", Verdict.WEAKER
    else:
        how, v = "unrelated", Verdict.INCOMPARABLE
    message = f"?{param} is of type {t_cand} in the candidate, {t_ref} in the reference ({how})"
    return Finding(op, "parameter-type", f"?{param} - {t_cand}", message), v


def _preconditions(
    op: str, pre_r: Formula, pre_c: Formula, solver: _Solver
) -> tuple[list[Finding], Verdict]:
    """Missing and extra precondition conjuncts, each with a minimal counterexample."""
    if pre_r == pre_c:
        return [], Verdict.EQUIVALENT
    missing = _blame(op, "missing-precondition", pre_c, pre_r, solver)
    extra = _blame(op, "extra-precondition", pre_r, pre_c, solver)
    findings = [*(missing or []), *(extra or [])]
    if missing is not None and extra is not None:
        return findings, Verdict.INCOMPARABLE
    if missing is not None:
        return findings, Verdict.WEAKER
    if extra is not None:
        return findings, Verdict.STRONGER
    return findings, Verdict.EQUIVALENT


def _blame(
    op: str, kind: str, allowed: Formula, required: Formula, solver: _Solver
) -> list[Finding] | None:
    """None when ``allowed`` entails ``required``; else one finding per conjunct of
    ``required`` that ``allowed`` does not entail, with a minimal state showing it."""
    if solver.witness(conj(allowed, Not(required))) is None:
        return None  # one query settles it when nothing is missing
    out = []
    given = set(conjuncts(allowed))
    for lit in conjuncts(required):
        if lit in given:
            continue  # a conjunct of ``allowed`` itself: entailed without a query
        state = solver.witness(conj(allowed, Not(lit)))
        if state is not None:
            why = (
                f"the candidate does not require {text(lit)}: it applies in a state where "
                "the reference does not"
                if kind == "missing-precondition"
                else f"the candidate also requires {text(lit)}: it refuses a state the "
                "reference accepts"
            )
            out.append(Finding(op, kind, text(lit), why, _state_text(state)))
    return out


def _effects(  # noqa: PLR0917 - both tables, the shared precondition and the spares
    op: str,
    ref: EffectTable,
    cand: EffectTable,
    both: Formula,
    solver: _Solver,
    spares: frozenset[str],
) -> list[Finding]:
    """One finding per ground atom whose value after the action can differ (one per
    lifted literal: the instances of a ``forall`` effect on ``spares`` count once)."""
    differ: list[tuple[Atom, Formula]] = []
    for a in dict.fromkeys([*ref.atoms(), *cand.atoms()]):
        if ref.adds.get(a) == cand.adds.get(a) and ref.dels.get(a) == cand.dels.get(a):
            continue
        nr, nc = ref.next_value(a), cand.next_value(a)
        differ.append((a, disj(conj(nr, Not(nc)), conj(Not(nr), nc))))
    if not differ or solver.witness(conj(both, disj(*(d for _, d in differ)))) is None:
        return []
    names = {o: v for o, v in {**cand.bound, **ref.bound}.items() if o in spares}
    out: list[Finding] = []
    seen: set[str] = set()
    for a, d in differ:
        if _lift(a, names) in seen:
            continue  # another instance of the same forall effect already showed it
        state = solver.witness(conj(both, d))
        if state is not None:
            seen.add(_lift(a, names))
            out.append(_effect_finding(op, a, ref, cand, state, names))
    return out


def _lift(f: Formula, names: Mapping[str, str]) -> str:
    """Text of ``f`` with the spare objects of ``forall`` effects written as their
    variables (``(served ?p)``, not ``(served passenger_1)``)."""
    if not names:
        return text(f)

    def rename(a: Atom) -> Formula:
        args = tuple(
            Const("?" + names[t.name]) if isinstance(t, Const) and t.name in names else t
            for t in a.args
        )
        return Atom(a.pred, args)

    return text(map_atoms(f, rename))


def _effect_finding(  # noqa: PLR0917 - the two tables and the state travel together
    op: str,
    a: Atom,
    ref: EffectTable,
    cand: EffectTable,
    state: frozenset[Atom],
    names: Mapping[str, str],
) -> Finding:
    def does(t: EffectTable) -> tuple[str, str]:
        """What ``t`` does to ``a`` in ``state`` ("add", "delete" or "none"), and the
        ``when`` condition it does it under ("" when unconditional)."""
        for kind, side in (("add", t.adds), ("delete", t.dels)):
            conds = [c for c in side.get(a, ()) if holds(c, state)]
            if conds:
                return kind, "" if TRUE in conds else _lift(conds[0], names)
        return "none", ""

    r, r_cond = does(ref)
    c, c_cond = does(cand)
    lit = _lift(a, names)
    if (r, c) == ("add", "none"):
        kind, msg = "missing-add", f"the candidate does not add {lit}"
    elif (r, c) == ("delete", "none"):
        kind, msg = "missing-delete", f"the candidate does not delete {lit}"
    elif (r, c) == ("none", "add"):
        kind, msg = "extra-add", f"the candidate adds {lit}, the reference does not"
    elif (r, c) == ("none", "delete"):
        kind, msg = "extra-delete", f"the candidate deletes {lit}, the reference does not"
    else:
        kind = "wrong-polarity"
        msg = f"the reference {_verb(r)} {lit} where the candidate {_verb(c)} it"
    cond = r_cond or c_cond
    if cond:
        msg += f" (when {cond})"
    negated = kind in ("missing-delete", "extra-delete") or (
        kind == "wrong-polarity" and c == "delete"
    )
    return Finding(
        op,
        kind,
        f"(not {lit})" if negated else lit,
        msg,
        tuple(sorted({_lift(x, names) for x in state})),
        cond,
    )


def _verb(kind: str) -> str:
    return {"add": "adds", "delete": "deletes"}.get(kind, "leaves")
