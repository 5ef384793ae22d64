"""Grounding: quantifiers over a finite typed universe replaced by their instances.

Design. ``forall``/``exists`` ground to ``and``/``or`` of their instances, linear in the
number of instances. The counting quantifiers cannot be treated that way: "exactly n of
k" has a DNF of C(k, n) terms, and "a perfect matching exists" one of k! terms (and no
polynomial monotone formula at all). New AST nodes would leak into the parser, printer
and every AST consumer, and re-typing the binders to fresh per-call types would leave
variables and a universe dependency in the result. So grounding returns its own small
quantifier-free IR, :data:`GroundFormula`: the AST's connectives plus two counting nodes
that list their instances explicitly:

* :class:`Count` ``(items, lo, hi)``: between ``lo`` and ``hi`` of ``items`` hold
  (``forn n`` is ``lo = hi = n``; BDDL's "at least n" reading is ``hi = len(items)``);
* :class:`Matching` ``(edges, size)``: ``size`` of the edges hold, no two of them sharing
  a left or a right object (``forpairs``: ``size`` = the smaller domain; ``fornpairs n``:
  ``size = n``). Pairs of an object with itself have no edge.

The result is closed (no variables; the universe is no longer needed) and polynomial in
the universe; goal-option expansion and best-option search handle the counting nodes
natively. :func:`to_formula` converts back to a plain AST formula, expanding counting
nodes into disjunctions where that is affordable.

Every node keeps the meaning of the formula it grounds on every trace segment (the
semantics of ``docs/ltl-semantics.md``), where whether a node contains ``then`` matters: a
``then``-free formula holds at a position and, inside a temporal node, on a segment iff
it holds at some position of it ("eventually"). Hence two rules:

* the builders never merge a ``then``-free ``and`` into a temporal ``and`` (it is one
  "eventually" block; splitting it would change its meaning);
* a temporal formula grounds to a temporal node or a constant, never to a ``then``-free
  one (``p or (a then false)`` folds to ``p``, which under ``not`` would mean "eventually
  not p" instead of "never p"). :class:`GEventually` marks such a result, and also the
  left of a temporal ``implies``, which the evaluator negates on the segment.
  In a temporal ``and`` whose ``then`` operands all fold to constants, each remaining
  operand is marked, not their join (``p and q and not (a then false)`` means "p
  somewhere and q somewhere", not "p and q at one position").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import TypeAlias

from planproof.ltl import ast
from planproof.ltl.ast import FALSE, TRUE, Atom, Bottom, Const, Formula, Top, Var
from planproof.ltl.errors import GroundingError
from planproof.ltl.parser import MAX_DEPTH
from planproof.ltl.trace import Universe

__all__ = [
    "DEFAULT_MAX_NODES",
    "Count",
    "Edge",
    "GAnd",
    "GEventually",
    "GNot",
    "GOr",
    "GThen",
    "GroundFormula",
    "Matching",
    "g_and",
    "g_count",
    "g_eventually",
    "g_matching",
    "g_not",
    "g_or",
    "g_then",
    "ground",
    "ground_atoms",
    "is_temporal",
    "matchings",
    "max_matching_size",
    "node_count",
    "to_formula",
    "walk",
]

DEFAULT_MAX_NODES = 1_000_000
"""Most formula instances one call to :func:`ground` visits before it gives up (nested
quantifiers over a large universe multiply)."""


@dataclass(frozen=True, slots=True)
class GNot:
    body: GroundFormula
    temporal: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "temporal", is_temporal(self.body))


@dataclass(frozen=True, slots=True)
class GAnd:
    children: tuple[GroundFormula, ...]
    temporal: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "temporal", any(is_temporal(c) for c in self.children))


@dataclass(frozen=True, slots=True)
class GOr:
    children: tuple[GroundFormula, ...]
    temporal: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "temporal", any(is_temporal(c) for c in self.children))


@dataclass(frozen=True, slots=True)
class GThen:
    children: tuple[GroundFormula, ...]

    @property
    def temporal(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class GEventually:
    """A ``then``-free ``body`` read on a segment: it holds on a segment iff ``body``
    holds at some position of it. Temporal, so ``not`` over it means "never body"."""

    body: GroundFormula

    @property
    def temporal(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class Count:
    """Between ``lo`` and ``hi`` (inclusive) of ``items`` hold. Items are never
    deduplicated: two equal items count twice."""

    items: tuple[GroundFormula, ...]
    lo: int
    hi: int
    temporal: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.lo <= self.hi <= len(self.items):
            raise ValueError(f"need 0 <= lo <= hi <= {len(self.items)}, got {self.lo}, {self.hi}")
        object.__setattr__(self, "temporal", any(is_temporal(c) for c in self.items))


@dataclass(frozen=True, slots=True)
class Edge:
    """The instance of a pair quantifier's body for the pair (``left``, ``right``)."""

    left: str
    right: str
    body: GroundFormula


