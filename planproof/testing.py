"""Hypothesis strategies for planproof's logic and worlds, for property-testing evaluators.

    from hypothesis import given
    from planproof.testing import formulas, universes, traces

    @given(formulas(), traces())
    def test_my_evaluator(f, t): ...

Strategies draw from small fixed vocabularies so that random formulas and random traces
actually share atoms (otherwise almost every atom would be false). Names of variables
(``x0``, ``x1``...) never collide with object names (``o0``, ``cup.1``...), so every drawn
formula survives a print/parse round trip. Needs the ``testing`` extra (hypothesis).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, partial

try:
    from hypothesis import strategies as st
except ImportError as exc:  # the core install does not bring hypothesis
    raise ImportError(
        "planproof.testing needs hypothesis: pip install 'planproof[testing]' "
        '(from a checkout: pip install -e ".[testing]")'
    ) from exc

from planproof.interface.strategies import (
    behavior_responses,
    virtualhome_plans,
    virtualhome_responses,
)
from planproof.ltl import ast
from planproof.ltl.parser import parse
from planproof.ltl.trace import State, Trace, Universe
from planproof.pddl.strategies import clause_lists, conditions, effects, operator_answers
from planproof.simulators.housekeep.strategies import (
    episodes as housekeep_episodes,
)
from planproof.simulators.housekeep.strategies import (
    preference_stores as housekeep_preference_stores,
)
from planproof.simulators.partnr.strategies import evaluations as partnr_evaluations
from planproof.simulators.partnr.strategies import propositions as partnr_propositions
from planproof.simulators.partnr.strategies import traces as partnr_traces
from planproof.simulators.teach.strategies import symbolic_states as teach_states

__all__ = [
    "Vocabulary",
    "behavior_responses",
    "clause_lists",
    "conditions",
    "effects",
    "folding_formulas",
    "formulas",
    "ground_atoms",
    "housekeep_episodes",
    "housekeep_preference_stores",
    "operator_answers",
    "partnr_evaluations",
    "partnr_propositions",
    "partnr_traces",
    "state_formulas",
    "states",
    "teach_states",
    "traces",
    "universes",
    "virtualhome_plans",
    "virtualhome_responses",
]


@dataclass(frozen=True)
class Vocabulary:
    """Predicates (name → arity), object names with their types, and which predicates
    are actions."""

    predicates: tuple[tuple[str, int], ...] = (
        ("p", 0),
        ("q", 1),
        ("r", 1),
        ("on", 2),
    )
    actions: tuple[tuple[str, int], ...] = (("grab", 1), ("wait", 0))
    objects: tuple[tuple[str, str], ...] = (
        ("cup.1", "cup"),
        ("cup.2", "cup"),
        ("table.3", "table"),
    )
    variables: tuple[str, ...] = ("x0", "x1", "x2")

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(sorted({t for _, t in self.objects}))

    @property
    def universe(self) -> Universe:
        return Universe.of({n: {t} for n, t in self.objects})

    @property
    def action_names(self) -> frozenset[str]:
        return frozenset(n for n, _ in self.actions)


DEFAULT = Vocabulary()


def universes(vocab: Vocabulary = DEFAULT) -> st.SearchStrategy[Universe]:
    """Non-empty sub-universes of the vocabulary's objects."""
    return st.sets(st.sampled_from(vocab.objects), min_size=1).map(
        lambda objs: Universe.of({n: {t} for n, t in objs})
    )


def ground_atoms(
    vocab: Vocabulary = DEFAULT, *, actions: bool = False
) -> st.SearchStrategy[ast.Atom]:
    """Ground state atoms (or action atoms with ``actions=True``) over the vocabulary."""
    names = [ast.Const(n) for n, _ in vocab.objects]
    table = vocab.actions if actions else vocab.predicates
    return st.sampled_from(table).flatmap(lambda pa: _atom_strategy(pa, names))


def _atom_strategy(
    pred_arity: tuple[str, int], terms: list[ast.Const] | list[ast.Const | ast.Var]
) -> st.SearchStrategy[ast.Atom]:
    pred, arity = pred_arity
    args = st.lists(st.sampled_from(terms), min_size=arity, max_size=arity)
    return args.map(lambda xs: ast.Atom(pred, tuple(xs)))


def states(vocab: Vocabulary = DEFAULT, max_size: int = 8) -> st.SearchStrategy[State]:
    """Sets of ground state atoms."""
    return st.frozensets(ground_atoms(vocab), max_size=max_size)


def traces(
    vocab: Vocabulary = DEFAULT, *, min_actions: int = 0, max_actions: int = 5
) -> st.SearchStrategy[Trace]:
    """Random state-action traces (states need not follow any transition model)."""

    def build(n: int) -> st.SearchStrategy[Trace]:
        ss = st.lists(states(vocab), min_size=n + 1, max_size=n + 1)
        acts = st.lists(ground_atoms(vocab, actions=True), min_size=n, max_size=n)
        return st.tuples(ss, acts).map(lambda sa: Trace(tuple(sa[0]), tuple(sa[1])))

    return st.integers(min_actions, max_actions).flatmap(build)


