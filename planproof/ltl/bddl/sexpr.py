"""Positioned s-expressions, the form BDDL text is read into.

Positions are kept so that every later error can point at the source, but they are not
part of equality: equal text means equal expressions.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class SAtom:
    """A symbol or number, with where it starts in the source (positions are not part
    of equality, so equal text means equal expressions)."""

    text: str
    line: int = field(default=1, compare=False)
    column: int = field(default=1, compare=False)


@dataclass(frozen=True, slots=True)
class SList:
    """A parenthesised list; ``start``/``end`` are source offsets of its parentheses."""

    items: tuple[SExpr, ...]
    line: int = field(default=1, compare=False)
    column: int = field(default=1, compare=False)
    start: int = field(default=0, compare=False)
    end: int = field(default=0, compare=False)


SExpr = SAtom | SList


def head(e: SExpr) -> str | None:
    """The lower-cased leading symbol of a list (``define``, ``:goal``, ``and`` ...), or
    ``None`` for an atom, an empty list or a list that starts with a list."""
    if isinstance(e, SList) and e.items and isinstance(e.items[0], SAtom):
        return e.items[0].text.lower()
    return None


def sexpr_to_text(e: SExpr) -> str:
    """Compact one-line rendering of an s-expression."""
    if isinstance(e, SAtom):
        return e.text
    return "(" + " ".join(sexpr_to_text(i) for i in e.items) + ")"
