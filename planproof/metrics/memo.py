"""Memo tables kept per live object (a world, a task), for the pure functions the sweep
asks again and again: the table of an object is dropped when the object is collected, so
an ``id`` reused by a later object never meets an old entry."""

from __future__ import annotations

import weakref
from typing import TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")


def per_object(table: dict[int, dict[_K, _V]], owner: object) -> dict[_K, _V]:
    """``owner``'s memo in ``table`` (made empty on first use)."""
    memo = table.get(id(owner))
    if memo is None:
        memo = table[id(owner)] = {}
        weakref.finalize(owner, table.pop, id(owner), None)
    return memo
