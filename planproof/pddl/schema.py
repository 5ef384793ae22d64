"""Operator schemas as plain data: the one place a world's transition model is written.

A simulator declares its actions once with :func:`planproof.pddl.sexpr_io.operator` (PDDL
syntax for the precondition and effect), and the same :class:`Operator` objects drive
symbolic execution, the generic error classifier and the export to PDDL planners. Conditions are
formulas of the goal logic (``planproof.ltl.ast``) whose variables are the operator's
parameters, so one evaluator and one printer serve goals and preconditions alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeAlias

from planproof.ltl.ast import Atom, Binder, Formula, Var, walk
from planproof.pddl.numeric import NUMERIC_PREFIX, Comparison, NumericEffect


@dataclass(frozen=True, slots=True)
class Param:
    """A typed operator parameter (``?obj - object`` is ``Param("obj", "object")``)."""

    name: str
    type: str = "object"


@dataclass(frozen=True, slots=True)
class Add:
    """Make ``atom`` true."""

    atom: Atom


@dataclass(frozen=True, slots=True)
class Delete:
    """Make ``atom`` false."""

    atom: Atom


@dataclass(frozen=True, slots=True)
class When:
    """Conditional effect: ``effects`` apply if ``condition`` holds *before* the action."""

    condition: Formula
    effects: tuple[Effect, ...]


@dataclass(frozen=True, slots=True)
class ForallEffect:
    """Quantified effect: ``effects`` apply for every object bound by ``binder``."""

    binder: Binder
    effects: tuple[Effect, ...]


Effect: TypeAlias = Add | Delete | When | ForallEffect | NumericEffect


@dataclass(frozen=True)
class Rule:
    """One ``(:derived (p ?x - t) condition)`` rule; its head's types restrict the
    arguments it derives for."""

    params: tuple[Param, ...]
    condition: Formula


@dataclass(frozen=True)
class Derived:
    """A derived predicate (PDDL 2.2): it holds for some arguments when the condition of
    one of its ``rules`` does (several rules per predicate are allowed; recursion is
    read as the stratified least fixpoint, see :mod:`planproof.pddl.axioms`). ``params``
    are the predicate's declared parameters."""

    params: tuple[Param, ...]
    rules: tuple[Rule, ...]


def effect_atoms(effects: Iterable[Effect]) -> Iterator[tuple[Atom, bool]]:
    """Every atom an effect list may change, with ``True`` for additions."""
    for e in effects:
        match e:
            case Add(atom):
                yield atom, True
            case Delete(atom):
                yield atom, False
            case When(_, inner) | ForallEffect(_, inner):
                yield from effect_atoms(inner)


MAX_PARAMETERS = 64
"""Most parameters of one operator (or derived predicate). Real domains use fewer than
15; every parameter multiplies the ground actions by the number of objects, so a
1,000-parameter operator (an LLM answer, a hostile domain) is refused where it is read,
before any check or grounding touches it."""


def too_many_parameters(operator: str, count: int) -> str:
    """Why ``count`` parameters are refused ("" when they are not): the one message every
    reader of operators gives, naming the number that was too large."""
    if count <= MAX_PARAMETERS:
        return ""
    return (
        f"operator {operator}: {count} parameters, over the limit of {MAX_PARAMETERS} "
        "(docs/limits.md)"
    )


@dataclass(frozen=True)
class Operator:
    """An action schema. ``implicit`` names the parameters the world fills in itself (the
    acting agent), so the surface action an LLM writes has ``arity`` arguments."""

    name: str
    params: tuple[Param, ...]
    precondition: Formula
    effects: tuple[Effect, ...]
    implicit: tuple[str, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        too_many = too_many_parameters(self.name, len(self.params))
        if too_many:
            raise ValueError(too_many)
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"operator {self.name}: duplicate parameter names")
        unknown = set(self.implicit) - set(names)
        if unknown:
            raise ValueError(f"operator {self.name}: implicit {sorted(unknown)} not parameters")

    @property
    def explicit(self) -> tuple[Param, ...]:
        """The parameters a caller supplies, in order."""
        return tuple(p for p in self.params if p.name not in self.implicit)

    @property
    def arity(self) -> int:
        return len(self.params) - len(self.implicit)


