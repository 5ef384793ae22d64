"""Goal options against the evaluator's final-state reading, the best option against
brute force over all options, and the combinatorial count against enumeration.

Traces that realise an option are *padded*: every action, and the end, is preceded by a
few ``noop`` positions, because a state-only ``then`` part (``p then grab(x)``) needs a
non-empty segment of its own.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import cache, partial
from itertools import islice

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from planproof.ltl import FALSE, TRUE, ast, parse, simplify
from planproof.ltl.ast import Atom, Binder, Const, Formula, Literal, Var
from planproof.ltl.errors import UnsupportedFormulaError
from planproof.ltl.evaluate import evaluate_final
from planproof.ltl.ground import ground as ground_formula
from planproof.ltl.ground import ground_atoms, walk
from planproof.ltl.options import (
    Element,
    GoalOptions,
    OptionScore,
    SimpleGoal,
    best_option,
    count_options,
    options,
    score,
)
from planproof.ltl.trace import Trace, Universe, ground_atom
from planproof.testing import Vocabulary, state_formulas, universes
from planproof.testing import ground_atoms as atom_strategy
from tests.ltl.test_ground import at_least

VOCAB = Vocabulary()
ACTIONS = VOCAB.action_names
NOOP = Atom("noop")
WITH_NOOP = ACTIONS | {"noop"}
OBJECTS = [n for n, _ in VOCAB.objects]


def lit(pred: str, *args: str, positive: bool = True) -> Literal:
    return Literal(ground_atom(pred, *args), positive)


def act(pred: str, *args: str) -> Atom:
    return ground_atom(pred, *args)


# --------------------------------------------------------------------------- strategies


def _atoms(
    bound: tuple[str, ...], table: tuple[tuple[str, int], ...]
) -> st.SearchStrategy[Formula]:
    terms: list[Const | Var] = [Const(n) for n in OBJECTS] + [Var(v) for v in bound]

    def build(pred: str, arity: int) -> st.SearchStrategy[Formula]:
        return st.lists(st.sampled_from(terms), min_size=arity, max_size=arity).map(
            lambda args: Atom(pred, tuple(args))
        )

    return st.one_of(*(build(p, n) for p, n in table))


def _weighted(*choices: tuple[int, st.SearchStrategy[Formula]]) -> st.SearchStrategy[Formula]:
    table = [s for w, s in choices for _ in range(w)]
    return st.integers(0, len(table) - 1).flatmap(lambda i: table[i])


@cache
def goals(
    depth: int = 3,
    bound: tuple[str, ...] = (),
    *,
    actions: bool = True,
    temporal: bool = True,
    any_forn: bool = False,
) -> st.SearchStrategy[Formula]:
    """Closed formulas of the fragment goal options support: ``not`` (and the left of
    ``implies``, and the body of an exact ``forn``) only over state formulas. Weighted
    towards connectives and quantifiers, so that most drawn goals have many options."""
    state_atom = _atoms(bound, VOCAB.predicates)
    leaf_choices: list[tuple[int, st.SearchStrategy[Formula]]] = [
        (3, state_atom),
        (1, state_atom.map(ast.Not)),
    ]
    if actions:
        leaf_choices.append((3, _atoms(bound, VOCAB.actions)))
    leaf = _weighted(*leaf_choices, (1, st.sampled_from([TRUE, FALSE])))
    if depth == 0:
        return leaf
    sub = goals(depth - 1, bound, actions=actions, temporal=temporal, any_forn=any_forn)
    state = goals(depth - 1, bound, actions=False, temporal=False)
    nary = st.lists(sub, min_size=2, max_size=3).map(tuple)
    choices: list[tuple[int, st.SearchStrategy[Formula]]] = [
        (3, nary.map(ast.And)),
        (3, nary.map(ast.Or)),
        (2, leaf),
        (1, st.builds(ast.Implies, state, sub)),
        (1, state.map(ast.Not)),
    ]
    if temporal:
        choices.append((3, nary.map(ast.Then)))
    free = [v for v in VOCAB.variables if v not in bound]
    if free:
        typ = st.one_of(st.none(), st.sampled_from(VOCAB.types))
        b1 = typ.map(partial(Binder, free[0]))
        inner = (*bound, free[0])
        body = goals(depth - 1, inner, actions=actions, temporal=temporal, any_forn=any_forn)
        sbody = goals(depth - 1, inner, actions=False, temporal=False)
        choices += [
            (2, st.builds(ast.Exists, b1, body)),
            (2, st.builds(ast.Forall, b1, body)),
            (2, st.builds(ast.ForN, st.integers(0, 3), b1, body if any_forn else sbody)),
        ]
        if len(free) >= 2:
            b2 = typ.map(partial(Binder, free[1]))
            inner2 = (*bound, free[0], free[1])
            pbody = goals(depth - 1, inner2, actions=actions, temporal=temporal, any_forn=any_forn)
            spbody = goals(depth - 1, inner2, actions=False, temporal=False)
            choices += [
                (2, st.builds(ast.ForPairs, b1, b2, pbody)),
                (1, st.builds(ast.ForNPairs, st.integers(0, 2), b1, b2, pbody)),
                (1, st.builds(ast.ForPairs, b1, b2, spbody).map(ast.Not)),
            ]
    return _weighted(*choices)


def eai_goals() -> st.SearchStrategy[Formula]:
    """Goals shaped like EAI's: action alternatives, in order, then state conditions."""
    x = Var("x0")
    alternatives = st.lists(
        st.sampled_from(["grab", "wait"]), min_size=1, max_size=2, unique=True
    ).map(
        lambda names: ast.Exists(
            Binder("x0"), simplify.disj(*(Atom(n, (x,) if n == "grab" else ()) for n in names))
        )
    )
    step = st.one_of(alternatives, _atoms((), VOCAB.actions))
    return st.builds(
        lambda steps, conds: (
            simplify.seq(*steps, simplify.conj(*conds)) if steps else simplify.conj(*conds)
        ),
        st.lists(step, max_size=3),
        st.lists(goals(2, actions=False, temporal=False), max_size=3),
    )


