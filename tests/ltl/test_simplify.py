"""Simplification: the intended rewrites happen, the unsafe ones across the temporal
boundary do not (the value-preservation property is checked against the evaluator in
test_evaluate.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from planproof.ltl import FALSE, TRUE, parse, to_text
from planproof.ltl.ast import Formula, is_temporal, size
from planproof.ltl.simplify import conj, disj, seq, simplify
from planproof.testing import formulas


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


@settings(max_examples=300, deadline=None)
@given(formulas())
def test_simplify_is_idempotent_never_grows_and_keeps_temporality(f: Formula) -> None:
    s = simplify(f)
    assert simplify(s) == s
    assert size(s) <= size(f)
    if is_temporal(f):
        assert is_temporal(s) or s in (TRUE, FALSE)
