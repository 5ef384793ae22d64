"""Simplification: the intended rewrites happen, the unsafe ones across the temporal
boundary do not, and a simplified formula is a fixpoint (the value-preservation property
is checked against the evaluator in test_evaluate.py; the examples random search found
are checked here against the brute-force semantics on every short trace)."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import example, given, settings

from planproof.ltl import FALSE, TRUE, parse, to_text
from planproof.ltl.ast import Atom, Formula, depth, is_temporal, size
from planproof.ltl.bruteforce import brute_evaluate
from planproof.ltl.evaluate import evaluate, evaluate_final
from planproof.ltl.parser import MAX_DEPTH
from planproof.ltl.simplify import conj, disj, seq, simplify
from planproof.ltl.trace import Trace, Universe
from planproof.testing import folding_formulas, formulas


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("p() and (q() and r())", "p() and q() and r()"),
        ("p() or (q() or (r() or p()))", "p() or q() or r()"),
        ("not not p()", "p()"),
        ("p() and true", "p()"),
        ("p() and false", "false"),
        ("p() or true", "true"),
        ("not true", "false"),
        ("false => p()", "true"),
        ("true => p()", "p()"),
        ("p() => false", "not p()"),
        ("(a() then b()) then c()", "a() then b() then c()"),
        ("a() then (b() then false)", "false"),
        ("forall x. (true)", "true"),
        ("exists x. (false)", "false"),
        ("forn 0. x. (false)", "true"),
        ("forn 2. x. (false)", "false"),
        ("fornpairs 0. x, y. (on(x, y))", "true"),
        # a then-free `and` inside a temporal `and` is one "eventually" block: kept whole
        ("(p() and q()) and (a() then b())", "(p() and q()) and (a() then b())"),
        # a temporal operand folding to true must not make the node then-free
        (
            "p() and q() and ((a() then false) or true)",
            "p() and q() and ((a() then false) or true)",
        ),
        ("not ((a() then false) or p())", "not ((a() then false) or p())"),
    ],
)
def test_rewrites(before: str, after: str) -> None:
    assert to_text(simplify(parse(before))) == after


def test_smart_constructors() -> None:
    p, q = parse("p()"), parse("q()")
    assert conj() == TRUE
    assert disj() == FALSE
    assert conj(p) == p
    assert conj(p, conj(q, p)) == parse("p() and q()")
    assert disj(p, FALSE, q) == parse("p() or q()")
    assert seq(p) == p
    assert seq(p, q) == parse("p() then q()")
    with pytest.raises(ValueError):
        seq()
    # a then-free `and` joined to a temporal operand stays one "eventually" block
    block = parse("p() and q()")
    assert conj(block, parse("a() then b()")) == parse("(p() and q()) and (a() then b())")


# Found by random search; each is a temporal operand kept only to keep its `and`/`or`
# temporal, made redundant when a later rewrite flattens that node into a parent with
# another temporal operand (one bottom-up pass never looked at it again).
ONE_CUP = Universe.of({"cup.1": {"cup"}})
"""A universe for the quantifiers below, whose bodies do not use their variable: a
non-empty domain, so that ``forall``/``exists`` read their body."""
WAIT = frozenset({"wait"})
"""The action vocabulary of the traces below."""

IDEMPOTENCE_EXAMPLES = (
    "(p() => not (p() then p())) and (p() and not (p() then false))",
    "forall x0. (forall x0. ((p() then p()) or (p() or (p() then false))))",
    "exists x0. ((p() then p()) and (p() and not (p() then false)))",
)


@settings(max_examples=300, deadline=None)
@given(formulas())
@example(parse(IDEMPOTENCE_EXAMPLES[0]))
@example(parse(IDEMPOTENCE_EXAMPLES[1]))
@example(parse(IDEMPOTENCE_EXAMPLES[2]))
def test_simplify_is_idempotent_never_grows_and_keeps_temporality(f: Formula) -> None:
    s = simplify(f)
    assert simplify(s) == s
    assert size(s) <= size(f)
    if is_temporal(f):
        assert is_temporal(s) or s in (TRUE, FALSE)


def _traces_over_p(max_actions: int) -> list[Trace]:
    """Every trace of up to ``max_actions`` ``wait()`` actions whose states are subsets of
    ``{p()}``: all the traces the examples' atoms can tell apart, up to that length."""
    p = frozenset({Atom("p")})
    return [
        Trace(states, (Atom("wait"),) * n)
        for n in range(max_actions + 1)
        for states in product((frozenset(), p), repeat=n + 1)
    ]


@pytest.mark.parametrize("text", IDEMPOTENCE_EXAMPLES)
def test_examples_keep_their_value_on_every_short_trace(text: str) -> None:
    """The found examples, simplified once and twice, against the literal semantics."""
    f = parse(text)
    once = simplify(f)
    for t, final in product(_traces_over_p(4), (False, True)):
        want = brute_evaluate(f, t, ONE_CUP, WAIT, final=final)
        assert brute_evaluate(once, t, ONE_CUP, WAIT, final=final) == want
        assert brute_evaluate(simplify(once), t, ONE_CUP, WAIT, final=final) == want


def test_deepest_parsable_formula_simplifies() -> None:
    """simplify recurses: the parser's depth limit must keep it clear of Python's."""
    text = "p()"
    for i in range(MAX_DEPTH - 1):
        text = (f"(q() and {text})", f"not {text}", f"(r() or {text} or (p() then false))")[i % 3]
    f = parse(text)
    assert depth(f) == MAX_DEPTH
    s = simplify(f)
    assert simplify(s) == s and is_temporal(s)


@settings(max_examples=300, deadline=None)
@given(folding_formulas())
def test_simplify_keeps_value_and_is_a_fixpoint_where_then_folds(f: Formula) -> None:
    s = simplify(f)
    assert simplify(s) == s
    assert size(s) <= size(f)
    assert is_temporal(s) or not is_temporal(f) or s in (TRUE, FALSE)
    for t, final in product(_traces_over_p(2) if s != f else (), (False, True)):
        ev = evaluate_final if final else evaluate
        assert ev(s, t, ONE_CUP, WAIT) == ev(f, t, ONE_CUP, WAIT)