@dataclass(frozen=True, slots=True)
class Matching:
    """At least ``size`` edges hold that pairwise share neither their left nor their right
    object. Left and right objects are separate vertices even when the two domains
    overlap (``(a, b)`` and ``(b, a)`` are disjoint pairs)."""

    edges: tuple[Edge, ...]
    size: int
    temporal: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError(f"matching size must be >= 0, got {self.size}")
        if len({(e.left, e.right) for e in self.edges}) != len(self.edges):
            raise ValueError("duplicate edge in matching")
        object.__setattr__(self, "temporal", any(is_temporal(e.body) for e in self.edges))


GroundFormula: TypeAlias = (
    Atom | Top | Bottom | GNot | GAnd | GOr | GThen | GEventually | Count | Matching
)


def is_temporal(g: GroundFormula) -> bool:
    """True iff ``g`` contains ``then`` (cached on composite nodes)."""
    if isinstance(g, Atom | Top | Bottom):
        return False
    return g.temporal


def _kids(g: GroundFormula) -> tuple[GroundFormula, ...]:
    match g:
        case GNot(body) | GEventually(body):
            return (body,)
        case GAnd(cs) | GOr(cs) | GThen(cs):
            return cs
        case Count(items):
            return items
        case Matching(edges):
            return tuple(e.body for e in edges)
    return ()


def walk(g: GroundFormula) -> Iterator[GroundFormula]:
    """Every node of ``g`` in pre-order (edges as their bodies), without recursion."""
    stack = [g]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_kids(node))


def node_count(g: GroundFormula) -> int:
    """Number of nodes (edges count as their bodies)."""
    return sum(1 for _ in walk(g))


def ground_atoms(g: GroundFormula) -> frozenset[Atom]:
    """Every atom of ``g``."""
    return frozenset(n for n in walk(g) if isinstance(n, Atom))


# --------------------------------------------------------------------------- builders


def g_not(g: GroundFormula) -> GroundFormula:
    """``not g``, folding constants and double negation."""
    if isinstance(g, Top):
        return FALSE
    if isinstance(g, Bottom):
        return TRUE
    if isinstance(g, GNot):
        return g.body
    return GNot(g)


def g_eventually(g: GroundFormula) -> GroundFormula:
    """``g`` read on a segment: ``g`` itself if it is temporal or constant."""
    if isinstance(g, Top | Bottom) or is_temporal(g):
        return g
    return GEventually(g)


def _flat(kind: type[GAnd] | type[GOr], gs: Iterable[GroundFormula]) -> list[GroundFormula]:
    gs = list(gs)
    temporal = any(is_temporal(g) for g in gs)
    out: list[GroundFormula] = []
    for g in gs:
        # inside a temporal `and` a then-free `and` child is one "eventually" block
        if isinstance(g, kind) and (kind is GOr or g.temporal or not temporal):
            out.extend(g.children)
        else:
            out.append(g)
    return list(dict.fromkeys(out))


def g_and(*gs: GroundFormula) -> GroundFormula:
    """``and`` of any number of formulas (``true`` for none); flattens when that keeps the
    meaning, drops duplicates and ``true``, folds ``false``."""
    kids = _flat(GAnd, gs)
    if FALSE in kids:
        return FALSE
    kids = [k for k in kids if k != TRUE]
    if not kids:
        return TRUE
    return kids[0] if len(kids) == 1 else GAnd(tuple(kids))


def g_or(*gs: GroundFormula) -> GroundFormula:
    """``or`` of any number of formulas (``false`` for none)."""
    kids = _flat(GOr, gs)
    if TRUE in kids:
        return TRUE
    kids = [k for k in kids if k != FALSE]
    if not kids:
        return FALSE
    return kids[0] if len(kids) == 1 else GOr(tuple(kids))


