"""The trace evaluator against the literal brute-force semantics, hand-worked EAI cases,
the quantifier zoo, and robustness on long traces and deep formulas."""

from __future__ import annotations

import inspect
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from functools import cache, partial
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.data import EaiGoals
from planproof.ltl import GroundingError, ast, parse, to_text
from planproof.ltl.ast import Atom, Binder, Const, Formula, Var, depth
from planproof.ltl.bruteforce import brute_evaluate
from planproof.ltl.evaluate import TraceEvaluator, evaluate, evaluate_final
from planproof.ltl.simplify import conj, seq, simplify
from planproof.ltl.trace import Trace, Universe, ground_atom
from planproof.testing import DEFAULT, formulas, ground_atoms, traces, universes

ACTIONS = DEFAULT.action_names  # grab/1, wait/0
FAST = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def both_ways(
    f: Formula, t: Trace, u: Universe | None, actions: frozenset[str] | None, final: bool
) -> tuple[bool, bool]:
    fast = TraceEvaluator(t, u, actions, final=final).holds(f)
    return fast, brute_evaluate(f, t, u, actions, final=final)


@contextmanager
def matrices_kept() -> Iterator[None]:
    """Keep segment matrices as matrices, so small traces exercise the matrix paths too."""
    TraceEvaluator._normalise = False
    try:
        yield
    finally:
        TraceEvaluator._normalise = True


# ---------------------------------------------------------------------------- properties
@FAST
@given(formulas(), traces(max_actions=4), st.booleans(), st.booleans())
def test_agrees_with_brute_force(f: Formula, t: Trace, final: bool, vocab: bool) -> None:
    fast, slow = both_ways(f, t, None, ACTIONS if vocab else None, final)
    assert fast == slow


@FAST
@given(formulas(), traces(max_actions=4), universes(), st.booleans(), st.booleans())
def test_agrees_with_brute_force_on_given_universe(
    f: Formula, t: Trace, u: Universe, final: bool, vocab: bool
) -> None:
    fast, slow = both_ways(f, t, u, ACTIONS if vocab else None, final)
    assert fast == slow


_CONSTS = tuple(Const(n) for n, _ in DEFAULT.objects)
_VARS = ("y0", "y1", "y2")
_TYPES = st.sampled_from([None, *DEFAULT.types])


def _make_atom(pred: str, args: list[ast.Term]) -> Formula:
    return Atom(pred, tuple(args))


@cache
def _temporal(bound: tuple[str, ...], budget: int) -> st.SearchStrategy[Formula]:
    """Formulas rich in the cases `formulas()` rarely draws: `then` under not/implies/
    quantifiers/pairs, and temporal nodes with free variables of enclosing quantifiers."""
    terms: list[ast.Term] = [*_CONSTS, *(Var(v) for v in bound)]
    table = DEFAULT.predicates + DEFAULT.actions
    atom = st.one_of(
        *(
            st.lists(st.sampled_from(terms), min_size=arity, max_size=arity).map(
                partial(_make_atom, pred)
            )
            for pred, arity in table
        )
    )
    if budget == 0:
        return atom
    sub = _temporal(bound, budget - 1)
    two = st.lists(sub, min_size=2, max_size=3).map(tuple)
    options: list[st.SearchStrategy[Formula]] = [
        atom,
        two.map(ast.Then),
        two.map(ast.Then),
        sub.map(ast.Not),
        two.map(ast.And),
        two.map(ast.Or),
        st.builds(ast.Implies, sub, sub),
    ]
    free = [v for v in _VARS if v not in bound]
    if free:
        v = free[0]
        binder = _TYPES.map(partial(Binder, v))
        body = _temporal((*bound, v), budget - 1)
        options += [
            st.builds(ast.Forall, binder, body),
            st.builds(ast.Exists, binder, body),
            st.builds(ast.ForN, st.integers(0, 2), binder, body),
        ]
        if len(free) >= 2:
            w = free[1]
            b2 = _TYPES.map(partial(Binder, w))
            body2 = _temporal((*bound, v, w), budget - 1)
            options += [
                st.builds(ast.ForPairs, binder, b2, body2),
                st.builds(ast.ForNPairs, st.integers(0, 2), binder, b2, body2),
            ]
    return st.one_of(*options)


