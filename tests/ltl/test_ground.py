"""Grounding keeps the meaning of a formula on every trace, stays polynomial for the
counting quantifiers, and rejects what cannot be grounded with a typed error."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from planproof.ltl import FALSE, TRUE, ast, parse
from planproof.ltl.errors import GroundingError
from planproof.ltl.evaluate import evaluate, evaluate_final
from planproof.ltl.ground import (
    Count,
    Edge,
    GAnd,
    GroundFormula,
    GThen,
    Matching,
    g_and,
    g_count,
    g_matching,
    g_not,
    g_or,
    g_then,
    ground,
    ground_atoms,
    is_temporal,
    matchings,
    max_matching_size,
    node_count,
    to_formula,
)
from planproof.ltl.trace import Trace, Universe, ground_atom
from planproof.testing import Vocabulary, folding_formulas, formulas, traces, universes

VOCAB = Vocabulary()
ACTIONS = VOCAB.action_names
U = VOCAB.universe
JARS = Universe.from_names(["apple.1", "apple.2", "jar.1", "jar.2", "jar.3"])


def at_least(f: ast.Formula, u: Universe) -> ast.Formula:
    """``f`` with every ``forn n`` replaced by "forn n or forn n+1 or ... or forn |dom|"."""
    match f:
        case ast.ForN(n, b, body):
            inner = at_least(body, u)
            top = len(u.of_type(b.type))
            alts = [ast.ForN(k, b, inner) for k in range(n, top + 1)]
            if not alts:
                return FALSE
            return alts[0] if len(alts) == 1 else ast.Or(tuple(alts))
        case ast.Atom() | ast.Top() | ast.Bottom():
            return f
        case ast.Not(body):
            return ast.Not(at_least(body, u))
        case ast.And(cs):
            return ast.And(tuple(at_least(c, u) for c in cs))
        case ast.Or(cs):
            return ast.Or(tuple(at_least(c, u) for c in cs))
        case ast.Then(cs):
            return ast.Then(tuple(at_least(c, u) for c in cs))
        case ast.Implies(a, b):
            return ast.Implies(at_least(a, u), at_least(b, u))
        case ast.Forall(b, body):
            return ast.Forall(b, at_least(body, u))
        case ast.Exists(b, body):
            return ast.Exists(b, at_least(body, u))
        case ast.ForPairs(b1, b2, body):
            return ast.ForPairs(b1, b2, at_least(body, u))
        case ast.ForNPairs(n, b1, b2, body):
            return ast.ForNPairs(n, b1, b2, at_least(body, u))
    raise TypeError(f)


# --------------------------------------------------------------------------- meaning


def _plain(g: GroundFormula) -> ast.Formula:
    try:
        return to_formula(g, max_terms=2000)
    except GroundingError:
        assume(False)
        raise


TWO = Trace((frozenset(), frozenset({ground_atom("p")})), (ground_atom("grab", "cup.1"),))


@settings(max_examples=300, deadline=None)
@given(formulas(max_depth=3), traces(max_actions=4), universes())
@example(parse("p() => (p() and (p() then p()))"), TWO, U)  # segment-level `not p()`
@example(parse("not (p() or (wait() then false))"), TWO, U)  # folded `then` under `not`
@example(parse("forn 0. x - cup. (p() or (wait() then false))"), TWO, U)
@example(parse("p() and grab(cup.1) and not (p() then false)"), TWO, U)  # found by search
def test_grounding_preserves_meaning_on_every_trace(f: ast.Formula, t: Trace, u: Universe) -> None:
    g = ground(f, u)
    assert all(a.is_ground for a in ground_atoms(g))
    plain = _plain(g)
    assert ast.free_vars(plain) == frozenset()
    quantifiers = ast.Forall | ast.Exists | ast.ForN | ast.ForPairs | ast.ForNPairs
    assert not any(isinstance(n, quantifiers) for n in ast.walk(plain))
    assert evaluate(plain, t, u, ACTIONS) == evaluate(f, t, u, ACTIONS)
    assert evaluate_final(plain, t, u, ACTIONS) == evaluate_final(f, t, u, ACTIONS)


P_AND_WAIT = Vocabulary(predicates=(("p", 0),), actions=(("wait", 0),), objects=VOCAB.objects)
"""The atoms of :func:`planproof.testing.folding_formulas` (and the default objects)."""


@settings(max_examples=200, deadline=None)
@given(folding_formulas(), traces(P_AND_WAIT, max_actions=3))
def test_grounding_preserves_meaning_where_then_folds(f: ast.Formula, t: Trace) -> None:
    plain = _plain(ground(f, U))
    acts = P_AND_WAIT.action_names
    assert evaluate(plain, t, U, acts) == evaluate(f, t, U, acts)
    assert evaluate_final(plain, t, U, acts) == evaluate_final(f, t, U, acts)


@settings(max_examples=150, deadline=None)
@given(formulas(max_depth=3), traces(max_actions=3), universes())
def test_forn_at_least_reads_forn_asat_least(f: ast.Formula, t: Trace, u: Universe) -> None:
    plain = _plain(ground(f, u, forn_at_least=True))
    assert evaluate(plain, t, u, ACTIONS) == evaluate(at_least(f, u), t, u, ACTIONS)


def test_temporal_and_keeps_then_free_block_whole() -> None:
    # at one position q(cup.1) and q(cup.2) hold together: not two separate "eventually"s
    f = parse("forall x - cup. (q(x)) and (grab(cup.1) then wait())")
    g = ground(f, U)
    assert isinstance(g, GAnd) and len(g.children) == 2
    assert isinstance(g.children[0], GAnd) and not is_temporal(g.children[0])
    assert isinstance(g.children[1], GThen)
    # but outside a temporal node the conjunction flattens
    flat = ground(parse("forall x - cup. (q(x)) and p()"), U)
    assert isinstance(flat, GAnd) and len(flat.children) == 3


# --------------------------------------------------------------------------- shapes


def test_forall_and_exists_become_and_or_of_instances() -> None:
    g = ground(parse("forall x - cup. (exists y - table. (on(x, y)))"), U)
    assert g == GAnd((ground_atom("on", "cup.1", "table.3"), ground_atom("on", "cup.2", "table.3")))
    g2 = ground(parse("exists x - cup. (q(x) or r(x))"), U)
    assert to_formula(g2) == parse("q(cup.1) or r(cup.1) or q(cup.2) or r(cup.2)")


def test_empty_domains() -> None:
    assert ground(parse("forall x - ghost. (q(x))"), U) == TRUE
    assert ground(parse("exists x - ghost. (q(x))"), U) == FALSE
    assert ground(parse("forn 0. x - ghost. (q(x))"), U) == TRUE
    assert ground(parse("forn 1. x - ghost. (q(x))"), U) == FALSE
    assert ground(parse("forpairs x - ghost, y - cup. (on(x, y))"), U) == TRUE
    assert ground(parse("fornpairs 1. x - ghost, y - cup. (on(x, y))"), U) == FALSE
    assert ground(parse("fornpairs 0. x - ghost, y - cup. (on(x, y))"), U) == TRUE


def test_counting_stays_polynomial() -> None:
    objs = Universe.from_names([f"box.{i}" for i in range(12)])
    g = ground(parse("forn 6. x - box. (open(x))"), objs)
    assert isinstance(g, Count) and (g.lo, g.hi, len(g.items)) == (6, 6, 12)
    assert node_count(g) == 13
    with pytest.raises(GroundingError, match="terms"):
        to_formula(g, max_terms=100)  # C(12, 6) = 924 disjuncts
    pairs = ground(parse("forpairs x - box, y - box. (on(x, y))"), objs)
    assert isinstance(pairs, Matching) and pairs.size == 12 and len(pairs.edges) == 12 * 11
    at_least = ground(parse("forn 6. x - box. (open(x))"), objs, forn_at_least=True)
    assert isinstance(at_least, Count) and (at_least.lo, at_least.hi) == (6, 12)


def test_forpairs_is_a_perfect_matching_of_the_smaller_side() -> None:
    g = ground(parse("forpairs x - jar, y - apple. (inside(y, x))"), JARS)
    assert isinstance(g, Matching) and g.size == 2 and len(g.edges) == 6
    # the spec's example: 2 apples, 2 jars -> the two one-to-one pairings
    two = Universe.from_names(["apple.1", "apple.2", "jar.1", "jar.2"])
    plain = to_formula(ground(parse("forpairs x - jar, y - apple. (inside(y, x))"), two))
    assert plain == parse(
        "(inside(apple.1, jar.1) and inside(apple.2, jar.2))"
        " or (inside(apple.2, jar.1) and inside(apple.1, jar.2))"
    )


def test_overlapping_pair_domains_exclude_self_pairs() -> None:
    three = Universe.from_names(["a", "b", "c"])
    g = ground(parse("forpairs x, y. (on(x, y))"), three)
    assert isinstance(g, Matching) and g.size == 3
    assert all(e.left != e.right for e in g.edges) and len(g.edges) == 6
    # a perfect matching of 3 objects onto themselves without fixed points: 2 derangements
    assert len(list(matchings([(e.left, e.right) for e in g.edges], 3))) == 2


# --------------------------------------------------------------------------- builders


def test_count_normalisation() -> None:
    p, q, r = (ground_atom(x) for x in "pqr")
    assert g_count([p, q], 0, 2) == TRUE
    assert g_count([p, q], 3, 3) == FALSE
    assert g_count([p, q], 2, 2) == GAnd((p, q))
    assert g_count([p, q], 0, 0) == g_and(g_not(p), g_not(q))
    assert g_count([p, q, r], 1, 3) == g_or(p, q, r)
    assert g_count([p, TRUE, q, FALSE], 2, 2) == Count((p, q), 1, 1)
    assert g_count([p, p], 1, 1) == Count((p, p), 1, 1)  # items are not deduplicated


def test_matching_normalisation() -> None:
    p, q = ground_atom("p"), ground_atom("q")
    assert g_matching([Edge("a", "x", p), Edge("b", "x", q)], 2) == FALSE  # one right object
    assert g_matching([Edge("a", "x", p), Edge("b", "y", FALSE)], 2) == FALSE
    assert g_matching([Edge("a", "x", TRUE), Edge("b", "y", TRUE)], 2) == TRUE
    assert g_matching([Edge("a", "x", p), Edge("b", "y", q)], 1) == g_or(p, q)
    assert g_matching([], 0) == TRUE


def test_then_builder_keeps_true_parts() -> None:
    a = ground_atom("grab", "cup.1")
    assert g_then(TRUE, a) == GThen((TRUE, a))  # true still takes a non-empty segment
    assert g_then(a, FALSE) == FALSE
    assert g_then(g_then(a, a), a) == GThen((a, a, a))


@settings(max_examples=200, deadline=None)
@given(st.sets(st.tuples(st.sampled_from("abcde"), st.sampled_from("vwxyz")), max_size=14))
def test_max_matching_size_agrees_with_exhaustive_search(edges: set[tuple[str, str]]) -> None:
    pairs = sorted(edges)
    best = 0
    for k in range(1, 6):
        if any(
            len({a for a, _ in c}) == k and len({b for _, b in c}) == k
            for c in itertools.combinations(pairs, k)
        ):
            best = k
    assert max_matching_size(pairs) == best
    found = list(matchings(pairs, best))
    assert found and all(len({pairs[i][0] for i in m}) == best for m in found)
    brute = [
        c
        for c in itertools.combinations(range(len(pairs)), best)
        if len({pairs[i][0] for i in c}) == best and len({pairs[i][1] for i in c}) == best
    ]
    assert found == brute


# --------------------------------------------------------------------------- errors


def test_free_variables_are_rejected() -> None:
    f = ast.Atom("q", (ast.Var("x"),))
    with pytest.raises(GroundingError, match="free variable"):
        ground(f, U)


def test_too_many_instances_are_rejected() -> None:
    big = Universe.from_names([f"o.{i}" for i in range(60)])
    f = parse("forall x. (forall y. (forall z. (on(x, y) or on(y, z))))")
    with pytest.raises(GroundingError, match="nodes"):
        ground(f, big, max_nodes=10_000)


def test_too_deep_is_rejected() -> None:
    f: ast.Formula = ast.Atom("p")
    for _ in range(300):
        f = ast.Not(f)
    with pytest.raises(GroundingError, match="deep"):
        ground(f, U)


def test_universe_type_is_checked() -> None:
    with pytest.raises(TypeError):
        ground(parse("p()"), ["cup.1"])  # type: ignore[arg-type]