def g_then(*gs: GroundFormula) -> GroundFormula:
    """``then`` of one or more formulas. ``true`` parts are kept: each part needs its own
    non-empty segment."""
    if not gs:
        raise ValueError("g_then() needs at least one formula")
    if FALSE in gs:
        return FALSE
    flat: list[GroundFormula] = []
    for g in gs:
        flat.extend(g.children if isinstance(g, GThen) else (g,))
    return flat[0] if len(flat) == 1 else GThen(tuple(flat))


def g_count(items: Iterable[GroundFormula], lo: int, hi: int) -> GroundFormula:
    """Between ``lo`` and ``hi`` of ``items`` hold, normalised: constant items are taken
    out, and the bounds that mean ``true``/``false``/``and``/``or`` give those nodes."""
    kept: list[GroundFormula] = []
    for it in items:
        if it == TRUE:
            lo, hi = lo - 1, hi - 1
        elif it != FALSE:
            kept.append(it)
    if any(is_temporal(k) for k in kept):  # a temporal count reads every item on the segment
        kept = [g_eventually(k) for k in kept]
    m = len(kept)
    lo, hi = max(lo, 0), min(hi, m)
    if lo > hi:
        return FALSE
    if lo == 0 and hi == m:
        return TRUE
    if lo == m:
        return g_and(*kept)
    if hi == 0:
        return g_and(*(g_not(k) for k in kept))
    if lo == 1 and hi == m:
        return g_or(*kept)
    return Count(tuple(kept), lo, hi)


def max_matching_size(pairs: Iterable[tuple[str, str]]) -> int:
    """Size of a maximum matching of a bipartite graph given by its (left, right) edges
    (Kuhn's augmenting paths, iterative; graphs here have at most a few hundred edges)."""
    adj: dict[str, list[str]] = {}
    for a, b in pairs:
        adj.setdefault(a, []).append(b)
    owner: dict[str, str] = {}  # right vertex -> left vertex matched to it
    for root in adj:
        parent: dict[str, str | None] = {}  # right vertex -> right vertex it was reached from
        stack: list[tuple[str, str | None]] = [(root, None)]
        seen_left = {root}
        found: str | None = None
        while stack and found is None:
            left, via = stack.pop()
            for right in adj[left]:
                if right in parent:
                    continue
                parent[right] = via
                if right not in owner:
                    found = right
                    break
                nxt = owner[right]
                if nxt not in seen_left:
                    seen_left.add(nxt)
                    stack.append((nxt, right))
        # augment along the path of right vertices back to the root
        cur = found
        while cur is not None:
            prev = parent[cur]
            owner[cur] = owner[prev] if prev is not None else root
            cur = prev
    return len(owner)


def g_matching(edges: Iterable[Edge], size: int) -> GroundFormula:
    """At least ``size`` disjoint edges hold, normalised: ``false`` edges are dropped,
    a size no matching of the remaining edges reaches gives ``false``, all-``true``
    edges give ``true``, and size 1 is the ``or`` of the bodies."""
    kept = [e for e in edges if e.body != FALSE]
    if size <= 0:
        return TRUE
    if max_matching_size((e.left, e.right) for e in kept) < size:
        return FALSE
    if all(e.body == TRUE for e in kept):
        return TRUE
    if size == 1:
        return g_or(*(e.body for e in kept))
    return Matching(tuple(kept), size)


# --------------------------------------------------------------------------- grounding


