"""Evaluating operator conditions in a state: truth, truth on static facts alone, and
which literals are unmet.

Conditions are goal-logic formulas whose variables are bound in ``env``. A state holds the
fluents; object properties (static predicates) live in a separate set, so the
three-valued reading used for affordances can treat every fluent as unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from planproof.ltl.ast import (
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
    Term,
    Top,
    Var,
    free_vars,
)
from planproof.ltl.trace import State, Universe

Env = Mapping[str, str]


def ground(atom: Atom, env: Env) -> Atom:
    """``atom`` with its variables replaced by the objects ``env`` binds them to."""
    if atom.is_ground:
        return atom
    return Atom(
        atom.pred, tuple(Const(env[a.name]) if not isinstance(a, Const) else a for a in atom.args)
    )


def _objects(universe: Universe, b: Binder) -> tuple[str, ...]:
    return universe.of_type(b.type)


class Facts:
    """The facts of one state: fluents plus the world's static properties."""

    __slots__ = ("state", "static", "universe")

    def __init__(self, state: State, static: frozenset[Atom], universe: Universe) -> None:
        self.state = state
        self.static = static
        self.universe = universe

    def atom(self, a: Atom, env: Env) -> bool:
        g = ground(a, env)
        if g.pred == "=":
            return g.args[0] == g.args[1]
        return g in self.state or g in self.static

    def holds(self, f: Formula, env: Env) -> bool:
        match f:
            case Atom():
                return self.atom(f, env)
            case Top():
                return True
            case Bottom():
                return False
            case Not(body):
                return not self.holds(body, env)
            case And(cs):
                return all(self.holds(c, env) for c in cs)
            case Or(cs):
                return any(self.holds(c, env) for c in cs)
            case Implies(a, b):
                return not self.holds(a, env) or self.holds(b, env)
            case Exists(b, body):
                return any(self.holds(body, {**env, b.var: o}) for o in _objects(self.universe, b))
            case Forall(b, body):
                return all(self.holds(body, {**env, b.var: o}) for o in _objects(self.universe, b))
        raise ValueError(f"{type(f).__name__} cannot appear in a precondition")

    def static_truth(self, f: Formula, env: Env, fluents: frozenset[str]) -> bool | None:
        """Kleene three-valued truth with every fluent unknown (``None``): ``False`` means
        no state of the world could satisfy ``f`` — its properties forbid it."""
        match f:
            case Atom():
                if f.pred in fluents:
                    return None
                return self.atom(f, env)
            case Top():
                return True
            case Bottom():
                return False
            case Not(body):
                v = self.static_truth(body, env, fluents)
                return None if v is None else not v
            case And(cs):
                return _k_and(self.static_truth(c, env, fluents) for c in cs)
            case Or(cs):
                return _k_or(self.static_truth(c, env, fluents) for c in cs)
            case Implies(a, b):
                na = self.static_truth(a, env, fluents)
                return _k_or([None if na is None else not na, self.static_truth(b, env, fluents)])
            case Exists(b, body):
                return _k_or(
                    self.static_truth(body, {**env, b.var: o}, fluents)
                    for o in _objects(self.universe, b)
                )
            case Forall(b, body):
                return _k_and(
                    self.static_truth(body, {**env, b.var: o}, fluents)
                    for o in _objects(self.universe, b)
                )
        raise ValueError(f"{type(f).__name__} cannot appear in a precondition")

    def unmet(self, f: Formula, env: Env, positive: bool = True) -> list[str]:
        """The ground literals that make ``f`` false (or true, when ``positive`` is False),
        taking the disjunct (or witness) with the fewest failures: what a person must fix."""
        match f:
            case Atom():
                if self.atom(f, env) == positive:
                    return []
                text = atom_text(ground(f, env))
                return [text if positive else f"not {text}"]
            case Top() | Bottom():
                return [] if isinstance(f, Top) == positive else ["false" if positive else "true"]
            case Not(body):
                return self.unmet(body, env, not positive)
            case Implies(a, b):
                return self.unmet(Or((Not(a), b)), env, positive)
            case And(cs) if positive:
                return [u for c in cs for u in self.unmet(c, env, True)]
            case Or(cs) if not positive:
                return [u for c in cs for u in self.unmet(c, env, False)]
            case And(cs) | Or(cs):
                return _fewest(self.unmet(c, env, positive) for c in cs)
            case Forall(b, body) if positive:
                return [
                    u
                    for o in _objects(self.universe, b)
                    for u in self.unmet(body, {**env, b.var: o})
                ]
            case Exists(b, body) if not positive:
                return [
                    u
                    for o in _objects(self.universe, b)
                    for u in self.unmet(body, {**env, b.var: o}, False)
                ]
            case Forall(b, body) | Exists(b, body):
                objs = _objects(self.universe, b)
                if not objs:
                    return [f"no object of type {b.type or 'object'}"]
                return _fewest(self.unmet(body, {**env, b.var: o}, positive) for o in objs)
        raise ValueError(f"{type(f).__name__} cannot appear in a precondition")