@FAST
@given(_temporal((), 3), traces(max_actions=5), st.booleans(), st.booleans(), st.booleans())
def test_temporal_mix_agrees_with_brute_force(
    f: Formula, t: Trace, final: bool, vocab: bool, keep: bool
) -> None:
    if keep:
        with matrices_kept():
            fast, slow = both_ways(f, t, None, ACTIONS if vocab else None, final)
    else:
        fast, slow = both_ways(f, t, None, ACTIONS if vocab else None, final)
    assert fast == slow


_PQR = st.sampled_from([Atom("p"), Atom("q"), Atom("r")])
_LOCAL = st.one_of(_PQR, _PQR.map(ast.Not), st.tuples(_PQR, _PQR).map(ast.And))


@cache
def _skeletons(budget: int) -> st.SearchStrategy[Formula]:
    """Dense temporal shapes over three 0-ary atoms: `then` chains mixing monotone parts
    with `not (.. then ..)` parts, so that split-point corner cases come up often."""
    if budget == 0:
        return _LOCAL
    sub = _skeletons(budget - 1)
    pair = st.tuples(sub, sub)
    return st.one_of(
        _LOCAL,
        st.lists(sub, min_size=2, max_size=3).map(_then_of),
        pair.map(_not_then),
        pair.map(ast.And),
        pair.map(ast.Or),
    )


def _then_of(parts: list[Formula]) -> Formula:
    return ast.Then(tuple(parts))


def _not_then(parts: tuple[Formula, Formula]) -> Formula:
    return ast.Not(ast.Then(parts))


_DENSE_TRACES = st.lists(st.frozensets(_PQR), min_size=1, max_size=7).map(
    lambda ss: Trace(tuple(ss), tuple(Atom("wait") for _ in ss[1:]))
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_skeletons(4), _DENSE_TRACES, st.booleans())
def test_dense_skeletons_agree_with_brute_force(f: Formula, t: Trace, keep: bool) -> None:
    if keep:
        with matrices_kept():
            assert TraceEvaluator(t).holds(f) == brute_evaluate(f, t)
    else:
        assert TraceEvaluator(t).holds(f) == brute_evaluate(f, t)


def states_of(*sets: str) -> Trace:
    """One position per string, holding the 0-ary atoms named by its letters."""
    return Trace(
        tuple(frozenset(Atom(c) for c in s) for s in sets),
        tuple(Atom("wait") for _ in sets[1:]),
    )


@pytest.mark.parametrize("keep", [False, True])
def test_split_points_are_searched_beyond_the_earliest(keep: bool) -> None:
    # B = ((not (p then p)) and q) then r fails from position 1 (p at 1 and 2 come before
    # any q) but holds from 2; `a` ends earliest at 1, so `a then B` must try starting B
    # later. The `and a()` keeps the `then` away from the top-level shortcut.
    f = parse("(a() then ((not (p() then p()) and q()) then r())) and a()")
    t = states_of("a", "p", "p", "q", "r")
    with matrices_kept() if keep else nullcontext():
        assert evaluate(f, t)
        assert not evaluate(f, states_of("a", "p", "p", "r", "q"))  # r before the q: no
    assert brute_evaluate(f, t)


@pytest.mark.parametrize("keep", [False, True])
def test_matrix_part_then_monotone_part(keep: bool) -> None:
    # `not (p then p)` holds on every one-position segment; q must come in a later one
    f = parse("(not (p() then p()) then q()) and r()")
    with matrices_kept() if keep else nullcontext():
        assert evaluate(f, states_of("r", "q", ""))
        assert not evaluate(f, states_of("rq", "", ""))
        assert evaluate(f, states_of("pr", "p", "q"))  # [0,1) then q at 2
        # the first part needs a q with at most one p before the split: only [0, 2) fits
        g = parse("(not (p() then p()) and q()) then r()")
        assert not evaluate(g, states_of("p", "pq", "r"))
        assert evaluate(g, states_of("", "pq", "r"))