def any_goals(**kw: bool) -> st.SearchStrategy[Formula]:
    return st.one_of(goals(**kw), eai_goals())


def worlds() -> st.SearchStrategy[Universe]:
    return st.one_of(st.just(VOCAB.universe), universes())


def _pad(f: Formula) -> int:
    """Positions a state-only stretch of ``f`` may need: one per ``then`` part."""
    return 1 + sum(len(n.children) for n in ast.walk(f) if isinstance(n, ast.Then))


def padded(actions: tuple[Atom, ...], final: frozenset[Atom], pad: int) -> Trace:
    seq: list[Atom] = []
    for a in actions:
        seq += [NOOP] * pad + [a]
    seq += [NOOP] * pad
    return Trace(tuple([final] * (len(seq) + 1)), tuple(seq))


def realise(option: SimpleGoal, pad: int) -> Trace:
    return padded(option.actions, frozenset(x.atom for x in option.literals if x.positive), pad)


def _goal_options(
    f: Formula, u: Universe, *, minimal: bool = False, limit: int = 400
) -> tuple[GoalOptions, list[SimpleGoal]]:
    go = GoalOptions(f, u, ACTIONS, minimal=minimal)
    assume(go.count() <= limit)
    return go, list(go.options())


def _brute_best(opts: list[SimpleGoal], predicted: frozenset[Element]) -> Fraction:
    return max(score(o, predicted).f1_exact for o in opts)


# --------------------------------------------------------------------------- hand cases

WATCH_TV = (
    "(exists x0. ((LOOKAT(x0) or WATCH(x0))) then (ON(television.410) and "
    "PLUGGED_IN(television.410) and FACING(character.65, television.410)))"
)
TV_ROOM = Universe.from_names(["television.410", "character.65", "sofa.3"])
TV_ACTIONS = {"LOOKAT", "WATCH"}


