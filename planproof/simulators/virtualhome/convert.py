"""Converting the EAI VirtualHome data (inside the ``eai-eval`` wheel) into planproof tasks.

Runs once per wheel and converter version; the result is one stamped JSON file in the
cache. Each task keeps only its *relevant* objects: those whose state or relations differ
between the initial and final scene graphs (the reference's own definition), the objects
of the gold script, every room, the character, and the containers and surfaces those
objects are inside or on (so "inside a closed container" can be checked).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from planproof.data.cache import DataUnavailableError, cache_dir, cached_json
from planproof.data.eai_wheel import WHEEL_NAME, WHEEL_SHA256, EaiWheel, ensure_wheel, open_wheel
from planproof.simulators.virtualhome.domain import CHARACTER_STATES, PROPERTIES, STATES

CONVERTER_VERSION = 5
TASKS_FILE = "virtualhome_tasks.json"
_VH = "virtualhome_eval/"
GOALS_MEMBER = _VH + "resources/virtualhome/task_state_LTL_formula_accurate.json"
ID2TASK_MEMBER = _VH + "resources/virtualhome/id2task.json"
_DATA = _VH + "dataset/programs_processed_precond_nograb_morepreconds/"
_SCENE = "TrimmedTestScene1_graph/results_intentions_march-13-18/"
GRAPH_DIR = _DATA + "init_and_final_graphs/" + _SCENE
SCRIPT_DIR = _DATA + "executable_programs/" + _SCENE
CHARACTER_ID = 65
"""The acting character of scene 1 (the reference hard-codes the same id)."""

EDGE_PREDICATE = {
    "ON": "ontop",
    "INSIDE": "inside",
    "CLOSE": "next_to",
    "FACING": "facing",
    "HOLDS_RH": "holds_rh",
    "HOLDS_LH": "holds_lh",
}
"""Scene-graph relations ↦ planproof predicates (the names the ``tl_goal`` formulas use)."""

CLASS_PROPERTIES = {
    "water": ("grabbable", "pourable", "water"),
    "desk": ("can_open",),
    "window": ("can_open",),
    "child": ("grabbable",),
    "hands_both": ("recipient",),
    "sponge": ("recipient",),
    "face": ("recipient",),
    "keyboard": ("keyboard",),
    "chair": ("movable",),
    "curtain": ("movable",),
    "button": ("movable",),
}
"""The executors' class-name exceptions, folded into static properties once."""

SQUEEZABLE = frozenset(
    {
        "cleaning_solution",
        "tooth_paste",
        "shampoo",
        "food_peanut_butter",
        "dish_soap",
        "soap",
        "towel",
        "rag",
        "paper",
        "sponge",
        "food_lemon",
        "check",
    }
)
"""Objects the squeeze executor accepts besides clothes."""

_LINE = re.compile(r"^\[(?P<action>\w+)\](?P<args>(?:\s*<[^>]+>\s*\([\d.]+\))*)\s*$")
_ARG = re.compile(r"<(?P<name>[^>]+)>\s*\((?:\d+\.)?(?P<id>\d+)\)")


def object_name(class_name: str, node_id: int | str) -> str:
    """planproof's name of a scene-graph node, the one ``tl_goal`` uses: ``tv.410``."""
    return f"{class_name}.{node_id}"


def parse_script_line(line: str) -> tuple[str, list[tuple[str, int]]] | None:
    """``[PUTBACK] <soap> (1.1002) <washer> (1.1001)`` → ("PUTBACK", [(soap, 1002), ...])."""
    m = _LINE.match(line.strip())
    if m is None:
        return None
    args = [(a.group("name"), int(a.group("id"))) for a in _ARG.finditer(m.group("args"))]
    return m.group("action"), args


def _script(text: str, member: str) -> tuple[str, str, list[tuple[str, list[tuple[str, int]]]]]:
    lines = text.split("\n")
    name, description = lines[0].strip(), lines[1].strip()
    steps = []
    for line in lines[2:]:
        if not line.strip():
            continue
        parsed = parse_script_line(line)
        if parsed is None:
            raise DataUnavailableError(f"{member}: unreadable script line {line!r}")
        steps.append(parsed)
    return name, description, steps


def _edge_key(e: Mapping[str, Any]) -> tuple[int, str, int]:
    return int(e["from_id"]), str(e["relation_type"]), int(e["to_id"])


