"""Parser and printer: round trips, precedence, the EAI surface syntax, and bad input."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.ltl import (
    And,
    Atom,
    Binder,
    Const,
    Exists,
    Forall,
    ForN,
    ForPairs,
    Implies,
    LTLLimitError,
    LTLSyntaxError,
    Not,
    Or,
    Then,
    Var,
    parse,
    to_text,
)
from planproof.ltl.ast import depth, free_vars
from planproof.testing import formulas

p, q, r = (Atom(n) for n in "pqr")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas())
def test_print_parse_round_trip(f: object) -> None:
    assert parse(to_text(f)) == f  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(formulas())
def test_upper_case_printing_round_trips_too(f: object) -> None:
    # the dataset writes ON(television.410); predicates are case-insensitive
    assert parse(to_text(f, upper=True)) == f  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(formulas())
def test_parsed_formulas_are_closed(f: object) -> None:
    assert free_vars(parse(to_text(f))) == frozenset()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # then < implies < or < and < not
        ("p() or q() and r()", Or((p, And((q, r))))),
        ("p() and q() or r()", Or((And((p, q)), r))),
        ("not p() and q()", And((Not(p), q))),
        ("p() then q() or r()", Then((p, Or((q, r))))),
        ("p() => q() => r()", Implies(p, Implies(q, r))),
        ("p() or q() implies r()", Implies(Or((p, q)), r)),
        ("p() => q() then r()", Then((Implies(p, q), r))),
        ("p() then q() then r()", Then((p, q, r))),
        ("(p() then q()) then r()", Then((Then((p, q)), r))),
        # quantifiers bind tighter than and: the body is the next unary formula
        (
            "forall x. p2(x) and q()",
            And((Forall(Binder("x"), Atom("p2", (Var("x"),))), q)),
        ),
    ],
)
def test_precedence(text: str, expected: object) -> None:
    assert parse(text) == expected


def test_eai_virtualhome_goal() -> None:
    text = (
        "(exists x0. ((LOOKAT(x0) or WATCH(x0))) then (ON(television.410) and "
        "PLUGGED_IN(television.410) and FACING(character.65, television.410)))"
    )
    f = parse(text)
    x0 = Var("x0")
    tv = Const("television.410")
    assert f == Then(
        (
            Exists(Binder("x0"), Or((Atom("lookat", (x0,)), Atom("watch", (x0,))))),
            And(
                (
                    Atom("on", (tv,)),
                    Atom("plugged_in", (tv,)),
                    Atom("facing", (Const("character.65"), tv)),
                )
            ),
        )
    )


def test_extensions_counted_forn_typed_binders_pairs() -> None:
    f = parse("forn 2. x - cup. (on(x, table.1)) and forpairs a - jar, b - apple. (inside(b, a))")
    assert isinstance(f, And)
    forn, pairs = f.children
    assert forn == ForN(2, Binder("x", "cup"), Atom("on", (Var("x"), Const("table.1"))))
    assert pairs == ForPairs(
        Binder("a", "jar"), Binder("b", "apple"), Atom("inside", (Var("b"), Var("a")))
    )
    # the reference's BEHAVIOR strings write the count as "forn 1. x1."; "forn 1 x1." too
    assert parse("forn 1 x1. (p1(x1))") == parse("forn 1. x1. (p1(x1))")


def test_keywords_inside_names_are_names() -> None:
    f = parse("notebook(nothing.1) and android(order.2) or thenar(x)")
    assert {a.pred for a in f.children[0].children} == {"notebook", "android"}  # type: ignore[union-attr]


def test_shadowing_inner_binder_wins() -> None:
    f = parse("forall x. (exists x. (p1(x)) and q1(x))")
    assert isinstance(f, Forall)
    inner = f.body
    assert isinstance(inner, And)
    assert inner.children[1] == Atom("q1", (Var("x"),))
    # names are variables only inside their quantifier
    g = parse("exists x. (p1(x)) and q1(x)")
    assert g.children[1] == Atom("q1", (Const("x"),))  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "line", "column", "kind", "expects"),
    [
        ("", 1, 1, "empty", "a formula"),
        ("   \n ", 1, 1, "empty", "a formula"),
        ("(on(a, b)", 1, 10, "unexpected-end", "')'"),
        ("on(a, b))", 1, 9, "unexpected-token", "end of input"),
        ("on(a b)", 1, 6, "unexpected-token", "','"),
        ("on(kitchen.counter.230)", 1, 11, "unexpected-token", "')'"),
        ("p() and\n  q() @ r()", 2, 7, "unexpected-character", "'and'"),
        ("cafè()", 1, 4, "unexpected-character", "'('"),
        ("p() then", 1, 9, "unexpected-end", "a name"),
        ("forall . (p())", 1, 8, "unexpected-token", "a name"),
        ("forn x. (p(x))", 1, 6, "unexpected-token", "a number"),
    ],
)
def test_syntax_errors_are_typed_and_located(
    text: str, line: int, column: int, kind: str, expects: str
) -> None:
    with pytest.raises(LTLSyntaxError) as info:
        parse(text)
    err = info.value
    assert (err.line, err.column, err.kind) == (line, column, kind)
    assert expects in err.expected
    assert "^" in err.context()
    assert err.to_dict()["line"] == line


@pytest.mark.parametrize(
    "text",
    [
        "(" * 10_000 + "p()" + ")" * 10_000,
        "not " * 10_000 + "p()",
        "(p() and " * 300 + "q()" + ")" * 300,
        "forall x. " * 5_000 + "p(x)",
    ],
    ids=["parens", "nots", "ands", "foralls"],
)
def test_deep_nesting_is_a_limit_error_not_a_crash(text: str) -> None:
    with pytest.raises(LTLLimitError) as info:
        parse(text)
    assert info.value.kind == "too-deep"


def test_redundant_parentheses_do_not_count_as_depth() -> None:
    f = parse(" then ".join(["(" * 150 + "p()" + ")" * 150] * 3))
    assert f == Then((p, p, p))


def test_wide_formulas_are_fine_and_overlong_text_is_refused() -> None:
    wide = " and ".join(f"p{i}(o.{i})" for i in range(2000))
    f = parse(wide)
    assert isinstance(f, And)
    assert len(f.children) == 2000
    assert depth(f) == 2
    with pytest.raises(LTLLimitError) as info:
        parse("p() or " * 50_000 + "p()")
    assert info.value.kind == "too-long"


def test_depth_bound_is_configurable() -> None:
    text = "not " * 300 + "p()"
    with pytest.raises(LTLLimitError):
        parse(text)
    assert depth(parse(text, max_depth=400)) == 301


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_parses_or_raises_syntax_error(text: str) -> None:
    try:
        f = parse(text)
    except LTLSyntaxError as err:
        assert err.line >= 1
        assert err.column >= 1
    else:
        assert parse(to_text(f)) == f


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "(",
                ")",
                "p(",
                "a",
                ",",
                "b.1",
                "and",
                "or",
                "not",
                "then",
                "=>",
                "forall",
                "x",
                ".",
                "-",
                "forn",
                "2",
                "exists",
                "forpairs",
                "true",
            ]
        ),
        max_size=25,
    )
)
def test_token_soup_never_crashes(tokens: list[str]) -> None:
    with contextlib.suppress(LTLSyntaxError):
        parse(" ".join(tokens))


def test_non_string_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse(b"p()")  # type: ignore[arg-type]


def test_keywords_are_the_grammars_words() -> None:
    """``KEYWORDS`` (the names the readers of other formats refuse) is exactly the set of
    words the grammar reserves."""
    import re
    from importlib import resources

    from planproof.ltl.printer import KEYWORDS

    grammar = resources.files("planproof.ltl").joinpath("ltl.lark").read_text(encoding="utf-8")
    assert set(re.findall(r'"([a-z]+)"i', grammar)) == KEYWORDS