class _Grounder:
    def __init__(
        self, universe: Universe, forn_at_least: bool, max_nodes: int, temporal: set[int]
    ) -> None:
        self.universe = universe
        self.temporal = temporal  # ids of the AST nodes that contain `then`
        self.forn_at_least = forn_at_least
        self.budget = max_nodes
        self.max_nodes = max_nodes
        self._domains: dict[str | None, tuple[str, ...]] = {}

    def domain(self, b: ast.Binder) -> tuple[str, ...]:
        if b.type not in self._domains:
            self._domains[b.type] = self.universe.of_type(b.type)
        return self._domains[b.type]

    def spend(self, n: int = 1) -> None:
        self.budget -= n
        if self.budget < 0:
            raise GroundingError(
                f"grounding needs more than {self.max_nodes} nodes: too many quantifier "
                "instances for this universe (raise max_nodes if this is intended)"
            )

    def run(self, f: Formula, env: dict[str, str]) -> GroundFormula:
        self.spend()
        g = self._node(f, env)
        # a temporal formula must stay temporal (or constant): see the module docstring
        return g_eventually(g) if id(f) in self.temporal else g

    def _node(self, f: Formula, env: dict[str, str]) -> GroundFormula:
        match f:
            case Atom(pred, args):
                if not any(isinstance(a, Var) for a in args):
                    return f
                return Atom(
                    pred, tuple(Const(env[a.name]) if isinstance(a, Var) else a for a in args)
                )
            case Top() | Bottom():
                return f
            case ast.Not(body):
                return g_not(self.run(body, env))
            case ast.And(cs):
                kids = [self.run(c, env) for c in cs]
                if id(f) in self.temporal and not any(map(is_temporal, kids)):
                    # every `then` folded away, yet each then-free operand is still read
                    # on the segment on its own: wrapping the joined `and` instead would
                    # make them one block (hold at the same position)
                    kids = [g_eventually(k) for k in kids]
                return g_and(*kids)
            case ast.Or(cs):
                return g_or(*(self.run(c, env) for c in cs))
            case ast.Then(cs):
                return g_then(*(self.run(c, env) for c in cs))
            case ast.Implies(left, right):
                lhs = self.run(left, env)
                if id(f) in self.temporal:  # the evaluator negates the left on the segment
                    lhs = g_eventually(lhs)
                return g_or(g_not(lhs), self.run(right, env))
            case ast.Forall(b, body):
                return g_and(*self._instances(b, body, env))
            case ast.Exists(b, body):
                return g_or(*self._instances(b, body, env))
            case ast.ForN(n, b, body):
                items = list(self._instances(b, body, env))
                return g_count(items, n, len(items) if self.forn_at_least else n)
            case ast.ForPairs(b1, b2, body):
                size = min(len(self.domain(b1)), len(self.domain(b2)))
                return g_matching(self._edges(b1, b2, body, env), size)
            case ast.ForNPairs(n, b1, b2, body):
                return g_matching(self._edges(b1, b2, body, env), n)
        raise TypeError(f"not a formula: {f!r}")

    def _instances(
        self, b: ast.Binder, body: Formula, env: dict[str, str]
    ) -> Iterator[GroundFormula]:
        for obj in self.domain(b):
            yield self.run(body, {**env, b.var: obj})

    def _edges(
        self, b1: ast.Binder, b2: ast.Binder, body: Formula, env: dict[str, str]
    ) -> list[Edge]:
        return [
            Edge(x, y, self.run(body, {**env, b1.var: x, b2.var: y}))
            for x in self.domain(b1)
            for y in self.domain(b2)
            if x != y
        ]


def ground(
    f: Formula,
    universe: Universe,
    *,
    forn_at_least: bool = False,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> GroundFormula:
    """Replace every quantifier of the closed formula ``f`` by its instances over
    ``universe`` (a binder of type ``t`` ranges over ``universe.of_type(t)``; a type no
    object has is an empty domain: ``forall`` gives ``true``, ``exists`` ``false``).

    ``forn_at_least=True`` reads ``forn n`` as "at least n" (BDDL's ground options)
    instead of "exactly n". ``implies`` becomes ``not left or right``.

    Raises :class:`GroundingError` on free variables, on a formula deeper than the
    parser accepts, or when the result would exceed ``max_nodes`` nodes.
    """
    if not isinstance(universe, Universe):
        raise TypeError(f"universe must be a Universe, not {type(universe).__name__}")
    free = ast.free_vars(f)
    if free:
        raise GroundingError(
            f"free variable(s) {', '.join(sorted(free))}: every variable must be bound by "
            "a quantifier before grounding"
        )
    d = ast.depth(f)
    if d > MAX_DEPTH:
        raise GroundingError(f"formula nests {d} deep, over the limit of {MAX_DEPTH}")
    return _Grounder(universe, forn_at_least, max_nodes, _temporal_ids(f)).run(f, {})


def _temporal_ids(f: Formula) -> set[int]:
    """Ids of the sub-formulas of ``f`` that contain ``then`` (one post-order pass)."""
    out: set[int] = set()
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        node, done = stack.pop()
        kids = ast.children(node)
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in kids)
        elif isinstance(node, ast.Then) or any(id(c) in out for c in kids):
            out.add(id(node))
    return out


