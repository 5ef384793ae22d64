"""Abstract syntax of planproof's goal logic (the EAI LTL fragment and its extensions).

Every node is a frozen, hashable dataclass so formulas can be used as dictionary keys,
memoised and compared structurally. Predicate names are case-insensitive in the EAI
data (``ON(tv.1)`` in goals, ``on(tv.1)`` in subgoals), so :class:`Atom` stores them
lower-cased; object and variable names keep their case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Const:
    """An object of the world, e.g. ``television.410`` or ``pants``."""

    name: str

    def __reduce__(self) -> tuple[type[Const], tuple[str]]:
        return Const, (self.name,)  # unpickled through __init__: 3x faster than setstate


@dataclass(frozen=True, slots=True)
class Var:
    """A variable bound by an enclosing quantifier."""

    name: str

    def __reduce__(self) -> tuple[type[Var], tuple[str]]:
        return Var, (self.name,)


Term: TypeAlias = Const | Var


@dataclass(frozen=True, slots=True)
class Atom:
    """A state or action proposition ``pred(arg, ...)``; which one is decided by a vocabulary.

    States are sets of atoms probed millions of times, so an atom carries a key of plain
    strings computed once, and hashes and compares through it in C rather than through the
    generated dataclass methods of its arguments.
    """

    pred: str
    args: tuple[Term, ...] = ()
    _key: tuple[str, tuple[tuple[bool, str], ...]] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.pred != self.pred.lower():
            object.__setattr__(self, "pred", self.pred.lower())
        key = (self.pred, tuple((isinstance(a, Var), a.name) for a in self.args))
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Atom:
            return NotImplemented
        return self._hash == other._hash and self._key == other._key

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Callable[..., Atom], tuple[object, ...]]:
        # the cached hash is of strings, which differ from process to process: it must
        # never travel inside a pickle (the key does, and is hashed again on loading)
        return _unpickle_atom, (self.pred, self.args, self._key)

    @property
    def is_ground(self) -> bool:
        return all(map(isinstance, self.args, repeat(Const)))  # no Python frame per arg


def _unpickle_atom(
    pred: str, args: tuple[Term, ...], key: tuple[str, tuple[tuple[bool, str], ...]]
) -> Atom:
    """An atom from its pickled fields; hashed in this process."""
    a = object.__new__(Atom)
    object.__setattr__(a, "pred", pred)
    object.__setattr__(a, "args", args)
    object.__setattr__(a, "_key", key)
    object.__setattr__(a, "_hash", hash(key))
    return a


def atom_of_key(key: tuple[str, tuple[tuple[bool, str], ...]]) -> Atom:
    """The ground atom whose key (``Atom._key``) is ``key``: simulators that work on keys
    turn them back into atoms without deriving the key again. Every entry of ``key[1]``
    must be a constant's (``(False, name)``) and ``key[0]`` lower-case."""
    return _unpickle_atom(key[0], tuple(Const(n) for _, n in key[1]), key)


@dataclass(frozen=True, slots=True)
class Top:
    """The constant true."""


@dataclass(frozen=True, slots=True)
class Bottom:
    """The constant false."""


TRUE = Top()
FALSE = Bottom()


@dataclass(frozen=True, slots=True)
class Not:
    body: Formula


def _require_two(node: object, children: tuple[object, ...]) -> None:
    if len(children) < 2:
        raise ValueError(
            f"{type(node).__name__} needs at least two operands, got {len(children)}; "
            "use planproof.ltl.simplify.conj/disj/seq to build from any number"
        )


@dataclass(frozen=True, slots=True)
class And:
    children: tuple[Formula, ...]

    def __post_init__(self) -> None:
        _require_two(self, self.children)


@dataclass(frozen=True, slots=True)
class Or:
    children: tuple[Formula, ...]

    def __post_init__(self) -> None:
        _require_two(self, self.children)


@dataclass(frozen=True, slots=True)
class Implies:
    left: Formula
    right: Formula


