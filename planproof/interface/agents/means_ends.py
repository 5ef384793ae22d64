"""A means-ends planner over a world's own operator schemas.

Why not a classical planner: the VirtualHome and BEHAVIOR operators are ADL with nested
quantifiers and quantified conditional effects; grounding one task for Fast Downward or
pyperplan takes seconds to minutes (measured in ``docs/agents.md``). Household goals are
nearly independent literals whose achievers are shallow, so regression from the goal
(STRIPS / GPS style) finds plans in milliseconds:

* ``repair(f)``: the few smallest sets of fluent literals that, made true, would make
  ``f`` true in the current state (a bounded DNF of the "distance" to ``f``; a static
  property that fails rules an option out);
* ``achievers(l)``: every operator binding with an effect that can produce literal ``l``,
  with the ``when`` conditions on the path to that effect (unbound ``forall`` variables
  become existential);
* ``achieve(f)``: repeatedly pick the cheapest option of ``repair(f)`` and achieve its
  literals, the most expensive first, each by achieving an achiever's requirement
  recursively and applying the achiever through :meth:`World.step` — so every step of a
  plan is checked by the simulator itself. A literal a later step breaks is repaired in
  the next round; depth, branching, rounds and work are bounded, and a literal that
  failed from a state is not tried again from that state.

Costs are one step of lookahead: a literal costs 1 + the size of the smallest repair of
its best achiever's requirement. The planner reads only the world, a state and a goal.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.ltl.ast import (
    TRUE,
    And,
    Atom,
    Binder,
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
)
from planproof.ltl.trace import State, Universe
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, Operator, When
from planproof.simulators.core import Action, Bound, World

__all__ = ["BRANCH", "DEPTH", "MAX_OPTIONS", "Key", "Lit", "MeansEnds", "SearchAborted"]

Key = tuple[str, tuple[str, ...]]
"""A ground atom as (predicate, object names)."""
Lit = tuple[Key, bool]
"""A ground fluent atom and the truth value wanted for it."""
_Option = tuple[Lit, ...]
_Ranked = list[tuple[int, tuple[str, ...], "_Achiever"]]

MAX_OPTIONS = 4
"""Repair options kept per formula node (the bounded DNF width)."""
BRANCH = 3
"""Achievers tried per literal, cheapest first."""
DEPTH = 7
"""Nesting of achiever requirements (grab needs near needs standing ...)."""


class SearchAborted(Exception):
    """The work budget (``limit``: simulated steps, search nodes) ran out. There is no
    time budget: a verdict must not depend on how loaded the machine is."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class _EffectSite:
    """One ``Add``/``Delete`` of an operator schema, with the ``when`` conditions and the
    ``forall`` binders on the path to it."""

    op: Operator
    atom: Atom
    add: bool
    conds: tuple[Formula, ...]
    binders: tuple[Binder, ...]

    @property
    def direct(self) -> bool:
        """Every explicit parameter appears in the effect atom (the literal binds them)."""
        named = {a.name for a in self.atom.args if isinstance(a, Var)}
        return all(p.name in named for p in self.op.explicit)


@dataclass(frozen=True, slots=True)
class _Achiever:
    """A ground operator binding that produces a literal once ``requirement`` holds."""

    bound: Bound
    requirement: Formula
    env: Mapping[str, str]
    key: tuple[str, ...]
    direct: bool
    """Every explicit parameter is bound by the literal itself (no enumeration)."""
    depth: int
    """``when`` conditions and unbound ``forall`` variables on the way to the effect."""


_INDEX_LOCK = threading.Lock()
_INDEX: dict[int, tuple[Domain, dict[str, tuple[_EffectSite, ...]]]] = {}


def _effect_index(domain: Domain) -> dict[str, tuple[_EffectSite, ...]]:
    """Effect sites per predicate, once per domain object (thread-safe)."""
    with _INDEX_LOCK:
        hit = _INDEX.get(id(domain))
        if hit is not None and hit[0] is domain:
            return hit[1]
    out: dict[str, list[_EffectSite]] = {}

    def visit(
        op: Operator, effs: Iterable[Effect], conds: tuple[Formula, ...], bs: tuple[Binder, ...]
    ) -> None:
        for e in effs:
            match e:
                case Add(atom) | Delete(atom):
                    site = _EffectSite(op, atom, isinstance(e, Add), conds, bs)
                    out.setdefault(atom.pred, []).append(site)
                case When(cond, inner):
                    visit(op, inner, (*conds, cond), bs)
                case ForallEffect(b, inner):
                    visit(op, inner, conds, (*bs, b))

    for name in sorted(domain.operators):
        op = domain.operators[name]
        visit(op, op.effects, (), ())
    index = {k: tuple(v) for k, v in out.items()}
    with _INDEX_LOCK:
        _INDEX[id(domain)] = (domain, index)
    return index


