"""A lower bound on the length of any action path to a subgoal: disjoint action landmarks.

The breadth-first refinement of a subgoal (:mod:`planproof.simulators.core.search`) spends
most of its time on subgoals it cannot reach within its depth bound: "put these seven
dishes in the dishwasher" needs a PUTBACK and a GRAB per dish, fourteen actions, so the
search runs until its state budget is spent. When this bound exceeds the depth, the
search's verdict (``limit`` or ``unreachable``) no longer depends on the goal, only on how
many states lie within the depth, which is far cheaper to count than to goal-test.

The bound is sound by construction: every set it counts is a set of ground actions of
which any path reaching the goal must contain one, and the sets counted are pairwise
disjoint, so each needs its own step.

- For a top-level goal atom ``g`` false at the start: the actions whose effects may add
  ``g`` (any effect, conditional or quantified, read off the schema with unbound variables
  matching anything), ``A(g)``.
- Before that action, its precondition must hold: when every action of ``A(g)`` has a
  necessary clause (a conjunct that is an atom, or a disjunction of atoms) false at the
  start, some earlier action adds one of its atoms: the union of their achievers.
- Two different action atoms (``grab(a) and grab(b)``) can never hold together: only the
  last action is true of a state.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from planproof.ltl.ast import And, Atom, Const, Formula, Or, Var
from planproof.ltl.trace import State
from planproof.pddl.schema import Add, Delete, Effect, ForallEffect, Operator, When
from planproof.simulators.core.logic import ground
from planproof.simulators.core.world import Bound, World

NEVER = 1 << 30
"""The bound of a goal no path reaches."""


def lower_bound(
    world: World,
    pos: Sequence[Atom],
    start: State,
    pool: Sequence[Bound],
    acts: frozenset[str],
    *,
    above: int,
) -> int:
    """A lower bound on the number of actions of ``pool`` that reach a state where the
    ground atoms ``pos`` all hold, from ``start``; computed only as far as needed to
    exceed ``above`` (0 when it cannot)."""
    actions = {a for a in pos if a.pred in acts}
    if len(actions) > 1:
        return NEVER
    unmet = [a for a in pos if a.pred not in acts and a not in start and a not in world.static]
    if not unmet:
        return 0
    types = world.universe.type_index
    index = _Index(pool)
    sets: list[frozenset[int]] = []
    for g in unmet:
        a_g, before = _live(world, index.achievers(g, types), pool, start, index)
        if not a_g:
            return NEVER  # no action that can ever run adds it
        sets.append(a_g)
        if before:
            sets.append(before)
    if len(sets) <= above:
        return 0
    picked: set[int] = set()
    count = 0
    for s in sets:
        if picked.isdisjoint(s):
            picked |= s
            count += 1
    return count


_Patterns = dict[tuple[type, str], list[tuple[Atom, Mapping[str, str | None]]]]
_PATTERNS: dict[int, tuple[Operator, _Patterns]] = {}


def effect_patterns(op: Operator) -> _Patterns:
    """(Add or Delete, predicate) → the atom patterns an operator's effects may add or
    delete (conditional and quantified ones included), each with the types of its
    enclosing quantifiers' variables (once per operator object)."""
    hit = _PATTERNS.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    out: _Patterns = {}
    stack: list[tuple[Effect, Mapping[str, str | None]]] = [(e, {}) for e in op.effects]
    while stack:
        e, quantified = stack.pop()
        if isinstance(e, Add | Delete):
            out.setdefault((type(e), e.atom.pred), []).append((e.atom, quantified))
        elif isinstance(e, When):
            stack.extend((x, quantified) for x in e.effects)
        elif isinstance(e, ForallEffect):
            inner = {**quantified, e.binder.var: e.binder.type}
            stack.extend((x, inner) for x in e.effects)
    if len(_PATTERNS) >= 4096:
        _PATTERNS.clear()
    _PATTERNS[id(op)] = (op, out)
    return out


_Added = dict[str, list[tuple[Atom, Mapping[str, str | None]]]]
_ADDED: dict[int, tuple[Operator, _Added]] = {}


def _added(op: Operator) -> _Added:
    """Predicate → the atom patterns an operator's effects may add (cached by ``id``: it
    is asked once per action of every pool)."""
    hit = _ADDED.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    out = {pred: v for (kind, pred), v in effect_patterns(op).items() if kind is Add}
    if len(_ADDED) >= 4096:
        _ADDED.clear()
    _ADDED[id(op)] = (op, out)
    return out


