"""A world: a domain, the objects of one task and their properties; executes actions.

``step`` applies the generic classifier of ARCHITECTURE.md in the paper's order
(affordance → additional step → precondition → wrong order / missing step); the
history-dependent last test is made by :func:`planproof.simulators.core.replay.replay`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from planproof.ltl.ast import Atom
from planproof.ltl.trace import State, Universe
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, Operator, When
from planproof.simulators.core.logic import (
    Cond,
    Facts,
    Key,
    KeyFacts,
    atom_key,
    atom_text,
    compile_condition,
    ground,
    key_builder,
)
from planproof.simulators.core.outcome import Action, ErrorKind, StepError, StepResult


@dataclass(frozen=True)
class Bound:
    """An action resolved against the domain: its operator and every parameter's object."""

    action: Action
    operator: Operator
    env: Mapping[str, str]


@dataclass(frozen=True)
class World:
    """The static part of one task: domain, typed objects and their properties.

    ``objects`` maps each object to its own types; ancestors from the domain's type
    hierarchy are added. ``agent`` fills the operators' implicit parameters.
    """

    domain: Domain
    objects: Mapping[str, frozenset[str]]
    static: frozenset[Atom] = frozenset()
    agent: str | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)
    _keys: dict[int, tuple[State, KeyFacts]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @cached_property
    def universe(self) -> Universe:
        out: dict[str, set[str]] = {}
        for name, types in self.objects.items():
            full = out.setdefault(name, set())
            for t in types:
                full.update(self.domain.ancestors(t) if t in self.domain.types else (t,))
        return Universe.of(out)

    def resolve(self, name: str) -> str | None:
        """The object an LLM means by ``name`` (exact, then alias), or None if unknown."""
        if name in self.universe:
            return name
        return self.aliases.get(name)

    def bind(self, action: Action, index: int = 0, agent: str | None = None) -> Bound | StepError:
        """Resolve ``action``: a hallucinated name or object, or a wrong argument count, is a
        grammar error; an argument of the wrong type is an affordance error."""
        op = self.domain.lookup(action.name)
        if op is None:
            return StepError(
                index, action, ErrorKind.HALLUCINATION, f"unknown action {action.name!r}"
            )
        objs: list[str] = []
        for a in action.args:
            o = self.resolve(a)
            if o is None:
                return StepError(index, action, ErrorKind.HALLUCINATION, f"unknown object {a!r}")
            objs.append(o)
        if len(objs) != op.arity:
            return StepError(
                index,
                action,
                ErrorKind.ARGUMENT_COUNT,
                f"{op.name} takes {op.arity} argument(s), got {len(objs)}",
            )
        env: dict[str, str] = {}
        who = agent or self.agent
        for p in op.params:
            if p.name in op.implicit:
                if who is None:
                    return StepError(
                        index, action, ErrorKind.HALLUCINATION, f"{op.name} needs an acting agent"
                    )
                env[p.name] = who
            else:
                env[p.name] = objs.pop(0)
            if p.type not in self.universe.types_of(env[p.name]):
                return StepError(
                    index,
                    action,
                    ErrorKind.AFFORDANCE,
                    f"{env[p.name]} is not a {p.type} (parameter ?{p.name} of {op.name})",
                    unmet=(f"{p.type}({env[p.name]})",),
                )
        return Bound(Action(op.name, tuple(env[p.name] for p in op.explicit)), op, env)

    def facts(self, state: State) -> Facts:
        """The interpreter view of a state (used to explain failures)."""
        return Facts(state, self.static, self.universe)

    def key_facts(self, state: State) -> KeyFacts:
        """The compiled-condition view of a state (remembered for the few latest states:
        a replay asks for the state it just produced)."""
        hit = self._keys.get(id(state))
        if hit is not None and hit[0] is state:
            return hit[1]
        keys = {atom_key(a) for a in state}
        keys |= self._static_keys
        return self._remember(state, KeyFacts(keys, self.universe))

    def _remember(self, state: State, facts: KeyFacts) -> KeyFacts:
        if len(self._keys) > 64:
            self._keys.clear()
        self._keys[id(state)] = (state, facts)
        return facts

    @cached_property
    def _static_keys(self) -> frozenset[Key]:
        return frozenset(atom_key(a) for a in self.static)

    @property
    def _compiled(self) -> dict[str, tuple[Cond, _EffectFn]]:
        return _compiled_domain(self.domain)

    def precondition_holds(self, bound: Bound, state: State) -> bool:
        pre, _ = self._compiled[bound.operator.name]
        return pre(self.key_facts(state), dict(bound.env))

    def effects(
        self, bound: Bound, state: State, facts: KeyFacts | None = None
    ) -> tuple[frozenset[Atom], frozenset[Atom], bool]:
        """(additions, deletions, whether any effect applies) of ``bound`` in ``state``;
        conditions read the state *before* the action, as PDDL says. Deletions are only
        atoms that hold (and that no addition restores)."""
        adds: set[Atom] = set()
        dels: set[Atom] = set()
        _, eff = self._compiled[bound.operator.name]
        eff(facts or self.key_facts(state), dict(bound.env), adds, dels)
        applied = bool(adds or dels)
        dels.discard(_NOOP)
        return frozenset(adds), frozenset(dels - adds), applied

    def step(self, state: State, action: Action | Bound, index: int = 0) -> StepResult:
        """Run one action. Failures other than an additional step leave the state as is;
        an additional step leaves it unchanged by definition.

        An additional step is an action that cannot run because what it would do is
        already done: its precondition fails, some effect applies and every applicable
        effect already holds (opening an open door, sitting while seated). With no
        applicable effect (placing from an empty hand) it is a missing step. An
        executable action that changes nothing (walking to where one stands) runs
        without a warning, as in the reference executors; see
        ``docs/action-sequencing.md``."""
        bound = self.bind(action, index) if isinstance(action, Action) else action
        if isinstance(bound, StepError):
            return StepResult(state, bound)
        op, env = bound.operator, bound.env
        keys = self.key_facts(state)
        pre, _ = self._compiled[op.name]
        holds = pre(keys, dict(env))
        facts = self.facts(state)
        if not holds and facts.static_truth(op.precondition, env, self.domain.fluents) is False:
            unmet = tuple(
                u
                for u in facts.unmet(op.precondition, env)
                if _pred_of(u) not in self.domain.fluents
            )
            return StepResult(
                state,
                StepError(
                    index,
                    bound.action,
                    ErrorKind.AFFORDANCE,
                    f"{bound.action} is not afforded: " + ", ".join(unmet or ("its properties",)),
                    unmet=unmet,
                ),
            )
        adds, dels, applied = self.effects(bound, state, keys)
        if not holds and applied and adds <= state and not dels:
            shown = tuple(sorted(atom_text(a) for a in adds))
            what = ", ".join(shown) if shown else "none of its effects applies"
            return StepResult(
                state,
                StepError(
                    index,
                    bound.action,
                    ErrorKind.ADDITIONAL_STEP,
                    f"{bound.action} changes nothing: already {what}",
                    unmet=shown,
                ),
            )
        if not holds:
            unmet = tuple(facts.unmet(op.precondition, env))
            return StepResult(
                state,
                StepError(
                    index,
                    bound.action,
                    ErrorKind.MISSING_STEP,
                    f"precondition of {bound.action} unmet: " + ", ".join(unmet),
                    unmet=unmet,
                ),
            )
        nxt = (state - dels) | adds
        nkeys = set(keys.keys)
        nkeys.difference_update(atom_key(a) for a in dels)
        nkeys.update(atom_key(a) for a in adds)
        self._remember(nxt, KeyFacts(nkeys, self.universe))
        return StepResult(nxt)


_EffectFn = Callable[[KeyFacts, dict[str, str], set[Atom], set[Atom]], None]
_NOOP = Atom("__applied_noop__")
"""Marks a deletion that applied to an atom already false."""

_COMPILED: dict[int, tuple[Domain, dict[str, tuple[Cond, _EffectFn]]]] = {}


def _compiled_domain(domain: Domain) -> dict[str, tuple[Cond, _EffectFn]]:
    """Compiled operators, once per domain object (tasks of one dataset share it)."""
    hit = _COMPILED.get(id(domain))
    if hit is None or hit[0] is not domain:
        ops = {
            name: (compile_condition(op.precondition), _compile_effects(op.effects))
            for name, op in domain.operators.items()
        }
        hit = _COMPILED[id(domain)] = (domain, ops)
    return hit[1]


def _compile_effects(effects: Iterable[Effect]) -> _EffectFn:
    """Effects as one function filling (additions, deletions); see ``compile_condition``."""
    parts: list[_EffectFn] = []
    for e in effects:
        match e:
            case Add(atom):
                parts.append(_add(atom))
            case Delete(atom):
                parts.append(_delete(atom))
            case When(cond, inner):
                parts.append(_when(compile_condition(cond), _compile_effects(inner)))
            case ForallEffect(b, inner):
                parts.append(_forall(b.var, b.type, _compile_effects(inner)))

    def run(k: KeyFacts, env: dict[str, str], adds: set[Atom], dels: set[Atom]) -> None:
        for p in parts:
            p(k, env, adds, dels)

    return run


def _add(atom: Atom) -> _EffectFn:
    def run(k: KeyFacts, env: dict[str, str], adds: set[Atom], dels: set[Atom]) -> None:
        adds.add(ground(atom, env))

    return run


def _delete(atom: Atom) -> _EffectFn:
    build = key_builder(atom.pred, atom.args)

    def run(k: KeyFacts, env: dict[str, str], adds: set[Atom], dels: set[Atom]) -> None:
        if build(env) in k.keys:
            dels.add(ground(atom, env))
        else:
            dels.add(_NOOP)  # applied, but already false: cheaper than building the atom

    return run


def _when(cond: Cond, inner: _EffectFn) -> _EffectFn:
    def run(k: KeyFacts, env: dict[str, str], adds: set[Atom], dels: set[Atom]) -> None:
        if cond(k, env):
            inner(k, env, adds, dels)

    return run


def _forall(var: str, typ: str | None, inner: _EffectFn) -> _EffectFn:
    def run(k: KeyFacts, env: dict[str, str], adds: set[Atom], dels: set[Atom]) -> None:
        saved = env.get(var)
        for o in k.universe.of_type(typ):
            env[var] = o
            inner(k, env, adds, dels)
        if saved is None:
            env.pop(var, None)
        else:
            env[var] = saved

    return run


def _pred_of(literal: str) -> str:
    return literal.removeprefix("not ").split("(", 1)[0]


def initial_state(
    atoms: Sequence[Atom] | frozenset[Atom], domain: Domain
) -> tuple[State, frozenset[Atom]]:
    """Split a task's initial facts into (fluent state, static properties)."""
    fl = domain.fluents
    return frozenset(a for a in atoms if a.pred in fl), frozenset(
        a for a in atoms if a.pred not in fl
    )
