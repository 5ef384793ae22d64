"""Effects compiled to *changes*: the atom keys an action adds and the keys it deletes
that hold, visiting only the objects that can matter.

A quantified effect such as "walking leaves everything not in hand"
(``forall ?x (when (not (holds ?c ?x)) (not (next_to ?c ?x))))``) would visit every
object of the world at every step; only the objects it is next to can change anything.
For each ``forall``, the objects worth visiting are read off the schema once:

- a deletion only matters where the deleted atom holds, so the facts matching its pattern
  (``next_to(c, _)``) name the candidates;
- a conditional effect only applies where its condition holds, so a positive atom of the
  condition (a conjunct, or every disjunct) names them, and ``?x = ?o`` names one;
- an addition without such a condition matters for every object: all are visited.

The result is the same additions and effective deletions as visiting every object (the
generic effect functions in :mod:`planproof.simulators.core.world`, which also report
whether any effect *applied*, which the additional-step test needs; see
``docs/action-sequencing.md``). Conditions read the state before the action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from planproof.pddl.schema import Add, Delete, Effect, ForallEffect, When
from planproof.simulators.core.logic import (
    Candidates,
    Cond,
    Key,
    KeyFacts,
    compile_condition,
    condition_candidates,
    key_builder,
    of_type,
    pattern_candidates,
    union_candidates,
)

Changes = Callable[[KeyFacts, dict[str, str], set[Key], set[Key]], None]
"""(facts before, binding, additions, effective deletions) → None, filling the two sets."""


def compile_changes(effects: Iterable[Effect], scope: frozenset[str]) -> Changes:
    """``effects`` as one :data:`Changes` function; ``scope``: the variables bound when it
    runs (the operator's parameters, then the enclosing quantifiers' variables)."""
    parts: list[Changes] = []
    for e in effects:
        match e:
            case Add(atom):
                parts.append(_add(key_builder(atom.pred, atom.args)))
            case Delete(atom):
                parts.append(_delete(key_builder(atom.pred, atom.args)))
            case When(cond, inner):
                parts.append(_when(compile_condition(cond, scope), compile_changes(inner, scope)))
            case ForallEffect(b, inner):
                body = compile_changes(inner, scope | {b.var})
                parts.append(_forall(b.var, b.type, body, effect_candidates(inner, b.var, scope)))
    if len(parts) == 1:
        return parts[0]

    def run(k: KeyFacts, env: dict[str, str], adds: set[Key], dels: set[Key]) -> None:
        for p in parts:
            p(k, env, adds, dels)

    return run


def _add(build: Callable[[Mapping[str, str]], Key]) -> Changes:
    def run(k: KeyFacts, env: dict[str, str], adds: set[Key], dels: set[Key]) -> None:
        adds.add(build(env))

    return run


def _delete(build: Callable[[Mapping[str, str]], Key]) -> Changes:
    def run(k: KeyFacts, env: dict[str, str], adds: set[Key], dels: set[Key]) -> None:
        key = build(env)
        if key in k.keys:
            dels.add(key)

    return run


def _when(cond: Cond, inner: Changes) -> Changes:
    def run(k: KeyFacts, env: dict[str, str], adds: set[Key], dels: set[Key]) -> None:
        if cond(k, env):
            inner(k, env, adds, dels)

    return run


def _forall(var: str, typ: str | None, inner: Changes, candidates: Candidates | None) -> Changes:
    def run(k: KeyFacts, env: dict[str, str], adds: set[Key], dels: set[Key]) -> None:
        u = k.universe
        if candidates is None:
            objs: Iterable[str] = u.of_type(typ)
        else:
            found = candidates(k, env)
            if not found:
                return
            objs = of_type(u, typ, found)
        saved = env.get(var)
        for o in objs:
            env[var] = o
            inner(k, env, adds, dels)
        if saved is None:
            env.pop(var, None)
        else:
            env[var] = saved

    return run


# --- candidates ----------------------------------------------------------------------------


def effect_candidates(
    effects: Iterable[Effect], var: str, scope: frozenset[str]
) -> Candidates | None:
    """The values of ``var`` for which ``effects`` may add an atom or delete one that
    holds; None when every object may (``scope``: variables bound outside the ``forall``;
    any other variable matches anything)."""
    found: list[Candidates] = []
    for e in effects:
        match e:
            case Add():
                return None
            case Delete(atom):
                c = pattern_candidates(atom, var, scope)
            case When(cond, inner):
                c = condition_candidates(cond, var, scope)
                if c is None:
                    c = effect_candidates(inner, var, scope)
            case ForallEffect(b, inner):
                c = None if b.var == var else effect_candidates(inner, var, scope - {b.var})
            case _:
                c = None
        if c is None:
            return None
        found.append(c)
    return union_candidates(found)
