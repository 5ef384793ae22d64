"""The negation normal form every option algorithm works on.

Leaves are state literals and action atoms; ``temporal`` says whether a node contains
``then``, which decides how the action parts of a product merge (:data:`Merge`). Nodes are
identity-hashed: the counter, enumerator and scorer memoise on them by ``id``, and they live
as long as the :class:`~planproof.ltl.options.GoalOptions` holding the root.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Literal as Kind
from typing import TypeAlias

from planproof.ltl import ground as gr
from planproof.ltl.ast import TRUE, Atom, Bottom, Literal, Top
from planproof.ltl.errors import UnsupportedFormulaError
from planproof.ltl.printer import to_text

__all__ = [
    "FALSE_NODE",
    "MAX_COVERS",
    "MAX_MASK_SIDE",
    "TRUE_NODE",
    "ActNode",
    "AndNode",
    "AtomSets",
    "CountNode",
    "LitNode",
    "MatchNode",
    "Merge",
    "Node",
    "OrNode",
    "ThenNode",
    "is_temporal",
    "merge_kind",
    "nnf",
    "not_matching",
]


MAX_COVERS = 100_000
"""Most vertex covers ``not forpairs`` may expand into."""
MAX_MASK_SIDE = 20
"""Largest side of a pair quantifier whose matchings a bitmask DP walks (the best option
raises beyond it; counting falls back to a bound)."""


@dataclass(frozen=True, slots=True, eq=False)
class LitNode:
    lit: Literal


@dataclass(frozen=True, slots=True, eq=False)
class ActNode:
    atom: Atom


@dataclass(frozen=True, slots=True, eq=False)
class AndNode:
    children: tuple[Node, ...]
    temporal: bool


@dataclass(frozen=True, slots=True, eq=False)
class OrNode:
    children: tuple[Node, ...]
    temporal: bool


@dataclass(frozen=True, slots=True, eq=False)
class ThenNode:
    children: tuple[Node, ...]


@dataclass(frozen=True, slots=True, eq=False)
class CountNode:
    """Pick ``lo`` of ``pos`` to hold and ``len - hi`` of ``neg`` (the negated items, empty
    if ``hi == len``) not to, on distinct items."""

    pos: tuple[Node, ...]
    neg: tuple[Node, ...]
    m: int
    lo: int
    hi: int
    temporal: bool


@dataclass(frozen=True, slots=True, eq=False)
class MatchNode:
    pairs: tuple[tuple[str, str], ...]
    bodies: tuple[Node, ...]
    size: int
    temporal: bool


Node: TypeAlias = LitNode | ActNode | AndNode | OrNode | ThenNode | CountNode | MatchNode
TRUE_NODE = AndNode((), False)
FALSE_NODE = OrNode((), False)

Merge = Kind["point", "segment", "then"]
"""How a product merges its children's action parts: at one position (then-free), on one
segment (interleaved), or in sequence (``then``)."""


def merge_kind(node: AndNode | CountNode | MatchNode | ThenNode) -> Merge:
    if isinstance(node, ThenNode):
        return "then"
    return "segment" if node.temporal else "point"


def is_temporal(n: Node) -> bool:
    return isinstance(n, ThenNode) or (not isinstance(n, LitNode | ActNode) and n.temporal)


def not_matching(m: gr.Matching) -> gr.GroundFormula:
    """``not`` (a matching of size s exists) as an ``or`` over vertex covers of size
    s - 1 of the ``and`` of the negated uncovered edges (König's theorem)."""
    verts = sorted({("L", e.left) for e in m.edges} | {("R", e.right) for e in m.edges})
    k = m.size - 1
    if len(verts) <= k:
        return TRUE
    n = comb(len(verts), k)
    if n > MAX_COVERS:
        raise UnsupportedFormulaError(
            f"'not' over a pair quantifier expands into {n} vertex covers (> {MAX_COVERS})"
        )
    out = []
    for cover in combinations(verts, k):
        cs = set(cover)
        out.append(
            gr.g_and(
                *(
                    gr.g_not(e.body)
                    for e in m.edges
                    if ("L", e.left) not in cs and ("R", e.right) not in cs
                )
            )
        )
    return gr.g_or(*out)


def nnf(g: gr.GroundFormula, positive: bool, actions: frozenset[str]) -> Node:
    """Negation normal form; raises on ``not`` over an action atom or a ``then``."""
    match g:
        case Atom():
            if g.pred in actions:
                if not positive:
                    raise UnsupportedFormulaError(
                        f"'not' over the action {to_text(g)}: a goal option cannot require "
                        "an action not to happen"
                    )
                return ActNode(g)
            return LitNode(Literal(g, positive))
        case Top():
            return TRUE_NODE if positive else FALSE_NODE
        case Bottom():
            return FALSE_NODE if positive else TRUE_NODE
        case gr.GNot(body):
            return nnf(body, not positive, actions)
        case gr.GEventually(body):
            # final-state reading: state parts do not depend on the position, and the
            # parent, marked temporal, already merges actions segment-wise
            return nnf(body, positive, actions)
        case gr.GAnd(cs) | gr.GOr(cs):
            kids = tuple(nnf(c, positive, actions) for c in cs)
            if isinstance(g, gr.GAnd) == positive:
                return AndNode(kids, g.temporal)
            return OrNode(kids, g.temporal)
        case gr.GThen(cs):
            if not positive:
                raise UnsupportedFormulaError(
                    "'not' over 'then': goal options cannot express that an order of "
                    "events does not happen"
                )
            return ThenNode(tuple(nnf(c, True, actions) for c in cs))
        case gr.Count(items, lo, hi):
            m = len(items)
            if not positive:
                neg = gr.g_or(gr.g_count(items, 0, lo - 1), gr.g_count(items, hi + 1, m))
                return nnf(neg, True, actions)
            pos_items = tuple(nnf(i, True, actions) for i in items) if lo > 0 else ()
            neg_items = tuple(nnf(i, False, actions) for i in items) if hi < m else ()
            return CountNode(pos_items, neg_items, m, lo, hi, g.temporal)
        case gr.Matching(edges, size):
            if not positive:
                return nnf(not_matching(g), True, actions)
            return MatchNode(
                tuple((e.left, e.right) for e in edges),
                tuple(nnf(e.body, True, actions) for e in edges),
                size,
                g.temporal,
            )
    raise TypeError(f"not a ground formula: {g!r}")


class AtomSets:
    """State atoms of every NNF node (memoised by identity; nodes live as long as the
    :class:`GoalOptions` holding them)."""

    def __init__(self) -> None:
        self._memo: dict[int, frozenset[Atom]] = {}

    def __call__(self, node: Node) -> frozenset[Atom]:
        hit = self._memo.get(id(node))
        if hit is None:
            hit = self._memo[id(node)] = self._compute(node)
        return hit

    def _compute(self, node: Node) -> frozenset[Atom]:
        match node:
            case LitNode(lit):
                return frozenset((lit.atom,))
            case ActNode():
                return frozenset()
            case AndNode(cs) | OrNode(cs) | ThenNode(cs):
                return frozenset().union(*(self(c) for c in cs))
            case CountNode(pos, neg):
                return frozenset().union(*(self(c) for c in pos + neg))
            case MatchNode(_, bodies):
                return frozenset().union(*(self(c) for c in bodies))
        raise TypeError(node)