def _fewest(options: object) -> list[str]:
    best: list[str] | None = None
    for u in options:  # type: ignore[attr-defined]
        if best is None or len(u) < len(best):
            best = u
            if not best:
                break
    return best or []


def _k_and(vals: object) -> bool | None:
    out: bool | None = True
    for v in vals:  # type: ignore[attr-defined]
        if v is False:
            return False
        if v is None:
            out = None
    return out


def _k_or(vals: object) -> bool | None:
    out: bool | None = False
    for v in vals:  # type: ignore[attr-defined]
        if v is True:
            return True
        if v is None:
            out = None
    return out


def atom_text(a: Atom) -> str:
    """``pred(a, b)``: how messages name a ground atom."""
    return f"{a.pred}({', '.join(t.name for t in a.args)})"


# --- compiled conditions -----------------------------------------------------------------
#
# Replaying a plan evaluates the same few operator conditions thousands of times; walking
# the formula and building ground ``Atom`` objects dominated the cost. A condition is
# compiled once into nested closures that test atom *keys* (plain tuples) against the set
# of keys of the state, which is ~10x faster than the interpreter above.

Key = tuple[str, tuple[tuple[bool, str], ...]]
Cond = Callable[["KeyFacts", dict[str, str]], bool]


class KeyFacts:
    """A state's atom keys plus the world's static keys, for compiled conditions."""

    __slots__ = ("_by_pred", "_pairs", "keys", "universe")

    def __init__(self, keys: frozenset[Key] | set[Key], universe: Universe) -> None:
        self.keys = keys
        self.universe = universe
        self._by_pred: dict[str, frozenset[Key]] | None = None
        self._pairs: dict[tuple[str, int], dict[str, list[str]]] | None = None

    def partners(self, pred: str, fixed: int) -> dict[str, list[str]]:
        """For a binary predicate: the object at position ``fixed`` → the objects at the
        other position, over the facts (built once per state and asked for by every
        action of a search's expansion: "what is inside ``o``" for each WALK target)."""
        pairs = self._pairs
        if pairs is None:
            pairs = self._pairs = {}
        table = pairs.get((pred, fixed))
        if table is None:
            table = pairs[(pred, fixed)] = {}
            other = 1 - fixed
            for _, args in self.with_pred(pred):
                if len(args) == 2:
                    table.setdefault(args[fixed][1], []).append(args[other][1])
        return table

    def with_pred(self, pred: str) -> Collection[Key]:
        """The keys of predicate ``pred`` (indexed on first use: quantified conditions
        and effects visit the facts that match a pattern rather than every object)."""
        index = self._by_pred
        if index is None:
            index = self.index()
        return index.get(pred, _NO_KEYS)

    def index(self) -> dict[str, frozenset[Key]]:
        """Predicate → its keys (built once per state, or carried over by
        :meth:`changed`)."""
        index = self._by_pred
        if index is None:
            groups: dict[str, list[Key]] = {}
            for key in self.keys:
                found = groups.get(key[0])
                if found is None:
                    groups[key[0]] = [key]
                else:
                    found.append(key)
            index = self._by_pred = {p: frozenset(ks) for p, ks in groups.items()}
        return index

    def changed(self, keys: set[Key], added: set[Key], deleted: set[Key]) -> KeyFacts:
        """The facts ``keys`` that ``added``/``deleted`` made of these: the predicate index
        is carried over, only the changed predicates' entries are redone."""
        out = KeyFacts(keys, self.universe)
        old = self._by_pred
        if old is not None:
            index = dict(old)
            for pred in {k[0] for k in added} | {k[0] for k in deleted}:
                index[pred] = (
                    old.get(pred, _NO_KEYS)
                    .difference(deleted)
                    .union([k for k in added if k[0] == pred])
                )
            out._by_pred = index
        return out


_NO_KEYS: frozenset[Key] = frozenset()
_NO_NAMES: list[str] = []


def atom_key(a: Atom) -> Key:
    return a._key


