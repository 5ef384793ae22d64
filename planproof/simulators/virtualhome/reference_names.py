"""The reference's object-name → id rule for VirtualHome answers written without ids.

The published action-sequencing answers name objects without ids
(``"WALK": ["washing_machine"]``), as virtualhome-eval 0.1.1's prompt asked. Its evaluator
resolves each name through ``relevant_name_to_id``, built by
``MotionPlanner.get_symbolic_goal_nl``: the nodes whose dictionary (class, category,
sorted properties and states, prefab, bounding box) differs between the task's initial
and final scene graphs, plus both ends of every edge present in only one of them; each
node's class name maps to its id, iterating that *set of ids*, so when two relevant nodes
share a class name the one iterated last wins. planproof rebuilds the same set from the
same graphs (the data in the eai-eval wheel are byte-identical to virtualhome-eval
0.1.1's) and iterates a CPython set built the same way (``docs/published-answers.md``).
The result is cached once per wheel and rule version.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from planproof.data.cache import cache_dir, cached_json
from planproof.data.eai_wheel import WHEEL_NAME, WHEEL_SHA256, ensure_wheel, open_wheel
from planproof.simulators.virtualhome.convert import GRAPH_DIR, ID2TASK_MEMBER, object_name

RULE_VERSION = 2
"""Bump when the rule below changes: the cached maps are rebuilt."""
NAMES_FILE = "virtualhome_reference_names.json"


def _node_key(node: Mapping[str, Any]) -> str:
    """A node as the reference compares it: ``str`` of its ``GraphNode.to_dict()`` with
    properties and states sorted (``filter_unique_subdicts``)."""
    box = node.get("bounding_box")
    canonical = {
        "id": node["id"],
        "class_name": node["class_name"],
        "category": node.get("category"),
        "properties": sorted(str(p).upper() for p in node["properties"]),
        "states": sorted(str(s).upper() for s in node["states"]),
        "prefab_name": node.get("prefab_name"),
        "bounding_box": None if box is None else {"center": box["center"], "size": box["size"]},
    }
    return str(canonical)


def _edge_key(edge: Mapping[str, Any]) -> str:
    return str(
        {"from_id": edge["from_id"], "relation_type": edge["relation_type"], "to_id": edge["to_id"]}
    )


def reference_name_map(init: Mapping[str, Any], final: Mapping[str, Any]) -> dict[str, int]:
    """class name → node id, as ``relevant_name_to_id`` of the reference for these graphs."""
    init_nodes = {n["id"]: n for n in init["nodes"]}
    keys_i = {_node_key(n): n["id"] for n in init["nodes"]}
    keys_f = {_node_key(n): n["id"] for n in final["nodes"]}
    existing = sorted(
        {keys_i[k] for k in keys_i.keys() - keys_f.keys()}
        | {keys_f[k] for k in keys_f.keys() - keys_i.keys()}
    )
    edges_i = {_edge_key(e): e for e in init["edges"]}
    edges_f = {_edge_key(e): e for e in final["edges"]}
    ends: set[int] = set()
    for k in edges_i.keys() ^ edges_f.keys():
        e = edges_i.get(k) or edges_f[k]
        ends.update((int(e["from_id"]), int(e["to_id"])))
    # The same set operations as the reference, in the same order (ids inserted sorted):
    # a CPython set of small ints iterates by slot, so the order is the reference's
    # unless two ids collide in the table, where insertion order (hash-seed dependent in
    # the reference) decides.
    existing_set: set[int] = set()
    for nid in existing:
        existing_set.add(nid)
    add_set: set[int] = set()
    for nid in sorted(ends):
        add_set.add(nid)
    add_set = add_set - existing_set
    names: dict[str, int] = {}
    for nid in existing_set.union(add_set):  # the reference iterates this set: last wins
        node = init_nodes.get(nid)
        if node is not None:
            names[str(node["class_name"])] = nid
    return names


def _build() -> dict[str, Any]:
    with open_wheel(ensure_wheel()) as w:
        id2task: dict[str, str] = w.read_json(ID2TASK_MEMBER)
        maps = {}
        for tid in id2task:
            graphs = w.read_json(f"{GRAPH_DIR}file{tid}.json")
            maps[tid] = reference_name_map(graphs["init_graph"], graphs["final_graph"])
    return {"tasks": maps}


def _path() -> Path:
    return cache_dir() / "eai" / NAMES_FILE


@lru_cache(maxsize=1)
def reference_names() -> dict[str, dict[str, str]]:
    """task identifier → {class name → planproof object name ``name.id``}, for every
    VirtualHome task (built from the wheel's scene graphs once, then read from the cache)."""
    stamp = {
        "format": "planproof.virtualhome_reference_names",
        "version": RULE_VERSION,
        "wheel": WHEEL_NAME,
        "wheel_sha256": WHEEL_SHA256,
    }
    doc = cached_json(_path(), stamp, _build)
    return {
        tid: {name: object_name(name, nid) for name, nid in m.items()}
        for tid, m in doc["tasks"].items()
    }