def test_watch_tv_options() -> None:
    go = GoalOptions(parse(WATCH_TV), TV_ROOM, TV_ACTIONS)
    opts = list(go.options())
    final = frozenset(
        {
            lit("on", "television.410"),
            lit("plugged_in", "television.410"),
            lit("facing", "character.65", "television.410"),
        }
    )
    expected = {
        SimpleGoal((act(verb, obj),), final)
        for verb in ("lookat", "watch")
        for obj in ("television.410", "character.65", "sofa.3")
    }
    assert set(opts) == expected and len(opts) == 6 == go.count()
    watch = SimpleGoal((act("watch", "television.410"),), final)
    assert watch.elements() == {(act("watch", "television.410"),), *final}
    assert parse(str(watch)) == watch.to_formula()


def test_watch_tv_best_option() -> None:
    go = GoalOptions(parse(WATCH_TV), TV_ROOM, TV_ACTIONS)
    # the prediction gets the action right, one state right, and one wrong relation
    predicted: set[Element] = {
        (act("watch", "television.410"),),
        lit("on", "television.410"),
        lit("next_to", "character.65", "television.410"),
    }
    best = go.best(predicted)
    assert best is not None
    assert best.option.actions == (act("watch", "television.410"),)
    assert (best.tp, best.fp, best.fn) == (2, 1, 2)
    assert best.precision == pytest.approx(2 / 3) and best.recall == pytest.approx(0.5)
    assert best.f1_exact == Fraction(4, 7)
    # a wrong action sequence is one wrong element, however long
    wrong = go.best({(act("lookat", "sofa.3"), act("watch", "television.410"))})
    assert wrong is not None and wrong.tp == 0 and wrong.f1 == 0.0


APPLES = Universe.from_names(["apple.1", "apple.2", "jar.1", "jar.2"])


def test_behavior_forpairs_has_the_two_pairings() -> None:
    f = parse("forpairs x - jar, y - apple. (inside(y, x))")
    opts = set(options(f, APPLES, set()))
    assert opts == {
        SimpleGoal(
            (), frozenset({lit("inside", "apple.1", "jar.1"), lit("inside", "apple.2", "jar.2")})
        ),
        SimpleGoal(
            (), frozenset({lit("inside", "apple.2", "jar.1"), lit("inside", "apple.1", "jar.2")})
        ),
    }
    assert count_options(f, APPLES, set()) == 2
    best = best_option(f, APPLES, set(), {lit("inside", "apple.2", "jar.1")})
    assert best is not None and lit("inside", "apple.2", "jar.1") in best.option.literals
    assert best.f1_exact == Fraction(2, 3)


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("forall x - jar. (exists y - apple. (inside(y, x)))", 4),
        ("exists y - apple. (forall x - jar. (inside(y, x)))", 2),
        ("forall x - jar. (open(x) or not closed(x))", 4),
        ("exists x - jar. (exists y - apple. (inside(y, x) and not open(x)))", 4),
        ("forall x - jar. (open(x)) and exists x - jar. (not open(x))", 0),
        ("fornpairs 1. x - jar, y - apple. (inside(y, x))", 4),
        ("forn 1. x - jar. (open(x))", 2),
        ("not (forpairs x - jar, y - apple. (inside(y, x)))", 4),
    ],
)
def test_quantifier_mixes(text: str, n: int) -> None:
    f = parse(text)
    opts = list(options(f, APPLES, set()))
    assert len(opts) == n
    pad = _pad(f)
    for o in opts:
        assert evaluate_final(f, realise(o, pad), APPLES, WITH_NOOP)


def test_forn_exact_and_minimal() -> None:
    f = parse("forn 1. x - jar. (open(x))")
    exact = set(options(f, APPLES, set()))
    assert exact == {
        SimpleGoal((), frozenset({lit("open", "jar.1"), lit("open", "jar.2", positive=False)})),
        SimpleGoal((), frozenset({lit("open", "jar.2"), lit("open", "jar.1", positive=False)})),
    }
    minimal = set(options(f, APPLES, set(), minimal=True))
    assert minimal == {
        SimpleGoal((), frozenset({lit("open", "jar.1")})),
        SimpleGoal((), frozenset({lit("open", "jar.2")})),
    }


