"""Two atoms that never hold together: "the remote in the right hand and in the left".

The delete relaxation (:mod:`planproof.simulators.core.relaxed`) reaches each of them on
its own, so it cannot tell that a subgoal asking for both is out of reach, and the
breadth-first refinement then runs to its state budget. This test proves the invariant
``not (p and q)`` from a state over a pool of actions, by induction over one step:

- ``p`` and ``q`` do not both hold at the start;
- every action of the pool that may add ``p`` requires ``not q`` (a conjunct of its
  precondition in negation normal form), and the effects that would add ``q`` in the
  same step have a condition that contradicts the one adding ``p`` (or the precondition);
  likewise with ``p`` and ``q`` exchanged.

Then a step that makes one true leaves the other false, and a step that adds neither
keeps both from holding. An effect inside a ``forall`` that may add either atom, or a
condition the test cannot read, makes it answer no (never a wrong yes). VirtualHome's
GRAB is the case in point: it needs the object in neither hand, and puts it in the right
hand when that is free, in the left hand otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from planproof.ltl.ast import And, Atom, Formula, Not
from planproof.ltl.trace import State
from planproof.pddl.schema import Add, Effect, ForallEffect, Operator, When
from planproof.simulators.core.logic import ground
from planproof.simulators.core.relaxed import nnf
from planproof.simulators.core.search_bound import may_ground_to
from planproof.simulators.core.world import Bound

__all__ = ["exclusive", "mutex_pair"]


def mutex_pair(
    pos: Sequence[Atom], start: State, pool: Sequence[Bound], *, static: frozenset[Atom]
) -> bool:
    """Whether two of the ground state atoms ``pos`` never hold together in a state that
    actions of ``pool`` reach from ``start`` (``static``: the facts true in every state).
    Not for an atom of an action-only predicate: it holds of the last action, which no
    effect adds, so this test would call it never true."""
    distinct = list(dict.fromkeys(pos))
    if len(distinct) < 2:
        return False
    adders: dict[Atom, list[Bound]] = {g: [] for g in distinct}
    for b in pool:
        for a, _ in _add_paths(b.operator):
            for g in distinct:
                if may_ground_to(a, b.env, g) and (not adders[g] or adders[g][-1] is not b):
                    adders[g].append(b)
    return any(
        exclusive(p, q, start | static, [*adders[p], *adders[q]])
        for i, p in enumerate(distinct)
        for q in distinct[i + 1 :]
    )


def exclusive(p: Atom, q: Atom, start: State, pool: Sequence[Bound]) -> bool:
    """Whether ``p`` and ``q`` never hold together once actions of ``pool`` run from
    ``start`` (the induction of the module's docstring; ``start`` must hold the static
    facts too: no action adds them, yet they hold)."""
    if p in start and q in start:
        return False
    return all(_adds_only_alone(b, t, o) for b in pool for t, o in ((p, q), (q, p)))


def _adds_only_alone(b: Bound, t: Atom, o: Atom) -> bool:
    """Whether, when ``b`` makes ``t`` true, ``o`` is false before and after the step."""
    paths = _add_paths(b.operator)
    adding_t = [c for a, c in paths if may_ground_to(a, b.env, t)]
    if not adding_t:
        return True
    if any(c is None for c in adding_t):
        return False  # an addition inside a forall: not read
    pre = _conjuncts(b.operator)
    live_t = [c for c in adding_t if c is not None and not _contradicts(c, pre)]
    if not live_t:
        return True
    if not any(
        isinstance(x, Not) and isinstance(x.body, Atom) and ground(x.body, b.env) == o for x in pre
    ):
        return False
    adding_o = [c for a, c in paths if may_ground_to(a, b.env, o)]
    if any(c is None for c in adding_o):
        return False
    live_o = [c for c in adding_o if c is not None and not _contradicts(c, pre)]
    return all(_contradicts(ct, co) for ct in live_t for co in live_o)


def _contradicts(a: frozenset[Formula], b: frozenset[Formula]) -> bool:
    """Whether some conjunct of ``a`` is the negation of one of ``b`` (both of one
    operator, so their variables are bound alike)."""
    return any(nnf(x, positive=False) in b for x in a)


_PATHS: dict[int, tuple[Operator, list[tuple[Atom, frozenset[Formula] | None]]]] = {}


def _add_paths(op: Operator) -> list[tuple[Atom, frozenset[Formula] | None]]:
    """Each atom ``op`` may add, with the conjuncts of the conditions it is added under
    (None inside a ``forall``: its variables are not the operator's)."""
    hit = _PATHS.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    out = list(_walk(op.effects, frozenset()))
    if len(_PATHS) >= 4096:
        _PATHS.clear()
    _PATHS[id(op)] = (op, out)
    return out


def _walk(
    effects: Sequence[Effect], under: frozenset[Formula] | None
) -> Iterator[tuple[Atom, frozenset[Formula] | None]]:
    for e in effects:
        if isinstance(e, Add):
            yield e.atom, under
        elif isinstance(e, When):
            inner = None if under is None else under | _split(nnf(e.condition))
            yield from _walk(e.effects, inner)
        elif isinstance(e, ForallEffect):
            yield from _walk(e.effects, None)


_PRE: dict[int, tuple[Operator, frozenset[Formula]]] = {}


def _conjuncts(op: Operator) -> frozenset[Formula]:
    """The top-level conjuncts of ``op``'s precondition in negation normal form."""
    hit = _PRE.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    out = _split(nnf(op.precondition))
    if len(_PRE) >= 4096:
        _PRE.clear()
    _PRE[id(op)] = (op, out)
    return out


def _split(f: Formula) -> frozenset[Formula]:
    if isinstance(f, And):
        return frozenset(x for c in f.children for x in _split(c))
    return frozenset((f,))
