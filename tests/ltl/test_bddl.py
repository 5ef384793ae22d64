"""BDDL reader, BDDL → typed formula, formula → BDDL, and the reference string format."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl import ast, parse, to_text
from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Binder,
    Const,
    Exists,
    Forall,
    ForN,
    ForNPairs,
    ForPairs,
    Implies,
    Not,
    Or,
    Then,
    Var,
)
from planproof.ltl.bddl import (
    MAX_DEPTH,
    BDDLSyntaxError,
    SAtom,
    SList,
    bddl_category,
    bddl_goal_to_ltl,
    bddl_object,
    bddl_problem_objects,
    ltl_category,
    ltl_object,
    ltl_to_bddl,
    parse_problem,
    problem_universe,
    read_sexpr,
    read_sexprs,
    reference_tl_string,
    sexpr_to_text,
)
from planproof.ltl.errors import LTLError, LTLSyntaxError, UnsupportedFormulaError
from planproof.testing import formulas

PROBLEM = """\
(define (problem bottling_fruit_0)
    (:domain igibson)
    ; a comment (with parentheses) that the reader skips
    (:objects
        strawberry.n.01_1 - strawberry.n.01
        jar.n.01_1 jar.n.01_2 - jar.n.01
        agent.n.01_1 - agent.n.01
    )
    (:init (ontop jar.n.01_1 countertop.n.01_1) (inroom floor.n.01_1 kitchen))
    (:goal
        (and
            (exists (?jar.n.01 - jar.n.01) (inside ?strawberry.n.01_1 ?jar.n.01))
            (forall (?jar.n.01 - jar.n.01) (not (open ?jar.n.01)))
        )
    )
)
"""


def x(i: int) -> Var:
    return Var(f"x{i}")


def atom(pred: str, *args: ast.Term) -> Atom:
    return Atom(pred, args)


# ----------------------------------------------------------------------------- reader


def test_reader_builds_positioned_lists() -> None:
    e = read_sexpr("(and\n  (open ?x) ; comment )\n  (b))")
    assert isinstance(e, SList)
    assert (e.line, e.column) == (1, 1)
    first, second = e.items[0], e.items[1]
    assert first == SAtom("and")
    assert (first.line, first.column) == (1, 2)
    assert isinstance(second, SList)
    assert (second.line, second.column) == (2, 3)
    assert second.items == (SAtom("open"), SAtom("?x"))
    assert [(a.line, a.column) for a in second.items] == [(2, 4), (2, 9)]
    assert len(e.items) == 3
    assert sexpr_to_text(e) == "(and (open ?x) (b))"


def test_reader_reads_several_expressions_and_empty_lists() -> None:
    items = read_sexprs("a () (b)")
    assert [type(i).__name__ for i in items] == ["SAtom", "SList", "SList"]
    assert read_sexprs("  ; nothing\n") == ()


@pytest.mark.parametrize(
    ("text", "kind", "line", "column"),
    [
        ("(and\n  (open ?x))\n)", "unmatched-paren", 3, 1),
        ("(and\n  (open ?x)", "unclosed-paren", 1, 1),
        ("(a (b (c)\n)", "unclosed-paren", 1, 1),
        ("(a) (b)", "not-one-expression", 1, 5),
        ("", "not-one-expression", 1, 1),
    ],
)
def test_malformed_text_reports_position(text: str, kind: str, line: int, column: int) -> None:
    with pytest.raises(BDDLSyntaxError) as info:
        read_sexpr(text)
    err = info.value
    assert isinstance(err, LTLSyntaxError)
    assert (err.kind, err.line, err.column) == (kind, line, column)
    assert f"line {line}, column {column}" in str(err)


def test_deep_nesting_is_bounded() -> None:
    deep = "(" * 100_000 + "p" + ")" * 100_000
    with pytest.raises(BDDLSyntaxError) as info:
        read_sexpr(deep)
    assert info.value.kind == "too-deep"
    assert info.value.column == MAX_DEPTH + 1
    ok = "(not " * (MAX_DEPTH - 1) + "(p)" + ")" * (MAX_DEPTH - 1)
    f = bddl_goal_to_ltl(ok)
    assert ast.depth(f) == MAX_DEPTH


def test_overlong_text_is_rejected() -> None:
    with pytest.raises(BDDLSyntaxError) as info:
        read_sexprs("(p)" * 10, max_length=20)
    assert info.value.kind == "too-long"


# ----------------------------------------------------------------------------- problems


def test_parse_problem_sections() -> None:
    p = parse_problem(PROBLEM)
    assert p.name == "bottling_fruit_0"
    assert p.domain == "igibson"
    assert dict(p.objects) == {
        "strawberry.n.01_1": "strawberry.n.01",
        "jar.n.01_1": "jar.n.01",
        "jar.n.01_2": "jar.n.01",
        "agent.n.01_1": "agent.n.01",
    }
    assert bddl_problem_objects(PROBLEM) == dict(p.objects)
    assert len(p.init) == 2
    assert p.goal_text.startswith("(:goal") and p.goal_text.endswith(")")
    assert read_sexpr(p.goal_text).items[1] == p.goal  # type: ignore[union-attr]


def test_problem_universe_uses_ltl_names() -> None:
    u = problem_universe(PROBLEM)
    assert u.of_type("jar_n_01") == ("jar_n_01.1", "jar_n_01.2")
    assert u.types_of("strawberry_n_01.1") == frozenset({"strawberry_n_01"})
    assert len(u) == 4


@pytest.mark.parametrize(
    "text",
    [
        "(problem x)",
        "(define (problem p) (:objects a.n.01_1 - a.n.01))",
        "(define (problem p) (:goal (p) (q)))",
        "(define (problem p) (:objects - a.n.01) (:goal (p)))",
        "(define (problem p) (:objects plate) (:goal (p)))",
    ],
)
def test_bad_problems_raise(text: str) -> None:
    with pytest.raises(BDDLSyntaxError):
        parse_problem(text)


def test_untyped_instance_objects_get_their_category() -> None:
    objs = bddl_problem_objects("(define (problem p) (:objects plate.n.04_1) (:goal (p)))")
    assert objs == {"plate.n.04_1": "plate.n.04"}


# ----------------------------------------------------------------------------- names


def test_name_mapping_examples() -> None:
    assert ltl_category("jar.n.01") == "jar_n_01"
    assert ltl_object("jar.n.01_1") == "jar_n_01.1"
    assert ltl_object("bottom_cabinet_no_top_80") == "bottom_cabinet_no_top.80"
    assert ltl_object("kitchen") == "kitchen"
    assert bddl_category("vidalia_onion_n_01") == "vidalia_onion.n.01"
    assert bddl_object("jar_n_01.12") == "jar.n.01_12"
    assert bddl_object("cup.1") == "cup_1"


_lemmas = st.from_regex(r"[a-z][a-z_]{0,10}[a-z]", fullmatch=True)


@given(_lemmas, st.sampled_from("nvasr"), st.integers(0, 99), st.integers(0, 10_000))
def test_name_mapping_round_trips(lemma: str, pos: str, sense: int, idx: int) -> None:
    cat = f"{lemma}.{pos}.{sense:02d}"
    obj = f"{cat}_{idx}"
    assert bddl_category(ltl_category(cat)) == cat
    assert bddl_object(ltl_object(obj)) == obj
    name = ltl_object(obj)
    assert parse(f"p({name})") == Atom("p", (Const(name),))


# ----------------------------------------------------------------------------- goal → formula


def test_goal_of_problem_to_typed_formula() -> None:
    p = parse_problem(PROBLEM)
    f = bddl_goal_to_ltl(p.goal, objects=p.objects)
    assert f == And(
        (
            Exists(Binder("x0", "jar_n_01"), atom("inside", Const("strawberry_n_01.1"), x(0))),
            Forall(Binder("x0", "jar_n_01"), Not(atom("open", x(0)))),
        )
    )
    assert bddl_goal_to_ltl(p.goal_text) == f  # the (:goal ...) wrapper is accepted
    assert parse(to_text(f)) == f


@pytest.mark.parametrize(
    ("bddl", "expected"),
    [
        ("(or (a ?o_1) (b))", Or((atom("a", Const("o.1")), atom("b")))),
        ("(imply (a) (b))", Implies(atom("a"), atom("b"))),
        ("(and)", TRUE),
        ("(or)", FALSE),
        ("(and (a))", atom("a")),
        ("(and (and (a) (b)) (c))", And((And((atom("a"), atom("b"))), atom("c")))),
        (
            "(forn (2) (?c - cup.n.01) (clean ?c))",
            ForN(2, Binder("x0", "cup_n_01"), atom("clean", x(0))),
        ),
        (
            "(forpairs (?b - basket.n.01) (?c - candle.n.01) (inside ?c ?b))",
            ForPairs(
                Binder("x0", "basket_n_01"), Binder("x1", "candle_n_01"), atom("inside", x(1), x(0))
            ),
        ),
        (
            "(fornpairs (3) (?b - basket.n.01) (?c - candle.n.01) (inside ?c ?b))",
            ForNPairs(
                3,
                Binder("x0", "basket_n_01"),
                Binder("x1", "candle_n_01"),
                atom("inside", x(1), x(0)),
            ),
        ),
        (
            "(forall (?a - t) (exists (?b - t) (forall (?a - u) (on ?a ?b))))",
            Forall(
                Binder("x0", "t"),
                Exists(Binder("x1", "t"), Forall(Binder("x2", "u"), atom("on", x(2), x(1)))),
            ),
        ),
        ("(forall (?a) (p ?a))", Forall(Binder("x0"), atom("p", x(0)))),
        ("(TOGGLED_ON lamp.n.02_1)", atom("toggled_on", Const("lamp_n_02.1"))),
    ],
)
def test_connectives(bddl: str, expected: ast.Formula) -> None:
    f = bddl_goal_to_ltl(bddl)
    assert f == expected
    assert parse(to_text(f)) == f


def test_bddl_variable_names_can_be_kept() -> None:
    f = bddl_goal_to_ltl("(forall (?jar.n.01 - jar.n.01) (open ?jar.n.01))", variables="bddl")
    assert f == Forall(Binder("jar_n_01", "jar_n_01"), atom("open", Var("jar_n_01")))
    assert parse(to_text(f)) == f


def test_variable_names_avoid_objects_named_like_them() -> None:
    f = bddl_goal_to_ltl("(forall (?a - t) (on ?a x0))")
    assert f == Forall(Binder("_x0", "t"), atom("on", Var("_x0"), Const("x0")))
    assert parse(to_text(f)) == f


def test_unknown_objects_are_reported_where_they_occur() -> None:
    text = "(and\n  (open jar.n.01_1)\n  (open jar.n.01_9))"
    with pytest.raises(BDDLSyntaxError) as info:
        bddl_goal_to_ltl(text, objects={"jar.n.01_1": "jar.n.01"})
    assert (info.value.kind, info.value.line, info.value.column) == ("unknown-object", 3, 9)


@pytest.mark.parametrize(
    ("bddl", "line", "column"),
    [
        ("(and\n  (not (a) (b)))", 2, 3),
        ("(forall ?x (p ?x))", 1, 9),
        ("(forall (?x t) (p ?x))", 1, 9),
        ("(forall (x - t) (p x))", 1, 9),
        ("(forn (two) (?x - t) (p ?x))", 1, 7),
        ("(forn (99999999999) (?x - t) (p ?x))", 1, 7),
        ("(forpairs (?x - t) (?x - u) (p ?x))", 1, 1),
        ("(p (q))", 1, 4),
        ("((p) q)", 1, 1),
        ("(then ?x)", 1, 2),
        ("(on 1abc d)", 1, 5),
        ("p", 1, 1),
        ("()", 1, 1),
        ("(imply (a))", 1, 1),
    ],
)
def test_malformed_goals_raise_with_position(bddl: str, line: int, column: int) -> None:
    with pytest.raises(BDDLSyntaxError) as info:
        bddl_goal_to_ltl(bddl)
    assert (info.value.line, info.value.column) == (line, column)


def test_deep_hand_built_sexpr_is_bounded() -> None:
    e = SList((SAtom("p"),))
    for _ in range(3 * MAX_DEPTH):
        e = SList((SAtom("not"), e))
    with pytest.raises(BDDLSyntaxError) as info:
        bddl_goal_to_ltl(e)
    assert info.value.kind == "too-deep"


_WORDS = [
    "and",
    "or",
    "not",
    "imply",
    "forall",
    "exists",
    "forn",
    "forpairs",
    "fornpairs",
    "then",
    "?x",
    "?y",
    "-",
    "t.n.01",
    "p",
    "on",
    "a.n.01_1",
    "x0",
    "2",
    "1x",
    "?",
]
# balanced s-expressions over BDDL's words: mostly invalid goals, some valid ones
_sexpr_texts = st.recursive(
    st.sampled_from(_WORDS),
    lambda inner: st.lists(inner, max_size=4).map(lambda xs: "(" + " ".join(xs) + ")"),
    max_leaves=16,
)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="()?-. \nabnotrfl;0123456789", max_size=60) | _sexpr_texts)
def test_arbitrary_text_gives_a_formula_or_a_typed_error(text: str) -> None:
    try:
        f = bddl_goal_to_ltl(text)
    except LTLError:
        pass
    else:
        assert parse(to_text(f)) == f
    try:
        s = reference_tl_string(text)
    except LTLError:
        pass
    else:
        parse(s)


# ----------------------------------------------------------------------------- formula → BDDL


def test_ltl_to_bddl_writes_bddl() -> None:
    f = ForPairs(
        Binder("x0", "basket_n_01"),
        Binder("x1", "candle_n_01"),
        atom("inside", x(1), Const("basket_n_01.2")),
    )
    assert ltl_to_bddl(f) == (
        "(forpairs (?x0 - basket.n.01) (?x1 - candle.n.01) (inside ?x1 basket.n.01_2))"
    )
    with pytest.raises(UnsupportedFormulaError):
        ltl_to_bddl(Then((atom("a"), atom("b"))))


@settings(max_examples=200, deadline=None)
@given(formulas(temporal=False))
def test_formula_bddl_formula_round_trip(f: ast.Formula) -> None:
    text = ltl_to_bddl(f)
    assert bddl_goal_to_ltl(text, variables="bddl") == f
    # the strategy names variables by nesting depth, as "indexed" naming does
    assert bddl_goal_to_ltl(text) == f


# ----------------------------------------------------------------------------- reference format


def test_reference_format_matches_the_reference_writer() -> None:
    goal = """(:goal (and
        (forpairs (?basket.n.01 - basket.n.01) (?candle.n.01 - candle.n.01)
                  (inside ?candle.n.01 ?basket.n.01))
        (forn (2) (?jar.n.01 - jar.n.01) (and (open ?jar.n.01) (toggled_on ?jar.n.01)))
        (not (open jar.n.01_1))))"""
    s = reference_tl_string(goal)
    assert s == (
        "forall x0. (not basket_n_01(x0) or forn 1. x1. (not candle_n_01(x1) or "
        "inside(x1, x0))) and forall x1. (not candle_n_01(x1) or forn 1. x0. "
        "(not basket_n_01(x0) or inside(x1, x0)))"
        " and forn 2. x0. (not jar_n_01(x0) or (open(x0) and toggledon(x0)))"
        " and not open(jar_n_01.1)"
    )
    f = parse(s)
    assert parse(to_text(f)) == f


def test_reference_format_keeps_or_conjuncts_together() -> None:
    s = reference_tl_string("(and (or (a) (b)) (c))")
    assert s == "(a() or b()) and c()"
    assert parse(s) == And((Or((atom("a"), atom("b"))), atom("c")))


def _eligible_for_reference(f: ast.Formula) -> bool:
    return all(
        not isinstance(n, ast.Top | ast.Bottom) and all(b.type for b in ast.binders(n))
        for n in ast.walk(f)
    )


@settings(max_examples=200, deadline=None)
@given(formulas(temporal=False))
def test_reference_strings_parse(f: ast.Formula) -> None:
    bddl = ltl_to_bddl(f)
    try:
        s = reference_tl_string(bddl)
    except (UnsupportedFormulaError, BDDLSyntaxError):
        assert not _eligible_for_reference(f)
        return
    g = parse(s)
    assert parse(to_text(g)) == g