@FAST
@given(st.lists(formulas(max_depth=3), min_size=1, max_size=6), traces(max_actions=4))
def test_reused_evaluator_equals_fresh_ones(fs: list[Formula], t: Trace) -> None:
    shared = TraceEvaluator(t, actions=ACTIONS)
    assert [shared.holds(f) for f in fs] == [evaluate(f, t, actions=ACTIONS) for f in fs]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas(), traces(max_actions=4), st.booleans())
def test_simplify_preserves_value(f: Formula, t: Trace, vocab: bool) -> None:
    acts = ACTIONS if vocab else None
    g = simplify(f)
    assert evaluate(g, t, None, acts) == evaluate(f, t, None, acts)
    assert evaluate_final(g, t, None, acts) == evaluate_final(f, t, None, acts)


# ---------------------------------------------------------------------------- EAI: Watch TV
WATCH_TV = parse(
    "(exists x0. ((LOOKAT(x0) or WATCH(x0))) then (ON(television.410) and "
    "PLUGGED_IN(television.410) and FACING(character.65, television.410)))"
)
VH_ACTIONS = frozenset(
    {"walk", "find", "sit", "switchon", "switchoff", "turnto", "watch", "lookat", "grab"}
)
TV, ME, COUCH, OFFICE = "television.410", "character.65", "couch.352", "home_office.319"

# a tiny VirtualHome-like transition model: action -> (added, deleted) atoms
_EFFECTS: dict[str, tuple[list[tuple[str, ...]], list[tuple[str, ...]]]] = {
    f"walk({OFFICE})": ([("inside", ME, OFFICE)], []),
    f"walk({COUCH})": ([("close", ME, COUCH)], []),
    f"find({COUCH})": ([], []),
    f"sit({COUCH})": ([("sitting", ME), ("ontop", ME, COUCH)], []),
    f"find({TV})": ([("close", ME, TV)], []),
    f"switchon({TV})": ([("on", TV)], [("off", TV)]),
    f"switchoff({TV})": ([("off", TV)], [("on", TV)]),
    f"turnto({TV})": ([("facing", ME, TV)], []),
    f"watch({TV})": ([], []),
    f"lookat({TV})": ([], []),
    "watch(computer.7)": ([], []),
}
_START = [("plugged_in", TV), ("off", TV), ("inside", TV, OFFICE), ("inside", COUCH, OFFICE)]
GOLD = [
    f"walk({OFFICE})", f"walk({COUCH})", f"find({COUCH})", f"sit({COUCH})", f"find({TV})",
    f"switchon({TV})", f"turnto({TV})", f"watch({TV})",
]  # fmt: skip


def vh_trace(script: list[str]) -> Trace:
    state = frozenset(ground_atom(*a) for a in _START)
    states, actions = [state], []
    for step in script:
        adds, dels = _EFFECTS[step]
        state = (state - {ground_atom(*a) for a in dels}) | {ground_atom(*a) for a in adds}
        act = parse(step)
        assert isinstance(act, Atom)
        actions.append(act)
        states.append(state)
    return Trace(tuple(states), tuple(actions))


