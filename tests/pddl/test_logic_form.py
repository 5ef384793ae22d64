"""Logic-form matching and the tolerant reader of LLM-written operators."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from planproof.ltl.bddl.reader import read_sexpr
from planproof.pddl.eai import EaiPddl
from planproof.pddl.logic_form import canonical, clauses, match_clauses, prf
from planproof.pddl.strategies import clause_lists, operator_answers
from planproof.pddl.tolerant import (
    OperatorParseError,
    clean_answer,
    read_operators,
    replace_operators,
)

GRAB_PRE = (
    "(and (grabbable ?obj) (next_to ?char ?obj) "
    "(not (exists (?obj2 - object) (and (obj_inside ?obj ?obj2) (closed ?obj2)))))"
)

CLAUSES = clause_lists()


@settings(max_examples=150, deadline=None)
@given(CLAUSES, st.randoms())
def test_matching_is_order_insensitive_and_reflexive(parts: list[str], rnd: object) -> None:
    text = f"(and {' '.join(parts)})"
    shuffled = list(parts)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    other = f"(and {' '.join(shuffled)})"
    m = match_clauses(read_sexpr(text), read_sexpr(other))
    assert (m.fp, m.fn) == (0, 0)
    assert m.tp == len(clauses(read_sexpr(text)))


@settings(max_examples=150, deadline=None)
@given(CLAUSES, CLAUSES)
def test_counts_add_up_and_are_symmetric(a: list[str], b: list[str]) -> None:
    ea, eb = read_sexpr(f"(and {' '.join(a)})"), read_sexpr(f"(and {' '.join(b)})")
    m = match_clauses(ea, eb)
    assert m.tp + m.fp == len(clauses(ea)) and m.tp + m.fn == len(clauses(eb))
    back = match_clauses(eb, ea)
    assert (back.tp, back.fp, back.fn) == (m.tp, m.fn, m.fp)


def test_bound_variables_compare_by_position_and_parameters_by_rename() -> None:
    a = read_sexpr("(forall (?x - object) (when (p ?x ?obj) (not (q ?x))))")
    b = read_sexpr("(forall (?y - object) (when (p ?y ?o) (not (q ?y))))")
    assert canonical(a) != canonical(b)  # ?obj vs ?o
    assert match_clauses(b, a, predicted_rename={"?o": "?obj"}).tp == 1
    # a different quantified type does not match
    c = read_sexpr("(forall (?y - character) (when (p ?y ?obj) (not (q ?y))))")
    assert match_clauses(c, a).tp == 0


def test_sub_clause_mismatch_fails_the_whole_clause() -> None:
    gold = read_sexpr(GRAB_PRE)
    pred = read_sexpr(
        "(and (next_to ?char ?obj) (grabbable ?obj) "
        "(not (exists (?o - object) (and (obj_inside ?obj ?o) (open ?o)))))"
    )
    m = match_clauses(pred, gold)
    assert (m.tp, m.fp, m.fn) == (2, 1, 1)
    p, r, f = prf(m.tp, m.fp, m.fn)
    assert p == pytest.approx(2 / 3) and r == pytest.approx(2 / 3) and f == pytest.approx(2 / 3)


def test_equivalent_spellings_match() -> None:
    a = read_sexpr("(and (p ?a) (and (q ?a ?b) (not (not (r ?b)))))")
    b = read_sexpr("(and (r ?b) (q ?a ?b) (p ?a))")
    assert match_clauses(a, b).fn == 0
    assert match_clauses(read_sexpr("()"), read_sexpr("(and)")).tp == 0


@pytest.mark.data
def test_gold_operators_match_themselves(vh: EaiPddl, bh: EaiPddl) -> None:
    for data in (vh, bh):
        for g in data.gold_operators.values():
            for text in (g.precondition, g.effect):
                e = read_sexpr(text)
                m = match_clauses(e, e)
                assert m.fp == m.fn == 0, (g.name, text)


# --- tolerant reader -----------------------------------------------------------------------

GRAB = (
    "(:action grab :parameters (?char - character ?obj - object) "
    f":precondition {GRAB_PRE} :effect (holds_rh ?char ?obj))"
)


@pytest.mark.parametrize(
    "answer",
    [
        GRAB,
        f"```pddl\n{GRAB}\n```",
        json.dumps({"output": GRAB}),
        "{'output': '" + GRAB + "'}",
        f"Sure! Here is the action:\n{GRAB}\nLet me know if you need more.",
        # no JSON, but its escapes are still escapes (Gemini 1.0 Pro, 23_1 and 772_1): the
        # output string closed before stray text, or never closed
        json.dumps({"output": GRAB.replace(" :", "\n  :")})[:-1] + ")}",
        json.dumps({"output": GRAB.replace(" :", "\n  :")})[:-2] + "}",
        # newlines escaped twice: the decoded string still holds "\n" (Command R+, 1068_1)
        json.dumps({"output": GRAB.replace(" :", "\\n  :")}),
    ],
)
def test_wrappers_are_removed(answer: str) -> None:
    ops = read_operators(answer)
    assert set(ops) == {"grab"}
    op = ops["grab"]
    assert op.operator is not None and not op.problems and not op.repairs
    assert match_clauses(op.precondition, read_sexpr(GRAB_PRE)).fn == 0


_BMP_TEXT = st.text(  # no quote: the reader takes the last one as the string's end
    st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",), exclude_characters='"'),
    max_size=40,
)


@given(_BMP_TEXT, st.booleans())
@example("\\r", True)  # a literal backslash-r, once turned into a carriage return
@example("C:\\new\\table", False)
def test_escapes_of_an_unclosed_output_string_are_read_back(comment: str, ascii_only: bool) -> None:
    """An answer whose JSON is broken (the output string never closed) is unescaped escape
    by escape: whatever JSON wrote, non-ASCII included, reads back as it was, where
    ``encode().decode("unicode_escape")`` turned ``é`` into ``Ã©``."""
    body = f"; {comment}\n{GRAB}"
    answer = '{"output": ' + json.dumps(body, ensure_ascii=ascii_only)[:-1] + " and some prose"
    assert clean_answer(answer) == body + " and some prose"


def test_non_ascii_outside_escapes_is_kept() -> None:
    answer = '{"output": "; café\\n' + GRAB + '" plus stray text}'
    assert clean_answer(answer).startswith("; café\n(:action grab")


def test_missing_parentheses_are_closed_and_noted() -> None:
    answer = GRAB[:-2]  # drops the effect's ")" and the action's ")"
    ops = read_operators(
        answer + "\n(:action drop :parameters (?c - character ?o - object) "
        ":precondition (holds_rh ?c ?o) :effect (not (holds_rh ?c ?o)))"
    )
    assert set(ops) == {"grab", "drop"}
    assert ops["grab"].operator is not None
    assert any("closed" in r for r in ops["grab"].repairs)
    assert ops["drop"].operator is not None and not ops["drop"].repairs


def test_fragments_and_prompt_parameters() -> None:
    ops = read_operators(
        ":precondition (and (next_to ?char ?obj)) :effect (holds_rh ?char ?obj)",
        default_name="grab",
        parameters={"grab": "(?char - character ?obj - object)"},
    )
    assert ops["grab"].operator is not None
    assert "took :parameters from the prompt" in ops["grab"].repairs


def test_unknown_variables_are_reported_not_raised() -> None:
    ops = read_operators("(:action a :parameters (?x) :precondition (p ?y) :effect (q ?x))")
    assert ops["a"].operator is None and ops["a"].unknown_variables == ("y",)


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        ("no pddl here at all", 1),
        ("(:action a :parameters (?x) :precondition (p ?x)) ) :effect (q ?x", 1),
    ],
)
def test_unreadable_answers_raise_with_position(answer: str, line: int) -> None:
    try:
        ops = read_operators(answer)
    except OperatorParseError as err:
        assert err.line == line and err.column >= 1
    else:  # what can be read must then be a usable operator
        assert all(o.operator is not None or o.problems for o in ops.values())


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="(): ?abcdeprt-\n'\"{}`", max_size=120))
def test_arbitrary_answers_never_crash(text: str) -> None:
    with contextlib.suppress(OperatorParseError):
        read_operators(text, default_name="a")


@pytest.mark.data
def test_replace_operators_imports_into_a_domain(vh: EaiPddl) -> None:
    new, rejected = replace_operators(
        vh.domain,
        "(:action grab :parameters (?char - character ?obj - object) "
        ":precondition (next_to ?char ?obj) :effect (holds_lh ?char ?obj))\n"
        "(:action fly :parameters (?char - character) :precondition () :effect ())\n"
        "(:action wash :parameters (?char - character ?obj - object) "
        ":precondition (wearable ?obj) :effect (clean ?obj))",
    )
    assert set(rejected) == {"fly", "wash"}
    assert new.operators["grab"].effects != vh.domain.operators["grab"].effects
    assert new.operators["wash"] == vh.domain.operators["wash"]


@settings(max_examples=100, deadline=None)
@given(operator_answers())
def test_wrapped_operators_are_recovered(case: tuple[str, str, str]) -> None:
    answer, pre, eff = case
    op = read_operators(answer)["act"]
    assert not op.repairs
    assert match_clauses(op.precondition, read_sexpr(pre)).fn == 0
    assert match_clauses(op.effect, read_sexpr(eff)).fn == 0
    # a `when` is not allowed in a precondition: readable, but not an operator
    assert (op.operator is not None) == ("when" not in pre)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=300))
def test_an_operator_is_read_exactly_when_its_parameters_are_within_the_limit(n: int) -> None:
    """Issue 18: over :data:`MAX_PARAMETERS` the operator is unusable and the reason names
    the number; at or under it the operator is built."""
    from planproof.pddl.schema import MAX_PARAMETERS

    params = " ".join(f"?p{k}" for k in range(n))
    (op,) = read_operators(f"(:action a :parameters ({params}) :effect (done))").values()
    if n <= MAX_PARAMETERS:
        assert op.operator is not None and len(op.operator.params) == n
    else:
        assert op.operator is None
        assert op.problems == (
            f"operator a: {n} parameters, over the limit of {MAX_PARAMETERS} (docs/limits.md)",
        )


def test_an_answer_of_deeply_nested_json_is_a_typed_error() -> None:
    """Issue 18 (the probe's fuzz): JSON nested 5,000 deep raised RecursionError."""
    with pytest.raises(OperatorParseError):
        read_operators('{"output": ' + "[" * 5000 + "]" * 5000 + "}")