@dataclass(frozen=True, slots=True)
class Then:
    """``f1 then f2 then ...``: each part holds on a later, non-empty segment of the trace."""

    children: tuple[Formula, ...]

    def __post_init__(self) -> None:
        _require_two(self, self.children)


@dataclass(frozen=True, slots=True)
class Binder:
    """A quantified variable with an optional type (``x`` or ``x - cup``)."""

    var: str
    type: str | None = None


@dataclass(frozen=True, slots=True)
class Forall:
    binder: Binder
    body: Formula


@dataclass(frozen=True, slots=True)
class Exists:
    binder: Binder
    body: Formula


@dataclass(frozen=True, slots=True)
class ForN:
    """Exactly ``count`` objects satisfy the body (``forn n. x. body``)."""

    count: int
    binder: Binder
    body: Formula

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError(f"forn count must be >= 0, got {self.count}")


@dataclass(frozen=True, slots=True)
class ForPairs:
    """BDDL ``forpairs``: a matching of size min(|T1|, |T2|) between distinct objects
    of the two types exists whose every pair satisfies the body."""

    first: Binder
    second: Binder
    body: Formula


@dataclass(frozen=True, slots=True)
class ForNPairs:
    """BDDL ``fornpairs``: at least ``count`` disjoint pairs (a matching of size ``count``)
    of distinct objects satisfy the body, as BDDL's ``>= N`` check intends."""

    count: int
    first: Binder
    second: Binder
    body: Formula

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError(f"fornpairs count must be >= 0, got {self.count}")


Quantifier: TypeAlias = Forall | Exists | ForN
PairQuantifier: TypeAlias = ForPairs | ForNPairs
Formula: TypeAlias = (
    Atom
    | Top
    | Bottom
    | Not
    | And
    | Or
    | Implies
    | Then
    | Forall
    | Exists
    | ForN
    | ForPairs
    | ForNPairs
)


def children(f: Formula) -> tuple[Formula, ...]:
    """The direct sub-formulas of ``f``."""
    match f:
        case Atom() | Top() | Bottom():
            return ()
        case Not(body) | Forall(_, body) | Exists(_, body) | ForN(_, _, body):
            return (body,)
        case ForPairs(_, _, body) | ForNPairs(_, _, _, body):
            return (body,)
        case Implies(left, right):
            return (left, right)
        case And(cs) | Or(cs) | Then(cs):
            return cs
    raise TypeError(f"not a formula: {f!r}")


def walk(f: Formula) -> Iterator[Formula]:
    """All sub-formulas of ``f`` in pre-order, without recursion (safe on deep input)."""
    stack = [f]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def size(f: Formula) -> int:
    """Number of nodes."""
    return sum(1 for _ in walk(f))


def depth(f: Formula) -> int:
    """Height of the syntax tree (an atom has depth 1), computed iteratively."""
    best = 0
    stack: list[tuple[Formula, int]] = [(f, 1)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in children(node))
    return best


def atoms(f: Formula) -> frozenset[Atom]:
    """Every atom occurring in ``f`` (with variables as written)."""
    return frozenset(n for n in walk(f) if isinstance(n, Atom))


def predicates(f: Formula) -> frozenset[tuple[str, int]]:
    """(name, arity) of every predicate used in ``f``."""
    return frozenset((a.pred, len(a.args)) for a in atoms(f))


def constants(f: Formula) -> frozenset[str]:
    """Names of the objects mentioned in ``f``."""
    return frozenset(t.name for a in atoms(f) for t in a.args if isinstance(t, Const))


def is_temporal(f: Formula) -> bool:
    """True iff ``f`` contains ``then``."""
    return any(isinstance(n, Then) for n in walk(f))


def binders(f: Formula) -> tuple[Binder, ...]:
    """Binders introduced by a quantifier node (empty for other nodes)."""
    match f:
        case Forall(b, _) | Exists(b, _) | ForN(_, b, _):
            return (b,)
        case ForPairs(b1, b2, _) | ForNPairs(_, b1, b2, _):
            return (b1, b2)
    return ()


