"""Compiling a domain and problem into grounded STRIPS, for planners that read nothing
else (pyperplan).

Every operator is instantiated over the problem's typed objects; conditions are evaluated
against the static facts (predicates no effect changes), quantifiers are expanded, the
rest is put in disjunctive normal form and each disjunct becomes one STRIPS action. A
conditional effect whose condition still depends on the state splits the action into a
variant where the condition holds and variants where it fails. Negative conditions are
compiled into complement facts that every effect keeps up to date. A relaxed
reachability pass drops actions that can never fire. Bounded: too many disjuncts or
conditional effects raise :class:`GroundingLimitError`.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import product

from planproof.ltl.ast import (
    And,
    Atom,
    Bottom,
    Const,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Top,
    Var,
    atoms,
)
from planproof.ltl.nnf import nnf
from planproof.pddl.reader import ROOT_TYPE, Problem
from planproof.pddl.schema import (
    Add,
    Delete,
    Domain,
    Effect,
    ForallEffect,
    Operator,
    When,
    operator_atoms,
)

MAX_DISJUNCTS = 256
MAX_ACTIONS = 200_000

Lit = tuple[Atom, bool]
Conj = frozenset[Lit]


class GroundingLimitError(ValueError):
    """The grounded task would be too large to hand to a STRIPS planner."""


class GroundingTimeout(Exception):
    """The caller's deadline passed while grounding: no verdict (a planner reports it as
    ``timeout``, never ``unsolvable``)."""


CLOCK_EVERY = 64
"""Ground instances (or reachability steps / 64) between two looks at the clock."""


def _check_clock(deadline: float | None) -> None:
    if deadline is not None and time.process_time() > deadline:
        raise GroundingTimeout("the time limit was reached while grounding")


@dataclass(frozen=True)
class StripsTask:
    """A grounded task as PDDL text; ``actions`` maps each grounded action's name to the
    original (operator, arguments); goal actions are absent from it."""

    domain_text: str
    problem_text: str
    actions: Mapping[str, tuple[str, tuple[str, ...]]]
    trivially_unsolvable: str = ""
    n_actions: int = 0
    n_facts: int = 0


class _Grounder:
    def __init__(self, domain: Domain, problem: Problem, deadline: float | None = None) -> None:
        self.domain = domain
        self.deadline = deadline
        objs = {**problem.constants, **problem.objects}
        self.by_type: dict[str, list[str]] = {}
        for o, t in sorted(objs.items()):
            for anc in domain.ancestors(t) if t in domain.types else (t, ROOT_TYPE):
                self.by_type.setdefault(anc, []).append(o)
        self.by_type.setdefault(ROOT_TYPE, sorted(objs))
        self.static = domain.static_predicates
        self.init = problem.init
        self._atoms: dict[tuple[str, tuple[str, ...]], Atom] = {}
        self.facts: dict[str, set[tuple[str, ...]]] = {}
        for a in problem.init:
            if a.pred in self.static:
                self.facts.setdefault(a.pred, set()).add(tuple(t.name for t in a.args))
        # what compiling an operator reads of the task (besides its static predicates, in
        # the memo's key): the objects of each type and the initial facts. Not the
        # domain's type table itself, so that the reference reading's domain (an extra
        # type no object has, :mod:`planproof.pddl.fd_reading`) shares the compiled gold
        # operators with planproof's reading of the same task
        ctx = (tuple((t, tuple(os)) for t, os in sorted(self.by_type.items())), problem.init)
        if len(_CONTEXTS) > MAX_CACHED_OPERATORS:
            _CONTEXTS.clear()  # old ids may then be reused by a new context: forget those too
            _OPERATORS.clear()
        self.context = _CONTEXTS.setdefault(ctx, len(_CONTEXTS))

    def objects(self, t: str | None) -> list[str]:
        return self.by_type.get(t or ROOT_TYPE, [])

    def ground(self, a: Atom, env: Mapping[str, str]) -> Atom:
        """``a`` under ``env``: one :class:`Atom` per ground atom of the task (a grounding
        builds the same atoms for many instances; building one costs its key and hash)."""
        names = tuple(t.name if isinstance(t, Const) else env[t.name] for t in a.args)
        key = (a.pred, names)
        g = self._atoms.get(key)
        if g is None:
            g = self._atoms[key] = Atom(a.pred, tuple(map(Const, names)))
        return g

    # formulas -> simplified ground formulas
    def simplify(self, f: Formula, env: Mapping[str, str]) -> Formula:
        match f:
            case Atom():
                g = self.ground(f, env)
                if g.pred == "=":
                    return Top() if g.args[0] == g.args[1] else Bottom()
                if g.pred in self.static:
                    return Top() if g in self.init else Bottom()
                return g
            case Top() | Bottom():
                return f
            case Not(body):
                b = self.simplify(body, env)
                return (
                    Bottom() if isinstance(b, Top) else Top() if isinstance(b, Bottom) else Not(b)
                )
            case And(cs):
                return _and(self.simplify(c, env) for c in cs)
            case Or(cs):
                return _or(self.simplify(c, env) for c in cs)
            case Implies(a, b):
                return _or([self.simplify(Not(a), env), self.simplify(b, env)])
            case Exists(b, body):
                return _or(self.simplify(body, {**env, b.var: o}) for o in self.objects(b.type))
            case Forall(b, body):
                return _and(self.simplify(body, {**env, b.var: o}) for o in self.objects(b.type))
        raise GroundingLimitError(f"{type(f).__name__} cannot appear in a condition")

    def effects(
        self, effects: tuple[Effect, ...], env: Mapping[str, str], cond: Formula
    ) -> Iterator[tuple[Formula, Lit]]:
        for e in effects:
            match e:
                case Add(atom) | Delete(atom):
                    yield cond, (self.ground(atom, env), isinstance(e, Add))
                case When(c, inner):
                    sc = _and([cond, self.simplify(c, env)])
                    if not isinstance(sc, Bottom):
                        yield from self.effects(inner, env, sc)
                case ForallEffect(b, inner):
                    for o in self.objects(b.type):
                        yield from self.effects(inner, {**env, b.var: o}, cond)


def _and(parts: object) -> Formula:
    out: list[Formula] = []
    for p in parts:  # type: ignore[attr-defined]
        if isinstance(p, Bottom):
            return Bottom()
        if isinstance(p, Top):
            continue
        out.extend(p.children if isinstance(p, And) else (p,))
    out = list(dict.fromkeys(out))
    return Top() if not out else out[0] if len(out) == 1 else And(tuple(out))


def _or(parts: object) -> Formula:
    out: list[Formula] = []
    for p in parts:  # type: ignore[attr-defined]
        if isinstance(p, Top):
            return Top()
        if isinstance(p, Bottom):
            continue
        out.extend(p.children if isinstance(p, Or) else (p,))
    out = list(dict.fromkeys(out))
    return Bottom() if not out else out[0] if len(out) == 1 else Or(tuple(out))


def dnf(f: Formula, positive: bool = True, limit: int = MAX_DISJUNCTS) -> list[Conj]:
    """Disjunctive normal form of a quantifier-free ground formula, as consistent sets
    of literals (contradictory disjuncts are dropped); more than ``limit`` disjuncts
    raise :class:`GroundingLimitError`."""
    match f:
        case Top() | Bottom():
            return [frozenset()] if isinstance(f, Top) == positive else []
        case Atom():
            return [frozenset({(f, positive)})]
        case Not(body):
            return dnf(body, not positive, limit)
        case And(cs) | Or(cs):
            conj = isinstance(f, And) == positive
            subs = [dnf(c, positive, limit) for c in cs]
            if not conj:
                out = [d for s in subs for d in s]
            else:
                out = [frozenset()]
                for s in subs:
                    out = [a | b for a in out for b in s if _consistent(a | b)]
                    if len(out) > limit:
                        raise GroundingLimitError(f"more than {limit} disjuncts")
            out = list(dict.fromkeys(out))
            if len(out) > limit:
                raise GroundingLimitError(f"more than {limit} disjuncts")
            return out
        case Implies(a, b):
            return dnf(Or((Not(a), b)), positive, limit)
    raise GroundingLimitError(f"{type(f).__name__} cannot be put in DNF")


def _small_dnf(f: Formula, limit: int) -> list[Conj] | None:
    try:
        return dnf(f, True, limit)
    except GroundingLimitError:
        return None


def _consistent(c: Conj) -> bool:
    return not any((a, not v) in c for a, v in c)


Fact = tuple[Atom, bool]
"""A STRIPS fact: an atom (``True``) or its complement (``False``); control facts of the
compilation are atoms whose predicate starts with ``_``."""

Origin = tuple[str, tuple[str, ...]] | None
"""The (operator, arguments) a grounded action stands for; None for a control step."""

MAX_VARIANTS = 64
"""Most STRIPS variants one action instance may be split into."""

MAX_SPLIT = 3
"""Up to this many state-dependent conditional effects an action is split into variants
(2**k of them); beyond it the effects are applied in a forced sequence of steps."""


@dataclass(frozen=True)
class GroundAction:
    """A grounded STRIPS action; ``origin`` is the (operator, arguments) it stands for, or
    None for a step of the conditional-effect sequence or a goal action."""

    name: str
    pre: frozenset[Fact]
    adds: frozenset[Fact]
    dels: frozenset[Fact]
    origin: tuple[str, tuple[str, ...]] | None


def _effect_facts(lits: Iterable[Lit]) -> tuple[set[Fact], set[Fact]]:
    """(adds, dels) of literal effects, add winning over delete (PDDL semantics); the
    complement facts are filled in later."""
    lits = list(lits)
    adds = {a for a, v in lits if v}
    dels = {a for a, v in lits if not v} - adds
    return {(a, True) for a in adds}, {(a, True) for a in dels}


@functools.lru_cache(maxsize=65_536)
def _control(name: str, *args: str) -> Fact:
    """A control fact (immutable: built once per process, not per grounding)."""
    return Atom("_" + name, tuple(Const(a) for a in args)), True


class _Compiler:
    def __init__(self) -> None:
        self.actions: list[GroundAction] = []
        self.instances = 0
        self.max_steps = 0

    def add(self, act: GroundAction) -> None:
        self.actions.append(act)
        if len(self.actions) > MAX_ACTIONS:
            raise GroundingLimitError(f"more than {MAX_ACTIONS} grounded actions")

    def instance(
        self, op: str, args: tuple[str, ...], pre: Formula, effects: list[tuple[Formula, Lit]]
    ) -> None:
        uncond = [lit for c, lit in effects if isinstance(c, Top)]
        conditional: dict[Formula, list[Lit]] = {}
        for c, lit in effects:
            if not isinstance(c, Top):
                conditional.setdefault(c, []).append(lit)
        origin = (op, args)
        conds = list(conditional)
        if len(conds) <= MAX_SPLIT:
            mark = len(self.actions)
            try:
                self._split(origin, pre, uncond, conditional)
                return
            except GroundingLimitError:
                del self.actions[mark:]
        self._sequence(origin, pre, uncond, conditional)

    def _split(
        self,
        origin: tuple[str, tuple[str, ...]],
        pre: Formula,
        uncond: list[Lit],
        conditional: dict[Formula, list[Lit]],
    ) -> None:
        """Few conditional effects: one action variant per combination of conditions."""
        conds = list(conditional)
        mark = len(self.actions)
        for truth in product((True, False), repeat=len(conds)):
            f = _and([pre, *(c if t else Not(c) for c, t in zip(conds, truth, strict=True))])
            lits = list(uncond)
            for c, t in zip(conds, truth, strict=True):
                if t:
                    lits.extend(conditional[c])
            adds, dels = _effect_facts(lits)
            for d in dnf(f):
                self.add(
                    GroundAction(
                        f"a{len(self.actions)}",
                        frozenset(d),
                        frozenset(adds),
                        frozenset(dels),
                        origin,
                    )
                )
                if len(self.actions) - mark > MAX_VARIANTS:
                    raise GroundingLimitError("too many variants; use a sequence")

    def _sequence(
        self,
        origin: tuple[str, tuple[str, ...]],
        pre: Formula,
        uncond: list[Lit],
        conditional: dict[Formula, list[Lit]],
    ) -> None:
        """Large conditions or many conditional effects: a forced sequence of steps under a
        lock. ``start`` takes the lock; the precondition is checked part by part (a
        failing part leads to a dead end); each conditional effect's condition is
        evaluated, in the state before the action as PDDL reads it, into a yes/no flag;
        then every deletion is applied, then every addition (so an addition wins, as in
        PDDL); ``finish`` applies nothing more and releases the lock. Linear in the size
        of the conditions, where DNF splitting is exponential."""
        inst = str(self.instances)
        self.instances += 1
        doing = _control("do", inst)
        free = _control("free")
        none: set[Fact] = set()
        counter = iter(range(1, 1 << 30))
        edges: list[tuple[int, frozenset[Fact], int | None, set[Fact], set[Fact]]] = []

        def emit(f: Formula, here: int, yes: int, no: int) -> None:
            pos, neg = _small_dnf(f, SMALL), _small_dnf(Not(f), SMALL)
            if pos is not None and neg is not None:
                edges.extend((here, d, yes, none, none) for d in pos)
                edges.extend((here, d, no, none, none) for d in neg)
                return
            g = nnf(f, conj=_and, disj=_or)
            if not isinstance(g, And | Or):
                raise GroundingLimitError(f"{origin[0]}{origin[1]}: condition too large")
            cur = here
            for k, part in enumerate(g.children):
                last = k == len(g.children) - 1
                nxt = (yes if isinstance(g, And) else no) if last else next(counter)
                if isinstance(g, And):
                    emit(part, cur, nxt, no)
                else:
                    emit(part, cur, yes, nxt)
                cur = nxt

        dead = next(counter)  # no action leaves it: a failed precondition part
        start_pre = _small_dnf(pre, SMALL)
        cur = next(counter)
        for d in start_pre if start_pre is not None else [frozenset()]:
            self.add(
                GroundAction(
                    f"a{len(self.actions)}",
                    frozenset(d) | {free},
                    frozenset({doing, _pc(cur)}),
                    frozenset({free}),
                    origin,
                )
            )
        if start_pre is None:
            nxt = next(counter)
            emit(pre, cur, nxt, dead)
            cur = nxt
        direct, conds = _direct_effects(uncond, conditional)
        for c in direct:
            pos, neg = _small_dnf(c, SMALL), _small_dnf(Not(c), SMALL)
            assert pos is not None and neg is not None
            adds, dels = _effect_facts(conditional[c])
            nxt = next(counter)
            edges.extend((cur, d, nxt, adds, dels) for d in pos)
            edges.extend((cur, d, nxt, none, none) for d in neg)
            cur = nxt
        for i, c in enumerate(conds):
            y, n, nxt = next(counter), next(counter), next(counter)
            emit(c, cur, y, n)
            edges.append((y, frozenset(), nxt, {_control("yes", str(i))}, none))
            edges.append((n, frozenset(), nxt, {_control("no", str(i))}, none))
            cur = nxt
        for i, c in enumerate(conds):
            _, dels = _effect_facts(x for x in conditional[c] if not x[1])
            if dels:
                nxt = next(counter)
                edges.append((cur, frozenset({_control("yes", str(i))}), nxt, none, dels))
                edges.append((cur, frozenset({_control("no", str(i))}), nxt, none, none))
                cur = nxt
        _, udels = _effect_facts(x for x in uncond if not x[1])
        if udels:
            nxt = next(counter)
            edges.append((cur, frozenset(), nxt, none, udels))
            cur = nxt
        for i, c in enumerate(conds):
            adds, _ = _effect_facts(x for x in conditional[c] if x[1])
            yes, no = _control("yes", str(i)), _control("no", str(i))
            nxt = next(counter)
            edges.append((cur, frozenset({yes}), nxt, adds, {yes}))
            edges.append((cur, frozenset({no}), nxt, none, {no}))
            cur = nxt
        uadds, _ = _effect_facts(x for x in uncond if x[1])
        edges.append((cur, frozenset(), None, uadds | {free}, {doing}))
        for here, cond, to, adds, dels in edges:
            gained = (adds - dels) | ({_pc(to)} if to is not None else set())
            self.add(
                GroundAction(
                    f"a{len(self.actions)}",
                    cond | {doing, _pc(here)},
                    frozenset(gained),
                    frozenset(dels | {_pc(here)}),
                    None,
                )
            )


def _direct_effects(
    uncond: list[Lit], conditional: dict[Formula, list[Lit]]
) -> tuple[list[Formula], list[Formula]]:
    """Split conditional effects into those that can be applied in the step that tests
    their condition (the condition reads nothing the action changes, its condition is
    small, and no other effect that can fire with it changes one of its atoms the other
    way) and the rest, which go through yes/no flags."""
    written = {a for a, _ in uncond} | {a for lits in conditional.values() for a, _ in lits}
    signs: dict[Atom, list[tuple[Formula | None, bool]]] = {}
    for a, v in uncond:
        signs.setdefault(a, []).append((None, v))
    for c, lits in conditional.items():
        for a, v in lits:
            signs.setdefault(a, []).append((c, v))
    direct: list[Formula] = []
    rest: list[Formula] = []
    for c, lits in conditional.items():
        ok = not (atoms(c) & written)
        ok = ok and _small_dnf(c, SMALL) is not None and _small_dnf(Not(c), SMALL) is not None
        for a, v in lits if ok else ():
            for other, w in signs[a]:
                if w == v or other is c:
                    continue
                if other is None or _small_dnf(And((c, other)), SMALL) != []:
                    ok = False
                    break
            if not ok:
                break
        (direct if ok else rest).append(c)
    return direct, rest


def _pc(label: int) -> Fact:
    return _control("pc", str(label))


SMALL = 16
"""Largest DNF a single step of a sequence checks at once."""


def static_filters(
    op: Operator, static: frozenset[str]
) -> tuple[tuple[int, ...], tuple[tuple[str, tuple[int | str, ...]], ...]]:
    """(indices of the parameters that the precondition's top-level static atoms
    constrain, those atoms with each argument a parameter index or a constant)."""
    parts = op.precondition.children if isinstance(op.precondition, And) else (op.precondition,)
    index = {p.name: i for i, p in enumerate(op.params)}
    atoms_: list[tuple[str, tuple[int | str, ...]]] = []
    for part in parts:
        if isinstance(part, Atom) and part.pred in static and part.pred != "=":
            args = tuple(
                index[t.name] if isinstance(t, Var) and t.name in index else t.name
                for t in part.args
            )
            if not any(isinstance(t, Var) and t.name not in index for t in part.args):
                atoms_.append((part.pred, args))
    bound = sorted({a for _, args in atoms_ for a in args if isinstance(a, int)})
    return tuple(bound), tuple(atoms_)


def static_bindings(
    domains: list[list[str]],
    constrained: tuple[int, ...],
    atoms_: tuple[tuple[str, tuple[int | str, ...]], ...],
    facts: Mapping[str, set[tuple[str, ...]]],
    deadline: float | None = None,
) -> Iterator[dict[int, str]]:
    """Every binding of the ``constrained`` parameters (index → object, from
    ``domains``) under which the static ``atoms_`` hold in ``facts``: a backtracking
    join that checks an atom as soon as its parameters are bound, so an untyped
    operator over N objects costs what its static preconditions allow, not N^k."""
    checks: dict[int, list[tuple[str, tuple[int | str, ...]]]] = {}
    for pred, args in atoms_:
        last = max((constrained.index(a) for a in args if isinstance(a, int)), default=-1)
        checks.setdefault(last, []).append((pred, args))
    for pred, args in checks.get(-1, []):  # only constants: true or false once
        if tuple(str(a) for a in args) not in facts.get(pred, set()):
            return
    env: dict[int, str] = {}
    stack: list[Iterator[str]] = []
    depth = 0
    steps = 0
    if not constrained:
        yield {}
        return
    stack.append(iter(domains[constrained[0]]))
    while stack:
        steps += 1
        if steps % CLOCK_EVERY == 0:
            _check_clock(deadline)
        o = next(stack[-1], None)
        if o is None:
            stack.pop()
            depth -= 1
            continue
        env[constrained[depth]] = o
        if all(
            tuple(env[a] if isinstance(a, int) else a for a in args) in facts.get(pred, set())
            for pred, args in checks.get(depth, [])
        ):
            if depth + 1 == len(constrained):
                yield dict(env)
            else:
                depth += 1
                stack.append(iter(domains[constrained[depth]]))


def _instances(g: _Grounder, op: Operator, comp: _Compiler) -> None:
    domains = [g.objects(p.type) for p in op.params]
    constrained, atoms_ = static_filters(op, g.static)
    free = [i for i in range(len(op.params)) if i not in constrained]
    k = 0
    for fixed in static_bindings(domains, constrained, atoms_, g.facts, g.deadline):
        for rest in product(*(domains[i] for i in free)):
            k += 1
            if k % CLOCK_EVERY == 0:
                _check_clock(g.deadline)
            binding = {**fixed, **dict(zip(free, rest, strict=True))}
            _instance(g, op, comp, tuple(binding[i] for i in range(len(op.params))))


EXACT_COUNT = 1_000_000
"""Largest product of an operator's (unary-filtered) parameter domains that
:func:`count_instances` enumerates exactly; beyond it the product is the count (an upper
bound), so counting never costs more than about a million join steps per operator."""


def count_instances(domain: Domain, problem: Problem, limit: int) -> int:
    """Ground actions whose top-level static preconditions hold (what grounding will
    enumerate): each parameter's objects are first filtered by the unary static atoms on
    it; an operator whose filtered product is at most :data:`EXACT_COUNT` is enumerated
    by the static join (until the total passes ``limit``), any other counts as that
    product (an upper bound: binary static atoms may prune more)."""
    g = _Grounder(domain, problem)
    total = 0
    for op in domain.operators.values():
        domains = [list(g.objects(p.type)) for p in op.params]
        constrained, atoms_ = static_filters(op, g.static)
        for pred, args in atoms_:
            if len(args) == 1 and isinstance(args[0], int):
                known = g.facts.get(pred, set())
                domains[args[0]] = [o for o in domains[args[0]] if (o,) in known]
        bound = 1
        for d in domains:
            bound *= len(d)
        if bound > EXACT_COUNT or not constrained or bound == 0 or total > limit:
            total += bound
        else:
            free = bound
            for i in constrained:
                free //= len(domains[i])
            total += free * sum(1 for _ in static_bindings(domains, constrained, atoms_, g.facts))
    return total


def _instance(g: _Grounder, op: Operator, comp: _Compiler, args: tuple[str, ...]) -> None:
    env = {p.name: a for p, a in zip(op.params, args, strict=True)}
    pre = g.simplify(op.precondition, env)
    if isinstance(pre, Bottom):
        return
    comp.instance(op.name, tuple(args), pre, list(g.effects(op.effects, env, Top())))


_Compiled = tuple[tuple[tuple[frozenset[Fact], frozenset[Fact], frozenset[Fact], Origin], ...], int]
_OPERATORS: OrderedDict[tuple[Operator, frozenset[str], int, tuple[int, ...]], _Compiled] = (
    OrderedDict()
)
"""An operator's compiled actions per grounding context (see :func:`_ground_operator`),
and how many conditional-effect sequences they number."""
MAX_CACHED_OPERATORS = 16_384
MAX_MEMO_ACTIONS = 4_096
"""Largest compiled operator kept in the memo: the transition-modeling sweep reuses
small operators (tens to hundreds of actions); a large one is rarely met twice and its
memo entry cost seconds of interpreter teardown after a timed-out ``plan`` (16,840
actions of transport p10: 4 s)."""
_CONTEXTS: dict[tuple[object, ...], int] = {}
"""Grounding contexts (types, objects, initial facts) interned to small ints."""


def _ground_operator(g: _Grounder, op: Operator, comp: _Compiler) -> None:
    """Add ``op``'s actions to ``comp``. Transition modeling grounds the same domain
    operators for the same problem once per answer (15 models, most operators gold), so
    the compiled actions are memoised by the operator, the static predicates it reads and
    the grounding context. They are the actions a direct compilation into ``comp`` gives:
    renamed in its numbering, and their sequences' ``_do`` facts shifted past those
    ``comp`` already holds."""
    key = (op, g.static & _predicates(op), g.context, (MAX_SPLIT, MAX_VARIANTS, SMALL))
    done = _OPERATORS.get(key)
    if done is not None:
        _OPERATORS.move_to_end(key)
    else:
        sub = _Compiler()
        _instances(g, op, sub)
        done = tuple((a.pre, a.adds, a.dels, a.origin) for a in sub.actions), sub.instances
        if len(done[0]) <= MAX_MEMO_ACTIONS:
            _OPERATORS[key] = done
            if len(_OPERATORS) > MAX_CACHED_OPERATORS:
                _OPERATORS.popitem(last=False)
    actions, sequences = done
    shift = {
        _control("do", str(i)): _control("do", str(i + comp.instances)) for i in range(sequences)
    }
    comp.instances += sequences
    renumber = bool(shift) and comp.instances > sequences

    def moved(facts: frozenset[Fact]) -> frozenset[Fact]:
        return frozenset(shift.get(f, f) for f in facts) if renumber else facts

    for pre, adds, dels, origin in actions:
        comp.add(
            GroundAction(f"a{len(comp.actions)}", moved(pre), moved(adds), moved(dels), origin)
        )


_PREDICATES: dict[Operator, frozenset[str]] = {}


def _predicates(op: Operator) -> frozenset[str]:
    """The predicates ``op``'s precondition and effects mention."""
    if op not in _PREDICATES:
        if len(_PREDICATES) > MAX_CACHED_OPERATORS:
            _PREDICATES.clear()
        _PREDICATES[op] = frozenset(a.pred for a in operator_atoms(op))
    return _PREDICATES[op]


