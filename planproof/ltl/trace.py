"""The worlds formulas talk about: a typed object universe and state-action traces.

States are frozensets of ground atoms, so they are immutable, hashable and cheap to
compare. A trace of ``n`` actions has ``n + 1`` states; position ``i`` pairs state
``s_i`` with the action ``a_{i+1}`` taken in it, and the last position pairs the final
state with no action (see ``docs/ltl-semantics.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from planproof.ltl.ast import Atom, Const

State = frozenset[Atom]

_NAME_ID = re.compile(r"^(?P<type>[A-Za-z_][A-Za-z0-9_]*)\.[0-9]+$")


def ground_atom(pred: str, *args: str) -> Atom:
    """Convenience constructor: ``ground_atom("on", "cup.1", "table.2")``."""
    return Atom(pred, tuple(Const(a) for a in args))


@dataclass(frozen=True)
class Universe:
    """A finite set of objects, each with a set of type names.

    Typed quantifiers (``forall x - cup.``) range over the objects having that type;
    untyped ones over every object.
    """

    objects: tuple[tuple[str, frozenset[str]], ...]

    def __post_init__(self) -> None:
        names = [n for n, _ in self.objects]
        if len(set(names)) != len(names):
            raise ValueError("duplicate object names in universe")

    @classmethod
    def of(cls, objects: Mapping[str, Iterable[str]]) -> Universe:
        """Build from ``{object: types}``."""
        return cls(tuple(sorted((n, frozenset(ts)) for n, ts in objects.items())))

    @classmethod
    def from_names(cls, names: Iterable[str]) -> Universe:
        """Objects named ``cup.1`` get type ``cup``; other names get no type."""
        out: dict[str, set[str]] = {}
        for n in names:
            m = _NAME_ID.match(n)
            out.setdefault(n, set()).update({m.group("type")} if m else set())
        return cls.of(out)

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.objects)

    def of_type(self, type_name: str | None) -> tuple[str, ...]:
        """Objects a binder of this type ranges over, in a fixed (sorted) order (computed
        once per type: quantified conditions ask for the same types at every step)."""
        hit = self._by_type.get(type_name)
        if hit is None:
            hit = (
                self.names
                if type_name is None
                else tuple(n for n, ts in self.objects if type_name in ts)
            )
            self._by_type[type_name] = hit
        return hit

    @cached_property
    def _by_type(self) -> dict[str | None, tuple[str, ...]]:
        return {}

    @cached_property
    def _index(self) -> dict[str, frozenset[str]]:
        return dict(self.objects)

    @property
    def type_index(self) -> Mapping[str, frozenset[str]]:
        """Object → its types, for lookups in hot loops (do not modify)."""
        return self._index

    def types_of(self, name: str) -> frozenset[str]:
        return self._index[name]

    def has_type(self, name: str, type_name: str | None) -> bool:
        """Is ``name`` an object of the universe of that type (any type: ``None``)?"""
        types = self._index.get(name)
        return types is not None and (type_name is None or type_name in types)

    def __len__(self) -> int:
        return len(self.objects)

    def __contains__(self, name: object) -> bool:
        return name in self._index


@dataclass(frozen=True)
class Trace:
    """States ``s_0 .. s_n`` and actions ``a_1 .. a_n`` with ``s_i = M(s_{i-1}, a_i)``."""

    states: tuple[State, ...]
    actions: tuple[Atom, ...] = ()

    def __post_init__(self) -> None:
        if len(self.states) != len(self.actions) + 1:
            raise ValueError(
                f"a trace of {len(self.actions)} actions needs {len(self.actions) + 1} states, "
                f"got {len(self.states)}"
            )
        for a in self.actions:
            if not a.is_ground:
                raise ValueError(f"trace action {a} is not ground")

    def __len__(self) -> int:
        """Number of positions (states)."""
        return len(self.states)

    def action_at(self, position: int) -> Atom | None:
        """The action taken in state ``position`` (None at the final position)."""
        return self.actions[position] if position < len(self.actions) else None

    @property
    def final(self) -> State:
        return self.states[-1]

    def objects(self) -> frozenset[str]:
        """Every object mentioned by a state atom or an action."""
        return self._objects

    @cached_property
    def _objects(self) -> frozenset[str]:
        atoms = frozenset[Atom]().union(*self.states, self.actions)
        return frozenset(t.name for a in atoms for t in a.args)

    def universe(self) -> Universe:
        """The default universe: the trace's objects, typed by their ``name.id`` prefix."""
        return self._universe

    def runs(self, atom: Atom) -> tuple[tuple[int, int], ...]:
        """The maximal runs ``[start, stop)`` of positions whose state holds ``atom``."""
        return self._runs.get(atom, ())

    @cached_property
    def _runs(self) -> dict[Atom, tuple[tuple[int, int], ...]]:
        """Built once per trace from the differences of consecutive states, so its cost is
        the number of changes, not the number of atoms times the number of states (states
        a simulator derives from each other share their atom objects, and set differences
        of shared objects never call ``__eq__``)."""
        open_at: dict[Atom, int] = {}
        runs: dict[Atom, list[tuple[int, int]]] = {}
        prev: State = frozenset()
        for i, state in enumerate(self.states):
            if state is prev:
                continue
            for a in prev - state:
                runs.setdefault(a, []).append((open_at.pop(a), i))
            for a in state - prev:
                open_at[a] = i
            prev = state
        for a, start in open_at.items():
            runs.setdefault(a, []).append((start, len(self.states)))
        return {a: tuple(r) for a, r in runs.items()}

    @cached_property
    def _universe(self) -> Universe:
        return Universe.from_names(self._objects)