def free_vars(f: Formula) -> frozenset[str]:
    """Variables used in ``f`` but not bound by an enclosing quantifier."""
    out: set[str] = set()
    stack: list[tuple[Formula, frozenset[str]]] = [(f, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, Atom):
            out.update(t.name for t in node.args if isinstance(t, Var) and t.name not in bound)
            continue
        inner = bound | {b.var for b in binders(node)}
        stack.extend((c, inner) for c in children(node))
    return frozenset(out)


@dataclass(frozen=True)
class Literal:
    """A possibly negated ground atom: the unit of goal options and goal metrics."""

    atom: Atom
    positive: bool = True

    def negate(self) -> Literal:
        return Literal(self.atom, not self.positive)

    def as_formula(self) -> Formula:
        return self.atom if self.positive else Not(self.atom)


def map_atoms(
    f: Formula,
    atom: Callable[[Atom], Formula],
    binder: Callable[[Binder], Binder] | None = None,
) -> Formula:
    """``f`` with every atom replaced by ``atom(a)`` (and every binder by ``binder(b)``):
    the one structural map renamings and rewritings of atoms go through."""
    b_ = binder or (lambda b: b)
    match f:
        case Atom():
            return atom(f)
        case Top() | Bottom():
            return f
        case Not(body):
            return Not(map_atoms(body, atom, binder))
        case And(cs):
            return And(tuple(map_atoms(c, atom, binder) for c in cs))
        case Or(cs):
            return Or(tuple(map_atoms(c, atom, binder) for c in cs))
        case Then(cs):
            return Then(tuple(map_atoms(c, atom, binder) for c in cs))
        case Implies(left, right):
            return Implies(map_atoms(left, atom, binder), map_atoms(right, atom, binder))
        case Forall(b, body):
            return Forall(b_(b), map_atoms(body, atom, binder))
        case Exists(b, body):
            return Exists(b_(b), map_atoms(body, atom, binder))
        case ForN(n, b, body):
            return ForN(n, b_(b), map_atoms(body, atom, binder))
        case ForPairs(b1, b2, body):
            return ForPairs(b_(b1), b_(b2), map_atoms(body, atom, binder))
        case ForNPairs(n, b1, b2, body):
            return ForNPairs(n, b_(b1), b_(b2), map_atoms(body, atom, binder))
    raise TypeError(f"not a formula: {f!r}")


def substitute(f: Formula, mapping: dict[str, str]) -> Formula:
    """Replace free occurrences of variables by constants (capture-avoiding: an inner
    quantifier that re-binds a name shadows the outer value)."""
    if not mapping:
        return f
    match f:
        case Atom(pred, args):
            if not any(isinstance(a, Var) and a.name in mapping for a in args):
                return f
            return Atom(
                pred,
                tuple(
                    Const(mapping[a.name]) if isinstance(a, Var) and a.name in mapping else a
                    for a in args
                ),
            )
        case Top() | Bottom():
            return f
        case Not(body):
            return Not(substitute(body, mapping))
        case And(cs):
            return And(tuple(substitute(c, mapping) for c in cs))
        case Or(cs):
            return Or(tuple(substitute(c, mapping) for c in cs))
        case Then(cs):
            return Then(tuple(substitute(c, mapping) for c in cs))
        case Implies(left, right):
            return Implies(substitute(left, mapping), substitute(right, mapping))
    inner = {k: v for k, v in mapping.items() if k not in {b.var for b in binders(f)}}
    match f:
        case Forall(b, body):
            return Forall(b, substitute(body, inner))
        case Exists(b, body):
            return Exists(b, substitute(body, inner))
        case ForN(n, b, body):
            return ForN(n, b, substitute(body, inner))
        case ForPairs(b1, b2, body):
            return ForPairs(b1, b2, substitute(body, inner))
        case ForNPairs(n, b1, b2, body):
            return ForNPairs(n, b1, b2, substitute(body, inner))
    raise TypeError(f"not a formula: {f!r}")