@pytest.mark.parametrize(
    ("script", "eventually", "final"),
    [
        # gold: WATCH is the last action; the state goal holds in the final state, which is
        # the position right after WATCH (no off-by-one: position i pairs s_i with a_{i+1})
        pytest.param(GOLD, True, True, id="gold"),
        pytest.param([*GOLD[:-1], f"lookat({TV})"], True, True, id="lookat-instead"),
        # the goal's `exists x0` does not pin the object: watching anything counts
        pytest.param([*GOLD[:-1], "watch(computer.7)"], True, True, id="watch-other-object"),
        pytest.param(GOLD[:-1], False, False, id="no-watch"),
        # switched off after WATCH: the state held at the position after WATCH (eventually)
        # but not at the end (final reading)
        pytest.param([*GOLD, f"switchoff({TV})"], True, False, id="switched-off-after"),
        # switched off before WATCH: no position after WATCH has the tv on
        pytest.param(
            [*GOLD[:-1], f"switchoff({TV})", f"watch({TV})"], False, False, id="off-before-watch"
        ),
        # WATCH before the state is reached: `then` asks for the state *after* the action,
        # so this is fine under both readings (the state is reached later and kept)
        pytest.param(
            [f"walk({OFFICE})", f"find({TV})", f"watch({TV})", f"switchon({TV})", f"turnto({TV})"],
            True,
            True,
            id="watch-before-state",
        ),
        # ...but if the state is reached after WATCH and lost again, only the eventually
        # reading accepts it
        pytest.param(
            [f"watch({TV})", f"switchon({TV})", f"turnto({TV})", f"switchoff({TV})"],
            True,
            False,
            id="state-transient-after-watch",
        ),
        # the state reached and lost before WATCH: neither reading accepts
        pytest.param(
            [f"switchon({TV})", f"turnto({TV})", f"switchoff({TV})", f"watch({TV})"],
            False,
            False,
            id="state-only-before-watch",
        ),
    ],
)
def test_watch_tv(script: list[str], eventually: bool, final: bool) -> None:
    t = vh_trace(script)
    for acts in (VH_ACTIONS, None):
        assert evaluate(WATCH_TV, t, actions=acts) is eventually
        assert evaluate_final(WATCH_TV, t, actions=acts) is final
        assert brute_evaluate(WATCH_TV, t, actions=acts) is eventually
        assert brute_evaluate(WATCH_TV, t, actions=acts, final=True) is final


def test_action_vocabulary_separates_action_and_state_atoms() -> None:
    # `open(fridge.1)` is both a state fact and an action name here
    t = Trace(
        (frozenset({ground_atom("open", "fridge.1")}), frozenset()),
        (ground_atom("close", "fridge.1"),),
    )
    f = parse("open(fridge.1)")
    assert evaluate(f, t)  # no vocabulary: matches the state
    assert not evaluate(f, t, actions={"open", "close"})  # an action atom: never executed
    assert evaluate(f, t, actions={"close"})  # a state atom
    assert evaluate(parse("CLOSE(fridge.1)"), t, actions={"CLOSE"})  # names are lower-cased
    with pytest.raises(TypeError):
        evaluate(f, t, actions="open")  # type: ignore[arg-type]


def test_final_reading_is_subsequence_plus_final_state() -> None:
    # actions grab(cup.1), wait, grab(cup.2); q(cup.1) holds only in s_2, after the wait
    s_q = frozenset({ground_atom("q", "cup.1")})
    t = Trace(
        (frozenset(), frozenset(), s_q, frozenset()),
        (ground_atom("grab", "cup.1"), ground_atom("wait"), ground_atom("grab", "cup.2")),
    )
    ordered = parse("grab(cup.1) then wait() then q(cup.1)")
    assert evaluate(ordered, t, actions=ACTIONS)  # grab at 0, wait at 1, q(cup.1) at 2
    assert not evaluate_final(ordered, t, actions=ACTIONS)  # q(cup.1) not in the final state
    wrong_order = parse("wait() then grab(cup.1)")
    assert not evaluate(wrong_order, t, actions=ACTIONS)
    assert not evaluate_final(wrong_order, t, actions=ACTIONS)
    assert evaluate_final(parse("grab(cup.1) then grab(cup.2)"), t, actions=ACTIONS)


def _groundings_over(f: Formula, u: Universe) -> list[Atom]:
    """Every grounding of every atom of ``f`` over its binders' domains."""
    out: set[Atom] = set()
    stack: list[tuple[Formula, dict[str, str | None]]] = [(f, {})]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, Atom):
            names = sorted({t.name for t in node.args if isinstance(t, Var)})
            for values in product(*(u.of_type(scope[v]) for v in names)):
                env = dict(zip(names, values, strict=True))
                args = tuple(Const(env[t.name]) if isinstance(t, Var) else t for t in node.args)
                out.add(Atom(node.pred, args))
            continue
        inner = {**scope, **{b.var: b.type for b in ast.binders(node)}}
        stack.extend((c, inner) for c in ast.children(node))
    return sorted(out, key=repr)