def _static_conjuncts(
    f: Formula, fluents: frozenset[str]
) -> tuple[tuple[tuple[Atom, bool], ...], tuple[Exists, ...]]:
    """The literals of static predicates (and equalities) among the top-level conjuncts
    of ``f``, and its top-level existential conjuncts."""
    hit = _STATICS.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]
    lits: list[tuple[Atom, bool]] = []
    exists: list[Exists] = []
    stack = [f]
    while stack:
        g = stack.pop()
        if isinstance(g, And):
            stack.extend(g.children)
            continue
        if isinstance(g, Exists):
            exists.append(g)
            continue
        positive = True
        if isinstance(g, Not):
            positive, g = False, g.body
        if isinstance(g, Atom) and (g.pred == "=" or g.pred not in fluents):
            lits.append((g, positive))
    out = (tuple(lits), tuple(exists))
    _remember(_STATICS, id(f), f, out)
    return out


class _View:
    """A state's keys for the compiled truth tests, with a lazily built index from
    (predicate, argument position, object) to the atoms that have it."""

    __slots__ = ("_index", "_static_view", "keys", "static", "universe")

    def __init__(
        self,
        keys: frozenset[Key],
        static: frozenset[Key],
        universe: Universe,
        static_view: _View | None = None,
    ) -> None:
        self.keys = keys
        self.static = static
        self.universe = universe
        self._static_view = static_view
        self._index: dict[tuple[str, int, str], list[tuple[str, ...]]] | None = None

    def static_having(self, pred: str, pos: int, name: str) -> list[tuple[str, ...]]:
        sv = self._static_view
        return sv.having(pred, pos, name) if sv is not None else []

    def having(self, pred: str, pos: int, name: str) -> list[tuple[str, ...]]:
        index = self._index
        if index is None:
            index = {}
            for p, args in self.keys:
                for i, a in enumerate(args):
                    index.setdefault((p, i, a), []).append(args)
            self._index = index
        return index.get((pred, pos, name), [])


_Truth = Callable[[dict[str, str], _View], bool]
_COMPILED_LOCK = threading.Lock()
_COMPILED: dict[int, tuple[Formula, _Truth]] = {}


def _truth(f: Formula, fluents: frozenset[str]) -> _Truth:
    """``f`` compiled to a truth test over a :class:`_View` (cached per formula object;
    ``fluents`` is the domain's, the same for every formula of one domain)."""
    hit = _COMPILED.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]
    fn = _compile(f, fluents)
    with _COMPILED_LOCK:
        if len(_COMPILED) > 200_000:
            _COMPILED.clear()
        _COMPILED[id(f)] = (f, fn)  # the formula is kept: its id is not reused
    return fn


def _compile(f: Formula, fluents: frozenset[str]) -> _Truth:
    if isinstance(f, Atom):
        pred = f.pred
        spec = tuple((isinstance(a, Const), a.name) for a in f.args)
        if pred == "=":
            (c1, n1), (c2, n2) = spec
            return lambda env, v: (n1 if c1 else env[n1]) == (n2 if c2 else env[n2])
        static = pred not in fluents
        if len(spec) == 1:
            c, n = spec[0]
            if static:
                return lambda env, v: (pred, (n if c else env[n],)) in v.static
            return lambda env, v: (pred, (n if c else env[n],)) in v.keys
        if static:
            return lambda env, v: (pred, tuple(n if c else env[n] for c, n in spec)) in v.static
        return lambda env, v: (pred, tuple(n if c else env[n] for c, n in spec)) in v.keys
    if isinstance(f, Top):
        return lambda env, v: True
    if isinstance(f, Bottom):
        return lambda env, v: False
    if isinstance(f, Not):
        inner = _truth(f.body, fluents)
        return lambda env, v: not inner(env, v)
    if isinstance(f, And):
        parts = tuple(_truth(c, fluents) for c in f.children)
        return lambda env, v: all(p(env, v) for p in parts)
    if isinstance(f, Or):
        parts = tuple(_truth(c, fluents) for c in f.children)
        return lambda env, v: any(p(env, v) for p in parts)
    if isinstance(f, Implies):
        a, b = _truth(f.left, fluents), _truth(f.right, fluents)
        return lambda env, v: not a(env, v) or b(env, v)
    if isinstance(f, Exists | Forall):
        return _quantifier(f, fluents)
    raise ValueError(f"{type(f).__name__} cannot appear in a condition")