def may_ground_to(atom: Atom, env: Mapping[str, str], target: Atom) -> bool:
    """Whether ``atom`` under ``env`` (unbound variables match anything) can be ``target``."""
    if atom.pred != target.pred or len(atom.args) != len(target.args):
        return False
    for a, t in zip(atom.args, target.args, strict=True):
        name = a.name if isinstance(a, Const) else env.get(a.name)
        if name is not None and name != t.name:
            return False
    return True


def pattern_matches(
    atom: Atom,
    quantified: Mapping[str, str | None],
    env: Mapping[str, str],
    target: Atom,
    types: Mapping[str, Collection[str]],
) -> bool:
    """Whether an effect pattern of an action bound by ``env`` may be ``target``: its
    parameters name ``target``'s objects, and a quantified variable only takes objects
    of its type (as the quantified effect visits them)."""
    if quantified and not quantified.keys().isdisjoint(env):
        # a quantifier's variable shadows a parameter of the same name
        env = {k: v for k, v in env.items() if k not in quantified}
    return may_ground_to(atom, env, target) and all(
        quantified.get(a.name) is None or quantified[a.name] in types.get(t.name, ())
        for a, t in zip(atom.args, target.args, strict=True)
        if isinstance(a, Var) and a.name not in env
    )


class _Index:
    """One pool's actions by the predicates they may add (built once per bound), and the
    achievers found so far."""

    def __init__(self, pool: Sequence[Bound]) -> None:
        self.pool = pool
        by_pred: dict[str, list[int]] = {}
        for i, b in enumerate(pool):
            for pred in _added(b.operator):
                by_pred.setdefault(pred, []).append(i)
        self.by_pred = by_pred
        self.memo: dict[Atom, frozenset[int]] = {}

    def achievers(self, g: Atom, types: Mapping[str, Collection[str]]) -> frozenset[int]:
        """Indexes of the actions of the pool that may add ``g`` (:func:`pattern_matches`)."""
        hit = self.memo.get(g)
        if hit is not None:
            return hit
        out: list[int] = []
        for i in self.by_pred.get(g.pred, ()):
            b = self.pool[i]
            patterns = _added(b.operator)[g.pred]
            if any(pattern_matches(atom, q, b.env, g, types) for atom, q in patterns):
                out.append(i)
        res = self.memo[g] = frozenset(out)
        return res


def _live(
    world: World, a_g: frozenset[int], pool: Sequence[Bound], start: State, index: _Index
) -> tuple[frozenset[int], frozenset[int]]:
    """(the actions of ``a_g`` that can ever run, the landmark of their preconditions).

    An action is dead when a necessary clause of its precondition is false at the start
    and no action can add any of its atoms. The landmark is the union, over the live
    actions, of the achievers of such a clause; empty when some live action has none."""
    types = world.universe.type_index
    live: list[int] = []
    before: set[int] = set()
    complete = True
    for i in a_g:
        b = pool[i]
        chosen: frozenset[int] | None = None
        dead = False
        for clause in _clauses(b.operator.precondition, b.env):
            if any(p in start or p in world.static for p in clause):
                continue
            found = frozenset().union(*(index.achievers(p, types) for p in clause))
            if not found:
                dead = True
                break
            if chosen is None:
                chosen = found
        if dead:
            continue
        live.append(i)
        if chosen is None:
            complete = False
        else:
            before |= chosen
    return frozenset(live), frozenset(before) if complete and live else frozenset()


def _clauses(f: Formula, env: Mapping[str, str]) -> list[tuple[Atom, ...]]:
    """Necessary clauses of a precondition: its top-level conjuncts that are an atom or a
    disjunction of atoms, ground (others are left out, which only weakens the bound)."""
    out: list[tuple[Atom, ...]] = []
    for c in f.children if isinstance(f, And) else (f,):
        parts = c.children if isinstance(c, Or) else (c,)
        if all(
            isinstance(p, Atom)
            and p.pred != "="
            and all(not isinstance(a, Var) or a.name in env for a in p.args)
            for p in parts
        ):
            out.append(tuple(ground(p, env) for p in parts if isinstance(p, Atom)))
    return out