def _relevant(
    init: Mapping[str, Any],
    final: Mapping[str, Any],
    script_ids: Iterable[int],
    goal_ids: Iterable[int],
) -> set[int]:
    nodes_i = {n["id"]: n for n in init["nodes"]}
    nodes_f = {n["id"]: n for n in final["nodes"]}
    ids: set[int] = {CHARACTER_ID, *script_ids, *goal_ids}
    for nid in nodes_i.keys() | nodes_f.keys():
        a, b = nodes_i.get(nid), nodes_f.get(nid)
        if a is None or b is None or set(a["states"]) != set(b["states"]):
            ids.add(nid)
    ei = {_edge_key(e) for e in init["edges"]}
    ef = {_edge_key(e) for e in final["edges"]}
    for f, _, t in ei ^ ef:
        ids.update((f, t))
    ids.update(n["id"] for n in init["nodes"] if n["category"] == "Rooms")
    parents: dict[int, set[int]] = {}
    for f, rel, t in ei:
        if rel in {"INSIDE", "ON"}:
            parents.setdefault(f, set()).add(t)
    frontier = list(ids)
    while frontier:
        nid = frontier.pop()
        for p in parents.get(nid, ()):
            if p not in ids:
                ids.add(p)
                frontier.append(p)
    return ids & nodes_i.keys()


def _room_of(nid: int, nodes: Mapping[int, Any], inside: Mapping[int, list[int]]) -> int | None:
    seen: set[int] = set()
    frontier = [nid]
    while frontier:
        cur = frontier.pop(0)
        if cur in seen:
            continue
        seen.add(cur)
        for p in inside.get(cur, ()):
            if nodes[p]["category"] == "Rooms":
                return p
            frontier.append(p)
    return None