_Seed = tuple[str, int, tuple[tuple[bool, str], ...], bool]
"""An atom pattern (predicate, position of the variable, argument spec, static?)."""


def _seeds(f: Formula, var: str, want: bool, fluents: frozenset[str]) -> list[_Seed] | None:
    """Atom patterns ``p(.., var, ..)`` such that ``f`` can have truth value ``want``
    only for the objects some pattern holds for (None when no such patterns are known)."""
    if isinstance(f, Not):
        return _seeds(f.body, var, not want, fluents)
    if isinstance(f, Atom):
        if not want or f.pred == "=":
            return None
        spec = tuple((isinstance(a, Const), a.name) for a in f.args)
        at = [i for i, (c, n) in enumerate(spec) if not c and n == var]
        if len(at) != 1 or len(spec) < 2:
            return None
        return [(f.pred, at[0], spec, f.pred not in fluents)]
    if isinstance(f, And | Or):
        every = isinstance(f, And) != want  # every child must be limited, else any one
        found: list[_Seed] = []
        choice: list[_Seed] | None = None
        for c in f.children:
            sub = _seeds(c, var, want, fluents)
            if sub is None:
                if every:
                    return None
                continue
            if every:
                found.extend(sub)
            elif choice is None or (all(x[3] for x in sub) and not all(x[3] for x in choice)):
                choice = sub  # any one child will do: a static one is known for sure
        return found if every else choice
    return None


def _seeded_objects(
    seeds: Sequence[_Seed], env: Mapping[str, str], v: _View, typ: str | None
) -> list[str] | None:
    """The objects the seeds hold for (None when some seed has no bound argument)."""
    found: set[str] = set()
    for pred, at, spec, static in seeds:
        anchor = None
        for i, (c, n) in enumerate(spec):
            if i != at:
                name = n if c else env.get(n)
                if name is not None:
                    anchor = (i, name)
                    break
        if anchor is None:
            return None
        pool = v.static_having if static else v.having
        found.update(args[at] for args in pool(pred, *anchor) if len(args) == len(spec))
    has = v.universe.has_type
    return [o for o in sorted(found) if has(o, typ)]


def _quantifier(f: Exists | Forall, fluents: frozenset[str]) -> _Truth:
    """A quantifier visits only the objects its body's atoms single out (see
    :func:`_seeds`): ``exists x. inside(x, box) and ...`` the things in the box,
    ``forall x. not part_of(x, w) or ...`` the parts of ``w``; others every object of the
    binder's type."""
    var, typ = f.binder.var, f.binder.type
    short = isinstance(f, Exists)
    inner = _truth(f.body, fluents)
    seeds = _seeds(f.body, var, short, fluents)

    def run(env: dict[str, str], v: _View) -> bool:
        objs: Iterable[str] | None = None
        if seeds is not None:
            objs = _seeded_objects(seeds, env, v, typ)
        if objs is None:
            objs = v.universe.of_type(typ)
        saved = env.get(var)
        try:
            for o in objs:
                env[var] = o
                if inner(env, v) is short:
                    return short
            return not short
        finally:
            if saved is None:
                env.pop(var, None)
            else:
                env[var] = saved

    return run


_META_LOCK = threading.Lock()
_STATICS: dict[int, tuple[Formula, tuple[tuple[tuple[Atom, bool], ...], tuple[Exists, ...]]]] = {}
_ORDERED: dict[int, tuple[Formula, tuple[Formula, ...]]] = {}


def _remember(cache: dict[Any, tuple[Formula, Any]], key: Any, f: Formula, value: Any) -> None:
    with _META_LOCK:
        if len(cache) > 100_000:
            cache.clear()
        cache[key] = (f, value)  # the formula is kept: its id is not reused


def _ordered(f: And | Or, fluents: frozenset[str]) -> tuple[Formula, ...]:
    """A conjunction's children in the order a repair reads them: static literals (they
    fail fast), fluent literals (they pin down the choices of the rest), the rest."""
    hit = _ORDERED.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]

    def rank(c: Formula) -> int:
        a = c.body if isinstance(c, Not) else c
        if not isinstance(a, Atom):
            return 2
        return 0 if a.pred == "=" or a.pred not in fluents else 1

    out = tuple(sorted(f.children, key=rank))
    _remember(_ORDERED, id(f), f, out)
    return out