_LOCKING = frozenset({"_do", "_free"})
"""Control predicates of an action that takes part in the conditional-effect lock."""


@dataclass(frozen=True)
class GroundTask:
    """A grounded STRIPS task as data: reach ``goal`` (one control fact, added by the goal
    actions) from ``init``. Each action's ``origin`` is the (operator, arguments) it stands
    for, or None for a goal action or an inner step of a conditional-effect sequence.
    ``trivially_unsolvable`` says why there is no plan when that is known without search
    (the actions are then empty)."""

    actions: tuple[GroundAction, ...]
    init: frozenset[Fact]
    goal: Fact
    trivially_unsolvable: str = ""


def ground_strips(domain: Domain, problem: Problem) -> StripsTask:
    """The grounded STRIPS task of ``problem`` as PDDL text (see the module docstring)."""
    return strips_text(ground_task(domain, problem))


def strips_text(task: GroundTask) -> StripsTask:
    """A grounded task as PDDL text (for pyperplan)."""
    if task.trivially_unsolvable:
        return StripsTask("", "", {}, task.trivially_unsolvable)
    return _strips_text(list(task.actions), set(task.init))


def ground_task(
    domain: Domain, problem: Problem, *, memo: bool = True, deadline: float | None = None
) -> GroundTask:
    """The grounded STRIPS task of ``problem`` (see the module docstring); ``memo=False``
    compiles every operator afresh (the same task, see :func:`_ground_operator`). Past
    ``deadline`` (a ``time.process_time`` value: CPU time, looked at every :data:`CLOCK_EVERY`
    instances) it raises :class:`GroundingTimeout`."""
    g = _Grounder(domain, problem, deadline)
    goal_fact = _control("goal")
    goal_dnf = dnf(g.simplify(problem.goal, {}))
    if not goal_dnf:
        return GroundTask((), frozenset(), goal_fact, "the goal is false on the static facts alone")
    comp = _Compiler()
    for op in domain.operators.values():
        if memo:
            _ground_operator(g, op, comp)
        else:
            _instances(g, op, comp)
    free = _control("free")
    uses_free = comp.instances > 0
    if uses_free:
        # no other action may run while a sequence holds the lock
        comp.actions = [
            a
            if any(f[0].pred in _LOCKING for f in a.pre)
            else GroundAction(a.name, a.pre | {free}, a.adds, a.dels, a.origin)
            for a in comp.actions
        ]
    goals = [
        GroundAction(
            f"goal{j}",
            frozenset(d) | ({free} if uses_free else set()),
            frozenset({goal_fact}),
            frozenset(),
            None,
        )
        for j, d in enumerate(goal_dnf)
    ]
    actions = comp.actions + goals
    init_atoms = frozenset(a for a in problem.init if a.pred not in g.static)
    negated = {a for act in actions for a, v in act.pre if not v}
    # complements of the atoms read negatively follow every change of the atom
    full: list[GroundAction] = []
    for k, act in enumerate(actions):
        if k % (CLOCK_EVERY * 64) == 0:
            _check_clock(deadline)
        gained = [(a, False) for a, _ in act.dels if a in negated]
        lost = [(a, False) for a, _ in act.adds if a in negated]
        if gained or lost:  # else the action is already complete
            adds, dels = act.adds.union(gained), act.dels.union(lost)
            full.append(GroundAction(act.name, act.pre, adds, dels, act.origin))
        else:
            full.append(act)
    init: set[Fact] = {(a, True) for a in init_atoms} | {
        (a, False) for a in negated if a not in init_atoms
    }
    if uses_free:
        init.add(free)
    # relaxed reachability: drop actions that can never fire
    reached = set(init)
    live: list[GroundAction] = []
    pending = full
    changed = True
    while changed:
        changed = False
        rest: list[GroundAction] = []
        for k, act in enumerate(pending):
            if k % (CLOCK_EVERY * 64) == 0:
                _check_clock(deadline)
            if act.pre <= reached:
                live.append(act)
                if not act.adds <= reached:
                    reached |= act.adds
                    changed = True
            else:
                rest.append(act)
        pending = rest
    if goal_fact not in reached:
        return GroundTask(
            (), frozenset(), goal_fact, "the goal is unreachable even ignoring delete effects"
        )
    return GroundTask(tuple(live), frozenset(init), goal_fact)


