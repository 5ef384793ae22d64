"""The reference's object-name → id rule (virtualhome-eval 0.1.1 ``relevant_name_to_id``),
checked against what the reference itself produced on all 342 tasks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from planproof.simulators.virtualhome.reference_names import reference_name_map, reference_names

OBSERVED = Path(__file__).with_name("reference_names_vhe011.json")


def test_equals_the_reference_on_every_task() -> None:
    """Observed under three hash seeds: the map equals one of the reference's maps for
    every task, and the only tasks where the reference's own map varies are the two
    where two relevant nodes share a class name and collide in the set's table."""
    observed: dict[str, list[dict[str, int]]] = json.loads(OBSERVED.read_text("utf-8"))["tasks"]
    ours = reference_names()
    assert set(observed) == set(ours) and len(ours) == 342
    varying = sorted(tid for tid, maps in observed.items() if len(maps) > 1)
    assert varying == ["509_2", "604_2"]
    for tid, maps in observed.items():
        as_names = [{k: f"{k}.{v}" for k, v in m.items()} for m in maps]
        assert ours[tid] in as_names, tid
    # seed 0 (the first observation) is matched everywhere but on the seed-dependent pair
    agree = sum(ours[t] == {k: f"{k}.{v}" for k, v in observed[t][0].items()} for t in observed)
    assert agree >= 340


def _node(nid: int, cls: str, states: list[str]) -> dict[str, Any]:
    return {
        "id": nid,
        "class_name": cls,
        "category": "x",
        "properties": ["GRABBABLE"],
        "states": states,
        "prefab_name": None,
        "bounding_box": None,
    }


def test_changed_nodes_and_edge_ends_only() -> None:
    init = {
        "nodes": [_node(1, "kitchen", []), _node(65, "character", []), _node(7, "cup", ["CLEAN"])],
        "edges": [{"from_id": 65, "relation_type": "INSIDE", "to_id": 1}],
    }
    final = {
        "nodes": [_node(1, "kitchen", []), _node(65, "character", []), _node(7, "cup", ["DIRTY"])],
        "edges": [{"from_id": 65, "relation_type": "INSIDE", "to_id": 1}],
    }
    assert reference_name_map(init, final) == {"cup": 7}
    final["edges"].append({"from_id": 65, "relation_type": "CLOSE", "to_id": 7})
    assert reference_name_map(init, final) == {"cup": 7, "character": 65}


@given(st.lists(st.integers(min_value=1, max_value=5000), min_size=1, max_size=12, unique=True))
def test_one_id_per_class_name_the_last_in_set_order(ids: list[int]) -> None:
    """Every changed node of one class: the map names the id a CPython set of them
    iterates last, as the reference's loop over its set of ids does."""
    init = {"nodes": [_node(i, "light", ["OFF"]) for i in ids], "edges": []}
    final = {"nodes": [_node(i, "light", ["ON"]) for i in ids], "edges": []}
    built: set[int] = set()
    for i in sorted(ids):  # the reference adds ids one by one, then takes a union
        built.add(i)
    got = reference_name_map(init, final)
    assert got == {"light": list(built.union(set()))[-1]}
    assert got["light"] in ids