def _pieces(f: Formula, pos: bool) -> tuple[bool, list[tuple[Formula, bool]]]:
    """``f`` read with polarity ``pos`` as (is it a conjunction, its parts with their
    polarities); a single formula is a one-part conjunction."""
    while isinstance(f, Not):
        f, pos = f.body, not pos
    if isinstance(f, And | Or):
        return (isinstance(f, And) == pos), [(c, pos) for c in f.children]
    return True, [(f, pos)]


_SEEDS: dict[tuple[int, str, bool], tuple[Formula, list[_Seed] | None]] = {}


def _seeds_cached(
    f: Exists | Forall, var: str, want: bool, fluents: frozenset[str]
) -> list[_Seed] | None:
    """:func:`_seeds` of a quantifier's body, cached per formula object."""
    key = (id(f), var, want)
    hit = _SEEDS.get(key)
    if hit is not None and hit[0] is f:
        return hit[1]
    found = _seeds(f.body, var, want, fluents)
    _remember(_SEEDS, key, f, found)
    return found


def key_of(atom: Atom) -> Key:
    """The key of a ground atom."""
    return (atom.pred, tuple(t.name for t in atom.args))


def lit_text(lit: Lit) -> str:
    (pred, args), pos = lit
    s = f"{pred}({', '.join(args)})"
    return s if pos else f"not {s}"


def _merge(a: _Option, b: _Option) -> _Option | None:
    """The union of two options, or None when they want an atom both true and false."""
    if not a:
        return b
    if not b:
        return a
    seen = dict(a)
    out = list(a)
    for k, pos in b:
        had = seen.get(k)
        if had is None:
            seen[k] = pos
            out.append((k, pos))
        elif had != pos:
            return None
    return tuple(out)


def _best(options: Iterable[_Option]) -> list[_Option]:
    """The ``MAX_OPTIONS`` smallest distinct options: among equal sizes, the formula's own
    order (a schema lists the direct way first: ``next_to(c, o) or exists n. next_to(c,
    n) and obj_next_to(n, o)``), which also makes the choice deterministic."""
    uniq: dict[frozenset[Lit], _Option] = {}
    for o in options:
        uniq.setdefault(frozenset(o), o)
    if len(uniq) <= 1:
        return list(uniq.values())
    return sorted(uniq.values(), key=len)[:MAX_OPTIONS]