def _strips_text(actions: list[GroundAction], init: set[Fact]) -> StripsTask:
    names: dict[Fact, str] = {}

    def fact(f: Fact) -> str:
        if f not in names:
            names[f] = f"f{len(names)}"
        return names[f]

    blocks: list[str] = []
    mapping: dict[str, tuple[str, tuple[str, ...]]] = {}
    for act in actions:
        if act.origin is not None:
            mapping[act.name] = act.origin
        pre = " ".join(f"({fact(x)})" for x in sorted(act.pre, key=_kf))
        eff = [f"({fact(x)})" for x in sorted(act.adds, key=_kf)]
        eff += [f"(not ({fact(x)}))" for x in sorted(act.dels, key=_kf)]
        blocks.append(
            f"(:action {act.name} :parameters () :precondition (and {pre}) "
            f":effect (and {' '.join(eff)}))"
        )
    goal = fact(_control("goal"))
    init_text = " ".join(f"({fact(x)})" for x in sorted(init, key=_kf))
    preds = " ".join(f"({n})" for n in names.values())
    domain_text = (
        "(define (domain grounded) (:requirements :strips)\n"
        f"(:predicates {preds})\n" + "\n".join(blocks) + ")\n"
    )
    problem_text = (
        f"(define (problem grounded) (:domain grounded)\n(:init {init_text})\n(:goal ({goal})))\n"
    )
    return StripsTask(domain_text, problem_text, mapping, "", len(actions), len(names))


def _kf(f: Fact) -> tuple[str, tuple[str, ...], bool]:
    return f[0].pred, tuple(t.name for t in f[0].args), f[1]
