"""How many actions a goal is at least away: the delete relaxation's h^max, by layers.

The breadth-first refinement of a subgoal spends most of its time on goals it never
reaches within its state budget: "be next to the bathroom" (nothing puts the character
next to a room), "hold the remote in both hands". The landmark bound
(:mod:`planproof.simulators.core.search_bound`) cannot see through conditions such as
VirtualHome's "close to ``o``, or close to something ``o`` is on"; this bound reads them.

The relaxation: an operator's precondition and effect conditions with every negated
fluent read as true, its deletions dropped. Layer 0 is the start state; layer ``k + 1``
adds to layer ``k`` what every action applicable in layer ``k`` adds there. Each real
state ``k`` actions away is a subset of layer ``k`` (a precondition true in a state is
true in any superset once its negated fluents read true, and every real addition is a
relaxed one), so a goal atom first present in layer ``k`` is at least ``k`` actions away,
and one absent from the fixpoint is never reached. Static facts are read exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from planproof.ltl.ast import (
    And,
    Atom,
    Binder,
    Bottom,
    Exists,
    Forall,
    Formula,
    Not,
    Or,
    Top,
)
from planproof.ltl.nnf import nnf as ltl_nnf
from planproof.ltl.trace import State
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, When
from planproof.simulators.core.changes import Changes, compile_changes
from planproof.simulators.core.logic import Cond, Key, KeyFacts, atom_key, compile_condition
from planproof.simulators.core.replay import action_atom
from planproof.simulators.core.world import Bound, World

__all__ = ["NEVER", "Layers", "live_actions", "relaxed_layers"]

NEVER = 1 << 30
"""The distance of a goal the relaxation never reaches (so no path does)."""

_TOP = Top()


def nnf(f: Formula, positive: bool = True) -> Formula:
    """``f`` (``not f`` when not ``positive``) in negation normal form
    (:func:`planproof.ltl.nnf.nnf`), constants folded: :func:`relax` and the mutex test
    read the folded tree."""
    return ltl_nnf(f, positive, conj=_and, disj=_or, quantify=_quantified)


def relax(f: Formula, fluents: frozenset[str]) -> Formula:
    """A monotone formula implied by ``f``: its negation normal form with every negated
    fluent atom replaced by true."""
    match f:
        case Not(Atom(pred)) if pred in fluents:
            return _TOP
        case And(cs):
            return _and(tuple(relax(c, fluents) for c in cs))
        case Or(cs):
            return _or(tuple(relax(c, fluents) for c in cs))
        case Exists(b, body) | Forall(b, body):
            return _quantified(b, relax(body, fluents), exists=isinstance(f, Exists))
    return f


def _quantified(b: Binder, body: Formula, exists: bool) -> Formula:
    # only these folds hold over an empty type too
    if exists and isinstance(body, Bottom):
        return body
    if not exists and isinstance(body, Top):
        return body
    return Exists(b, body) if exists else Forall(b, body)


def _and(parts: tuple[Formula, ...]) -> Formula:
    kept = tuple(p for p in parts if not isinstance(p, Top))
    if any(isinstance(p, Bottom) for p in kept):
        return Bottom()
    if not kept:
        return _TOP
    return kept[0] if len(kept) == 1 else And(kept)


def _or(parts: tuple[Formula, ...]) -> Formula:
    if any(isinstance(p, Top) for p in parts):
        return _TOP
    kept = tuple(p for p in parts if not isinstance(p, Bottom))
    if not kept:
        return Bottom()
    return kept[0] if len(kept) == 1 else Or(kept)


def relax_effects(effects: Sequence[Effect], fluents: frozenset[str]) -> tuple[Effect, ...]:
    """``effects`` without deletions, their conditions relaxed (:func:`relax`)."""
    out: list[Effect] = []
    for e in effects:
        match e:
            case Add():
                out.append(e)
            case Delete():
                pass
            case When(cond, inner):
                c = relax(nnf(cond), fluents)
                kept = relax_effects(inner, fluents)
                if kept and not isinstance(c, Bottom):
                    out.append(When(c, kept))
            case ForallEffect(b, inner):
                kept = relax_effects(inner, fluents)
                if kept:
                    out.append(ForallEffect(b, kept))
    return tuple(out)


_RELAXED: dict[int, tuple[Domain, dict[str, tuple[Cond, Changes]]]] = {}


def _relaxed_ops(domain: Domain) -> dict[str, tuple[Cond, Changes]]:
    """Each operator's relaxed precondition and additions, compiled once per domain."""
    hit = _RELAXED.get(id(domain))
    if hit is not None and hit[0] is domain:
        return hit[1]
    fluents = domain.fluents
    ops = {
        name: (
            compile_condition(relax(nnf(op.precondition), fluents)),
            compile_changes(
                relax_effects(op.effects, fluents), frozenset(p.name for p in op.params)
            ),
        )
        for name, op in domain.operators.items()
    }
    if len(_RELAXED) >= 64:
        _RELAXED.clear()
    _RELAXED[id(domain)] = (domain, ops)
    return ops


