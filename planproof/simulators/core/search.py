"""Refining subgoals into actions: search from the current state to each subgoal in turn.

EAI's subgoal-decomposition evaluator turns a subgoal sequence into
an action sequence by breadth-first search over all actions, subgoal by subgoal, with a
bound on the actions per subgoal. This module does that for any :class:`World`: ground
actions are every operator over every type-fitting object (minus those its static
properties forbid), states are frozensets so visited states are memoised, and the goal is
a predicate of (state, last action) so a subgoal may name an action (``touch(cup.1)``).
``mode="greedy"`` is the faster planner-backed alternative: greedy best-first search on
the number of unmet top-level literals, still returning a valid (not necessarily
shortest) path.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from planproof.ltl.ast import And, Atom, Formula, Not, atoms, constants
from planproof.ltl.trace import State
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, Operator, When
from planproof.simulators.core.changes import Changes
from planproof.simulators.core.logic import Cond, Facts, Key, KeyFacts, atom_key
from planproof.simulators.core.mutex import mutex_pair
from planproof.simulators.core.outcome import Action
from planproof.simulators.core.relaxed import relaxed_layers
from planproof.simulators.core.replay import action_atom
from planproof.simulators.core.search_bound import (
    effect_patterns,
    lower_bound,
    may_ground_to,
    pattern_matches,
)
from planproof.simulators.core.world import Bound, World

__all__ = [
    "DEFAULT_DEPTH",
    "DEFAULT_MAX_STATES",
    "GoalTest",
    "SearchResult",
    "changed_predicates",
    "focus_objects",
    "formula_goal",
    "ground_actions",
    "ground_literals",
    "search",
]

DEFAULT_DEPTH = 6
"""Actions per subgoal (the paper bounds them without giving the value)."""
DEFAULT_MAX_STATES = 500
"""States expanded per subgoal before giving up (reported as ``limit``)."""

GoalTest = Callable[[State, Atom | None], bool]
"""Whether a subgoal holds: the state reached and the action that reached it (None at the
start)."""


@dataclass(frozen=True)
class SearchResult:
    """``status``: ``reached`` (``actions`` lead to ``state``), ``already_true`` (the goal
    holds where the search starts; no actions), ``unreachable`` (no path within the depth
    bound) or ``limit`` (the state budget ran out first)."""

    status: str
    actions: tuple[Action, ...] = ()
    states: tuple[State, ...] = ()
    expanded: int = 0

    @property
    def found(self) -> bool:
        return self.status in ("reached", "already_true")


_GROUND: dict[int, tuple[World, tuple[Bound, ...]]] = {}


def ground_actions(world: World) -> tuple[Bound, ...]:
    """Every operator applied to every tuple of objects of the parameters' types, minus
    the bindings that a static top-level conjunct of the precondition rules out (an
    affordance: ``grabbable(?o)``); cached per world. The full three-valued affordance
    test is left to the per-state precondition check, as it is costly on quantified
    preconditions."""
    hit = _GROUND.get(id(world))
    if hit is not None and hit[0] is world:
        return hit[1]
    u = world.universe
    facts = Facts(frozenset(), world.static, u)
    fluents = world.domain.fluents
    out: list[Bound] = []
    for name in sorted(world.domain.operators):
        op = world.domain.operators[name]
        explicit = [p for p in op.params if p.name not in op.implicit]
        pools = [u.of_type(p.type) for p in explicit]
        pre = op.precondition
        static = [
            c
            for c in (pre.children if isinstance(pre, And) else (pre,))
            if _literal_pred(c) not in fluents | {None}
        ]
        for objs in itertools.product(*pools):
            b = world.bind(Action(name, tuple(objs)))
            if not isinstance(b, Bound):
                continue
            if not all(facts.holds(c, b.env) for c in static):
                continue
            out.append(b)
    result = tuple(out)
    _GROUND[id(world)] = (world, result)
    return result


def _literal_pred(f: Formula) -> str | None:
    """The predicate of an atom or negated atom (None for anything else)."""
    if isinstance(f, Not):
        f = f.body
    return f.pred if isinstance(f, Atom) else None


def formula_goal(world: World, f: Formula) -> GoalTest:
    """A goal test for a ``then``-free formula: state atoms read in the state, atoms of
    action-only predicates (operators that are no state predicate) true of the last
    action."""
    acts = _action_predicates(world)
    static, universe = world.static, world.universe
    literals = ground_literals(f)
    if literals is not None:
        return _literal_goal(literals[0], literals[1], acts, static)

    def test(state: State, last: Atom | None) -> bool:
        s = state | {last} if last is not None and last.pred in acts else state
        return Facts(s, static, universe).holds(f, {})

    return test


def ground_literals(f: Formula) -> tuple[tuple[Atom, ...], tuple[Atom, ...]] | None:
    """(positive, negated) atoms of a conjunction of ground literals (most subgoals are
    one), or None for any other formula."""
    pos: list[Atom] = []
    neg: list[Atom] = []
    for p in f.children if isinstance(f, And) else (f,):
        body, into = (p.body, neg) if isinstance(p, Not) else (p, pos)
        if not isinstance(body, Atom) or body.pred == "=" or not body.is_ground:
            return None
        into.append(body)
    return tuple(pos), tuple(neg)


def _literal_goal(
    pos: tuple[Atom, ...], neg: tuple[Atom, ...], acts: frozenset[str], static: frozenset[Atom]
) -> GoalTest:
    """The goal test of a ground-literal conjunction, as :class:`Facts` reads it (an atom
    holds in the state, in the static facts, or as the last action of an action-only
    predicate) without building a fact view per successor: the search tests every one."""

    def test(state: State, last: Atom | None) -> bool:
        act = last if last is not None and last.pred in acts else None
        for a in pos:
            if not (a in state or a in static or a == act):
                return False
        return not neg or not any(a in state or a in static or a == act for a in neg)

    return test


def _unmet(f: Formula) -> Callable[[State, Atom | None], int]:
    """Greedy heuristic: top-level conjuncts of ``f`` not yet holding."""
    parts = f.children if isinstance(f, And) else (f,)

    def count(state: State, last: Atom | None) -> int:
        n = 0
        for p in parts:
            if isinstance(p, Atom):
                n += p not in state and p != last
            elif isinstance(p, Not) and isinstance(p.body, Atom):
                n += p.body in state
            else:
                n += 1
        return n

    return count


def _wanted(f: Formula, state: State) -> frozenset[str]:
    """Predicates of the top-level literals of ``f`` that do not hold yet."""
    out: set[str] = set()
    for p in f.children if isinstance(f, And) else (f,):
        if isinstance(p, Atom) and p not in state:
            out.add(p.pred)
        elif isinstance(p, Not) and isinstance(p.body, Atom) and p.body in state:
            out.add(p.body.pred)
    return frozenset(out)


_CHANGES: dict[int, tuple[Operator, frozenset[str]]] = {}


def changed_predicates(op: Operator) -> frozenset[str]:
    """Predicates an operator may add or delete (plus its own name, for action goals)."""
    hit = _CHANGES.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    out: set[str] = {op.name}
    stack: list[Effect] = list(op.effects)
    while stack:
        e = stack.pop()
        if isinstance(e, Add | Delete):
            out.add(e.atom.pred)
        elif isinstance(e, When | ForallEffect):
            stack.extend(e.effects)
    res = frozenset(out)
    _CHANGES[id(op)] = (op, res)
    return res


def _stuck(world: World, f: Formula, state: State, pool: Sequence[Bound]) -> bool:
    """A relaxed test: some top-level literal of ``f`` is false now and no action of
    ``pool`` has an effect that could make it true (an add of that very atom for a
    positive literal, a delete for a negative one), whatever the state. Then no search
    can reach ``f``: e.g. ``open(bathroom.1)`` when no binding of ``open`` is afforded."""
    acts = _action_predicates(world)
    need_add: set[Atom] = set()
    need_del: set[Atom] = set()
    for p in f.children if isinstance(f, And) else (f,):
        if isinstance(p, Atom) and p.pred not in acts and p not in state:
            if p in world.static:
                continue
            need_add.add(p)
        elif isinstance(p, Not) and isinstance(p.body, Atom) and p.body in state:
            need_del.add(p.body)
    for b in pool:
        if not need_add and not need_del:
            return False
        for kind, atom in _effect_atoms(b.operator):
            target = need_add if kind is Add else need_del
            for t in list(target):
                if may_ground_to(atom, b.env, t):
                    target.discard(t)
    return bool(need_add or need_del)


def _effect_atoms(op: Operator) -> list[tuple[type, Atom]]:
    out: list[tuple[type, Atom]] = []
    stack: list[Effect] = list(op.effects)
    while stack:
        e = stack.pop()
        if isinstance(e, Add | Delete):
            out.append((type(e), e.atom))
        elif isinstance(e, When | ForallEffect):
            stack.extend(e.effects)
    return out


def focus_objects(world: World, f: Formula, state: State) -> frozenset[str]:
    """The objects a search for ``f`` considers: those ``f`` names, the acting agent, and
    every object related to one of them in ``state`` (its container, its surface, what is
    next to it, its room); plus, for a literal of ``f`` that no action over these objects
    can make true, the objects of the afforded actions that can (:func:`_producers`:
    ``sitting(character)`` names no seat, the sittable objects are added). A full search
    over every object is intractable beyond two or three actions in a rich world; see
    ``docs/subgoal-decomposition.md``."""
    named = set(constants(f))
    if world.agent is not None:
        named.add(world.agent)
    out = set(named)
    for a in state:
        names = [t.name for t in a.args]
        if len(names) >= 2 and named.intersection(names):
            out.update(names)
    out.update(_producer_objects(world, f, state, frozenset(out)))
    return frozenset(o for o in out if o in world.universe)


PRODUCERS_PER_LITERAL = 8
"""At most this many actions' objects are added to a search's focus per literal that no
focused action can make true: enough to offer a choice (the seats of a room), few enough
to keep the search small."""


def _producer_objects(world: World, f: Formula, state: State, near: frozenset[str]) -> set[str]:
    """For each top-level literal of ``f`` that is false in ``state`` and that no afforded
    action over ``near`` alone makes true in one step from ``state`` (its effects applied,
    the precondition aside), the objects of the first :data:`PRODUCERS_PER_LITERAL`
    afforded actions that do."""
    literals = ground_literals(f)
    if literals is None:
        return set()
    acts = _action_predicates(world)
    wanted: list[tuple[type, Atom]] = [
        (Add, a) for a in literals[0] if a.pred not in acts and a not in state
    ]
    wanted += [(Delete, a) for a in literals[1] if a in state]
    wanted = [(k, a) for k, a in wanted if a not in world.static]
    if not wanted:
        return set()
    index = _producers(world)
    types = world.universe.type_index
    keys = world.key_facts(state)
    out: set[str] = set()
    for kind, g in wanted:

        def makes(b: Bound, patterns: _Patterns, kind: type = kind, g: Atom = g) -> bool:
            if not any(pattern_matches(p, q, b.env, g, types) for p, q in patterns):
                return False
            adds, dels, _ = world.effects(b, state, keys)
            return g in (adds if kind is Add else dels)

        candidates = index.get((kind, g.pred), ())
        if any(near.issuperset(b.action.args) and makes(b, ps) for b, ps in candidates):
            continue
        found = 0
        for b, ps in candidates:
            if found >= PRODUCERS_PER_LITERAL:
                break
            if not near.issuperset(b.action.args) and makes(b, ps):
                out.update(b.action.args)
                found += 1
    return out


_Patterns = tuple[tuple[Atom, Mapping[str, str | None]], ...]
_Producers = dict[tuple[type, str], tuple[tuple[Bound, _Patterns], ...]]
_PRODUCERS: dict[int, tuple[World, _Producers]] = {}


def _producers(world: World) -> _Producers:
    """(Add or Delete, predicate) → the afforded ground actions (:func:`ground_actions`)
    with an effect of that kind on that predicate, and its patterns
    (:func:`~planproof.simulators.core.search_bound.effect_patterns`); cached per world."""
    hit = _PRODUCERS.get(id(world))
    if hit is not None and hit[0] is world:
        return hit[1]
    table: dict[tuple[type, str], list[tuple[Bound, _Patterns]]] = {}
    for b in ground_actions(world):
        for key, patterns in effect_patterns(b.operator).items():
            table.setdefault(key, []).append((b, tuple(patterns)))
    result = {k: tuple(v) for k, v in table.items()}
    if len(_PRODUCERS) >= 1024:
        _PRODUCERS.clear()
    _PRODUCERS[id(world)] = (world, result)
    return result


_Move = tuple[Bound, Cond, Changes, dict[str, str], Atom, tuple[str, ...] | None]
"""A ground action ready for the search: its precondition and changes (compiled once per
domain), its binding, its trace atom and, for an operator with a twin, the key its next
state is shared under (see :func:`_twins`); built once per ground action (:func:`_moves`)."""

_TWINS: dict[int, tuple[Domain, dict[str, str]]] = {}


def _twins(domain: Domain) -> dict[str, str]:
    """Operator → the first operator (by name) with the same parameters, precondition and
    effects, for operators that have such a twin (VirtualHome's WALK/RUN,
    WASH/RINSE/SCRUB): bound to the same objects they reach the same next state, so one
    expansion computes it once."""
    hit = _TWINS.get(id(domain))
    if hit is not None and hit[0] is domain:
        return hit[1]
    groups: dict[tuple[object, ...], list[str]] = {}
    for name in sorted(domain.operators):
        op = domain.operators[name]
        groups.setdefault((op.params, op.implicit, op.precondition, op.effects), []).append(name)
    out = {n: names[0] for names in groups.values() if len(names) > 1 for n in names}
    if len(_TWINS) >= 64:
        _TWINS.clear()
    _TWINS[id(domain)] = (domain, out)
    return out


_MOVES: dict[int, _Move] = {}


def _moves(world: World, pool: Sequence[Bound]) -> list[_Move]:
    """The pool's moves, each built once per ground action (kept by ``id``, the action
    kept alive with it: the searches of a world share most of their pools). A move's
    binding is a copy of the action's, which conditions and effects extend while they run
    and restore, so every search of this process may use it (no copy per successor or per
    search)."""
    ops = world._ops
    twins = _twins(world.domain)
    out: list[_Move] = []
    for b in pool:
        move = _MOVES.get(id(b))
        if move is None or move[0] is not b:
            name = b.operator.name
            pre, _, changes = ops[name]
            twin = twins.get(name)
            key = None if twin is None else (twin, *b.action.args)
            move = (b, pre, changes, dict(b.env), action_atom(b.action), key)
            if len(_MOVES) >= 500_000:
                _MOVES.clear()
            _MOVES[id(b)] = move
        out.append(move)
    return out


_NOT_YET: State = frozenset({Atom("__not_computed__")})


def _successors(
    world: World, state: State, moves: Sequence[_Move], keys: KeyFacts | None = None
) -> Iterator[tuple[_Move, State]]:
    """Applicable actions and their next states, lazily (a goal found early stops the
    expansion before the remaining effects are computed). The next state is what
    :meth:`World.effects` makes of it, computed on atom keys; ``keys``: the key view of
    ``state`` when the caller has it (:func:`_view`)."""
    if keys is None:
        keys = world.key_facts(state)
    atom = world.atom
    shared: dict[tuple[str, ...], State | None] = {}
    for m in moves:
        twin = m[5]
        if twin is not None:
            done = shared.get(twin, _NOT_YET)
            if done is not _NOT_YET:
                if done is not None:
                    yield m, done
                continue
        nxt = _next_state(m, state, keys, atom)
        if twin is not None:
            shared[twin] = nxt
        if nxt is not None:
            yield m, nxt


def _view(
    world: World, state: State, before: State | None, views: dict[State, KeyFacts]
) -> KeyFacts:
    """The key view of ``state``, made from the view of ``before`` (the state it was
    reached from, when its view is in ``views``) by the atoms the step changed: the
    predicate index is carried over instead of rebuilt from every key (equal to
    :meth:`World.key_facts`: static keys are never deleted, as no effect names a static
    predicate; tested). Kept in ``views`` for the states reached from it."""
    prior = views.get(before) if before is not None else None
    if prior is None:
        view = world.key_facts(state)
    else:
        assert before is not None
        gone = {atom_key(a) for a in before.difference(state)}
        gone -= world.static_keys
        came = {atom_key(a) for a in state.difference(before)}
        keys = set(prior.keys)
        keys -= gone
        keys |= came
        view = prior.changed(keys, came, gone)
    views[state] = view
    return view


def _next_state(
    m: _Move, state: State, keys: KeyFacts, atom: Callable[[Key], Atom]
) -> State | None:
    """The state ``m`` leads to from ``state``, None when its precondition fails."""
    env = m[3]  # this search's own binding: conditions and effects restore what they bind
    if not m[1](keys, env):
        return None
    adds: set[Key] = set()
    dels: set[Key] = set()
    m[2](keys, env, adds, dels)
    added = [atom(k) for k in adds]
    if dels:
        dels -= adds
    if not dels and all(a in state for a in added):
        return state
    if dels:
        return state.difference([atom(k) for k in dels]).union(added)
    return state.union(added)


def _landmark_bound(world: World, f: Formula, start: State, pool: Sequence[Bound]) -> int:
    """A sound lower bound on the actions of ``pool`` from ``start`` to ``f``
    (:mod:`planproof.simulators.core.search_bound`; 0 when it knows none)."""
    literals = ground_literals(f)
    if literals is None:
        return 0
    return lower_bound(world, literals[0], start, pool, _action_predicates(world), above=0)


_ACTS: dict[int, tuple[Domain, frozenset[str]]] = {}


def _action_predicates(world: World) -> frozenset[str]:
    """Operators that are no state predicate: their atoms are true of the last action
    (once per domain: every search asks)."""
    domain = world.domain
    hit = _ACTS.get(id(domain))
    if hit is None or hit[0] is not domain:
        if len(_ACTS) >= 64:
            _ACTS.clear()
        acts = frozenset(n for n in domain.operators if n not in domain.predicates)
        hit = _ACTS[id(domain)] = (domain, acts)
    return hit[1]


def _verdict_by_count(
    world: World,
    start: State,
    moves: Sequence[_Move],
    bound: int,
    *,
    depth: int,
    max_states: int,
) -> SearchResult | None:
    """The search's verdict when no path shorter than ``bound`` reaches the goal, or None
    when the bound does not settle it.

    A goal beyond ``depth`` is ``unreachable``: proven so, where a breadth-first search
    would often end at its state budget first and could only say ``limit``. Otherwise the
    search expands every state less than ``bound - 1`` actions away before it could meet
    the goal: when there are more than ``max_states`` of them it stops at ``limit``
    first, which counting them (no goal test, no path) shows at a fraction of the cost."""
    if bound > depth:
        return SearchResult("unreachable")
    if bound < 3:
        return None  # only the start state lies below bound - 1
    res = _count_states(world, start, moves, bound - 1, max_states)
    return res if res.status == "limit" else None


PROBE_EXPANSIONS = 10
"""States a breadth-first search expands before it asks the delete relaxation whether
its goal is out of reach: most subgoals are reached sooner, and never pay for it."""


def _count_states(
    world: World, start: State, moves: Sequence[_Move], depth: int, max_states: int
) -> SearchResult:
    """``limit`` when more than ``max_states`` states lie less than ``depth`` actions
    from ``start`` (a breadth-first search that meets no goal among them expands them
    all, so it stops there: ``expanded`` is then ``max_states + 1``, as the search
    reports it), ``unreachable`` otherwise. Counting needs no goal test and stops as soon
    as the budget is exceeded."""
    count = 1 if depth > 0 else 0
    if count > max_states:
        return SearchResult("limit", expanded=count)
    seen = {start}
    frontier: deque[tuple[State, int, State | None]] = deque([(start, 0, None)])
    views: dict[State, KeyFacts] = {}
    while frontier:
        state, d, before = frontier.popleft()
        if d + 1 >= depth:
            continue
        keys = _view(world, state, before, views)
        for _, nxt in _successors(world, state, moves, keys):
            if nxt not in seen:
                seen.add(nxt)
                count += 1
                if count > max_states:
                    return SearchResult("limit", expanded=count)
                frontier.append((nxt, d + 1, state))
    return SearchResult("unreachable", expanded=count)


def search(
    world: World,
    start: State,
    goal: GoalTest,
    *,
    depth: int = DEFAULT_DEPTH,
    max_states: int = DEFAULT_MAX_STATES,
    mode: str = "bfs",
    heuristic_of: Formula | None = None,
    actions: Sequence[Bound] | None = None,
    focus: Iterable[str] | None = None,
    prune: bool = True,
) -> SearchResult:
    """The shortest action sequence (``bfs``) or a heuristically found one (``greedy``,
    guided by ``heuristic_of``) from ``start`` to a state where ``goal`` holds.

    ``focus`` restricts the actions to those whose arguments are all in it (see
    :func:`focus_objects`); ``heuristic_of`` (the subgoal formula ``goal`` tests) also
    orders actions. With it and ``prune``, sound shortcuts settle what they can without
    the search: actions without effects are left out of a goal of state atoms; a goal no
    action can make true, or two of whose atoms never hold together (:mod:`.mutex`), or
    that a lower bound (:mod:`.search_bound`, :mod:`.relaxed`) puts beyond ``depth`` is
    ``unreachable``; a goal whose lower bound leaves more than ``max_states`` states to
    expand before it is ``limit``; actions the relaxation never applies are dropped. A
    verdict other than ``unreachable`` is then the plain search's, path and count of
    expanded states included; ``unreachable`` is, where the plain search may have run out
    of states first and said ``limit``."""
    if goal(start, None):
        return SearchResult("already_true", (), (), 0)
    pool = ground_actions(world) if actions is None else tuple(actions)
    if focus is not None:
        keep = frozenset(focus)
        pool = tuple(b for b in pool if keep.issuperset(b.action.args))
    shortcut_goal = heuristic_of if prune else None  # the goal formula the shortcuts read
    if shortcut_goal is not None and _action_predicates(world).isdisjoint(
        a.pred for a in atoms(shortcut_goal)
    ):
        # an action without effects leads back to the state it leaves, where a goal of
        # state atoms alone does not hold: it never finds the goal nor a new state
        pool = tuple(b for b in pool if b.operator.effects)
    if shortcut_goal is not None and _stuck(world, shortcut_goal, start, pool):
        return SearchResult("unreachable")
    if heuristic_of is not None:
        # actions on the objects the goal names first: within a BFS level the order is
        # free, and a goal one step away is then found before the other effects are
        # computed (the result is still a shortest path)
        named = constants(heuristic_of)
        wanted = _wanted(heuristic_of, start)
        pool = tuple(
            sorted(
                pool,
                key=lambda b: (
                    not wanted.intersection(changed_predicates(b.operator)),
                    not named.intersection(b.action.args),
                ),
            )
        )
    moves = _moves(world, pool)
    bound = 0
    if shortcut_goal is not None and mode == "bfs":
        bound = _landmark_bound(world, shortcut_goal, start, pool)
        verdict = _verdict_by_count(world, start, moves, bound, depth=depth, max_states=max_states)
        if verdict is not None:
            return verdict
    parent: dict[State, tuple[State, Bound] | None] = {start: None}
    expanded = 0

    def path(end: State, last: Bound, before: State) -> SearchResult:
        acts = [last.action]
        states = [end]
        s = before
        while (p := parent[s]) is not None:
            acts.append(p[1].action)
            states.append(s)
            s = p[0]
        return SearchResult("reached", tuple(reversed(acts)), tuple(reversed(states)), expanded)

    if mode == "greedy":
        h = _unmet(heuristic_of) if heuristic_of is not None else (lambda s, a: 0)
        tie = itertools.count()
        heap: list[tuple[int, int, int, State]] = [(h(start, None), next(tie), 0, start)]
        while heap:
            _, _, d, state = heapq.heappop(heap)
            if d >= depth:
                continue
            expanded += 1
            if expanded > max_states:
                return SearchResult("limit", expanded=expanded)
            for m, nxt in _successors(world, state, moves):
                last = m[4]
                if goal(nxt, last):
                    return path(nxt, m[0], state)
                if nxt not in parent:
                    parent[nxt] = (state, m[0])
                    heapq.heappush(heap, (h(nxt, last), next(tie), d + 1, nxt))
        return SearchResult("unreachable", expanded=expanded)
    if mode != "bfs":
        raise ValueError(f"mode must be 'bfs' or 'greedy', not {mode!r}")
    frontier: deque[tuple[State, int]] = deque([(start, 0)])
    within = 1  # states found less than depth actions away: the ones the search expands
    relevant: list[_Move] | None = None
    views: dict[State, KeyFacts] = {}
    while frontier:
        state, d = frontier.popleft()
        if d >= depth:
            continue
        expanded += 1
        if expanded > max_states:
            return SearchResult("limit", expanded=expanded)
        came_from = parent[state]
        keys = _view(world, state, None if came_from is None else came_from[0], views)
        if shortcut_goal is not None and (d + 1 >= depth or within > max_states):
            # the successors of this state will never be expanded (too deep, or the
            # budget ends with states already found): only whether one satisfies the
            # goal matters, and only a move that changes a goal predicate (or is the
            # goal's action) can make it true here, as the goal failed on this state
            if relevant is None:
                relevant = _relevant(world, moves, shortcut_goal)
            for m, nxt in _successors(world, state, relevant, keys):
                if goal(nxt, m[4]):
                    return path(nxt, m[0], state)
            continue
        if shortcut_goal is not None and expanded == PROBE_EXPANSIONS:
            moves, verdict = _probe(
                world,
                start,
                shortcut_goal,
                pool,
                moves,
                bound=bound,
                depth=depth,
                max_states=max_states,
            )
            if verdict is not None:
                return verdict
        for m, nxt in _successors(world, state, moves, keys):
            if goal(nxt, m[4]):
                return path(nxt, m[0], state)
            if nxt not in parent:
                parent[nxt] = (state, m[0])
                frontier.append((nxt, d + 1))
                within += d + 1 < depth
    return SearchResult("unreachable", expanded=expanded)


def _relevant(world: World, moves: Sequence[_Move], f: Formula) -> list[_Move]:
    """The moves that may make ``f`` true from a state where it failed: those adding or
    deleting an atom of one of its predicates, or whose action is one (in their order).
    All of them when ``f`` may have failed for the action that reached the state (a
    negated action atom, or an action atom in a formula other than a conjunction of
    literals): then any other next action may satisfy it."""
    preds = frozenset(a.pred for a in atoms(f))
    acts = _action_predicates(world) & preds
    literals = ground_literals(f)
    if acts and (literals is None or any(a.pred in acts for a in literals[1])):
        return list(moves)
    return [m for m in moves if not preds.isdisjoint(changed_predicates(m[0].operator))]


def _probe(
    world: World,
    start: State,
    f: Formula,
    pool: Sequence[Bound],
    moves: list[_Move],
    *,
    bound: int,
    depth: int,
    max_states: int,
) -> tuple[list[_Move], SearchResult | None]:
    """The shortcuts a search takes once it has expanded :data:`PROBE_EXPANSIONS` states
    (``moves`` are ``pool``'s): the moves the relaxation applies within ``depth - 1``
    (no other applies in a state the search expands, so every successor stays as it
    was), and the verdict when two goal atoms are mutually exclusive or the relaxation's
    bound settles it (:func:`_verdict_by_count`), else None."""
    layers = relaxed_layers(world, start, pool, layers=depth)
    live = sorted(layers.applicable)
    kept = [moves[i] for i in live]
    literals = ground_literals(f)
    if literals is None:
        return kept, None
    acts = _action_predicates(world)
    state_atoms = [a for a in literals[0] if a.pred not in acts]  # no effect adds an action
    if mutex_pair(state_atoms, start, [pool[i] for i in live], static=world.static):
        return kept, SearchResult("unreachable")
    relaxed = layers.distance(literals[0], pool, acts)
    if relaxed <= bound:
        return kept, None
    return kept, _verdict_by_count(world, start, kept, relaxed, depth=depth, max_states=max_states)
