"""Hypothesis strategies for symbolic TEACh states (for property tests of checkers and
compilers; re-exported by ``planproof.testing``)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from planproof.simulators.teach.state import ObjectState, SymbolicState

PROPERTIES = (
    "isDirty",
    "isCooked",
    "simbotIsCooked",
    "isBoiled",
    "isFilledWithCoffee",
    "isFilledWithLiquid",
    "isToggled",
    "receptacle",
)


@st.composite
def symbolic_states(
    draw: st.DrawFn,
    types: Sequence[str],
    max_objects: int = 7,
    properties: Sequence[str] = PROPERTIES,
) -> SymbolicState:
    """States over objects of ``types`` with random properties and an acyclic containment
    forest (an object's parent is an earlier object)."""
    n = draw(st.integers(min_value=1, max_value=max_objects))
    objs: list[ObjectState] = []
    for i in range(n):
        t = draw(st.sampled_from(list(types)))
        props = draw(st.frozensets(st.sampled_from(list(properties))))
        parents: tuple[str, ...] = ()
        contained: bool = draw(st.booleans())
        if objs and contained:
            parent: str = draw(st.sampled_from([o.object_id for o in objs]))
            parents = (parent,)
        objs.append(ObjectState.make(f"{t}|{i}", t, props, parents))
    return SymbolicState.of(objs)
