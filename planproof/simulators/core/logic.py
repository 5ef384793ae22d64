"""Evaluating operator conditions in a state: truth, truth on static facts alone, and
which literals are unmet.

Conditions are goal-logic formulas whose variables are bound in ``env``. A state holds the
fluents; object properties (static predicates) live in a separate set, so the
three-valued reading used for affordances can treat every fluent as unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

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

    __slots__ = ("keys", "universe")

    def __init__(self, keys: frozenset[Key] | set[Key], universe: Universe) -> None:
        self.keys = keys
        self.universe = universe


def atom_key(a: Atom) -> Key:
    return a._key


def compile_condition(f: Formula) -> Cond:
    """``f`` as a function of (facts, env) → bool, equivalent to :meth:`Facts.holds`."""
    match f:
        case Atom(pred, args):
            if pred == "=":
                a, b = args
                return lambda k, env: _name(a, env) == _name(b, env)
            build = key_builder(pred, args)
            return lambda k, env: build(env) in k.keys
        case Top():
            return lambda k, env: True
        case Bottom():
            return lambda k, env: False
        case Not(body):
            inner = compile_condition(body)
            return lambda k, env: not inner(k, env)
        case And(cs):
            return _conjunction(tuple(compile_condition(c) for c in cs))
        case Or(cs):
            return _disjunction(tuple(compile_condition(c) for c in cs))
        case Implies(a, b):
            ca, cb = compile_condition(a), compile_condition(b)
            return lambda k, env: not ca(k, env) or cb(k, env)
        case Exists(b, body) | Forall(b, body):
            inner = compile_condition(body)
            var, typ = b.var, b.type
            short = isinstance(f, Exists)

            def quantified(k: KeyFacts, env: dict[str, str]) -> bool:
                saved = env.get(var)
                try:
                    for o in k.universe.of_type(typ):
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