def test_action_merges() -> None:
    u = VOCAB.universe
    g1, g2, w = act("grab", "cup.1"), act("grab", "cup.2"), act("wait")
    # two temporal conjuncts: every interleaving
    both = {
        o.actions for o in options(parse("(grab(cup.1) then wait()) and grab(cup.2)"), u, ACTIONS)
    }
    assert both == {(g1, w, g2), (g1, g2, w), (g2, g1, w)}
    # one occurrence may serve both conjuncts
    same = {
        o.actions for o in options(parse("(grab(cup.1) then wait()) and grab(cup.1)"), u, ACTIONS)
    }
    assert same == {(g1, w)}
    # a then-free conjunction holds at one position: one action
    assert list(options(parse("grab(cup.1) and grab(cup.2)"), u, ACTIONS)) == []
    assert [o.actions for o in options(parse("grab(cup.1) and q(cup.1)"), u, ACTIONS)] == [(g1,)]
    # then concatenates and sends state parts to the final state
    (o,) = options(parse("grab(cup.1) then q(cup.1) then wait()"), u, ACTIONS)
    assert o == SimpleGoal((g1, w), frozenset({lit("q", "cup.1")}))


def test_counts_of_action_merges() -> None:
    u = VOCAB.universe
    assert count_options(parse("(grab(cup.1) then wait()) and grab(cup.2)"), u, ACTIONS) == 3
    assert count_options(parse("grab(cup.1) and grab(cup.2)"), u, ACTIONS) == 0
    assert (
        count_options(parse("(grab(cup.1) or p()) and (grab(cup.2) or q(cup.1))"), u, ACTIONS) == 3
    )
    both = parse("(grab(cup.1) or p()) and (grab(cup.2) or q(cup.1))")
    assert len(list(options(both, u, ACTIONS))) == 3


def test_best_option_never_invents_a_point_merge() -> None:
    # at one position only one action happens: (grab cup.1, grab cup.2) is no option
    f = parse("(grab(cup.1) and grab(cup.2)) or p()")
    best = best_option(f, VOCAB.universe, ACTIONS, {(act("grab", "cup.1"), act("grab", "cup.2"))})
    assert best is not None and best.option == SimpleGoal((), frozenset({lit("p")}))


def test_best_option_needs_several_dinkelbach_rounds() -> None:
    # options with (tp, size) = (3, 20), (2, 6), (1, 1) against 3 predicted literals:
    # F1 = 6/23, 4/9, 1/2. Maximising tp first, then one linearised round, stops at 4/9.
    hits = [lit("q", f"h.{i}") for i in range(3)]
    pad = [f"r(m.{i})" for i in range(17)]
    big = " and ".join(["q(h.0)", "q(h.1)", "q(h.2)", *pad])
    mid = " and ".join(["q(h.0)", "q(h.1)", *pad[:4]])
    f = parse(f"({big}) or ({mid}) or q(h.2)")
    best = best_option(f, VOCAB.universe, ACTIONS, set(hits))
    assert best is not None and best.f1_exact == Fraction(1, 2)
    assert best.option == SimpleGoal((), frozenset({hits[2]}))


def test_inconsistent_goal_has_no_option() -> None:
    f = parse("p() and not p()")
    assert list(options(f, VOCAB.universe, ACTIONS)) == []
    assert best_option(f, VOCAB.universe, ACTIONS, {lit("p")}) is None
    assert count_options(f, VOCAB.universe, ACTIONS) == 1  # an upper bound, as documented


@pytest.mark.parametrize(
    "text",
    [
        "not grab(cup.1)",
        "not (grab(cup.1) then p())",
        "grab(cup.1) => p()",
        "forn 1. x - cup. (grab(x))",  # exactly one: the other cup must not be grabbed
        "not (forpairs x - cup, y - table. (grab(x) and on(x, y)))",
    ],
)
def test_unsupported_negations_raise(text: str) -> None:
    with pytest.raises(UnsupportedFormulaError):
        options(parse(text), VOCAB.universe, ACTIONS)


