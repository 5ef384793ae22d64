"""Merging two partial options in a product: literal sets (dropping ``p`` with ``not p``)
and action sequences (by the merge kind of the product node)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TypeAlias

from planproof.ltl.ast import Atom, Literal
from planproof.ltl.options.normal_form import Merge

__all__ = ["EMPTY", "Partial", "interleavings", "merge_acts", "merge_lits"]


Partial: TypeAlias = tuple[tuple[Atom, ...], frozenset[Literal]]
EMPTY: Partial = ((), frozenset())


def merge_lits(a: frozenset[Literal], b: frozenset[Literal]) -> frozenset[Literal] | None:
    """Union, or None if it would hold a literal and its negation."""
    if not a:
        return b
    if not b:
        return a
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    for lit in small:
        if Literal(lit.atom, not lit.positive) in big:
            return None
    return a | b


@lru_cache(maxsize=1 << 16)
def interleavings(a: tuple[Atom, ...], b: tuple[Atom, ...]) -> tuple[tuple[Atom, ...], ...]:
    """Sequences containing both ``a`` and ``b`` as subsequences, built by always
    identifying equal heads. Complete: every sequence containing both contains one of
    these (map both leftmost embeddings; equal heads land on the same position)."""
    if not a:
        return (b,)
    if not b:
        return (a,)
    if a[0] == b[0]:
        return tuple((a[0], *m) for m in interleavings(a[1:], b[1:]))
    out = dict.fromkeys((a[0], *m) for m in interleavings(a[1:], b))
    out.update(dict.fromkeys((b[0], *m) for m in interleavings(a, b[1:])))
    return tuple(out)


def merge_acts(a: tuple[Atom, ...], b: tuple[Atom, ...], kind: Merge) -> Sequence[tuple[Atom, ...]]:
    """The action sequences serving both ``a`` and ``b`` in a product of this kind."""
    if kind == "then":
        return (a + b,)
    if not a:
        return (b,)
    if not b:
        return (a,)
    if kind == "point":  # one position, one action: both parts must be that action
        return (a,) if a == b else ()
    return interleavings(a, b)