def compile_condition(f: Formula, scope: frozenset[str] | None = None) -> Cond:
    """``f`` as a function of (facts, env) → bool, equivalent to :meth:`Facts.holds`.
    ``scope``: the variables ``env`` binds (default: ``f``'s free variables). A quantifier
    visits only the objects :func:`condition_candidates` names when it names any."""
    if scope is None:
        scope = free_vars(f)
    match f:
        case Atom(pred, args):
            if pred == "=":
                a, b = args
                return lambda k, env: _name(a, env) == _name(b, env)
            return _atom_test(pred, args)
        case Top():
            return lambda k, env: True
        case Bottom():
            return lambda k, env: False
        case Not(body):
            inner = compile_condition(body, scope)
            return lambda k, env: not inner(k, env)
        case And(cs):
            return _conjunction(tuple(compile_condition(c, scope) for c in cs))
        case Or(cs):
            return _disjunction(tuple(compile_condition(c, scope) for c in cs))
        case Implies(a, b):
            ca, cb = compile_condition(a, scope), compile_condition(b, scope)
            return lambda k, env: not ca(k, env) or cb(k, env)
        case Exists(b, body) | Forall(b, body):
            inner = compile_condition(body, scope | {b.var})
            var, typ = b.var, b.type
            short = isinstance(f, Exists)
            # exists: only where the body may hold; forall: only where it may fail
            cands = condition_candidates(body, var, scope, positive=short)

            def quantified(k: KeyFacts, env: dict[str, str]) -> bool:
                u = k.universe
                if cands is None:
                    objs: Iterable[str] = u.of_type(typ)
                else:
                    found = cands(k, env)
                    if not found:
                        return not short
                    objs = of_type(u, typ, found)
                saved = env.get(var)
                try:
                    for o in objs:
                        env[var] = o
                        if inner(k, env) is short:
                            return short
                    return not short
                finally:
                    if saved is None:
                        env.pop(var, None)
                    else:
                        env[var] = saved

            return quantified
    raise ValueError(f"{type(f).__name__} cannot appear in a precondition")


def _atom_test(pred: str, args: tuple[Term, ...]) -> Cond:
    """``pred(args)`` holds: its key is in the facts (the key built inline for the usual
    shapes, the test being the innermost call of every replay)."""
    spec = tuple((isinstance(t, Const), t.name) for t in args)
    if len(spec) == 1 and not spec[0][0]:
        n = spec[0][1]
        return lambda k, env: (pred, ((False, env[n]),)) in k.keys
    if len(spec) == 2 and not spec[0][0] and not spec[1][0]:
        n1, n2 = spec[0][1], spec[1][1]
        return lambda k, env: (pred, ((False, env[n1]), (False, env[n2]))) in k.keys
    build = key_builder(pred, args)
    return lambda k, env: build(env) in k.keys


def _conjunction(parts: tuple[Cond, ...]) -> Cond:
    # unrolled for the usual two or three children: generator expressions in all()/any()
    # were the largest single cost of a replay
    if len(parts) == 2:
        a, b = parts
        return lambda k, env: a(k, env) and b(k, env)
    if len(parts) == 3:
        a, b, c = parts
        return lambda k, env: a(k, env) and b(k, env) and c(k, env)

    def run(k: KeyFacts, env: dict[str, str]) -> bool:
        for p in parts:  # noqa: SIM110 - a loop, not a generator (see above)
            if not p(k, env):
                return False
        return True

    return run


def _disjunction(parts: tuple[Cond, ...]) -> Cond:
    if len(parts) == 2:
        a, b = parts
        return lambda k, env: a(k, env) or b(k, env)
    if len(parts) == 3:
        a, b, c = parts
        return lambda k, env: a(k, env) or b(k, env) or c(k, env)

    def run(k: KeyFacts, env: dict[str, str]) -> bool:
        for p in parts:  # noqa: SIM110 - a loop, not a generator (see above)
            if p(k, env):
                return True
        return False

    return run


def key_builder(pred: str, args: tuple[Term, ...]) -> Callable[[Mapping[str, str]], Key]:
    """A function from a binding to the key of the ground atom: specialised by arity,
    since building keys is the inner loop of every replay."""
    spec = tuple((isinstance(t, Const), t.name) for t in args)
    if all(c for c, _ in spec):
        key: Key = (pred, tuple((False, n) for _, n in spec))
        return lambda env: key
    if len(spec) == 1:
        (n,) = (n for _, n in spec)
        return lambda env: (pred, ((False, env[n]),))
    if len(spec) == 2:
        (c1, n1), (c2, n2) = spec
        if not c1 and not c2:
            return lambda env: (pred, ((False, env[n1]), (False, env[n2])))
        if c1:
            return lambda env: (pred, ((False, n1), (False, env[n2])))
        return lambda env: (pred, ((False, env[n1]), (False, n2)))
    return lambda env: (pred, tuple((False, n if c else env[n]) for c, n in spec))


def _name(t: object, env: Mapping[str, str]) -> str:
    return t.name if isinstance(t, Const) else env[t.name]  # type: ignore[attr-defined]


# --- candidates of a quantified variable -------------------------------------------------
#
# ``exists ?x (and (inside ?o ?x) (closed ?x))`` can only hold for the ``?x`` that ``?o``
# is inside: the facts matching ``inside(o, _)`` name them. Quantified conditions and
# effects visit those candidates instead of every object of the world (the result is the
# same: a superset of the objects that matter is visited). Candidates are read off the
# schema once, at compile time; ``scope`` is the set of variables bound when they are
# asked for (any other variable matches anything).

