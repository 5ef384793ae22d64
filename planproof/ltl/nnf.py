"""Negation normal form of a first-order (PDDL-fragment) formula: the one routine that
pushes ``not`` down to the atoms, for the grounder, FD's reading and the relaxation.

``not`` is pushed through ``and``/``or`` (De Morgan), ``exists``/``forall`` (swapped) and
constants (flipped); ``imply`` is read as ``or``. Its callers differ only in how they
*join* the parts back (the grounder flattens and folds, FD's reading keeps the tree as
FD parses it, the relaxation folds constants and empty-type-safe quantifiers), so the
joins are parameters; the defaults build the plain nodes. Temporal and counting nodes
(``then``, ``forn``, ``forpairs``, ``fornpairs``) have no negation normal form in this
fragment and raise :class:`~planproof.ltl.errors.UnsupportedFormulaError`.

(The goal-option expansion has a normal form of its own, over ground formulas with
counting and matching nodes: :func:`planproof.ltl.options.normal_form.nnf`.)
"""

from __future__ import annotations

from collections.abc import Callable

from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Binder,
    Bottom,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Top,
)
from planproof.ltl.errors import UnsupportedFormulaError

__all__ = ["Join", "Quantify", "nnf"]

Join = Callable[[tuple[Formula, ...]], Formula]
"""Builds the ``and`` (or the ``or``) of the normalised parts (two or more)."""

Quantify = Callable[[Binder, Formula, bool], Formula]
"""Builds ``exists`` (third argument True) or ``forall`` over a normalised body."""


def _quantify(b: Binder, body: Formula, exists: bool) -> Formula:
    return Exists(b, body) if exists else Forall(b, body)


def nnf(
    f: Formula,
    positive: bool = True,
    *,
    conj: Join = And,
    disj: Join = Or,
    quantify: Quantify = _quantify,
) -> Formula:
    """``f`` (``not f`` when not ``positive``) with negation only on atoms and no
    implication; ``and``/``or``/quantifiers rebuilt by ``conj``/``disj``/``quantify``."""

    def go(g: Formula, pos: bool) -> Formula:
        match g:
            case Atom():
                return g if pos else Not(g)
            case Top() | Bottom():
                return TRUE if isinstance(g, Top) == pos else FALSE
            case Not(body):
                return go(body, not pos)
            case Implies(a, b):
                return go(Or((Not(a), b)), pos)
            case And(cs) | Or(cs):
                parts = tuple(go(c, pos) for c in cs)
                return (conj if isinstance(g, And) == pos else disj)(parts)
            case Exists(b, body) | Forall(b, body):
                return quantify(b, go(body, pos), isinstance(g, Exists) == pos)
        raise UnsupportedFormulaError(
            f"{type(g).__name__} has no negation normal form in the first-order fragment"
        )

    return go(f, positive)
