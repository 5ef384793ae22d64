"""The core's fast paths agree with the definitions they speed up.

Quantified conditions and effects visit only *candidate* objects read off the facts
(``planproof.simulators.core.logic.condition_candidates``,
``planproof.simulators.core.changes``), and effects are computed as key changes. The
oracle here is the plain definition: the interpreter ``Facts.holds`` and a direct reading
of PDDL effects (every object of the binder's type, conditions read before the action,
deletions of atoms that hold, additions winning over deletions). Formulas have free
variables bound by an environment, ``=`` atoms, shadowed binders and objects outside the
universe, the cases where reading candidates off facts could go wrong.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl import ast
from planproof.ltl.trace import State, Universe
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, Operator, Param, When
from planproof.simulators.core import Action, Bound, World
from planproof.simulators.core.changes import compile_changes
from planproof.simulators.core.logic import (
    Facts,
    Key,
    KeyFacts,
    atom_key,
    compile_condition,
    ground,
)
from planproof.simulators.virtualhome import load_virtualhome_tasks

OBJECTS = (("cup.1", "cup"), ("cup.2", "cup"), ("table.3", "table"))
PREDICATES = (("p", 0), ("q", 1), ("r", 1), ("on", 2))
TYPES = ("cup", "table")
PARAMS = ("a", "b")
NAMES = ("a", "x", "y")
"""Variable names: quantifiers may rebind a parameter (``a``) or each other's names. A
small vocabulary makes such collisions, and facts that matter, frequent."""


def _atom_of(pred_arity: tuple[str, int], terms: Sequence[ast.Term]) -> st.SearchStrategy[ast.Atom]:
    pred, arity = pred_arity
    args = st.lists(st.sampled_from(terms), min_size=arity, max_size=arity)
    return args.map(lambda xs: ast.Atom(pred, tuple(xs)))


def _atoms(bound: tuple[str, ...]) -> st.SearchStrategy[ast.Atom]:
    terms: list[ast.Term] = [ast.Const(n) for n, _ in OBJECTS]
    terms += [ast.Var(v) for v in bound]
    plain: st.SearchStrategy[ast.Atom] = st.sampled_from(PREDICATES).flatmap(
        lambda pa: _atom_of(pa, terms)
    )
    equal: st.SearchStrategy[ast.Atom] = st.tuples(
        st.sampled_from(terms), st.sampled_from(terms)
    ).map(lambda ab: ast.Atom("=", ab))
    return st.one_of(plain, plain, equal)


def conditions(bound: tuple[str, ...], budget: int = 3) -> st.SearchStrategy[ast.Formula]:
    """Conditions whose free variables are among ``bound``."""
    consts: st.SearchStrategy[ast.Formula] = st.sampled_from([ast.TRUE, ast.FALSE])
    leaf: st.SearchStrategy[ast.Formula] = st.one_of(_atoms(bound), consts)
    if budget <= 0:
        return leaf

    def sub(extra: tuple[str, ...] = ()) -> st.SearchStrategy[ast.Formula]:
        return conditions(tuple(dict.fromkeys(bound + extra)), budget - 1)

    nary = st.lists(sub(), min_size=2, max_size=3).map(tuple)
    binder = st.builds(
        ast.Binder, st.sampled_from(NAMES), st.one_of(st.none(), st.sampled_from(TYPES))
    )

    def quantified(kind: type[ast.Forall] | type[ast.Exists]) -> st.SearchStrategy[ast.Formula]:
        return binder.flatmap(lambda b: sub((b.var,)).map(lambda body: kind(b, body)))

    return st.one_of(
        leaf,
        sub().map(ast.Not),
        nary.map(ast.And),
        nary.map(ast.Or),
        st.builds(ast.Implies, sub(), sub()),
        quantified(ast.Exists),
        quantified(ast.Forall),
    )


def effects(bound: tuple[str, ...], budget: int = 2) -> st.SearchStrategy[tuple[Effect, ...]]:
    """Effect lists over the variables ``bound`` (nested ``when`` and ``forall``)."""
    plain = _atoms(bound).filter(lambda a: a.pred != "=")
    leaf: st.SearchStrategy[Effect] = st.one_of(plain.map(Add), plain.map(Delete))
    if budget <= 0:
        return st.lists(leaf, min_size=1, max_size=3).map(tuple)
    binder = st.builds(
        ast.Binder, st.sampled_from(NAMES), st.one_of(st.none(), st.sampled_from(TYPES))
    )
    when = st.builds(When, conditions(bound, 2), effects(bound, budget - 1))
    forall = binder.flatmap(
        lambda b: effects(tuple(dict.fromkeys((*bound, b.var))), budget - 1).map(
            lambda inner: ForallEffect(b, inner)
        )
    )
    one: st.SearchStrategy[Effect] = st.one_of(leaf, leaf, when, forall)
    return st.lists(one, min_size=1, max_size=3).map(tuple)


def _universes() -> st.SearchStrategy[Universe]:
    return st.sets(st.sampled_from(OBJECTS), min_size=1).map(
        lambda objs: Universe.of({n: {t} for n, t in objs})
    )


def _states() -> st.SearchStrategy[frozenset[ast.Atom]]:
    names: list[ast.Term] = [ast.Const(n) for n, _ in OBJECTS]
    atom: st.SearchStrategy[ast.Atom] = st.sampled_from(PREDICATES).flatmap(
        lambda pa: _atom_of(pa, names)
    )
    return st.frozensets(atom, max_size=14)


_envs = st.fixed_dictionaries({p: st.sampled_from([n for n, _ in OBJECTS]) for p in PARAMS})


def reference_effects(
    effs: Sequence[Effect], facts: Facts, env: Mapping[str, str]
) -> tuple[set[ast.Atom], set[ast.Atom], bool]:
    """PDDL effects read directly: (additions, deletions of atoms that hold, whether any
    addition or deletion applied)."""
    adds: set[ast.Atom] = set()
    dels: set[ast.Atom] = set()
    applied = False

    def run(es: Sequence[Effect], env: Mapping[str, str]) -> None:
        nonlocal applied
        for e in es:
            match e:
                case Add(atom):
                    adds.add(ground(atom, env))
                    applied = True
                case Delete(atom):
                    g = ground(atom, env)
                    applied = True
                    if g in facts.state:
                        dels.add(g)
                case When(cond, inner):
                    if facts.holds(cond, env):
                        run(inner, env)
                case ForallEffect(b, inner):
                    for o in facts.universe.of_type(b.type):
                        run(inner, {**env, b.var: o})

    run(effs, env)
    return adds, dels - adds, applied


@settings(max_examples=300, deadline=None)
@given(f=conditions(PARAMS), universe=_universes(), state=_states(), env=_envs)
def test_compiled_conditions_with_candidates_agree_with_the_interpreter(
    f: ast.Formula, universe: Universe, state: State, env: dict[str, str]
) -> None:
    facts = Facts(state, frozenset(), universe)
    keys = KeyFacts({atom_key(a) for a in state}, universe)
    expected = facts.holds(f, env)
    assert compile_condition(f)(keys, dict(env)) == expected
    assert compile_condition(f, frozenset(PARAMS))(keys, dict(env)) == expected


@settings(max_examples=250, deadline=None)
@given(effs=effects(PARAMS), universe=_universes(), state=_states(), env=_envs)
def test_changes_agree_with_the_definition_of_effects(
    effs: tuple[Effect, ...], universe: Universe, state: State, env: dict[str, str]
) -> None:
    facts = Facts(state, frozenset(), universe)
    keys = KeyFacts({atom_key(a) for a in state}, universe)
    adds, dels, applied = reference_effects(effs, facts, env)
    got_adds: set[Key] = set()
    got_dels: set[Key] = set()
    compile_changes(effs, frozenset(PARAMS))(keys, dict(env), got_adds, got_dels)
    got_dels -= got_adds
    assert got_adds == {atom_key(a) for a in adds}
    assert got_dels == {atom_key(a) for a in dels}
    # the world's effects (fast changes, plus the full reading for "applied")
    op = Operator("act", tuple(Param(p) for p in PARAMS), ast.TRUE, effs)
    domain = Domain(
        "t",
        {"object": None, **dict.fromkeys(TYPES, "object")},
        {p: ("object",) * n for p, n in PREDICATES},
        {"act": op},
    )
    world = World(domain, {n: frozenset({t}) for n, t in OBJECTS})
    bound = Bound(Action("act", (env["a"], env["b"])), op, dict(env))
    w_adds, w_dels, w_applied = world.effects(bound, state, keys)
    assert (set(w_adds), set(w_dels), w_applied) == (adds, dels, applied)


def _parse_condition(text: str) -> ast.Formula:
    from planproof.pddl.sexpr_io import read_condition

    return read_condition(text, PARAMS)


def _facts(*atoms: str) -> frozenset[ast.Atom]:
    out = []
    for a in atoms:
        pred, _, rest = a.partition("(")
        out.append(ast.Atom(pred, tuple(ast.Const(n) for n in rest.rstrip(")").split(",") if n)))
    return frozenset(out)


CONDITION_CASES = [
    # a disjunction needs the candidates of every disjunct
    ("(exists (?x) (or (q ?x) (r ?x)))", ("r(cup.2)",), True),
    # an inner binder of the same name hides the outer variable
    ("(exists (?x) (and (exists (?x) (q ?x)) (r ?x)))", ("q(cup.1)", "r(cup.2)"), True),
    ("(exists (?a) (and (on ?a ?b) (q ?a)))", ("on(cup.2,table.3)", "q(cup.2)"), True),
    # forall: the candidates are where the body may fail
    ("(forall (?x) (or (not (q ?x)) (r ?x)))", ("q(cup.1)", "r(cup.2)"), False),
    ("(forall (?x) (imply (q ?x) (r ?x)))", ("q(cup.1)", "r(cup.1)"), True),
    ("(not (exists (?x - cup) (on ?x ?a)))", ("on(table.3,cup.1)",), True),
    ("(exists (?x) (and (= ?x ?b) (q ?x)))", ("q(table.3)",), True),
    ("(exists (?x - table) (q ?x))", ("q(cup.1)", "q(unknown.9)"), False),
]


@pytest.mark.parametrize(("text", "atoms", "expected"), CONDITION_CASES)
def test_candidate_corner_cases(text: str, atoms: tuple[str, ...], expected: bool) -> None:
    f = _parse_condition(text)  # an untyped PDDL binder ranges over type "object"
    state = _facts(*atoms)
    universe = Universe.of({n: {t, "object"} for n, t in OBJECTS})
    env = {"a": "cup.1", "b": "table.3"}
    assert Facts(state, frozenset(), universe).holds(f, env) is expected
    keys = KeyFacts({atom_key(a) for a in state}, universe)
    assert compile_condition(f)(keys, dict(env)) is expected


def test_candidate_corner_cases_of_effects() -> None:
    from planproof.pddl.sexpr_io import read_effect

    universe = Universe.of({n: {t, "object"} for n, t in OBJECTS})
    env = {"a": "cup.1", "b": "table.3"}
    cases = [
        # the inner binder hides the parameter of the same name
        ("(forall (?x) (forall (?a) (not (on ?x ?a))))", ("on(cup.2,table.3)",)),
        ("(forall (?x) (when (= ?x ?a) (not (q ?x))))", ("q(cup.1)", "q(cup.2)")),
        ("(forall (?x) (when (or (q ?x) (r ?x)) (on ?x ?b)))", ("r(cup.2)",)),
        ("(forall (?x - cup) (when (not (q ?x)) (q ?x)))", ("q(cup.1)",)),
    ]
    for text, atoms in cases:
        effs = read_effect(text, PARAMS)
        state = _facts(*atoms)
        facts = Facts(state, frozenset(), universe)
        adds, dels, _ = reference_effects(effs, facts, env)
        keys = KeyFacts({atom_key(a) for a in state}, universe)
        got_adds: set[Key] = set()
        got_dels: set[Key] = set()
        compile_changes(effs, frozenset(PARAMS))(keys, dict(env), got_adds, got_dels)
        assert (got_adds, got_dels - got_adds) == (
            {atom_key(a) for a in adds},
            {atom_key(a) for a in dels},
        ), text
        assert adds or dels, text  # each case changes something


def test_the_key_index_follows_changes() -> None:
    """An index carried over from one state to the next equals one built afresh."""
    rng = random.Random(3)
    universe = Universe.of({n: {t} for n, t in OBJECTS})
    names = [n for n, _ in OBJECTS]

    def key(pred: str, n: int) -> Key:
        return (pred, tuple((False, rng.choice(names)) for _ in range(n)))

    for _ in range(200):
        keys = {key("on", 2) for _ in range(6)} | {key("q", 1) for _ in range(3)}
        before = KeyFacts(set(keys), universe)
        before.index()
        added = {key("on", 2), key("r", 1)}
        deleted = set(rng.sample(sorted(keys), 3)) - added
        after_keys = (keys - deleted) | added
        carried = before.changed(set(after_keys), added - keys, deleted)
        fresh = KeyFacts(set(after_keys), universe)
        assert {k: v for k, v in carried.index().items() if v} == fresh.index()


@pytest.mark.data
def test_virtualhome_operators_fast_and_plain_agree_along_gold_plans(eai_wheel: object) -> None:
    """On the real domain, in the states the gold plans pass through: the compiled
    precondition and the fast changes of sampled actions equal the plain definitions."""
    tasks = load_virtualhome_tasks()
    rng = random.Random(7)
    checked = 0
    for t in rng.sample(list(tasks), 25):
        world = t.world
        ops = sorted(world.domain.operators.values(), key=lambda o: o.name)
        names = list(world.universe.names)
        state, keys = t.initial, world.key_facts(t.initial)
        for i, a in enumerate(t.gold):
            facts = world.facts(state)
            for _ in range(12):
                op = rng.choice(ops)
                b = world.bind(Action(op.name, tuple(rng.choice(names) for _ in op.explicit)))
                if not isinstance(b, Bound):
                    continue
                pre = world.precondition_holds(b, state)
                assert pre == facts.holds(op.precondition, b.env)
                adds, dels, applied = world.effects(b, state, keys)
                assert (set(adds), set(dels), applied) == reference_effects(
                    op.effects, facts, b.env
                )
                checked += 1
            bound = world.bind(a, i)
            assert isinstance(bound, Bound)
            state, err, keys = world.transition(state, keys, bound, i)
            assert err is None or err.kind.value == "additional_step"
            assert keys.keys == world.key_facts(state).keys
    assert checked > 1000