def test_minimal_forn_over_actions_is_supported() -> None:
    f = parse("forn 1. x - cup. (grab(x))")
    opts = {o.actions for o in options(f, VOCAB.universe, ACTIONS, minimal=True)}
    assert opts == {(act("grab", "cup.1"),), (act("grab", "cup.2"),)}


def test_enumeration_is_lazy_on_huge_goals() -> None:
    u = Universe.from_names([f"box.{i}" for i in range(40)])
    f = parse("forall x - box. (open(x) or stained(x))")
    go = GoalOptions(f, u, set())
    assert go.count() == 2**40
    first = list(islice(go.options(), 5))
    assert len(set(first)) == 5 and all(len(o.literals) == 40 for o in first)
    best = go.best({lit("stained", "box.3"), lit("open", "box.4")})
    assert best is not None and (best.tp, best.fp, best.fn) == (2, 0, 38)


def test_deep_goals_do_not_exhaust_the_stack() -> None:
    f: Formula = ast.Atom("p")
    for i in range(198):  # just under the parser's depth limit
        q = ground_atom("q", f"o.{i}")
        f = ast.And((f, q)) if i % 2 else ast.Or((f, q))
    go = GoalOptions(f, VOCAB.universe, ACTIONS)
    assert go.count() == sum(1 for _ in go.options()) == 100
    best = go.best({lit("p")})
    assert best is not None and best.tp == 1


def test_score_conventions() -> None:
    empty = SimpleGoal()
    assert score(empty, set()).f1 == 1.0
    one = SimpleGoal((), frozenset({lit("p")}))
    s = score(one, set())
    assert (s.precision, s.recall, s.f1) == (1.0, 0.0, 0.0)
    s = score(empty, {lit("p")})
    assert (s.precision, s.recall, s.f1) == (0.0, 1.0, 0.0)
    assert isinstance(score(one, {lit("p")}), OptionScore) and score(one, {lit("p")}).f1 == 1.0
    # empty prediction: the best option is an empty one if there is one
    trivial = best_option(parse("p() or true"), VOCAB.universe, ACTIONS, set())
    assert trivial is not None and trivial.option == empty and trivial.f1 == 1.0
    best = best_option(parse("p() or q(cup.1)"), VOCAB.universe, ACTIONS, set())
    assert best is not None and best.f1 == 0.0


# --------------------------------------------------------------------------- properties


@settings(max_examples=200, deadline=None)
@given(any_goals(), worlds())
def test_every_option_entails_the_goal(f: Formula, u: Universe) -> None:
    _, opts = _goal_options(f, u, limit=300)
    pad = _pad(f)
    for o in opts[:40]:
        t = realise(o, pad)
        assert evaluate_final(f, t, u, WITH_NOOP), (str(o), t)
        assert evaluate_final(o.to_formula(), t, u, WITH_NOOP)
        assert o.holds(t.actions, t.final)


@settings(max_examples=200, deadline=None)
@given(any_goals(), worlds(), st.data())
def test_options_are_equivalent_to_the_goal_on_padded_traces(
    f: Formula, u: Universe, data: st.DataObject
) -> None:
    _, opts = _goal_options(f, u, limit=300)
    pool = [act("grab", o) for o in u.names] + [act("wait")]
    acts: tuple[Atom, ...] = tuple(data.draw(st.lists(st.sampled_from(pool), max_size=4)))
    if len(opts) > 0 and data.draw(st.booleans()):  # start from an option, add noise
        o: SimpleGoal = data.draw(st.sampled_from(opts))
        acts = o.actions + acts
        if data.draw(st.booleans()):
            acts = tuple(data.draw(st.permutations(acts)))
        final = frozenset(x.atom for x in o.literals if x.positive)
        final |= data.draw(st.frozensets(atom_strategy(VOCAB), max_size=2))
    else:
        final = data.draw(st.frozensets(atom_strategy(VOCAB), max_size=6))
    t = padded(acts, final, _pad(f))
    expected = evaluate_final(f, t, u, WITH_NOOP)
    assert any(o.holds(t.actions, t.final) for o in opts) == expected