@pytest.mark.data
def test_every_eai_goal_agrees_with_brute_force(eai_goals: EaiGoals) -> None:
    """All 338 VirtualHome and 100 BEHAVIOR goals, each on random traces made of its own
    ground atoms (dense, so that goals come out both true and false), both readings."""
    cases = [
        (f, Universe.from_names(ast.constants(f)))
        for g in eai_goals.virtualhome
        if (f := g.formula()) is not None
    ]
    cases += [(g.formula(), g.universe()) for g in eai_goals.behavior]
    assert len(cases) == 438
    rng = random.Random(0)
    verdicts = []
    for f, u in cases:
        atoms = _groundings_over(f, u) or [Atom("wait")]
        for density in (0.6, 0.9, 1.0):
            n = rng.randint(0, 3)
            states = [frozenset(a for a in atoms if rng.random() < density) for _ in range(n + 1)]
            t = Trace(tuple(states), tuple(rng.choice(atoms) for _ in range(n)))
            for final in (False, True):
                fast, slow = both_ways(f, t, u, None, final)
                assert fast == slow, (to_text(f), t, final)
                verdicts.append(fast)
    assert 0.2 < sum(verdicts) / len(verdicts) < 0.8  # the comparison saw both verdicts


def _is_subsequence(wanted: list[Atom], executed: tuple[Atom, ...]) -> bool:
    rest = iter(executed)
    return all(any(a == b for b in rest) for a in wanted)


@FAST
@given(
    st.lists(ground_atoms(actions=True), max_size=3),
    st.lists(st.tuples(ground_atoms(), st.booleans()), min_size=1, max_size=3),
    traces(max_actions=5),
)
def test_final_reading_of_simple_goals_is_subsequence_and_final_state(
    acts: list[Atom], literals: list[tuple[Atom, bool]], t: Trace
) -> None:
    """`a1 then ... then ak then (l1 and ... and lm)` under the final-state reading: the
    actions occur in this order (not necessarily adjacent), the literals hold at the end."""
    goal = seq(*acts, conj(*(a if pos else ast.Not(a) for a, pos in literals)))
    expected = _is_subsequence(acts, t.actions) and all(
        (a in t.final) is pos for a, pos in literals
    )
    assert evaluate_final(goal, t, actions=ACTIONS) is expected


# ---------------------------------------------------------------------------- quantifiers
BASKETS = Universe.of(
    {"cup.1": {"cup"}, "cup.2": {"cup"}, "basket.4": {"basket"}, "basket.5": {"basket"}}
)


def one_state(*atoms: tuple[str, ...]) -> Trace:
    return Trace((frozenset(ground_atom(*a) for a in atoms),))


@pytest.mark.parametrize(
    ("text", "same_basket", "own_baskets"),
    [
        ("forpairs x - cup, y - basket. inside(x, y)", False, True),
        ("fornpairs 1 x - cup, y - basket. inside(x, y)", True, True),
        ("fornpairs 2 x - cup, y - basket. inside(x, y)", False, True),
        ("fornpairs 3 x - cup, y - basket. inside(x, y)", False, False),  # > min(|T1|, |T2|)
        ("fornpairs 0 x - cup, y - basket. inside(x, y)", True, True),
        ("forall x - cup. exists y - basket. inside(x, y)", True, True),
        ("forn 2 x - cup. exists y - basket. inside(x, y)", True, True),
        ("forn 1 y - basket. exists x - cup. inside(x, y)", True, False),
        ("forn 2 y - basket. exists x - cup. inside(x, y)", False, True),
        ("forn 0 y - basket. forall x - cup. inside(x, y)", False, True),
    ],
)
def test_pairs_and_counting(text: str, same_basket: bool, own_baskets: bool) -> None:
    f = parse(text)
    same = one_state(("inside", "cup.1", "basket.4"), ("inside", "cup.2", "basket.4"))
    own = one_state(("inside", "cup.1", "basket.5"), ("inside", "cup.2", "basket.4"))
    assert evaluate(f, same, BASKETS) is same_basket
    assert evaluate(f, own, BASKETS) is own_baskets
    assert brute_evaluate(f, same, BASKETS) is same_basket
    assert brute_evaluate(f, own, BASKETS) is own_baskets


