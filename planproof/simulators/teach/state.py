"""Symbolic AI2-THOR states: objects with a type, classes, boolean properties and parents.

An object is what AI2-THOR's metadata and TEACh's ``custom_object_metadata`` say about
it, reduced to what task definitions test: its ``objectType``, the custom classes of that
type (``custom_object_classes.json``: ``Mug`` → ``Tableware``, ``Drinkware``), the
boolean properties that hold (``isDirty``, ``isCooked``, ``receptacle``...; absent means
false) and its ``parentReceptacles``. Containment is read transitively (toast on a plate
on the counter is on the counter), so the lists may hold direct parents or all ancestors.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any

from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import State, Universe
from planproof.simulators.teach.errors import StateError
from planproof.simulators.teach.tdl import canonical_property, data_dir

INSIDE = "inside"
"""Predicate of the (transitive) ``parentReceptacles`` relation in atoms and formulas."""

TYPE_ALIASES: Mapping[str, tuple[str, ...]] = {
    "Sink": ("SinkBasin",),
    "SinkBasin": ("Sink",),
    "Bathtub": ("BathtubBasin",),
    "BathtubBasin": ("Bathtub",),
}
"""Types TEACh's checker treats as the same (``check_object_type``)."""

BOOLEAN_KEYS = frozenset(
    {
        "receptacle",
        "pickupable",
        "openable",
        "toggleable",
        "sliceable",
        "dirtyable",
        "cookable",
        "breakable",
        "moveable",
    }
)
KNOWN_PROPERTIES = (
    "isDirty",
    "isCooked",
    "simbotIsCooked",
    "isSliced",
    "isFilledWithLiquid",
    "isFilledWithCoffee",
    "isBoiled",
    "isToggled",
    "isOpen",
    "isPickedUp",
    "canFillWithLiquid",
    *sorted(BOOLEAN_KEYS),
)
_SPELLING = {p.lower(): p for p in KNOWN_PROPERTIES}


def spelling(prop: str) -> str:
    """The AI2-THOR spelling of a lower-cased property name (``isdirty`` → ``isDirty``)."""
    return _SPELLING.get(prop, prop)


_RESERVED = frozenset(
    {"objectId", "objectType", "parentReceptacles", "objectClass", "objectClasses", "name"}
)


@cache
def object_classes() -> Mapping[str, tuple[str, ...]]:
    """TEACh's ``custom_object_classes.json``: objectType → custom classes."""
    raw = json.loads((data_dir() / "custom_object_classes.json").read_text(encoding="utf-8"))
    return {str(k): tuple(str(c) for c in v) for k, v in raw.items()}


def types_of(object_type: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """An object's type set: its objectType, aliases, custom classes and ``extra``."""
    return frozenset(
        (object_type, *TYPE_ALIASES.get(object_type, ()), *object_classes().get(object_type, ()))
    ) | frozenset(extra)


@dataclass(frozen=True, slots=True)
class ObjectState:
    """One object. ``types`` = objectType, its aliases and classes; ``properties`` = the
    boolean properties that hold, lower-cased (as atoms spell them) with TEACh's
    ``simbot`` prefix removed (but ``simbotIsCooked`` kept: it is not ``isCooked``)."""

    object_id: str
    object_type: str
    types: frozenset[str]
    properties: frozenset[str] = frozenset()
    parents: tuple[str, ...] = ()

    @classmethod
    def make(
        cls,
        object_id: str,
        object_type: str,
        properties: Iterable[str] = (),
        parents: Iterable[str] = (),
        classes: Iterable[str] = (),
    ) -> ObjectState:
        return cls(
            object_id=object_id,
            object_type=object_type,
            types=types_of(object_type, classes),
            properties=frozenset(canonical_property(p).lower() for p in properties),
            parents=tuple(parents),
        )

    def has(self, prop: str) -> bool:
        return prop.lower() in self.properties

    def with_properties(self, add: Iterable[str] = (), remove: Iterable[str] = ()) -> ObjectState:
        drop = frozenset(p.lower() for p in remove)
        return replace(self, properties=(self.properties - drop) | {p.lower() for p in add})

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"objectId": self.object_id, "objectType": self.object_type}
        extra = sorted(self.types - types_of(self.object_type))
        if extra:
            out["objectClasses"] = extra
        for p in sorted(self.properties):
            out[spelling(p)] = True
        out["parentReceptacles"] = list(self.parents)
        return out


def _object_from_json(raw: object, index: int) -> ObjectState:
    where = f"object #{index}"
    if not isinstance(raw, dict):
        raise StateError(f"{where}: must be a JSON object")
    oid, otype = raw.get("objectId"), raw.get("objectType")
    if not isinstance(oid, str) or not oid:
        raise StateError(f"{where}: objectId must be a non-empty string")
    if not isinstance(otype, str) or not otype:
        raise StateError(f"{where} ({oid}): objectType must be a non-empty string")
    parents = raw.get("parentReceptacles") or []
    if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
        raise StateError(f"{oid}: parentReceptacles must be a list of object ids or null")
    classes: list[str] = []
    for key in ("objectClass", "objectClasses", "simbotObjectClass"):
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise StateError(f"{oid}: {key} must be a list of class names")
        classes.extend(value)
    props: set[str] = set()
    for key, value in raw.items():
        if key in _RESERVED or key == "simbotObjectClass":
            continue
        prop = canonical_property(key)
        boolean_key = prop.lower() in _SPELLING or prop.startswith(("is", "can"))
        if isinstance(value, bool):
            flag = value
        elif boolean_key and isinstance(value, int) and value in (0, 1):
            flag = bool(value)
        elif boolean_key and value is not None:
            raise StateError(f"{oid}: property {key} must be true/false (or 0/1), got {value!r}")
        else:
            continue  # positions, masses, temperatures...: not tested by task definitions
        if flag:
            props.add(prop.lower())
    return ObjectState.make(oid, otype, props, parents, classes)