class MeansEnds:
    """One planning problem's world, with caches that live as long as the instance (make
    one per task; not shared between threads)."""

    def __init__(self, world: World, *, max_steps: int = 20_000) -> None:
        self.world = world
        self.universe = world.universe
        self.fluents = world.domain.fluents
        self.static = frozenset(key_of(a) for a in world.static)
        self._static_view = _View(self.static, self.static, self.universe)
        self._static_view._static_view = self._static_view
        self.index = _effect_index(world.domain)
        self.max_steps = max_steps
        self.steps = 0
        self.nodes = 0
        self._keys: dict[int, tuple[State, _View]] = {}
        self._achievers: dict[Lit, tuple[_Achiever, ...]] = {}
        self._achievable: dict[Lit, bool] = {}
        self._requirements: dict[tuple[int, State], tuple[_Achiever, list[_Option]]] = {}
        self._ranked: dict[tuple[Lit, State], _Ranked] = {}
        self._failed: dict[tuple[Lit, State], int] = {}

    # -- states ------------------------------------------------------------------------

    def view(self, state: State) -> _View:
        """The keys of a state's atoms (remembered for the recent states)."""
        hit = self._keys.get(id(state))
        if hit is not None and hit[0] is state:
            return hit[1]
        v = _View(
            frozenset(key_of(a) for a in state), self.static, self.universe, self._static_view
        )
        if len(self._keys) > 1024:
            self._keys.clear()
        self._keys[id(state)] = (state, v)  # the state is kept: its id is not reused
        return v

    def holds(self, lit: Lit, state: State) -> bool:
        return (lit[0] in self.view(state).keys) == lit[1]

    def truth(self, f: Formula, env: Mapping[str, str], state: State) -> bool:
        """Whether ``f`` holds in ``state`` (the compiled test the repairs use)."""
        return _truth(f, self.fluents)(dict(env), self.view(state))

    # -- repair --------------------------------------------------------------------------

    def repair(
        self, f: Formula, env: Mapping[str, str], state: State, positive: bool = True
    ) -> list[_Option]:
        """Up to ``MAX_OPTIONS`` smallest literal sets that would make ``f`` (``not f`` when
        ``positive`` is False) true in ``state``: ``[()]`` when it already is, ``[]`` when
        no option exists (a static property fails, or no action can make a literal)."""
        return self._rep(f, dict(env), self.view(state), positive, frozenset())

    def _rep(
        self, f: Formula, env: dict[str, str], v: _View, pos: bool, assume: frozenset[Lit]
    ) -> list[_Option]:
        """``assume``: literals a sibling conjunct's option already makes true (so that
        ``exists h. holds(h) ...`` beside ``holds(cup)`` picks the cup)."""
        t = type(f)
        if t is Atom:
            assert isinstance(f, Atom)
            args = tuple(env[a.name] if type(a) is Var else a.name for a in f.args)
            if f.pred == "=":
                return [()] if (args[0] == args[1]) == pos else []
            k = (f.pred, args)
            if f.pred not in self.fluents:
                return [()] if (k in self.static) == pos else []
            lit = (k, pos)
            if assume:
                if lit in assume:
                    return [()]
                if (k, not pos) in assume:
                    return []
            if (k in v.keys) == pos:
                return [()]
            return [(lit,)] if self.achievable(lit) else []
        if t is Not:
            assert isinstance(f, Not)
            return self._rep(f.body, env, v, not pos, assume)
        if t is And or t is Or:
            assert isinstance(f, And | Or)
            conj = (t is And) == pos
            children = _ordered(f, self.fluents) if conj else f.children
            parts = ((c, None, "") for c in children)
            return self._combine(parts, env, v, pos=pos, conj=conj, assume=assume)
        if t is Exists or t is Forall:
            assert isinstance(f, Exists | Forall)
            if _truth(f, self.fluents)(env, v) == pos:
                return [()]
            conj = (t is Forall) == pos
            objs = self._candidates(f, env, v, pos=pos, conj=conj, assume=assume)
            var = f.binder.var
            return self._combine(
                ((f.body, var, o) for o in objs), env, v, pos=pos, conj=conj, assume=assume
            )
        if t is Implies:
            assert isinstance(f, Implies)
            if pos:  # not a or b
                found: list[_Option] = []
                for g, p in ((f.left, False), (f.right, True)):
                    opts = self._rep(g, env, v, p, assume)
                    if opts and not opts[0]:
                        return [()]
                    found.extend(opts)
                return _best(found)
            a = self._rep(f.left, env, v, True, assume)
            b = self._rep(f.right, env, v, False, assume)
            return _best(m for x, y in itertools.product(a, b) if (m := _merge(x, y)) is not None)
        if t is Top:
            return [()] if pos else []
        if t is Bottom:
            return [] if pos else [()]
        raise ValueError(f"{t.__name__} cannot appear in a condition")

    def _candidates(
        self,
        f: Exists | Forall,
        env: dict[str, str],
        v: _View,
        *,
        pos: bool,
        conj: bool,
        assume: frozenset[Lit],
    ) -> Sequence[str]:
        """The objects a quantifier's repair must visit, from the atoms its body singles
        out (:func:`_seeds`). For "every object" (``conj``): those for which the body can
        fail now, and any object an assumed literal names. For "some object": only those
        its static atoms allow, the ones its fluent atoms already hold for (and the
        assumed ones) first; the disjunction stops early (see :meth:`_combine`)."""
        typ = f.binder.type
        objs = self.universe.of_type(typ)
        var = f.binder.var
        named = {o for (_, args), _ in assume for o in args}
        seeds = _seeds_cached(f, var, pos != conj, self.fluents)
        if seeds is not None:
            if conj:
                found = _seeded_objects(seeds, env, v, typ)
                if found is not None:
                    extra = [o for o in objs if o in named and o not in found]
                    return [*found, *extra]
            elif all(static for *_, static in seeds):
                found = _seeded_objects(seeds, env, v, typ)
                if found is not None:
                    return found
            else:
                first = _seeded_objects(seeds, env, v, typ)
                if first is not None:
                    named.update(first)
        if conj or not named:
            return objs
        return (*(o for o in objs if o in named), *(o for o in objs if o not in named))

    def _part(
        self,
        g: Formula,
        var: str | None,
        obj: str,
        env: dict[str, str],
        v: _View,
        *,
        pos: bool,
        assume: frozenset[Lit],
    ) -> list[_Option]:
        if var is None:
            return self._rep(g, env, v, pos, assume)
        saved = env.get(var)
        env[var] = obj
        try:
            return self._rep(g, env, v, pos, assume)
        finally:
            if saved is None:
                del env[var]
            else:
                env[var] = saved

    def _combine(
        self,
        parts: Iterator[tuple[Formula, str | None, str]],
        env: dict[str, str],
        v: _View,
        *,
        pos: bool,
        conj: bool,
        assume: frozenset[Lit],
    ) -> list[_Option]:
        """Options of a conjunction (all parts, each read assuming an option of the parts
        before it) or a disjunction (any part); a part may bind a quantified variable."""
        if not conj:
            found: list[_Option] = []
            singles = 0
            for g, var, obj in parts:
                opts = self._part(g, var, obj, env, v, pos=pos, assume=assume)
                if opts and not opts[0]:
                    return [()]
                found.extend(opts)
                singles += sum(len(o) == 1 for o in opts)
                if singles >= MAX_OPTIONS or len(found) >= 3 * MAX_OPTIONS:
                    # nothing smaller can come (the empty option returned above), or
                    # enough alternatives (the likeliest parts come first)
                    break
            return _best(found)
        acc: list[_Option] = [()]
        for g, var, obj in parts:
            merged: list[_Option] = []
            changed = False
            for a in acc:
                ctx = assume | frozenset(a) if a else assume
                opts = self._part(g, var, obj, env, v, pos=pos, assume=ctx)
                if opts and not opts[0]:
                    merged.append(a)
                    continue
                changed = True
                merged.extend(m for o in opts if (m := _merge(a, o)) is not None)
            if changed:
                acc = _best(merged)
                if not acc:
                    return []
        return acc

    # -- achievers -------------------------------------------------------------------

    def achievers(self, lit: Lit) -> tuple[_Achiever, ...]:
        """Every binding of an operator effect that can produce ``lit`` and that the
        static conjuncts of its requirement allow (deeper static tests are left to
        :meth:`repair`, which finds no option for them); the bindings the literal fixes
        completely come first."""
        hit = self._achievers.get(lit)
        if hit is not None:
            return hit
        (pred, args), positive = lit
        out: list[_Achiever] = []
        for site in self.index.get(pred, ()):
            if site.add != positive:
                continue
            direct = site.direct
            for env in self._unify(site, args, enumerate_free=True):
                req = self._requirement(site, env)
                if not self._static_ok(req, env):
                    continue
                op = site.op
                params = {p.name: env[p.name] for p in op.params}
                action = Action(op.name, tuple(params[p.name] for p in op.explicit))
                depth = len(site.conds) + sum(b.var not in env for b in site.binders)
                out.append(
                    _Achiever(
                        Bound(action, op, params), req, env, (op.name, *action.args), direct, depth
                    )
                )
        # direct ones first, then those with fewer conditions on the path to the effect
        # (place the cup in the box before pour it in from something held)
        result = tuple(sorted(out, key=lambda a: (not a.direct, a.depth)))
        self._achievers[lit] = result
        return result

    def achievable(self, lit: Lit) -> bool:
        """Whether some operator effect can produce ``lit`` at all: a cheap test (free
        parameters are not enumerated, deeper requirements are not looked at) that keeps
        impossible literals out of repairs."""
        hit = self._achievable.get(lit)
        if hit is not None:
            return hit
        (pred, args), positive = lit
        ok = any(
            self._static_ok(site.op.precondition, env)
            and all(self._static_ok(c, env) for c in site.conds)
            for site in self.index.get(pred, ())
            if site.add == positive
            for env in self._unify(site, args, enumerate_free=False)
        )
        self._achievable[lit] = ok
        return ok

    def _static_ok(self, f: Formula, env: Mapping[str, str]) -> bool:
        """The top-level static literals of ``f`` whose variables ``env`` binds hold, and
        each top-level ``exists`` has a candidate among the objects its static atoms
        allow (``exists h. part_of(h, w) and ...`` needs a part of ``w``)."""
        lits, exists = _static_conjuncts(f, self.fluents)
        for atom, positive in lits:
            names: list[str] = []
            for a in atom.args:
                if isinstance(a, Const):
                    names.append(a.name)
                elif a.name in env:
                    names.append(env[a.name])
                else:
                    break
            else:
                truth = (
                    names[0] == names[1]
                    if atom.pred == "="
                    else (atom.pred, tuple(names)) in self.static
                )
                if truth != positive:
                    return False
        for q in exists:
            seeds = _seeds_cached(q, q.binder.var, True, self.fluents)
            if seeds is None or not all(static for *_, static in seeds):
                continue
            found = _seeded_objects(seeds, env, self._static_view, q.binder.type)
            if found is not None and not any(
                self._static_ok(q.body, {**env, q.binder.var: o}) for o in found
            ):
                return False
        return True

    def _requirement(self, site: _EffectSite, env: Mapping[str, str]) -> Formula:
        """The operator's precondition and the effect's ``when`` conditions; ``forall``
        variables the literal does not bind are existential there."""
        cond: Formula = TRUE
        if site.conds:
            cond = site.conds[0] if len(site.conds) == 1 else And(site.conds)
            for b in reversed(site.binders):
                if b.var not in env:
                    cond = Exists(b, cond)
        pre = site.op.precondition
        if isinstance(cond, Top):
            return pre
        if isinstance(pre, Top):
            return cond
        return And((pre, cond))

    def _unify(
        self, site: _EffectSite, target: tuple[str, ...], *, enumerate_free: bool
    ) -> Iterator[dict[str, str]]:
        """Bindings of the operator's parameters (and of the ``forall`` variables the
        effect atom names) under which ``site.atom`` is the target atom."""
        env: dict[str, str] = {}
        for pat, val in zip(site.atom.args, target, strict=True):
            if isinstance(pat, Const):
                if pat.name != val:
                    return
            elif env.setdefault(pat.name, val) != val:
                return
        u = self.universe
        types: dict[str, str | None] = {p.name: p.type for p in site.op.params}
        types.update((b.var, b.type) for b in site.binders)
        for var, obj in env.items():
            if var not in types or not u.has_type(obj, types[var]):
                return
        op = site.op
        free: list[tuple[str, tuple[str, ...]]] = []
        for p in op.params:
            if p.name in env:
                continue
            if p.name in op.implicit:
                agent = self.world.agent
                if agent is None or not u.has_type(agent, p.type):
                    return
                env[p.name] = agent
            else:
                free.append((p.name, u.of_type(p.type)))
        if not free or not enumerate_free:
            yield env
            return
        names = [n for n, _ in free]
        for combo in itertools.product(*(objs for _, objs in free)):
            out = dict(env)
            out.update(zip(names, combo, strict=True))
            yield out

    # -- costs -------------------------------------------------------------------------

    def requirement_options(self, a: _Achiever, state: State) -> list[_Option]:
        key = (id(a), state)
        hit = self._requirements.get(key)
        if hit is not None and hit[0] is a:
            return hit[1]
        opts = self.repair(a.requirement, a.env, state)
        if len(self._requirements) > 100_000:
            self._requirements.clear()
        self._requirements[key] = (a, opts)
        return opts

    def ranked(self, lit: Lit, state: State) -> _Ranked:
        """The achievers of ``lit`` that some repair of their requirement allows in
        ``state``, smallest repair first. Achievers that bind objects the literal does not
        name (``grab(x)`` brings the character next to what ``x`` stands on) are looked
        at only when fewer than ``BRANCH`` direct ones are possible."""
        key = (lit, state)
        hit = self._ranked.get(key)
        if hit is not None:
            return hit
        out: _Ranked = []
        for a in self.achievers(lit):
            if len(out) >= 2 * BRANCH or (not a.direct and len(out) >= BRANCH):
                break
            opts = self.requirement_options(a, state)
            if opts:
                out.append((len(opts[0]), a.key, a))
        out.sort(key=lambda r: (r[0], not r[2].direct, r[1]))
        if len(self._ranked) > 50_000:
            self._ranked.clear()
        self._ranked[key] = out
        return out

    def estimate(self, lit: Lit, state: State) -> float:
        """0 when ``lit`` holds, else 1 + the size of the smallest achiever requirement
        repair (infinity without an achiever)."""
        if self.holds(lit, state):
            return 0.0
        key = (lit, state)
        hit = self._ranked.get(key)
        if hit is not None:
            return 1.0 + hit[0][0] if hit else float("inf")
        best = float("inf")
        seen = 0
        for a in self.achievers(lit):
            if seen >= 2 * BRANCH or (not a.direct and seen >= BRANCH):
                break
            opts = self.requirement_options(a, state)
            if opts:
                seen += 1
                best = min(best, 1.0 + len(opts[0]))
                if best == 1.0:
                    break
        return best

    # -- achieving -----------------------------------------------------------------------

    def _node(self) -> None:
        self.nodes += 1
        if self.nodes > 10 * self.max_steps:
            raise SearchAborted("limit", f"more than {10 * self.max_steps} search nodes")

    def apply(self, bound: Bound, state: State) -> State | None:
        """The state after ``bound`` if the simulator runs it without any error."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise SearchAborted("limit", f"more than {self.max_steps} simulated steps")
        res = self.world.step(state, bound)
        return res.state if res.error is None else None

    def achieve(
        self,
        f: Formula,
        env: Mapping[str, str],
        state: State,
        acts: list[Action],
        *,
        depth: int = DEPTH,
        stack: frozenset[Lit] = frozenset(),
    ) -> State | None:
        """Make ``f`` true from ``state``; the actions are appended to ``acts`` (left as
        they were on failure). None when no way was found within the bounds."""
        start = len(acts)
        rounds = 0
        limit: int | None = None
        while True:
            opts = [o for o in self.repair(f, env, state) if not any(x in stack for x in o)]
            if not opts:
                break
            if not opts[0]:
                return state
            if limit is None:
                limit = 2 * len(opts[0]) + 4
            rounds += 1
            if rounds > limit:
                break
            if len(opts) > 1:
                opts.sort(key=lambda o: sum(self.estimate(x, state) for x in o))
            nxt = self._progress(opts, state, acts, depth, stack)
            if nxt is None:
                break
            state = nxt
        del acts[start:]
        return None

    def _progress(
        self,
        opts: Sequence[_Option],
        state: State,
        acts: list[Action],
        depth: int,
        stack: frozenset[Lit],
    ) -> State | None:
        """Achieve one more literal of the first option that allows it (its most
        expensive literal first)."""
        for opt in opts:
            order = (
                sorted(opt, key=lambda x: (-self.estimate(x, state), x)) if len(opt) > 1 else opt
            )
            for lit in order:
                if self.holds(lit, state):
                    continue
                mark = len(acts)
                nxt = self.achieve_literal(lit, state, acts, depth, stack)
                if nxt is not None:
                    return nxt
                del acts[mark:]
        return None

    def achieve_literal(
        self,
        lit: Lit,
        state: State,
        acts: list[Action],
        depth: int,
        stack: frozenset[Lit] = frozenset(),
    ) -> State | None:
        """Make one literal true by one of its achievers (their requirement first)."""
        for nxt in self.ways(lit, state, acts, depth, stack):
            return nxt
        return None

    def ways(
        self,
        lit: Lit,
        state: State,
        acts: list[Action],
        depth: int,
        stack: frozenset[Lit] = frozenset(),
    ) -> Iterator[State]:
        """The states reached by making ``lit`` true with each of its best achievers in
        turn; ``acts`` holds the actions of the way last yielded (a caller that rejects a
        way resumes the iterator, which first takes those actions back)."""
        if self.holds(lit, state):
            yield state
            return
        if depth <= 0 or lit in stack or self._failed.get((lit, state), -1) >= depth:
            return
        self._node()
        inner = stack | {lit}
        scored: list[tuple[float, int, tuple[str, ...], _Achiever]] = []
        for size, key, a in self.ranked(lit, state)[: 2 * BRANCH]:
            costs = [
                sum(self.estimate(x, state) for x in o)
                for o in self.requirement_options(a, state)
                if not any(x in inner for x in o)
            ]
            if costs:
                scored.append((min(costs), size, key, a))
        # ties: an achiever on the literal's own objects (release the cup) before one
        # that picks another object (put the cup into something)
        scored.sort(key=lambda r: (r[0], r[1], not r[3].direct, r[2]))
        found = False
        for *_, a in scored[:BRANCH]:
            mark = len(acts)
            s = self.achieve(a.requirement, a.env, state, acts, depth=depth - 1, stack=inner)
            if s is not None:
                nxt = self.apply(a.bound, s)
                if nxt is not None and self.holds(lit, nxt):
                    acts.append(a.bound.action)
                    found = True
                    yield nxt
            del acts[mark:]
        if not found:
            # the same literal from the same state fails again at this depth or less,
            # whatever the stack (a deliberate approximation)
            self._failed[(lit, state)] = depth

    def perform(
        self, candidates: Sequence[Bound], state: State, acts: list[Action], depth: int = DEPTH
    ) -> State | None:
        """Make one of ``candidates`` happen (an action goal): the one whose precondition
        is cheapest to reach first."""
        ranked: list[tuple[float, tuple[str, ...], Bound]] = []
        for b in candidates:
            opts = self.repair(b.operator.precondition, b.env, state)
            if opts:
                cost = min(sum(self.estimate(x, state) for x in o) for o in opts)
                ranked.append((cost, (b.action.name, *b.action.args), b))
        ranked.sort(key=lambda r: (r[0], r[1]))
        for *_, b in ranked[:BRANCH]:
            mark = len(acts)
            s = self.achieve(b.operator.precondition, b.env, state, acts, depth=depth)
            if s is not None:
                nxt = self.apply(b, s)
                if nxt is not None:
                    acts.append(b.action)
                    return nxt
            del acts[mark:]
        return None
