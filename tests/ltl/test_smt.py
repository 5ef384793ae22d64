"""Z3 decisions for the state fragment, checked against truth-table enumeration.

The oracle below is a deliberately naive, independent re-statement of the semantics
(recursive evaluation on one state, pair quantifiers by exhaustive search for a matching),
so a bug in the Z3 encoding cannot hide behind the same bug in the reference.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from planproof.ltl import ast, parse
from planproof.ltl.ast import Atom, Const, Formula, Var
from planproof.ltl.axioms import (
    NAMED_AXIOMS,
    at_most_one_held,
    at_most_one_holder,
    behavior_state_axioms,
    exactly_one_of,
    mutually_exclusive,
    virtualhome_state_axioms,
)
from planproof.ltl.errors import GroundingError, UnsupportedFormulaError
from planproof.ltl.smt import (
    GroundingLimitError,
    entails,
    equivalent,
    ground_size,
    satisfiable,
)
from planproof.ltl.trace import State, Trace, Universe, ground_atom
from planproof.testing import state_formulas, universes

# --------------------------------------------------------------------------- the oracle


def _matching_exists(edges: set[tuple[str, str]], k: int) -> bool:
    """A set of k pairs from ``edges``, no two sharing a first or a second element."""
    if k == 0:
        return True
    if not edges:
        return False
    x, y = min(edges)
    rest = {(a, b) for a, b in edges if a != x and b != y}
    return _matching_exists(rest, k - 1) or _matching_exists(edges - {(x, y)}, k)


def holds(f: Formula, state: State, u: Universe, env: dict[str, str] | None = None) -> bool:
    env = env or {}

    def sub(body: Formula, **binding: str) -> bool:
        return holds(body, state, u, {**env, **binding})

    match f:
        case Atom(pred, args):
            ground = tuple(Const(env[a.name]) if isinstance(a, Var) else a for a in args)
            return Atom(pred, ground) in state
        case ast.Top():
            return True
        case ast.Bottom():
            return False
        case ast.Not(body):
            return not holds(body, state, u, env)
        case ast.And(cs):
            return all(holds(c, state, u, env) for c in cs)
        case ast.Or(cs):
            return any(holds(c, state, u, env) for c in cs)
        case ast.Implies(left, right):
            return not holds(left, state, u, env) or holds(right, state, u, env)
        case ast.Forall(b, body):
            return all(sub(body, **{b.var: o}) for o in u.of_type(b.type))
        case ast.Exists(b, body):
            return any(sub(body, **{b.var: o}) for o in u.of_type(b.type))
        case ast.ForN(n, b, body):
            return sum(sub(body, **{b.var: o}) for o in u.of_type(b.type)) == n
        case ast.ForPairs(b1, b2, body) | ast.ForNPairs(_, b1, b2, body):
            xs, ys = u.of_type(b1.type), u.of_type(b2.type)
            k = f.count if isinstance(f, ast.ForNPairs) else min(len(xs), len(ys))
            edges = {
                (x, y) for x in xs for y in ys if x != y and sub(body, **{b1.var: x, b2.var: y})
            }
            return _matching_exists(edges, k)
    raise AssertionError(f"unexpected node {f!r}")


def relevant_atoms(f: Formula, u: Universe, env: dict[str, str] | None = None) -> set[Atom]:
    """Every ground atom ``f`` can look at, by grounding all quantifiers."""
    env = env or {}
    if isinstance(f, Atom):
        args = tuple(Const(env[a.name]) if isinstance(a, Var) else a for a in f.args)
        return {Atom(f.pred, args)}
    bs = ast.binders(f)
    out: set[Atom] = set()
    for objs in itertools.product(*(u.of_type(b.type) for b in bs)):
        inner = {**env, **{b.var: o for b, o in zip(bs, objs, strict=True)}}
        for c in ast.children(f):
            out |= relevant_atoms(c, u, inner)
    return out


MAX_ENUMERATED_ATOMS = 12


def all_states(fs: Sequence[Formula], u: Universe) -> Iterator[State]:
    atoms = sorted(set().union(*(relevant_atoms(f, u) for f in fs)), key=repr)
    assume(len(atoms) <= MAX_ENUMERATED_ATOMS)
    for bits in itertools.product((False, True), repeat=len(atoms)):
        yield frozenset(a for a, b in zip(atoms, bits, strict=True) if b)


def holds_all(fs: Sequence[Formula], state: State, u: Universe) -> bool:
    return all(holds(f, state, u) for f in fs)


# --------------------------------------------------------------------------- properties

SMALL = settings(max_examples=300, deadline=None)
formulas = state_formulas(max_depth=4)


@SMALL
@given(formulas, universes())
def test_satisfiable_agrees_with_enumeration(f: Formula, u: Universe) -> None:
    expected = any(holds(f, s, u) for s in all_states([f], u))
    result = satisfiable(f, u)
    assert not result.unknown
    assert result.sat == expected
    if result.sat:
        assert result.model is not None
        assert result.model <= relevant_atoms(f, u)
        assert holds(f, result.model, u)
    else:
        assert result.model is None


@SMALL
@given(formulas, formulas, universes())
def test_satisfiable_with_axioms_agrees_with_enumeration(
    f: Formula, axiom: Formula, u: Universe
) -> None:
    expected = any(holds_all([f, axiom], s, u) for s in all_states([f, axiom], u))
    result = satisfiable(f, u, axioms=(axiom,))
    assert result.sat == expected
    if result.model is not None:
        assert holds_all([f, axiom], result.model, u)


@SMALL
@given(formulas, formulas, universes())
def test_entails_agrees_with_enumeration(f: Formula, g: Formula, u: Universe) -> None:
    expected = all(holds(g, s, u) for s in all_states([f, g], u) if holds(f, s, u))
    result = entails(f, g, u)
    assert not result.unknown
    assert bool(result) == result.holds == expected
    if expected:
        assert result.counterexample is None
    else:
        assert result.counterexample is not None
        assert holds(f, result.counterexample, u)
        assert not holds(g, result.counterexample, u)


@SMALL
@given(formulas, formulas, universes())
def test_equivalent_agrees_with_enumeration(f: Formula, g: Formula, u: Universe) -> None:
    expected = all(holds(f, s, u) == holds(g, s, u) for s in all_states([f, g], u))
    result = equivalent(f, g, u)
    assert result.holds == expected
    if not expected:
        assert result.counterexample is not None
        assert holds(f, result.counterexample, u) != holds(g, result.counterexample, u)


@settings(max_examples=100, deadline=None)
@given(formulas, formulas, universes())
def test_witnesses_satisfy_the_formula_under_the_trace_evaluator(
    f: Formula, axiom: Formula, u: Universe
) -> None:
    # the package's own evaluator must read a Z3 witness the way Z3 meant it
    evaluate = pytest.importorskip("planproof.ltl.evaluate").evaluate
    result = satisfiable(f, u, axioms=(axiom,))
    if result.model is not None:
        one_state = Trace((result.model,))
        assert evaluate(f, one_state, u)
        assert evaluate(axiom, one_state, u)


def test_queries_from_several_threads_agree_with_sequential_ones() -> None:
    fs = [parse(t) for t in ("forn 2 x - cup. r(x)", "forall x - cup. on(x, table.3)")]
    gs = [parse(t) for t in ("exists x - cup. r(x)", "on(cup.2, table.3)", "r(cup.1)")]
    jobs = [(f, g) for f in fs for g in gs] * 5
    expected = [entails(f, g, CUPS).holds for f, g in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda fg: entails(fg[0], fg[1], CUPS).holds, jobs))
    assert got == expected
    assert any(expected) and not all(expected)


@settings(max_examples=40, deadline=None)
@given(formulas, universes())
def test_every_formula_is_equivalent_to_itself_and_entails_its_double_negation(
    f: Formula, u: Universe
) -> None:
    assert equivalent(f, f, u).holds
    assert entails(f, ast.Not(ast.Not(f)), u).holds
    assert not satisfiable(ast.And((f, ast.Not(f))), u).sat


# Larger pair-quantifier instances than the random formulas reach: the state is fixed by
# literals, so the matching search is exercised on up to 4 × 4 candidates, in both
# polarities (the matching side and the König vertex-cover side of the encoding).
_PAIR_OBJECTS = [f"a.{i}" for i in range(4)] + [f"b.{i}" for i in range(4)]


@settings(max_examples=150, deadline=None)
@given(
    st.sets(st.sampled_from(_PAIR_OBJECTS), min_size=1),
    st.sets(st.tuples(st.sampled_from(_PAIR_OBJECTS), st.sampled_from(_PAIR_OBJECTS))),
    st.sampled_from([("a", "b"), ("a", "a"), (None, None), ("a", None)]),
    st.one_of(st.none(), st.integers(0, 5)),
    st.booleans(),
)
def test_pair_quantifiers_on_fixed_states(
    objects: set[str],
    true_edges: set[tuple[str, str]],
    types: tuple[str | None, str | None],
    count: int | None,
    negate: bool,
) -> None:
    u = Universe.of({o: {o.split(".")[0]} for o in objects})
    x, y = ast.Binder("x", types[0]), ast.Binder("y", types[1])
    body = Atom("e", (Var("x"), Var("y")))
    f: Formula = ast.ForPairs(x, y, body) if count is None else ast.ForNPairs(count, x, y, body)
    state = frozenset(ground_atom("e", a, b) for a, b in true_edges)
    literals = [a if a in state else ast.Not(a) for a in sorted(relevant_atoms(f, u), key=repr)]
    goal = ast.Not(f) if negate else f
    expected = holds(goal, state, u)
    fixed = ast.And((goal, *literals)) if literals else goal
    assert satisfiable(fixed, u).sat == expected


# --------------------------------------------------------------------------- hand cases

HOME = Universe.of(
    {
        "door.1": {"door", "can_open"},
        "tv.1": {"tv", "has_switch", "has_plug"},
        "cup.1": {"cup"},
        "cup.2": {"cup"},
        "table.3": {"table"},
        "character.1": {"character"},
    }
)


def test_open_and_closed_is_unsat_only_under_virtualhome_axioms() -> None:
    f = parse("open(door.1) and closed(door.1)")
    free = satisfiable(f, HOME)
    assert free.sat
    assert free.model == frozenset({ground_atom("open", "door.1"), ground_atom("closed", "door.1")})
    axioms = virtualhome_state_axioms(HOME)
    assert not satisfiable(f, HOME, axioms).sat
    # the exclusion holds for every object, not only for openable ones
    assert not satisfiable(parse("open(cup.1) and closed(cup.1)"), HOME, axioms).sat


def test_virtualhome_axioms_make_the_two_states_of_a_switch_complementary() -> None:
    axioms = virtualhome_state_axioms(HOME)
    assert entails(parse("not off(tv.1)"), parse("on(tv.1)"), HOME, axioms)
    assert entails(parse("not plugged_out(tv.1)"), parse("plugged_in(tv.1)"), HOME, axioms)
    assert entails(parse("not closed(door.1)"), parse("open(door.1)"), HOME, axioms)
    # a cup has no open/closed property: it may be neither
    not_exhaustive = entails(parse("not closed(cup.1)"), parse("open(cup.1)"), HOME, axioms)
    assert not not_exhaustive
    assert not_exhaustive.counterexample is not None
    assert ground_atom("open", "cup.1") not in not_exhaustive.counterexample
    # explicit property lists override the types
    listed = virtualhome_state_axioms(HOME, with_property={"can_open": ["cup.1"]})
    assert entails(parse("not closed(cup.1)"), parse("open(cup.1)"), HOME, listed)
    assert not entails(parse("not closed(door.1)"), parse("open(door.1)"), HOME, listed)
    # sitting and lying exclude each other, but a character may do neither
    both = parse("sitting(character.1) and lying(character.1)")
    assert not satisfiable(both, HOME, axioms).sat
    neither = parse("not sitting(character.1) and not lying(character.1)")
    assert satisfiable(neither, HOME, axioms).sat


def test_axiom_helpers_build_the_expected_formulas() -> None:
    u = Universe.of({"character.1": {"character"}, "cup.1": {"cup"}, "cup.2": {"cup"}})
    me = mutually_exclusive(("open", "closed"), u, objects=["cup.1"])
    assert me == ast.Not(ast.And((ground_atom("open", "cup.1"), ground_atom("closed", "cup.1"))))
    assert all(a.is_ground for a in ast.atoms(exactly_one_of(("on", "off"), u)))
    assert exactly_one_of(("on", "off"), u, objects=[]) == ast.TRUE
    holder = at_most_one_holder(("holds_rh", "holds_lh"), u, holders=["character.1"])
    same_cup = parse("holds_rh(character.1, cup.1) and holds_lh(character.1, cup.1)")
    assert not satisfiable(same_cup, u, (holder,)).sat
    two_cups = parse("holds_rh(character.1, cup.1) and holds_lh(character.1, cup.2)")
    assert satisfiable(two_cups, u, (holder,)).sat
    held = at_most_one_held("holds_rh", holders=["character.1"], object_type="cup")
    both_right = parse("holds_rh(character.1, cup.1) and holds_rh(character.1, cup.2)")
    assert not satisfiable(both_right, u, (held,)).sat
    assert satisfiable(parse("holds_rh(character.1, cup.2)"), u, (held,)).sat


def test_behavior_hand_axioms_and_the_named_sets() -> None:
    u = Universe.of({"apple.1": {"apple"}, "apple.2": {"apple"}, "knife.1": {"knife"}})
    axioms = NAMED_AXIOMS["behavior"](u)
    assert axioms == behavior_state_axioms(u)
    assert not satisfiable(parse("holds_rh(apple.1) and holds_rh(knife.1)"), u, axioms).sat
    assert not satisfiable(parse("holds_rh(apple.1) and holds_lh(apple.1)"), u, axioms).sat
    assert satisfiable(parse("holds_rh(apple.1) and holds_lh(knife.1)"), u, axioms).sat
    assert NAMED_AXIOMS["virtualhome"](HOME) == virtualhome_state_axioms(HOME)


def test_axioms_mean_the_same_to_the_trace_evaluator() -> None:
    evaluate = pytest.importorskip("planproof.ltl.evaluate").evaluate
    u = Universe.of({"character.1": {"character"}, "cup.1": {"cup"}, "cup.2": {"cup"}})
    held = at_most_one_held("holds_rh", holders=["character.1"], object_type="cup")
    exclusive = mutually_exclusive(("open", "closed"), u)
    for state, ok_held, ok_exclusive in [
        (frozenset(), True, True),
        (frozenset({ground_atom("holds_rh", "character.1", "cup.1")}), True, True),
        (
            frozenset(ground_atom("holds_rh", "character.1", c) for c in ("cup.1", "cup.2")),
            False,
            True,
        ),
        (frozenset({ground_atom("open", "cup.2"), ground_atom("closed", "cup.2")}), True, False),
    ]:
        trace = Trace((state,))
        assert evaluate(held, trace, u) == ok_held
        assert evaluate(exclusive, trace, u) == ok_exclusive
        consistent = satisfiable(ast.And((held, exclusive, *state)), u).sat
        assert consistent == (ok_held and ok_exclusive)


CUPS = Universe.of({"cup.1": {"cup"}, "cup.2": {"cup"}, "cup.3": {"cup"}, "table.3": {"table"}})


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_forn_counts_exactly(n: int) -> None:
    f = parse(f"forn {n} x - cup. on(x, table.3)")
    result = satisfiable(f, CUPS)
    assert result.sat
    assert result.model is not None
    assert sum(1 for a in result.model if a.pred == "on") == n
    # n cups can be forced on the table, but not n + 1
    forced = [ground_atom("on", f"cup.{i}", "table.3") for i in range(1, n + 1)]
    assert satisfiable(ast.And((f, *forced, ast.TRUE)), CUPS).sat
    if n < 3:
        extra = ground_atom("on", f"cup.{n + 1}", "table.3")
        assert not satisfiable(ast.And((f, *forced, extra)), CUPS).sat


def test_forn_beyond_the_domain_is_unsat() -> None:
    assert not satisfiable(parse("forn 4 x - cup. on(x, table.3)"), CUPS).sat
    assert satisfiable(parse("forn 0 x - plate. on(x, table.3)"), CUPS).sat
    assert not satisfiable(parse("forn 1 x - plate. on(x, table.3)"), CUPS).sat


def _jars_and_apples(n_apples: int) -> Universe:
    objs = {"jar.1": {"jar"}, "jar.2": {"jar"}}
    objs.update({f"apple.{i}": {"apple"} for i in range(1, n_apples + 1)})
    return Universe.of(objs)


def test_forpairs_two_jars_two_apples() -> None:
    u = _jars_and_apples(2)
    f = parse("forpairs x - jar, y - apple. inside(y, x)")
    result = satisfiable(f, u)
    assert result.sat and result.model is not None
    assert holds(f, result.model, u)
    # a perfect matching puts both apples in jars
    assert entails(f, parse("forall y - apple. exists x - jar. inside(y, x)"), u)
    # one apple in both jars is no matching
    both_in_one = parse("inside(apple.1, jar.1) and inside(apple.1, jar.2)")
    apple2_out = parse("not inside(apple.2, jar.1) and not inside(apple.2, jar.2)")
    only = ast.And((both_in_one, apple2_out))
    assert not satisfiable(ast.And((f, only)), u).sat
    assert satisfiable(ast.And((ast.Not(f), both_in_one)), u).sat


def test_forpairs_two_jars_three_apples() -> None:
    u = _jars_and_apples(3)
    f = parse("forpairs x - jar, y - apple. inside(y, x)")
    # only min(2, 3) = 2 pairs are needed, so one apple may stay out
    left_out = entails(f, parse("forall y - apple. exists x - jar. inside(y, x)"), u)
    assert not left_out
    assert left_out.counterexample is not None
    assert holds(f, left_out.counterexample, u)
    # keeping apple.1 out still leaves a matching; keeping two apples out does not
    out1 = parse("forall x - jar. not inside(apple.1, x)")
    out2 = parse("forall x - jar. not inside(apple.2, x)")
    assert satisfiable(ast.And((f, out1)), u).sat
    assert not satisfiable(ast.And((f, out1, out2)), u).sat
    one_pair = parse("fornpairs 1 x - jar, y - apple. inside(y, x)")
    assert satisfiable(ast.And((one_pair, out1, out2)), u).sat


def test_forpairs_needs_distinct_objects() -> None:
    u = Universe.of({"box.1": {"box"}})
    assert not satisfiable(parse("forpairs x - box, y - box. inside(x, y)"), u).sat
    assert satisfiable(parse("not (forpairs x - box, y - box. inside(x, y))"), u).sat


def test_pair_quantifier_counted_by_forn_is_exact_in_both_directions() -> None:
    # forn reads its body both ways, so the body's pair quantifier must be pinned to its
    # true value, not merely implied by or implying it
    two = Universe.of({"cup.1": {"cup"}, "cup.2": {"cup"}})
    swapped = parse("on(cup.1, cup.2) and on(cup.2, cup.1)")
    pairs_true = parse("forn 0 x - cup. (forpairs y - cup, z - cup. on(y, z))")
    assert not satisfiable(ast.And((pairs_true, swapped)), two).sat
    pairs_false = parse("forn 2 x - cup. (forpairs y - cup, z - cup. on(y, z))")
    assert not satisfiable(ast.And((pairs_false, parse("not on(cup.1, cup.2)"))), two).sat
    assert satisfiable(ast.And((pairs_false, swapped)), two).sat


def test_forall_entails_instance_but_not_conversely() -> None:
    every = parse("forall x - cup. on(x, table.3)")
    one = parse("on(cup.1, table.3)")
    assert entails(every, one, CUPS)
    back = entails(one, every, CUPS)
    assert not back
    assert back.counterexample is not None
    assert ground_atom("on", "cup.1", "table.3") in back.counterexample
    assert not holds(every, back.counterexample, CUPS)


def test_equivalence_under_the_universe() -> None:
    two = Universe.of({"cup.1": {"cup"}, "cup.2": {"cup"}})
    assert equivalent(parse("forall x - cup. r(x)"), parse("r(cup.1) and r(cup.2)"), two)
    assert equivalent(parse("not exists x - cup. r(x)"), parse("forall x - cup. not r(x)"), two)
    differ = equivalent(parse("forn 1 x - cup. r(x)"), parse("exists x - cup. r(x)"), two)
    assert not differ
    both = frozenset({ground_atom("r", "cup.1"), ground_atom("r", "cup.2")})
    assert differ.counterexample == both


def test_then_is_unsupported() -> None:
    with pytest.raises(UnsupportedFormulaError, match="then"):
        satisfiable(parse("on(cup.1, table.3) then r(cup.1)"), CUPS)
    with pytest.raises(UnsupportedFormulaError, match="then"):
        entails(parse("r(cup.1)"), parse("not (p() then q(cup.1))"), CUPS)
    with pytest.raises(UnsupportedFormulaError, match="then"):
        satisfiable(parse("p()"), CUPS, axioms=(parse("p() then p()"),))


def test_action_atoms_are_rejected_when_named() -> None:
    with pytest.raises(UnsupportedFormulaError, match="grab"):
        satisfiable(parse("grab(cup.1) and p()"), CUPS, action_predicates={"grab"})


def test_free_variables_are_grounding_errors() -> None:
    free = Atom("on", (Var("x"), Const("table.3")))
    with pytest.raises(GroundingError, match="x"):
        satisfiable(free, CUPS)
    with pytest.raises(GroundingError, match="twice"):
        satisfiable(ast.ForPairs(ast.Binder("x"), ast.Binder("x"), free), CUPS)


def test_huge_groundings_fail_fast_with_a_typed_error() -> None:
    big = Universe.of({f"o.{i}": {"o"} for i in range(100)})
    f = parse("forall x. forall y. forall z. between(x, y, z)")
    assert ground_size([f], big, limit=10**9) > 10**6
    with pytest.raises(GroundingLimitError, match="max_ground_size"):
        satisfiable(f, big)
    # the bound counts distinct instances: a body not depending on the loop is shared
    shared = parse("forall x. forall y. forall z. p()")
    assert ground_size([shared], big) < 1000
    assert satisfiable(shared, big).sat


def test_too_deep_formulas_fail_with_a_typed_error() -> None:
    f: Formula = ast.Atom("p")
    for _ in range(1000):
        f = ast.Not(f)
    with pytest.raises(GroundingLimitError, match="deeper"):
        satisfiable(f, CUPS)
