"""The best-option scorer's tables: what a sub-formula's options are summarised by, and
the witnesses (literal trees) that rebuild the winning option at the end."""

from __future__ import annotations

from typing import TypeAlias

from planproof.ltl.ast import Atom, Literal

__all__ = [
    "NO_LITS",
    "ActKey",
    "Entry",
    "Key",
    "Table",
    "Tree",
    "is_subsequence",
    "join",
    "materialise",
    "put",
]


ActKey: TypeAlias = tuple[Atom, ...] | None
Key: TypeAlias = tuple[frozenset[Literal], ActKey]
Tree: TypeAlias = Literal | tuple["Tree", "Tree"] | None
Entry: TypeAlias = tuple[int, tuple[Atom, ...], Tree]
Table: TypeAlias = dict[Key, Entry]
NO_LITS: frozenset[Literal] = frozenset()


def is_subsequence(a: tuple[Atom, ...], b: tuple[Atom, ...]) -> bool:
    it = iter(b)
    return all(any(x == y for y in it) for x in a)


def materialise(tree: Tree) -> frozenset[Literal]:
    out: set[Literal] = set()
    stack = [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, Literal):
            out.add(t)
        elif t is not None:
            stack.extend(t)
    return frozenset(out)


def join(a: Tree, b: Tree) -> Tree:
    if a is None:
        return b
    return a if b is None else (a, b)


def put(out: Table, key: Key, entry: Entry) -> None:
    old = out.get(key)
    if old is None or entry[0] > old[0]:
        out[key] = entry