# --------------------------------------------------------------------------- back to the AST


_NEVER = ast.Then((FALSE, FALSE))
"""A temporal formula false on every segment (kept unsimplified on purpose)."""


def _eventually(f: Formula) -> Formula:
    """A temporal AST formula meaning "``f`` at some position of the segment": ``f`` or a
    never-true ``then``, which makes the ``or`` (and whatever negates it) segment-level."""
    if isinstance(f, Top | Bottom) or ast.is_temporal(f):
        return f
    return ast.Or((f, _NEVER))


def _and(parts: list[Formula]) -> Formula:
    # no flattening: a then-free `and` operand must stay one block (module docstring)
    if FALSE in parts:
        return FALSE
    parts = [p for p in parts if p != TRUE]
    if not parts:
        return TRUE
    return parts[0] if len(parts) == 1 else ast.And(tuple(parts))


def _or(parts: list[Formula]) -> Formula:
    if TRUE in parts:
        return TRUE
    parts = list(dict.fromkeys(p for p in parts if p != FALSE))
    if not parts:
        return FALSE
    return parts[0] if len(parts) == 1 else ast.Or(tuple(parts))


def matchings(pairs: Sequence[tuple[str, str]], size: int) -> Iterator[tuple[int, ...]]:
    """Index sets of ``size`` pairwise disjoint (left, right) pairs, in lexicographic
    order, lazily (iterative DFS: no recursion however many pairs)."""
    if size < 0:
        return
    stack: list[tuple[int, tuple[int, ...], frozenset[str], frozenset[str]]] = [
        (0, (), frozenset(), frozenset())
    ]
    while stack:
        start, chosen, lefts, rights = stack.pop()
        if len(chosen) == size:
            yield chosen
            continue
        nxt = []
        for i in range(start, len(pairs)):
            a, b = pairs[i]
            if a not in lefts and b not in rights:
                nxt.append((i + 1, (*chosen, i), lefts | {a}, rights | {b}))
        stack.extend(reversed(nxt))


def to_formula(g: GroundFormula, *, max_terms: int = 10_000) -> Formula:
    """A plain quantifier-free AST formula equivalent to ``g``. A :class:`Count` becomes
    the ``or`` over the ways to pick ``lo`` items that hold and ``len - hi`` that do not;
    a :class:`Matching` the ``or`` over its matchings of the required size. Raises
    :class:`GroundingError` if one such ``or`` would have more than ``max_terms``
    operands."""
    match g:
        case Atom() | Top() | Bottom():
            return g
        case GNot(body):
            return ast.Not(to_formula(body, max_terms=max_terms))
        case GEventually(body):
            return _eventually(to_formula(body, max_terms=max_terms))
        case GAnd(cs):
            return _and([to_formula(c, max_terms=max_terms) for c in cs])
        case GOr(cs):
            return _or([to_formula(c, max_terms=max_terms) for c in cs])
        case GThen(cs):
            parts = tuple(to_formula(c, max_terms=max_terms) for c in cs)
            return parts[0] if len(parts) == 1 else ast.Then(parts)
        case Count(items, lo, hi):
            m = len(items)
            terms = comb(m, lo) * comb(m - lo, m - hi)
            if terms > max_terms:
                raise GroundingError(f"expanding a count needs {terms} terms (> {max_terms})")
            pos = [to_formula(i, max_terms=max_terms) for i in items]
            # in a temporal count an item is read on the segment, so is its negation
            neg = [ast.Not(_eventually(p) if g.temporal else p) for p in pos]
            out: list[Formula] = []
            for chosen in combinations(range(m), lo):
                rest = [i for i in range(m) if i not in chosen]
                for negated in combinations(rest, m - hi):
                    out.append(_and([pos[i] for i in chosen] + [neg[i] for i in negated]))
            return _or(out)
        case Matching(edges, size):
            bodies = [to_formula(e.body, max_terms=max_terms) for e in edges]
            out = []
            for chosen in matchings([(e.left, e.right) for e in edges], size):
                out.append(_and([bodies[i] for i in chosen]))
                if len(out) > max_terms:
                    raise GroundingError(f"expanding a matching needs > {max_terms} terms")
            return _or(out)
    raise TypeError(f"not a ground formula: {g!r}")
