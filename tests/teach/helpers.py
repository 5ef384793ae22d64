"""Hand-written symbolic states for the TEACh tests."""

from __future__ import annotations

from collections.abc import Iterable

from planproof.simulators.teach.state import ObjectState, SymbolicState


def obj(oid: str, props: Iterable[str] = (), parents: Iterable[str] = ()) -> ObjectState:
    """``obj("Mug|1", ["isDirty"], ["CounterTop|1"])``: the type is the id's prefix."""
    return ObjectState.make(oid, oid.split("|", 1)[0], props, parents)


def scene(*objs: ObjectState) -> SymbolicState:
    """A state with a counter, a sink and a knife unless given."""
    base = {
        "CounterTop|1": obj("CounterTop|1", ["receptacle"]),
        "SinkBasin|1": obj("SinkBasin|1", ["receptacle"]),
        "Knife|1": obj("Knife|1", ["pickupable"], ["CounterTop|1"]),
    }
    for o in objs:
        base[o.object_id] = o
    return SymbolicState.of(base.values())


def without(state: SymbolicState, *ids: str) -> SymbolicState:
    return SymbolicState.of(o for o in state.objects if o.object_id not in ids)


def edit(
    state: SymbolicState,
    oid: str,
    add: Iterable[str] = (),
    remove: Iterable[str] = (),
    parents: Iterable[str] | None = None,
) -> SymbolicState:
    from dataclasses import replace

    o = state.get(oid).with_properties(add, remove)
    if parents is not None:
        o = replace(o, parents=tuple(parents))
    return state.replace_objects([o])