@settings(max_examples=150, deadline=None)
@given(any_goals(any_forn=True), worlds())
def test_minimal_options_entail_the_at_least_reading(f: Formula, u: Universe) -> None:
    _, opts = _goal_options(f, u, minimal=True, limit=300)
    g = at_least(f, u)
    pad = _pad(f)
    for o in opts[:30]:
        assert evaluate_final(g, realise(o, pad), u, WITH_NOOP)


def _predictions(opts: list[SimpleGoal], data: st.DataObject) -> frozenset[Element]:
    """Parts of one or two options plus noise: predictions that score in between."""
    out: set[Element] = set()
    for o in data.draw(st.lists(st.sampled_from(opts), max_size=2)) if opts else []:
        if o.elements():
            out |= set(data.draw(st.sets(st.sampled_from(sorted(o.elements(), key=repr)))))
    out |= {
        Literal(a, pos)
        for a, pos in data.draw(st.sets(st.tuples(atom_strategy(VOCAB), st.booleans()), max_size=3))
    }
    if data.draw(st.booleans()):
        out.add(tuple(data.draw(st.lists(atom_strategy(VOCAB, actions=True), max_size=2))))
    return frozenset(out)


@settings(max_examples=250, deadline=None)
@given(any_goals(), worlds(), st.data())
def test_best_option_matches_brute_force_on_goals(
    f: Formula, u: Universe, data: st.DataObject
) -> None:
    _check_best_against_brute_force(f, u, data)


def _check_best_against_brute_force(f: Formula, u: Universe, data: st.DataObject) -> None:
    go, opts = _goal_options(f, u, limit=400)
    predicted = _predictions(opts, data)
    best = go.best(predicted)
    if not opts:
        assert best is None
        return
    assert best is not None and best.option in opts
    assert best.f1_exact == _brute_best(opts, predicted)
    assert best == score(best.option, predicted)


@settings(max_examples=200, deadline=None)
@given(state_formulas(max_depth=3), worlds(), st.data())
def test_best_option_matches_brute_force_on_state_formulas(
    f: Formula, u: Universe, data: st.DataObject
) -> None:
    _check_best_against_brute_force(f, u, data)


def _repeats_atoms(f: Formula, u: Universe) -> bool:
    leaves = Counter(n for n in walk(ground_formula(f, u)) if isinstance(n, Atom))
    return any(c > 1 for c in leaves.values())


def _negates_pairs(f: Formula) -> bool:
    """A pair quantifier under ``not``, on the left of ``implies`` or in a ``forn`` body
    (whose NNF negates it): conservative."""
    negating = [n.body for n in ast.walk(f) if isinstance(n, ast.Not | ast.ForN)]
    negating += [n.left for n in ast.walk(f) if isinstance(n, ast.Implies)]
    pairs = ast.ForPairs | ast.ForNPairs
    return any(isinstance(m, pairs) for n in negating for m in ast.walk(n))


@settings(max_examples=300, deadline=None)
@given(any_goals(), worlds())
def test_count_bounds_enumeration_and_is_exact_without_repeated_atoms(
    f: Formula, u: Universe
) -> None:
    go, opts = _goal_options(f, u, limit=400)
    n = go.count()
    raw = sum(1 for _ in go.options(dedupe=False))
    assert len(opts) <= raw <= n
    assert len(set(opts)) == len(opts)
    if not _repeats_atoms(f, u) and not _negates_pairs(f):
        assert n == len(opts)


@settings(max_examples=100, deadline=None)
@given(any_goals(), worlds())
def test_a_simple_goal_is_its_own_only_option(f: Formula, u: Universe) -> None:
    _, opts = _goal_options(f, u, limit=300)
    for o in opts[:10]:
        back = list(options(parse(str(o)), u, ACTIONS))
        assert back == [o]


def test_ground_atoms_of_options_come_from_the_goal() -> None:
    f = parse("forall x - cup. (exists y - table. (on(x, y) or grab(x)))")
    go = GoalOptions(f, VOCAB.universe, ACTIONS)
    atoms = ground_atoms(go.ground)
    for o in go.options():
        assert {x.atom for x in o.literals} <= atoms and set(o.actions) <= atoms
