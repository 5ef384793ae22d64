"""A world: a domain, the objects of one task and their properties; executes actions.

``step`` applies the generic classifier (docs/architecture.md) in the paper's order
(affordance → additional step → precondition → wrong order / missing step); the
history-dependent last test is made by :func:`planproof.simulators.core.replay.replay`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TypeVar

from planproof.ltl.ast import Atom, atom_of_key
from planproof.ltl.trace import State, Universe
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, Operator, When
from planproof.simulators.core.changes import Changes, compile_changes
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

    def __getstate__(self) -> dict[str, object]:
        # the key views are remembered by ``id`` of live states: never pickled
        state = dict(self.__dict__)
        state["_keys"] = {}
        state.pop("_ops", None)  # compiled functions: rebuilt per process
        return state

    def atom(self, key: Key) -> Atom:
        """The ground atom with this key (one shared object per key while it is in use:
        building atoms is a large part of a replay, and set operations between states
        then meet identical objects)."""
        return _shared_atom(key)

    @cached_property
    def universe(self) -> Universe:
        expand = _type_closure(self.domain)
        return Universe.of({name: expand(types) for name, types in self.objects.items()})

    def resolve(self, name: str) -> str | None:
        """The object an LLM means by ``name`` (exact, then alias), or None if unknown."""
        if name in self.universe:
            return name
        return self.aliases.get(name)

    def bind(self, action: Action, index: int = 0, agent: str | None = None) -> Bound | StepError:
        """Resolve ``action``: a hallucinated name or object, or a wrong argument count, is a
        grammar error; an argument of the wrong type is an affordance error."""
        spec = _operator_spec(self.domain, action.name)
        if spec is None:
            return StepError(
                index, action, ErrorKind.HALLUCINATION, f"unknown action {action.name!r}"
            )
        op, params = spec
        objs: list[str] = []
        known = self.universe.type_index
        for a in action.args:
            o = a if a in known else self.aliases.get(a)
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
        given = iter(objs)
        for name, typ, implicit in params:
            if implicit:
                if who is None:
                    return StepError(
                        index, action, ErrorKind.HALLUCINATION, f"{op.name} needs an acting agent"
                    )
                obj = env[name] = who
            else:
                obj = env[name] = next(given)
            if typ not in known[obj]:
                return StepError(
                    index,
                    action,
                    ErrorKind.AFFORDANCE,
                    f"{obj} is not a {typ} (parameter ?{name} of {op.name})",
                    unmet=(f"{typ}({obj})",),
                )
        return Bound(Action(op.name, tuple(objs)), op, env)

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
        keys |= self.static_keys
        return self._remember(state, KeyFacts(keys, self.universe))

    def _remember(self, state: State, facts: KeyFacts) -> KeyFacts:
        if len(self._keys) > 64:
            self._keys.clear()
        self._keys[id(state)] = (state, facts)
        return facts

    @cached_property
    def static_keys(self) -> frozenset[Key]:
        """The keys of the static properties (part of every state's key view)."""
        return frozenset(atom_key(a) for a in self.static)

    @property
    def _compiled(self) -> dict[str, tuple[Cond, _EffectFn]]:
        return _compiled_domain(self.domain)

    @cached_property
    def _ops(self) -> dict[str, _CompiledOp]:
        return _domain_ops(self.domain)

    def _changes(self, bound: Bound, facts: KeyFacts) -> tuple[set[Key], set[Key]]:
        """Keys ``bound`` adds, and keys it deletes that hold and it does not re-add."""
        adds: set[Key] = set()
        dels: set[Key] = set()
        self._ops[bound.operator.name][2](facts, dict(bound.env), adds, dels)
        dels -= adds
        return adds, dels

    def precondition_holds(self, bound: Bound, state: State) -> bool:
        pre, _ = self._compiled[bound.operator.name]
        return pre(self.key_facts(state), dict(bound.env))

    def effects(
        self, bound: Bound, state: State, facts: KeyFacts | None = None
    ) -> tuple[frozenset[Atom], frozenset[Atom], bool]:
        """(additions, deletions, whether any effect applies) of ``bound`` in ``state``;
        conditions read the state *before* the action, as PDDL says. Deletions are only
        atoms that hold (and that no addition restores)."""
        keys = facts or self.key_facts(state)
        add_keys, del_keys = self._changes(bound, keys)
        applied = bool(add_keys or del_keys) or self._applies(bound, keys)
        atom = self.atom
        return (
            frozenset(atom(k) for k in add_keys),
            frozenset(atom(k) for k in del_keys),
            applied,
        )

    def _applies(self, bound: Bound, facts: KeyFacts) -> bool:
        """Does any effect of ``bound`` apply (an addition, or a deletion, of an atom that
        holds or not)? Every applicable effect is visited, as PDDL reads them."""
        adds: set[Atom] = set()
        dels: set[Atom] = set()
        _, eff = self._compiled[bound.operator.name]
        eff(facts, dict(bound.env), adds, dels)
        return bool(adds or dels)

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
        nxt, err, _ = self.transition(state, self.key_facts(state), bound, index)
        return StepResult(nxt, err)

    def transition(
        self, state: State, keys: KeyFacts, bound: Bound, index: int = 0
    ) -> tuple[State, StepError | None, KeyFacts]:
        """:meth:`step` for a bound action, given the key view of ``state``: the next
        state (or ``state``), the error if any, and the key view of the state returned
        (a replay hands it to the next step)."""
        op, env = bound.operator, bound.env
        pre, _, changes = self._ops[op.name]
        if pre(keys, dict(env)):
            adds: set[Key] = set()
            dels: set[Key] = set()
            changes(keys, dict(env), adds, dels)
            dels -= adds
            new = adds - keys.keys  # static keys never change: no effect names them
            if not new and not dels:
                return state, None, keys
            atom = _shared_atom
            nxt = state.difference([atom(k) for k in dels]).union([atom(k) for k in new])
            nkeys = set(keys.keys)
            nkeys -= dels
            nkeys |= new
            return nxt, None, self._remember(nxt, keys.changed(nkeys, new, dels))
        return state, self._failure(state, keys, bound, index).error, keys

    def _failure(self, state: State, keys: KeyFacts, bound: Bound, index: int) -> StepResult:
        """The classifier's verdict on a bound action whose precondition fails."""
        op, env = bound.operator, bound.env
        facts = self.facts(state)
        if facts.static_truth(op.precondition, env, self.domain.fluents) is False:
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
        if applied and adds <= state and not dels:
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


_EffectFn = Callable[[KeyFacts, dict[str, str], set[Atom], set[Atom]], None]
_NOOP = Atom("__applied_noop__")
"""Marks a deletion that applied to an atom already false."""

_COMPILED: dict[int, tuple[Domain, dict[str, tuple[Cond, _EffectFn]]]] = {}
_CompiledOp = tuple[Cond, _EffectFn, Changes]
"""An operator compiled: precondition, effects (all applicable ones, for the
additional-step test) and effects as changes (:mod:`planproof.simulators.core.changes`)."""
_OPS: dict[int, tuple[Domain, dict[str, _CompiledOp]]] = {}


_V = TypeVar("_V")
_PER_DOMAIN_LIMIT = 256
"""Domains remembered per table (tasks of one dataset share one domain; code that makes
many domains, such as scoring predicted operators, must not make the tables grow)."""


def per_domain(table: dict[int, tuple[Domain, _V]], domain: Domain, make: Callable[[], _V]) -> _V:
    """``make()``, remembered for this domain object."""
    hit = table.get(id(domain))
    if hit is None or hit[0] is not domain:
        if len(table) >= _PER_DOMAIN_LIMIT:
            table.clear()
        hit = table[id(domain)] = (domain, make())
    return hit[1]


def _domain_ops(domain: Domain) -> dict[str, _CompiledOp]:
    """Compiled operators with their changes, once per domain object."""

    def make() -> dict[str, _CompiledOp]:
        compiled = _compiled_domain(domain)
        return {
            name: (
                *compiled[name],
                compile_changes(op.effects, frozenset(p.name for p in op.params)),
            )
            for name, op in domain.operators.items()
        }

    return per_domain(_OPS, domain, make)


def _compiled_domain(domain: Domain) -> dict[str, tuple[Cond, _EffectFn]]:
    """Compiled operators, once per domain object (tasks of one dataset share it)."""
    return per_domain(
        _COMPILED,
        domain,
        lambda: {
            name: (compile_condition(op.precondition), _compile_effects(op.effects))
            for name, op in domain.operators.items()
        },
    )


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


@lru_cache(maxsize=1 << 16)
def _shared_atom(key: Key) -> Atom:
    return atom_of_key(key)


_SPECS: dict[int, tuple[Domain, dict[str, tuple[Operator, _Params]]]] = {}
_Params = tuple[tuple[str, str, bool], ...]


def _operator_spec(domain: Domain, action_name: str) -> tuple[Operator, _Params] | None:
    """The operator an action name means (``domain.lookup``) and its parameters as
    (name, type, implicit), remembered per domain and spelling: binding is on every step."""
    specs: dict[str, tuple[Operator, _Params]] = per_domain(_SPECS, domain, dict)
    spec = specs.get(action_name)
    if spec is None:
        op = domain.lookup(action_name)
        if op is None:
            return None  # not remembered: names an LLM invents are unbounded
        if len(specs) >= 4096:
            specs.clear()
        spec = specs[action_name] = (
            op,
            tuple((p.name, p.type, p.name in op.implicit) for p in op.params),
        )
    return spec


_CLOSURES: dict[int, tuple[Domain, Callable[[Iterable[str]], frozenset[str]]]] = {}


def _type_closure(domain: Domain) -> Callable[[Iterable[str]], frozenset[str]]:
    """Types → the same types with their ancestors; one shared frozenset per distinct
    input, so the worlds of one dataset share their objects' type sets."""
    seen: dict[frozenset[str], frozenset[str]] = {}

    def expand(given: Iterable[str]) -> frozenset[str]:
        types = given if isinstance(given, frozenset) else frozenset(given)
        out = seen.get(types)
        if out is None:
            full: set[str] = set()
            for t in types:
                full.update(domain.ancestors(t) if t in domain.types else (t,))
            out = seen[types] = frozenset(full)
        return out

    return per_domain(_CLOSURES, domain, lambda: expand)


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