def test_forpairs_needs_the_smaller_side_matched_and_distinct_objects() -> None:
    u = Universe.of({"cup.1": {"cup"}, "cup.2": {"cup"}, "cup.3": {"cup"}, "box.9": {"box"}})
    # one box, three cups: a matching of size 1 is enough
    assert evaluate(
        parse("forpairs x - box, y - cup. in(y, x)"), one_state(("in", "cup.2", "box.9")), u
    )
    # untyped pairs range over distinct objects only: near(x, x) never counts
    selfish = one_state(*[("near", o, o) for o in u.names])
    assert not evaluate(parse("fornpairs 1 x, y. near(x, y)"), selfish, u)
    assert evaluate(parse("fornpairs 1 x, y. near(x, y)"), one_state(("near", "cup.1", "box.9")), u)


def test_empty_domains() -> None:
    t = one_state(("q", "cup.1"))
    u = Universe.of({"cup.1": {"cup"}})
    cases = {
        "forall x - plate. q(x)": True,
        "exists x - plate. q(x)": False,
        "forn 0 x - plate. q(x)": True,
        "forn 1 x - plate. q(x)": False,
        "forpairs x - plate, y - cup. on(x, y)": True,  # matching of size min(0, 1) = 0
        "fornpairs 1 x - plate, y - cup. on(x, y)": False,
        "forall x - plate. (q(x) then q(x))": True,  # temporal body, still vacuous
        "exists x - plate. (q(x) then q(x))": False,
    }
    for text, expected in cases.items():
        assert evaluate(parse(text), t, u) is expected, text
        assert brute_evaluate(parse(text), t, u) is expected, text


def test_typed_quantifiers_use_the_universe() -> None:
    t = one_state(("q", "cup.1"), ("q", "cup.2"))
    assert evaluate(parse("forall x - cup. q(x)"), t)  # default universe: the trace's objects
    u = Universe.of({"cup.1": {"cup"}, "cup.2": {"cup"}, "cup.3": {"cup"}})
    assert not evaluate(parse("forall x - cup. q(x)"), t, u)  # cup.3 is not q
    assert evaluate(parse("forn 2 x - cup. q(x)"), t, u)
    assert evaluate(parse("forn 3 x. (q(x) or true)"), t, u)


def test_quantifier_over_temporal_body_is_per_instance() -> None:
    # each cup grabbed, then later on the table; instances use their own split points
    t = Trace(
        (
            frozenset(),
            frozenset(),
            frozenset({ground_atom("on", "cup.1", "table.3")}),
            frozenset({ground_atom("on", "cup.2", "table.3")}),
        ),
        (ground_atom("grab", "cup.1"), ground_atom("grab", "cup.2"), ground_atom("wait")),
    )
    u = Universe.of({"cup.1": {"cup"}, "cup.2": {"cup"}, "table.3": {"table"}})
    assert evaluate(parse("forall x - cup. (grab(x) then on(x, table.3))"), t, u, ACTIONS)
    # on(cup.1, table.3) holds only in s_2, the state right after grab(cup.2)
    assert evaluate(parse("grab(cup.2) then on(cup.1, table.3)"), t, u, ACTIONS)
    assert not evaluate(parse("grab(cup.2) then wait() then on(cup.1, table.3)"), t, u, ACTIONS)
    assert not evaluate_final(parse("forall x - cup. (grab(x) then on(x, table.3))"), t, u, ACTIONS)
    assert evaluate(parse("not (grab(cup.2) then grab(cup.1))"), t, u, ACTIONS)


def test_action_atoms_with_repeated_and_mixed_arguments() -> None:
    t = Trace((frozenset(), frozenset()), (ground_atom("put", "cup.1", "table.3"),))
    u = Universe.of({"cup.1": {"cup"}, "table.3": {"table"}})
    acts = {"put"}
    assert evaluate(parse("exists x. exists y. put(x, y)"), t, u, acts)
    assert not evaluate(parse("exists x. put(x, x)"), t, u, acts)  # one variable, two objects
    assert evaluate(parse("exists x - cup. put(x, table.3)"), t, u, acts)
    assert not evaluate(parse("exists x - table. put(x, table.3)"), t, u, acts)
    assert not evaluate(parse("exists x. put(x, cup.1)"), t, u, acts)
    assert not evaluate(parse("exists x. put(x)"), t, u, acts)  # wrong arity never matches
    same = Trace((frozenset(), frozenset()), (ground_atom("put", "cup.1", "cup.1"),))
    assert evaluate(parse("exists x. put(x, x)"), same, u, acts)