Candidates = Callable[[KeyFacts, Mapping[str, str]], Sequence[str]]
"""(facts, binding) → the objects worth visiting (a superset of those that matter;
repetitions allowed)."""


def condition_candidates(
    f: Formula, var: str, scope: frozenset[str], positive: bool = True
) -> Candidates | None:
    """The values of ``var`` for which ``f`` may hold (``positive``) or fail (not
    ``positive``), read off positive atoms and ``var = t``; None: any value may."""
    match f:
        case Atom(pred, args) if pred == "=":
            if not positive or len(args) != 2:
                return None
            a, b = args
            if isinstance(a, Var) and a.name == var:
                return _value(b, var, scope)
            if isinstance(b, Var) and b.name == var:
                return _value(a, var, scope)
            return None
        case Atom():
            return pattern_candidates(f, var, scope) if positive else None
        case Top():
            return None if positive else _NONE
        case Bottom():
            return _NONE if positive else None
        case Not(body):
            return condition_candidates(body, var, scope, not positive)
        case And(cs) | Or(cs):
            parts = [condition_candidates(c, var, scope, positive) for c in cs]
            return _all_or_any(parts, every=isinstance(f, And) != positive)
        case Implies(a, b):
            parts = [
                condition_candidates(a, var, scope, not positive),
                condition_candidates(b, var, scope, positive),
            ]
            return _all_or_any(parts, every=positive)
        case Exists(b, body) | Forall(b, body):
            if b.var == var or isinstance(f, Exists) != positive:
                return None
            return condition_candidates(body, var, scope - {b.var}, positive)
    return None


def of_type(universe: Universe, typ: str | None, found: Sequence[str]) -> list[str]:
    """The candidates (repetitions dropped) that are objects of the universe of type
    ``typ`` (any type: ``None``), in their order."""
    index = universe.type_index
    if typ is None:
        return [o for o in dict.fromkeys(found) if o in index]
    empty: frozenset[str] = frozenset()
    return [o for o in dict.fromkeys(found) if typ in index.get(o, empty)]


def _all_or_any(parts: list[Candidates | None], every: bool) -> Candidates | None:
    """Candidates of a disjunction need every part's (``every``); of a conjunction, any
    one part's suffices."""
    if every:
        if any(p is None for p in parts):
            return None
        return union_candidates([p for p in parts if p is not None])
    return next((p for p in parts if p is not None), None)


def _none(k: KeyFacts, env: Mapping[str, str]) -> Sequence[str]:
    return ()


_NONE: Candidates = _none


def _value(t: Term, var: str, scope: frozenset[str]) -> Candidates | None:
    if isinstance(t, Const):
        one = (t.name,)
        return lambda k, env: one
    if t.name != var and t.name in scope:
        name = t.name
        return lambda k, env: (env[name],)
    return None


def pattern_candidates(atom: Atom, var: str, scope: frozenset[str]) -> Candidates | None:
    """The values ``var`` takes in the facts matching ``atom`` (its constants and bound
    variables must match; other variables match anything); None if ``var`` is not in it."""
    targets: list[int] = []
    consts: list[tuple[int, str]] = []
    bound: list[tuple[int, str]] = []
    for i, t in enumerate(atom.args):
        if isinstance(t, Var) and t.name == var:
            targets.append(i)
        elif isinstance(t, Const):
            consts.append((i, t.name))
        elif t.name in scope:
            bound.append((i, t.name))
    if not targets:
        return None
    pred, n = atom.pred, len(atom.args)
    if n == 2 and len(targets) == 1 and len(consts) + len(bound) == 1:
        fi, name = (consts or bound)[0]
        is_const = bool(consts)

        def pair(k: KeyFacts, env: Mapping[str, str]) -> Sequence[str]:
            return k.partners(pred, fi).get(name if is_const else env[name], _NO_NAMES)

        return pair

    first, rest = targets[0], targets[1:]

    def general(k: KeyFacts, env: Mapping[str, str]) -> Sequence[str]:
        fixed = consts + [(i, env[nm]) for i, nm in bound]
        out: list[str] = []
        for _, args in k.with_pred(pred):
            if len(args) != n or any(args[i][1] != v for i, v in fixed):
                continue
            x = args[first][1]
            if all(args[j][1] == x for j in rest):
                out.append(x)
        return out

    return general


def union_candidates(parts: Sequence[Candidates]) -> Candidates:
    if len(parts) == 1:
        return parts[0]

    def run(k: KeyFacts, env: Mapping[str, str]) -> Sequence[str]:
        out: list[str] = []
        for p in parts:
            out.extend(p(k, env))
        return out

    return run