@dataclass(frozen=True)
class Domain:
    """A world's vocabulary and transition model.

    ``types`` maps each type to its parent (``None`` for a root); ``predicates`` maps each
    predicate to its parameter types.
    """

    name: str
    types: Mapping[str, str | None]
    predicates: Mapping[str, tuple[str, ...]]
    operators: Mapping[str, Operator]
    action_predicates: frozenset[str] = field(default_factory=frozenset)
    functions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    numeric: Mapping[str, Comparison] = field(default_factory=dict)
    derived: Mapping[str, Derived] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for op in self.operators.values():
            for p in op.params:
                if p.type not in self.types:
                    raise ValueError(f"operator {op.name}: unknown type {p.type!r}")
            for atom in operator_atoms(op):
                if atom.pred == "=" or atom.pred.startswith(NUMERIC_PREFIX):
                    continue
                if atom.pred not in self.predicates:
                    raise ValueError(f"operator {op.name}: unknown predicate {atom.pred!r}")
                if len(atom.args) != len(self.predicates[atom.pred]):
                    raise ValueError(
                        f"operator {op.name}: {atom.pred} takes "
                        f"{len(self.predicates[atom.pred])} arguments, got {len(atom.args)}"
                    )

    @cached_property
    def has_numbers(self) -> bool:
        """Whether some operator reads or writes a numeric fluent."""
        return bool(self.numeric) or any(
            isinstance(e, NumericEffect)
            for op in self.operators.values()
            for e in all_effects(op.effects)
        )

    def members(self, type_name: str) -> tuple[str, ...]:
        """The types an ``(either a b)`` type stands for (the type itself otherwise)."""
        if type_name.startswith("(either "):
            return tuple(type_name[len("(either ") : -1].split())
        return (type_name,)

    def is_subtype(self, sub: str, sup: str) -> bool:
        """Whether an object of type ``sub`` may stand where ``sup`` is asked for."""
        wanted = set(self.members(sup))
        return all(wanted & set(self.ancestors(m)) for m in self.members(sub))

    @cached_property
    def fluents(self) -> frozenset[str]:
        """Predicates some effect changes: the dynamic part of a state."""
        return frozenset(
            a.pred for op in self.operators.values() for a, _ in effect_atoms(op.effects)
        )

    @cached_property
    def static_predicates(self) -> frozenset[str]:
        """Predicates no effect changes: object properties (affordances). Derived
        predicates are not static (their rule reads the state)."""
        return frozenset(self.predicates) - self.fluents - frozenset(self.derived)

    def ancestors(self, type_name: str) -> tuple[str, ...]:
        """``type_name`` and its ancestors, nearest first (a cycle stops the walk; linear
        in the depth)."""
        out: dict[str, None] = {}
        t: str | None = type_name
        while t is not None and t not in out:
            out[t] = None
            t = self.types.get(t)
        return tuple(out)

    def lookup(self, action_name: str) -> Operator | None:
        """The operator named ``action_name``, ignoring case and ``-``/``_`` differences."""
        return self._by_key.get(_key(action_name))

    @cached_property
    def _by_key(self) -> dict[str, Operator]:
        return {_key(n): op for n, op in self.operators.items()}


def all_effects(effects: Iterable[Effect]) -> Iterator[Effect]:
    stack: list[Effect] = list(effects)
    while stack:
        e = stack.pop()
        yield e
        if isinstance(e, When | ForallEffect):
            stack.extend(e.effects)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def operator_atoms(op: Operator) -> Iterator[Atom]:
    """Every atom ``op`` mentions: its precondition's, its effects' and their conditions'."""
    yield from (f for f in walk(op.precondition) if isinstance(f, Atom))
    stack: list[Effect] = list(op.effects)
    while stack:
        e = stack.pop()
        match e:
            case Add(atom) | Delete(atom):
                yield atom
            case When(cond, inner):
                yield from (f for f in walk(cond) if isinstance(f, Atom))
                stack.extend(inner)
            case ForallEffect(_, inner):
                stack.extend(inner)


def parameter_vars(op: Operator) -> tuple[Var, ...]:
    return tuple(Var(p.name) for p in op.params)