def test_free_variables_raise_grounding_error() -> None:
    free = ast.And((Atom("q", (Var("x"),)), Atom("p")))
    t = one_state(("q", "cup.1"))
    with pytest.raises(GroundingError, match="x"):
        evaluate(free, t)
    with pytest.raises(GroundingError):
        evaluate_final(ast.Exists(Binder("y"), free), t)
    with pytest.raises(GroundingError):
        brute_evaluate(free, t)
    # bound is fine, and shadowing picks the innermost binder
    shadow = ast.Exists(
        Binder("x", "cup"), ast.Forall(Binder("x", "table"), Atom("q", (Var("x"),)))
    )
    u = Universe.of({"cup.1": {"cup"}, "table.3": {"table"}})
    assert not evaluate(shadow, t, u)
    assert evaluate(shadow, one_state(("q", "table.3")), u)
    assert brute_evaluate(shadow, one_state(("q", "table.3")), u)


# ---------------------------------------------------------------------------- robustness
@contextmanager
def shallow_stack(headroom: int) -> Iterator[None]:
    """Only ``headroom`` more Python frames than the caller already uses."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + headroom)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def long_trace(steps: int) -> Trace:
    """p() at position 0, q() everywhere, grab(cup.1) at every third action."""
    states = [frozenset({ground_atom("q")} | ({ground_atom("p")} if i == 0 else set()))
              for i in range(steps + 1)]  # fmt: skip
    acts = [ground_atom("grab", "cup.1") if i % 3 == 0 else ground_atom("wait")
            for i in range(steps)]  # fmt: skip
    return Trace(tuple(states), tuple(acts))


def test_long_trace_and_deep_formula_do_not_recurse() -> None:
    p, q = Atom("p"), Atom("q")
    nested: Formula = p
    for _ in range(400):  # ((p then q) then q) ... : p, then 400 later positions with q
        nested = ast.Then((nested, q))
    assert depth(nested) == 401
    negations: Formula = ast.Then((p, q))
    for _ in range(400):
        negations = ast.Not(negations)
    t500, t300 = long_trace(500), long_trace(300)
    with shallow_stack(40):
        assert evaluate(nested, t500)
        assert not evaluate(nested, t300)
        assert evaluate(negations, t500)  # an even number of negations
        assert not evaluate_final(nested, t500)  # p() is not in the final state


def test_deep_parsed_formula_on_a_long_trace() -> None:
    text = "not (" * 148 + "exists x - cup. (grab(x) then q() then grab(x))" + ")" * 148
    f = parse(text)
    assert depth(f) >= 150
    t = long_trace(500)
    with shallow_stack(40):
        assert evaluate(f, t, actions=ACTIONS)  # an even number of negations
        assert evaluate(
            parse("forall x - cup. not (grab(x) then wait() then p())"), t, actions=ACTIONS
        )


def test_brute_force_oracle_on_known_values() -> None:
    """The oracle itself, on values worked out by hand (so that agreement means something)."""
    t = Trace(
        (frozenset({ground_atom("p")}), frozenset(), frozenset({ground_atom("q")})),
        (ground_atom("wait"), ground_atom("grab", "cup.1")),
    )
    expect = {
        "p()": True,
        "p() and q()": False,  # never at the same position
        "p() then q()": True,
        "q() then p()": False,
        "p() then grab(cup.1) then q()": True,  # positions 0, 1, 2
        "wait() then grab(cup.1) then q()": True,
        "wait() then wait()": False,
        "not (q() then p())": True,
        "(p() then q()) and (wait() then q())": True,
        "p() then q() then q()": False,  # needs three positions after p's
    }
    for text, value in expect.items():
        assert brute_evaluate(parse(text), t) is value, text
        assert evaluate(parse(text), t) is value, text
