"""The one negation normal form (:mod:`planproof.ltl.nnf`), with each caller's joins:

- equivalent to the input (and its negation to ``not`` the input) in every state over
  the atoms, checked by brute force against the naive trace semantics
  (:func:`planproof.ltl.bruteforce.brute_evaluate`), quantifiers over a two-object
  universe;
- ``not`` stands only on atoms, no ``imply`` is left;
- idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Binder,
    Const,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Then,
    Var,
    walk,
)
from planproof.ltl.bruteforce import brute_evaluate
from planproof.ltl.errors import UnsupportedFormulaError
from planproof.ltl.nnf import nnf
from planproof.ltl.trace import Trace, Universe
from planproof.pddl import ground
from planproof.simulators.core import relaxed

OBJECTS = ("a", "b")
UNIVERSE = Universe.of(dict.fromkeys(OBJECTS, ()))
GROUND_ATOMS = (Atom("r"), *(Atom(p, (Const(o),)) for p in ("p", "q") for o in OBJECTS))
STATES = [
    frozenset(s)
    for s in chain.from_iterable(
        combinations(GROUND_ATOMS, k) for k in range(len(GROUND_ATOMS) + 1)
    )
]


def _formulas(variables: tuple[str, ...] = ()) -> st.SearchStrategy[Formula]:
    """Closed formulas over ``r()``, ``p(_)``, ``q(_)`` with every connective of the
    first-order fragment; a variable is used only under its binder."""
    terms = [Const(o) for o in OBJECTS] + [Var(v) for v in variables]
    leaves = st.one_of(
        st.just(Atom("r")),
        st.builds(Atom, st.sampled_from(("p", "q")), st.tuples(st.sampled_from(terms))),
        st.sampled_from((TRUE, FALSE)),
    )

    def grow(inner: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
        pair = st.lists(inner, min_size=2, max_size=3).map(tuple)
        return st.one_of(
            st.builds(Not, inner),
            st.builds(And, pair),
            st.builds(Or, pair),
            st.builds(Implies, inner, inner),
        )

    flat = st.recursive(leaves, grow, max_leaves=8)
    if len(variables) >= 2:
        return flat
    v = f"x{len(variables)}"
    body = st.deferred(lambda: _formulas((*variables, v)))
    quantified = st.one_of(
        st.builds(Exists, st.just(Binder(v)), body), st.builds(Forall, st.just(Binder(v)), body)
    )
    return st.one_of(
        flat, quantified, st.builds(Not, quantified), st.builds(And, st.tuples(flat, quantified))
    )


def _holds(f: Formula, state: frozenset[Atom]) -> bool:
    return brute_evaluate(f, Trace((state,)), UNIVERSE, final=True)


NNF: dict[str, Callable[[Formula, bool], Formula]] = {
    "plain (FD's reading)": nnf,
    "folded (grounder)": lambda f, pos: nnf(f, pos, conj=ground._and, disj=ground._or),
    "folded (relaxation)": relaxed.nnf,
}


def _negation_only_on_atoms(f: Formula) -> bool:
    return all(
        not isinstance(g, Implies) and (not isinstance(g, Not) or isinstance(g.body, Atom))
        for g in walk(f)
    )


@pytest.mark.parametrize("name", NNF)
@settings(max_examples=300, deadline=None)
@given(f=_formulas())
def test_nnf_is_equivalent_atomic_and_idempotent(name: str, f: Formula) -> None:
    to_nnf = NNF[name]
    pos, neg = to_nnf(f, True), to_nnf(f, False)
    assert _negation_only_on_atoms(pos) and _negation_only_on_atoms(neg)
    for state in STATES:
        truth = _holds(f, state)
        assert _holds(pos, state) == truth, (f, pos, sorted(map(str, state)))
        assert _holds(neg, state) == (not truth), (f, neg, sorted(map(str, state)))
    assert to_nnf(pos, True) == pos
    assert to_nnf(neg, True) == neg


def test_constants_flip_under_negation() -> None:
    """``not false`` is true (the relaxation once read it as false)."""
    for to_nnf in NNF.values():
        assert to_nnf(Not(FALSE), True) == TRUE
        assert to_nnf(FALSE, True) == FALSE
        assert to_nnf(TRUE, False) == FALSE


def test_temporal_nodes_are_refused() -> None:
    with pytest.raises(UnsupportedFormulaError, match="Then"):
        nnf(Not(Then((Atom("r"), Atom("r")))))