@dataclass(frozen=True)
class SymbolicState:
    """A scene: objects sorted by id. Immutable; derived indexes are cached."""

    objects: tuple[ObjectState, ...]
    _index: dict[str, ObjectState] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, ObjectState] = {}
        for o in self.objects:
            if o.object_id in index:
                raise StateError(f"duplicate objectId {o.object_id!r}")
            index[o.object_id] = o
        for o in self.objects:
            for p in o.parents:
                if p == o.object_id:
                    raise StateError(f"{o.object_id} lists itself as its parent receptacle")
                if p not in index:
                    raise StateError(f"{o.object_id}: parent receptacle {p!r} is not an object")
        object.__setattr__(self, "_index", index)

    @classmethod
    def of(cls, objects: Iterable[ObjectState]) -> SymbolicState:
        return cls(tuple(sorted(objects, key=lambda o: o.object_id)))

    @classmethod
    def from_json(cls, data: object) -> SymbolicState:
        """Read ``{"objects": [...]}`` (optionally with TEACh's ``custom_object_metadata``
        merged in), a bare list of objects, or ``{objectId: {...}}``."""
        custom: Mapping[str, Any] = {}
        if isinstance(data, dict) and "objects" in data:
            custom = data.get("custom_object_metadata") or {}
            if not isinstance(custom, dict):
                raise StateError("custom_object_metadata must be an object")
            data = data["objects"]
        elif isinstance(data, dict):
            data = [{"objectId": k, **v} if isinstance(v, dict) else v for k, v in data.items()]
        if not isinstance(data, list):
            raise StateError("a state is {'objects': [...]} or a list of objects")
        objs = []
        for i, item in enumerate(data):
            merged = item
            if isinstance(item, dict) and isinstance(custom.get(item.get("objectId", "")), dict):
                merged = {**item, **custom[item["objectId"]]}
            objs.append(_object_from_json(merged, i))
        return cls.of(objs)

    def to_json(self) -> dict[str, Any]:
        return {"objects": [o.to_json() for o in self.objects]}

    def __contains__(self, object_id: object) -> bool:
        return object_id in self._index

    def get(self, object_id: str) -> ObjectState:
        try:
            return self._index[object_id]
        except KeyError:
            raise StateError(f"no object {object_id!r} in the state") from None

    def replace_objects(self, changed: Iterable[ObjectState]) -> SymbolicState:
        index = dict(self._index)
        for o in changed:
            index[o.object_id] = o
        return SymbolicState.of(index.values())

    @cached_property
    def containers(self) -> Mapping[str, frozenset[str]]:
        """Every object's receptacles, transitively (cycles in the input are tolerated)."""
        out: dict[str, frozenset[str]] = {}
        for o in self.objects:
            seen: set[str] = set()
            stack = list(o.parents)
            while stack:
                p = stack.pop()
                if p in seen or p == o.object_id:
                    continue
                seen.add(p)
                stack.extend(self._index[p].parents)
            out[o.object_id] = frozenset(seen)
        return out

    def universe(self) -> Universe:
        """Objects typed by their type set, for typed quantifiers of compiled goals."""
        return Universe.of({o.object_id: o.types for o in self.objects})

    def atoms(self) -> State:
        """The state as ground atoms: ``prop(o)`` for each true property (lower-cased) and
        ``inside(o, r)`` for each receptacle ``r`` containing ``o`` transitively."""
        out: set[Atom] = set()
        for o in self.objects:
            c = Const(o.object_id)
            out.update(Atom(p, (c,)) for p in o.properties)
            out.update(Atom(INSIDE, (c, Const(r))) for r in self.containers[o.object_id])
        return frozenset(out)


def state_from_atoms(base: SymbolicState, atoms: Iterable[Atom]) -> SymbolicState:
    """``base``'s objects (types kept) with properties and containment read from ``atoms``
    (unary atoms are properties, ``inside(x, y)`` a containment); the inverse of
    :meth:`SymbolicState.atoms` up to transitive closure."""
    props: dict[str, set[str]] = {o.object_id: set() for o in base.objects}
    parents: dict[str, list[str]] = {o.object_id: [] for o in base.objects}
    for a in atoms:
        names = [t.name for t in a.args]
        if len(names) == 1 and names[0] in props:
            props[names[0]].add(a.pred)
        elif (
            a.pred == INSIDE
            and len(names) == 2
            and all(n in props for n in names)
            and names[0] != names[1]
        ):
            parents[names[0]].append(names[1])
    return SymbolicState.of(
        replace(
            o, properties=frozenset(props[o.object_id]), parents=tuple(sorted(parents[o.object_id]))
        )
        for o in base.objects
    )
