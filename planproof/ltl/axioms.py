"""Domain axioms: facts every reachable state obeys, written as ordinary formulas.

Z3 treats every ground atom as an independent proposition, so without axioms it happily
builds states in which a door is both open and closed, and reports that ``closed(door)``
does not entail ``not open(door)``. Axioms rule such states out. They are plain formulas
of :mod:`planproof.ltl.ast` (ground conjunctions over a universe's objects, or ``forn``
counts where pairwise exclusions would grow quadratically), so they can be passed to
:mod:`planproof.ltl.smt` and checked against simulator states by the trace evaluator
alike.

Two strengths are offered, because a state predicate pair is usually exclusive for every
object but only *exhaustive* for objects that have the underlying property: no object is
both ``open`` and ``closed``, but a cup is neither, so ``exactly_one_of(("open",
"closed"), ...)`` must only cover objects that can be opened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from planproof.ltl import ast
from planproof.ltl.ast import Atom, Formula
from planproof.ltl.simplify import conj, disj
from planproof.ltl.trace import Universe, ground_atom

__all__ = [
    "NAMED_AXIOMS",
    "VIRTUALHOME_EXCLUSIVE_STATES",
    "VIRTUALHOME_EXHAUSTIVE_STATES",
    "at_most_one",
    "at_most_one_held",
    "at_most_one_holder",
    "behavior_state_axioms",
    "exactly_one",
    "exactly_one_of",
    "mutually_exclusive",
    "virtualhome_state_axioms",
]


def at_most_one(atoms: Sequence[Atom]) -> Formula:
    """No two of ``atoms`` hold together (pairwise exclusion; ``true`` for fewer than two)."""
    return conj(*(ast.Not(ast.And((a, b))) for a, b in combinations(dict.fromkeys(atoms), 2)))


def exactly_one(atoms: Sequence[Atom]) -> Formula:
    """Exactly one of ``atoms`` holds (``false`` for none)."""
    return conj(disj(*atoms), at_most_one(atoms))


def _objects(universe: Universe, objects: Iterable[str] | None) -> tuple[str, ...]:
    return universe.names if objects is None else tuple(dict.fromkeys(objects))


def mutually_exclusive(
    preds: Sequence[str], universe: Universe, *, objects: Iterable[str] | None = None
) -> Formula:
    """For each object (default: all of the universe) at most one of the unary ``preds``
    holds, e.g. ``mutually_exclusive(("open", "closed"), u)``."""
    return conj(
        *(at_most_one([ground_atom(p, o) for p in preds]) for o in _objects(universe, objects))
    )


def exactly_one_of(
    preds: Sequence[str], universe: Universe, *, objects: Iterable[str] | None = None
) -> Formula:
    """For each object (default: all of the universe) exactly one of the unary ``preds``
    holds. Only pass objects that really have the property (see the module docstring)."""
    return conj(
        *(exactly_one([ground_atom(p, o) for p in preds]) for o in _objects(universe, objects))
    )


def at_most_one_holder(
    preds: Sequence[str],
    universe: Universe,
    *,
    holders: Iterable[str],
    objects: Iterable[str] | None = None,
) -> Formula:
    """Each object (default: all of the universe) is held by at most one hand: of the
    atoms ``pred(holder, object)`` for ``pred`` in ``preds`` (e.g. ``holds_rh``,
    ``holds_lh``) and every holder (e.g. the one character), at most one holds. Size grows
    with the square of ``len(preds) * len(holders)``, which is small in practice."""
    hs = tuple(dict.fromkeys(holders))
    return conj(
        *(
            at_most_one([ground_atom(p, h, o) for p in preds for h in hs if h != o])
            for o in _objects(universe, objects)
        )
    )


def at_most_one_held(
    pred: str, *, holders: Iterable[str] | None = None, object_type: str | None = None
) -> Formula:
    """A hand holds at most one object: ``(forn 0 x. pred(h, x)) or (forn 1 x. pred(h, x))``
    for each holder ``h`` (VirtualHome's ``holds_rh(character, obj)``), or, with
    ``holders=None``, ``(forn 0 x. pred(x)) or (forn 1 x. pred(x))`` for a unary hand
    predicate (BEHAVIOR's ``holds_rh(obj)``). ``x`` ranges over ``object_type`` (all
    objects by default). Counting with ``forn`` keeps the axiom linear in the number of
    objects, where pairwise exclusions would be quadratic."""
    x = ast.Binder("x", object_type)
    heads: list[tuple[ast.Term, ...]] = (
        [()] if holders is None else [(ast.Const(h),) for h in dict.fromkeys(holders)]
    )
    out: list[Formula] = []
    for head in heads:
        body = Atom(pred, (*head, ast.Var("x")))
        out.append(ast.Or((ast.ForN(0, x, body), ast.ForN(1, x, body))))
    return conj(*out)


VIRTUALHOME_EXCLUSIVE_STATES: tuple[tuple[str, str], ...] = (
    ("closed", "open"),
    ("on", "off"),
    ("plugged_in", "plugged_out"),
    ("clean", "dirty"),
    ("sitting", "lying"),
)
"""Unary VirtualHome states that never hold together. The first three are the two values of
one physical switch (door, power switch, plug). CLEAN/DIRTY are opposite conditions of one
surface, and VirtualHome's WASH/RINSE/SCRUB executors replace DIRTY by CLEAN. SITTING and
LYING are postures of one body; VirtualHome's SIT executor discards LYING and LIE discards
SITTING. The other unary states are not paired: nothing excludes e.g. ``on`` and
``plugged_out`` as *states* (a battery device), and which objects have which property is
left to the simulator's own preconditions."""

VIRTUALHOME_EXHAUSTIVE_STATES: tuple[tuple[str, str, str], ...] = (
    ("can_open", "closed", "open"),
    ("has_switch", "on", "off"),
    ("has_plug", "plugged_in", "plugged_out"),
)
"""(property, state, state): every object with the property is in exactly one of the two
states. CLEAN/DIRTY and SITTING/LYING are not here: an object may be neither (no dirt
state tracked; a character standing)."""


def virtualhome_state_axioms(
    universe: Universe,
    *,
    with_property: dict[str, Iterable[str]] | None = None,
) -> tuple[Formula, ...]:
    """The VirtualHome unary-state axioms over ``universe``.

    Every pair of :data:`VIRTUALHOME_EXCLUSIVE_STATES` is mutually exclusive for every
    object. For the pairs of :data:`VIRTUALHOME_EXHAUSTIVE_STATES`, objects having the
    property are moreover in exactly one of the states; which objects have a property is
    read from ``with_property`` (``{"can_open": ["fridge.1"], ...}``) when given for it,
    otherwise from the universe's types (objects typed ``can_open`` etc.).
    """
    given = with_property or {}
    out = [mutually_exclusive(pair, universe) for pair in VIRTUALHOME_EXCLUSIVE_STATES]
    for prop, a, b in VIRTUALHOME_EXHAUSTIVE_STATES:
        objs = given[prop] if prop in given else universe.of_type(prop)
        out.append(exactly_one_of((a, b), universe, objects=objs))
    return tuple(f for f in out if f != ast.TRUE)


def behavior_state_axioms(universe: Universe) -> tuple[Formula, ...]:
    """The BEHAVIOR hand axioms over ``universe``, for its unary hand predicates
    (``holds_rh(obj)``, ``holds_lh(obj)``): each hand holds at most one object ("one object
    per hand" in the EAI prompt) and no object is in both hands. BEHAVIOR's unary states
    come without opposites (``not open`` is closed), so there is nothing else to exclude."""
    out = [
        at_most_one_held("holds_rh"),
        at_most_one_held("holds_lh"),
        mutually_exclusive(("holds_rh", "holds_lh"), universe),
    ]
    return tuple(f for f in out if f != ast.TRUE)


NAMED_AXIOMS: dict[str, Callable[[Universe], tuple[Formula, ...]]] = {
    "virtualhome": virtualhome_state_axioms,
    "behavior": behavior_state_axioms,
}
"""Axiom sets by name, for the command line (``planproof ltl sat --axioms virtualhome``)."""