def _goal_entry(goal: Mapping[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    states, relations = [], []
    for g in goal.get("goal", []):
        if "state" in g:
            states.append(
                [
                    str(g["state"]).lower(),
                    names.get(int(g["id"]), object_name(g["class_name"], g["id"])),
                ]
            )
        else:
            rel = EDGE_PREDICATE.get(str(g["relation_type"]), str(g["relation_type"]).lower())
            relations.append(
                [
                    rel,
                    names.get(int(g["from_id"]), str(g["from_id"])),
                    names.get(int(g["to_id"]), str(g["to_id"])),
                ]
            )
    return {
        "states": _dedup(states),
        "relations": _dedup(relations),
        "actions": sorted({str(a) for a in goal.get("actions", [])}),
    }


def _dedup(items: list[list[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


def _node_facts(
    nodes: Mapping[int, Any],
    edges: Iterable[Mapping[str, Any]],
    keep: set[int],
    names: Mapping[int, str],
) -> tuple[dict[str, list[str]], list[list[str]], list[list[str]]]:
    """The kept nodes' objects, static facts (properties) and initial fluents (states, the
    init-graph edges between kept nodes, the room each one is in)."""
    objects: dict[str, list[str]] = {}
    static: list[list[str]] = []
    fluents: list[list[str]] = []
    for nid in sorted(keep):
        n = nodes[nid]
        nm = names[nid]
        if nid == CHARACTER_ID:
            types = ["character"]
        elif n["category"] == "Rooms":
            types = ["room"]
            static.append(["room", nm])
        else:
            types = ["object"]
        objects[nm] = [*types, n["class_name"]]
        props = {p.lower() for p in n["properties"]} & set(PROPERTIES)
        props |= set(CLASS_PROPERTIES.get(n["class_name"], ()))
        if "knife" in n["class_name"]:
            props.add("knife")
        if "clothes" in props or n["class_name"] in SQUEEZABLE:
            props.add("squeezable")
        static.extend([p, nm] for p in sorted(props))
        for raw in n["states"]:
            st = raw.lower()
            if st in STATES or (nid == CHARACTER_ID and st in CHARACTER_STATES):
                fluents.append([st, nm])
    inside: dict[int, list[int]] = {}
    for e in edges:
        f, rel, t = _edge_key(e)
        if rel == "INSIDE":
            inside.setdefault(f, []).append(t)
        if f not in keep or t not in keep or rel not in EDGE_PREDICATE:
            continue
        pred = EDGE_PREDICATE[rel]
        if f != CHARACTER_ID and rel in {"CLOSE", "FACING"}:
            pred = "obj_" + pred
        fluents.append([pred, names[f], names[t]])
    for nid in sorted(keep):
        if nodes[nid]["category"] == "Rooms":
            continue
        room = _room_of(nid, nodes, inside)
        if room is not None and room in keep:
            atom = ["inside", names[nid], names[room]]
            if atom not in fluents:
                fluents.append(atom)
    return objects, static, fluents


def convert_task(
    w: EaiWheel, task_id: str, task_name: str, entry: Mapping[str, Any]
) -> dict[str, Any]:
    """One task in planproof's format (objects, static facts, initial fluents, goal, gold)."""
    graphs = w.read_json(f"{GRAPH_DIR}file{task_id}.json")
    init, final = graphs["init_graph"], graphs["final_graph"]
    name, description, steps = _script(
        w.read_text(f"{SCRIPT_DIR}file{task_id}.txt"), f"file{task_id}.txt"
    )
    nodes = {n["id"]: n for n in init["nodes"]}
    for n in final["nodes"]:
        nodes.setdefault(n["id"], n)
    goal = entry.get("vh_goal") or {}
    goal_ids = [int(g.get("id", g.get("from_id", -1))) for g in goal.get("goal", [])]
    goal_ids += [int(g["to_id"]) for g in goal.get("goal", []) if "to_id" in g]
    keep = _relevant(init, final, (i for _, args in steps for _, i in args), goal_ids)
    names = {nid: object_name(nodes[nid]["class_name"], nid) for nid in nodes}
    objects, static, fluents = _node_facts(nodes, init["edges"], keep, names)
    gold = [[a, [names.get(i, object_name(n, i)) for n, i in args]] for a, args in steps]
    return {
        "identifier": task_id,
        "name": task_name,
        "script_name": name,
        "description": description,
        "objects": objects,
        "static": static,
        "initial": _dedup(fluents),
        "goal": _goal_entry(goal, names),
        "tl_goal": entry.get("tl_goal"),
        "gold": gold,
    }


@functools.cache
def _checked_wheel() -> Path:
    """The wheel, its checksum checked once per process (the check costs more than a read)."""
    return ensure_wheel()


SCENE_GRAPHS_KEPT = 64
"""Initial scene graphs kept read per process: the reference reading extends a task once
per distinct set of objects an answer names, and a worker scores every model's answer to
a task (a task slice holds ~43 tasks), so the graph is read from the wheel once per task
instead of once per extension (opening the wheel reads its RECORD each time)."""


@functools.lru_cache(maxsize=SCENE_GRAPHS_KEPT)
def _init_graph(task_id: str) -> Mapping[str, Any]:
    """The task's initial scene graph, as the wheel holds it (read-only for callers)."""
    with open_wheel(_checked_wheel()) as w:
        graph: Mapping[str, Any] = w.read_json(f"{GRAPH_DIR}file{task_id}.json")["init_graph"]
    return graph


@functools.cache
def scene_names(task_id: str) -> dict[int, str]:
    """Every node of the task's initial scene graph: id → class name (the reference's
    ``id_to_name``, against which it checks an answer's objects: the converted world keeps
    only the objects a task touches). Kept for every task asked (a few kB each)."""
    return {int(n["id"]): str(n["class_name"]) for n in _init_graph(task_id)["nodes"]}


def scene_extension(
    task_id: str, wanted: Iterable[tuple[str, int]], world_ids: Iterable[int]
) -> dict[str, Any]:
    """The nodes of ``wanted`` (class name, id) that the task's initial scene graph has,
    and the nodes they are inside or on (transitively, as :func:`convert_task` keeps them),
    converted as :func:`convert_task` converts a kept node: their objects, static facts and
    initial fluents, with the init-graph edges between them and the nodes ``world_ids`` (the
    task's converted objects). The reference checks an answer's objects against the whole
    scene graph, so its reading needs what the converted world leaves out."""
    init = _init_graph(task_id)
    nodes = {n["id"]: n for n in init["nodes"]}
    extra = {i for c, i in wanted if i in nodes and nodes[i]["class_name"] == c}
    parents: dict[int, set[int]] = {}
    for f, rel, t in (_edge_key(e) for e in init["edges"]):
        if rel in {"INSIDE", "ON"}:
            parents.setdefault(f, set()).add(t)
    frontier, have = list(extra), set(world_ids)
    while frontier:  # what holds them, as convert_task keeps it (a closed closet, ...)
        for p in parents.get(frontier.pop(), ()):
            if p not in extra and p not in have:
                extra.add(p)
                frontier.append(p)
    names = {nid: object_name(nodes[nid]["class_name"], nid) for nid in nodes}
    keep = extra | (set(world_ids) & nodes.keys())
    objects, static, fluents = _node_facts(nodes, init["edges"], keep, names)
    new = {names[i] for i in extra}
    return {
        "objects": {n: ts for n, ts in objects.items() if n in new},
        "static": [f for f in static if new & set(f[1:])],
        "initial": [f for f in _dedup(fluents) if new & set(f[1:])],
    }


def convert_wheel(wheel: Path) -> dict[str, Any]:
    with open_wheel(wheel) as w:
        id2task: dict[str, str] = w.read_json(ID2TASK_MEMBER)
        goals = w.read_json(GOALS_MEMBER)["scene_1"]
        entries = {tid: e for tasks in goals.values() for tid, e in tasks.items()}
        tasks = [convert_task(w, tid, name, entries.get(tid, {})) for tid, name in id2task.items()]
    return {"tasks": tasks}


def tasks_path() -> Path:
    return cache_dir() / "eai" / TASKS_FILE


def converted_stamp() -> dict[str, Any]:
    """What the converted file was made from (format, converter version, wheel)."""
    return {
        "format": "planproof.virtualhome_tasks",
        "version": CONVERTER_VERSION,
        "wheel": WHEEL_NAME,
        "wheel_sha256": WHEEL_SHA256,
    }


def load_converted() -> dict[str, Any]:
    """The converted tasks, building them once per wheel and converter version."""
    return cached_json(tasks_path(), converted_stamp(), lambda: convert_wheel(ensure_wheel()))