@dataclass(frozen=True)
class Layers:
    """The relaxation's layers from a state over a pool of actions, as far as asked.

    ``level``: each atom key's first layer; ``applicable``: for each action of the pool
    applicable in one of the layers computed, the first of them; ``settled``: the
    fixpoint was reached (every later layer is the last one computed)."""

    level: Mapping[Key, int]
    applicable: Mapping[int, int]
    layers: int
    settled: bool

    def distance(self, pos: Sequence[Atom], pool: Sequence[Bound], acts: frozenset[str]) -> int:
        """The first layer in which every atom of ``pos`` holds (an atom of an action-only
        predicate in ``acts``: one after the layer where that action applies), a lower
        bound on the actions from the start to a state where they all hold: ``NEVER``
        past the fixpoint, more than :attr:`layers` past the layers computed."""
        beyond = NEVER if self.settled else self.layers + 1
        actions = {a for a in pos if a.pred in acts}
        if len(actions) > 1:
            return NEVER  # only the last action is true of a state
        out = 0
        for a in pos:
            if a.pred in acts:
                first = [
                    layer + 1
                    for i, layer in self.applicable.items()
                    if action_atom(pool[i].action) == a
                ]
                out = max(out, min(first, default=beyond))
            else:
                out = max(out, self.level.get(atom_key(a), beyond))
        return out


def relaxed_layers(world: World, start: State, pool: Sequence[Bound], *, layers: int) -> Layers:
    """Layers 0 to ``layers`` of the relaxation from ``start`` over ``pool`` (which
    actions apply in layers 0 to ``layers - 1``), or up to its fixpoint if sooner."""
    ops = _relaxed_ops(world.domain)
    moves = [(ops[b.operator.name], b.env) for b in pool]
    level: dict[Key, int] = dict.fromkeys(world.static_keys, 0)
    level.update((atom_key(a), 0) for a in start)
    applicable: dict[int, int] = {}
    for layer in range(layers):
        facts = KeyFacts(frozenset(level), world.universe)
        added: set[Key] = set()
        for i, ((pre, changes), env) in enumerate(moves):
            scratch = dict(env)
            if i not in applicable:
                if not pre(facts, scratch):
                    continue
                applicable[i] = layer
            changes(facts, scratch, added, set())
        fresh = [k for k in added if k not in level]
        if not fresh:  # the next layer is this one again
            return Layers(level, applicable, layers, settled=True)
        level.update((k, layer + 1) for k in fresh)
    return Layers(level, applicable, layers, settled=False)


def live_actions(world: World, start: State, pool: Sequence[Bound]) -> tuple[Bound, ...]:
    """The actions of ``pool`` that the relaxation applies on its way to its fixpoint
    from ``start``: no other ever applies in a state that actions reach from ``start``.
    A search from such a state over these alone finds what it finds over all of them,
    for less (in VirtualHome, PUTBACK of a wall never becomes possible: 61 % of the
    ground actions of the EAI tasks go)."""
    layers = relaxed_layers(world, start, pool, layers=1 << 20)
    return tuple(pool[i] for i in sorted(layers.applicable))