def _atoms_over(
    vocab: Vocabulary, bound: tuple[str, ...], *, with_actions: bool
) -> st.SearchStrategy[ast.Formula]:
    terms: list[ast.Const | ast.Var] = [ast.Const(n) for n, _ in vocab.objects]
    terms += [ast.Var(v) for v in bound]
    table = vocab.predicates + (vocab.actions if with_actions else ())
    atoms: st.SearchStrategy[ast.Formula] = st.sampled_from(table).flatmap(
        lambda pa: _atom_strategy(pa, terms)
    )
    return atoms


@cache
def _formulas(
    vocab: Vocabulary,
    *,
    temporal: bool,
    with_actions: bool,
    counting: bool,
    pairs: bool,
    bound: tuple[str, ...] = (),
    budget: int = 3,
) -> st.SearchStrategy[ast.Formula]:
    """Closed formulas, grown by hand rather than with st.recursive so that quantifiers
    can extend the set of variables their body may use."""
    consts: st.SearchStrategy[ast.Formula] = st.sampled_from([ast.TRUE, ast.FALSE])
    leaf = st.one_of(_atoms_over(vocab, bound, with_actions=with_actions), consts)
    if budget <= 0:
        return leaf

    def sub(extra: tuple[str, ...] = ()) -> st.SearchStrategy[ast.Formula]:
        return _formulas(
            vocab,
            temporal=temporal,
            with_actions=with_actions,
            counting=counting,
            pairs=pairs,
            bound=bound + extra,
            budget=budget - 1,
        )

    free = [v for v in vocab.variables if v not in bound]
    typ = st.one_of(st.none(), st.sampled_from(vocab.types))
    nary = st.lists(sub(), min_size=2, max_size=3).map(tuple)
    options: list[st.SearchStrategy[ast.Formula]] = [
        leaf,
        sub().map(ast.Not),
        nary.map(ast.And),
        nary.map(ast.Or),
        st.builds(ast.Implies, sub(), sub()),
    ]
    if temporal:
        options.append(nary.map(ast.Then))
    if free:
        v = free[0]
        binder = st.builds(ast.Binder, st.just(v), typ)
        body = sub((v,))
        options += [st.builds(ast.Forall, binder, body), st.builds(ast.Exists, binder, body)]
        if counting:
            options.append(st.builds(ast.ForN, st.integers(0, 3), binder, body))
        if pairs and len(free) >= 2:
            w = free[1]
            b2 = st.builds(ast.Binder, st.just(w), typ)
            body2 = sub((v, w))
            options.append(st.builds(ast.ForPairs, binder, b2, body2))
            options.append(st.builds(ast.ForNPairs, st.integers(0, 2), binder, b2, body2))
    return st.one_of(*options)


def formulas(
    vocab: Vocabulary = DEFAULT,
    *,
    temporal: bool = True,
    with_actions: bool = True,
    counting: bool = True,
    pairs: bool = True,
    max_depth: int = 4,
) -> st.SearchStrategy[ast.Formula]:
    """Closed formulas of the full logic (or a fragment, by switching features off)."""
    return _formulas(
        vocab,
        temporal=temporal,
        with_actions=with_actions,
        counting=counting,
        pairs=pairs,
        budget=max_depth,
    )


def state_formulas(
    vocab: Vocabulary = DEFAULT,
    *,
    counting: bool = True,
    pairs: bool = True,
    max_depth: int = 4,
) -> st.SearchStrategy[ast.Formula]:
    """Closed formulas without ``then`` or action atoms: the fragment Z3 decides."""
    return formulas(
        vocab,
        temporal=False,
        with_actions=False,
        counting=counting,
        pairs=pairs,
        max_depth=max_depth,
    )


_FOLDING_LEAVES = (
    "p()",
    "wait()",
    "true",
    "false",
    "p() then false",
    "not (p() then false)",
    "p() then p()",
    "p() then wait()",
    "not (p() then p())",
    # the smallest nodes that must keep such an operand to stay temporal
    "p() and wait() and not (p() then false)",
    "p() or (wait() then false)",
    "not (p() or (wait() then false))",
)


def folding_formulas(max_leaves: int = 8) -> st.SearchStrategy[ast.Formula]:
    """Closed formulas over ``p()`` and ``wait()`` (the default vocabulary's) whose leaves
    include ``then`` parts that fold to a constant: the shapes where a rewriter must keep
    a node temporal although its ``then`` is gone, which :func:`formulas` draws too rarely
    (simplify's and the grounder's bugs there took it thousands of examples, or none)."""
    x0 = ast.Binder("x0")

    def grow(kids: st.SearchStrategy[ast.Formula]) -> st.SearchStrategy[ast.Formula]:
        nary = st.lists(kids, min_size=2, max_size=3).map(tuple)
        return st.one_of(
            kids.map(ast.Not),
            nary.map(ast.And),
            nary.map(ast.Or),
            nary.map(ast.Then),
            st.builds(ast.Implies, kids, kids),
            kids.map(partial(ast.Forall, x0)),
            kids.map(partial(ast.Exists, x0)),
            st.builds(partial(ast.ForN, binder=x0), count=st.integers(0, 2), body=kids),
        )

    leaves = st.sampled_from([parse(text) for text in _FOLDING_LEAVES])
    return st.recursive(leaves, grow, max_leaves=max_leaves)
