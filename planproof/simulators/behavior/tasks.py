"""The 100 EAI BEHAVIOR tasks as replayable :class:`~planproof.simulators.core.Task` objects.

Sources, all read from the ``eai-eval`` wheel (never its code):

- the BDDL problem of each task (objects, initial state) and its goal, already converted
  by :func:`planproof.data.eai_goals.load_eai_goals` (``jar.n.01_1`` ↦ ``jar_n_01.1``);
- the human-annotated gold action sequence, ``human_annotations/<task>.json``, which names
  objects as iGibson instances (``fridge_97``, ``strawberry_0_part_1``);
- the action-sequencing prompts ``helm_prompts.json``, whose "interactable objects" list is
  the reference's ``name_mapping`` (iGibson instance per BDDL object) printed in BDDL
  declaration order: it is the only place the data pairs ``fridge_97`` with
  ``electric_refrigerator.n.01_1``, and the converter checks the pairing category by
  category;
- the one-sentence instruction per activity (``instructions_by_activity_name.json``).

The conversion runs once and is cached as stamped JSON (``behavior_tasks.json`` in the
cache); :func:`load_behavior_tasks` builds worlds from it. Canonical object names are the
goal's (``jar_n_01.1``); iGibson names are world aliases, so a plan may use either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from planproof.data.cache import DataUnavailableError, cache_dir, cached_json
from planproof.data.eai_goals import BehaviorGoal, load_eai_goals
from planproof.data.eai_wheel import WHEEL_NAME, WHEEL_SHA256, ensure_wheel, open_wheel
from planproof.ltl.ast import Atom, Const
from planproof.ltl.bddl.names import ltl_object
from planproof.ltl.bddl.problem import parse_problem
from planproof.ltl.bddl.sexpr import SAtom, SList
from planproof.ltl.evaluate import evaluate_final
from planproof.ltl.parser import parse
from planproof.ltl.trace import Trace
from planproof.simulators.behavior.domain import (
    PART_PROPERTIES,
    behavior_domain,
    category_stem,
    object_properties,
)
from planproof.simulators.core import Action, GoalParts, Task, World
from planproof.simulators.core.world import initial_state

CONVERTER_VERSION = 1
"""Bump whenever the conversion's output changes (cached files are then rebuilt)."""
TASKS_FILE = "behavior_tasks.json"
DATASET = "behavior"

_AS = "behavior_eval/evaluation/action_sequencing/resources/"
ANNOTATIONS_DIR = _AS + "human_annotations/"
PROMPTS_MEMBER = _AS + "prompts/helm_prompts.json"
INSTRUCTIONS_MEMBER = (
    "behavior_eval/evaluation/goal_interpretation/resources/data/instructions_by_activity_name.json"
)
STANDS_ON_FLOOR = frozenset(
    [
        "table",
        "bed",
        "sofa",
        "chair",
        "shelf",
        "electric_refrigerator",
        "washer",
        "dryer",
        "toilet",
        "bathtub",
        "car",
        "christmas_tree",
    ]
)
"""Scene furniture (``inroom`` objects) resting on the floor of its room."""
PARTS_PER_SLICE = 2
"""iGibson splits a sliced object into two halves, ``<name>_part_0`` and ``_part_1``."""

_OBJ_LINE = re.compile(r"\{'name': '([^']+)', 'category': '([^']+)'\}")
_STATE_PREDICATES = frozenset(
    {
        "inside",
        "ontop",
        "nextto",
        "under",
        "onfloor",
        "cooked",
        "dusty",
        "frozen",
        "open",
        "sliced",
        "soaked",
        "stained",
        "toggled_on",
    }
)


def tasks_path() -> Path:
    return cache_dir() / "eai" / TASKS_FILE


def _stamp() -> dict[str, Any]:
    return {
        "format": "planproof.behavior_tasks",
        "version": CONVERTER_VERSION,
        "wheel": WHEEL_NAME,
        "wheel_sha256": WHEEL_SHA256,
    }


def instance_names(prompt: str) -> list[tuple[str, str]]:
    """(iGibson name, BDDL category) of the task's objects, from its action-sequencing
    prompt (the list after the *last* "interactable objects:", i.e. the task's own, not
    the in-context example's)."""
    tail = prompt.rsplit("interactable objects:", 1)[-1]
    return _OBJ_LINE.findall(tail)


def _init_atoms(text: str) -> list[list[str]]:
    """The positive state facts of a BDDL ``:init`` (negated facts are the default).

    ``inroom`` is scene layout, not state, but iGibson computes ``OnFloor`` from geometry:
    furniture that stands on the floor (:data:`STANDS_ON_FLOOR`) is put ``onfloor`` the
    floor of its room, so that an object placed next to or under it rests on that floor
    as in the reference."""
    problem = parse_problem(text)
    out: list[list[str]] = []
    rooms: dict[str, str] = {}
    for e in problem.init:
        if not isinstance(e, SList) or not all(isinstance(i, SAtom) for i in e.items):
            continue
        words = [i.text for i in e.items if isinstance(i, SAtom)]
        if words[0] in _STATE_PREDICATES:
            out.append([words[0], *(ltl_object(w) for w in words[1:])])
        elif words[0] == "inroom" and len(words) == 3:
            rooms[words[1]] = words[2]
    floors: dict[str, str] = {}
    for obj, room in rooms.items():
        if category_stem(problem.objects.get(obj, "")) == "floor":
            floors.setdefault(room, obj)
    placed = {a[1] for a in out if a[0] in ("inside", "ontop", "onfloor")}
    for obj, room in rooms.items():
        o = ltl_object(obj)
        stem = category_stem(problem.objects.get(obj, ""))
        if stem in STANDS_ON_FLOOR and o not in placed and room in floors:
            out.append(["onfloor", o, ltl_object(floors[room])])
    return out


def _gold(raw: Any, task_id: str) -> list[list[str]]:
    if not isinstance(raw, list):
        raise DataUnavailableError(f"{task_id}: gold annotation is not a list")
    out: list[list[str]] = []
    for step in raw:
        if not isinstance(step, dict) or not isinstance(step.get("action"), str):
            raise DataUnavailableError(f"{task_id}: malformed gold step {step!r}")
        obj = step.get("object", "")
        args = [a.strip() for a in str(obj).split(",") if a.strip()]
        out.append([step["action"], *args])
    return out


def _convert_task(goal: BehaviorGoal, prompt: str, gold: Any, description: str) -> dict[str, Any]:
    bddl = [o for o in goal.objects if category_stem(o.bddl_category) != "agent"]
    names = instance_names(prompt)
    if [c for _, c in names] != [o.bddl_category for o in bddl]:
        raise DataUnavailableError(
            f"{goal.task_id}: the prompt's object list does not pair with the BDDL objects"
        )
    objects: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for o in goal.objects:
        inst = dict(zip([b.name for b in bddl], [n for n, _ in names], strict=True)).get(o.name)
        stem = category_stem(o.bddl_category)
        types = ["agent", o.category] if stem == "agent" else ["object", o.category]
        props = sorted(object_properties(o.bddl_category, inst or o.name))
        objects.append(
            {
                "name": o.name,
                "category": o.category,
                "igibson": inst,
                "types": types,
                "properties": props,
            }
        )
        if "sliceable" in props:
            for k in range(PARTS_PER_SLICE):
                parts.append(
                    {
                        "name": f"{o.name.replace('.', '_')}_part_{k}",
                        "whole": o.name,
                        "igibson": f"{inst}_part_{k}" if inst else None,
                    }
                )
    return {
        "task_id": goal.task_id,
        "task_name": goal.task_name,
        "description": description,
        "goal": goal.tl_goal,
        "objects": objects,
        "parts": parts,
        "init": _init_atoms(goal.bddl_problem),
        "gold": _gold(gold, goal.task_id),
    }


def convert(wheel: Path | None = None) -> dict[str, Any]:
    """Read and convert all BEHAVIOR tasks (the cached payload)."""
    goals = load_eai_goals()
    with open_wheel(wheel) as w:
        prompts = {e["identifier"]: e["llm_prompt"] for e in w.read_json(PROMPTS_MEMBER)}
        instructions: Mapping[str, str] = w.read_json(INSTRUCTIONS_MEMBER)
        tasks = []
        for g in goals.behavior:
            member = f"{ANNOTATIONS_DIR}{g.task_id}.json"
            if g.task_id not in prompts:
                raise DataUnavailableError(f"{g.task_id}: no action-sequencing prompt")
            tasks.append(
                _convert_task(
                    g, prompts[g.task_id], w.read_json(member), instructions.get(g.task_name, "")
                )
            )
    return {"tasks": tasks}


def _atom(pred: str, args: Sequence[str]) -> Atom:
    return Atom(pred, tuple(Const(a) for a in args))


def build_task(doc: Mapping[str, Any]) -> Task:
    """A :class:`Task` from one converted task record."""
    domain = behavior_domain()
    objects: dict[str, frozenset[str]] = {}
    aliases: dict[str, str] = {}
    static: set[Atom] = set()
    agent: str | None = None
    for o in doc["objects"]:
        objects[o["name"]] = frozenset(o["types"])
        if "agent" in o["types"]:
            agent = o["name"]
        if o["igibson"]:
            aliases[o["igibson"]] = o["name"]
        static.update(_atom(p, [o["name"]]) for p in o["properties"])
    for p in doc["parts"]:
        objects[p["name"]] = frozenset({"object", "part"})
        if p["igibson"]:
            aliases[p["igibson"]] = p["name"]
        static.update(_atom(q, [p["name"]]) for q in PART_PROPERTIES)
        static.add(_atom("part_of", [p["name"], p["whole"]]))
    world = World(domain, objects, frozenset(static), agent=agent, aliases=aliases)
    fluents, _ = initial_state([_atom(a[0], a[1:]) for a in doc["init"]], domain)
    gold = tuple(Action(g[0], tuple(g[1:])) for g in doc["gold"])
    goal = parse(doc["goal"])
    return Task(
        dataset=DATASET,
        identifier=doc["task_id"],
        name=doc["task_name"],
        description=doc["description"],
        world=world,
        initial=fluents,
        goal=goal,
        parts=GoalParts(),  # quantified goals: scored through goal options
        gold=gold,
    )


@cache
def _load() -> tuple[Task, ...]:
    doc = cached_json(tasks_path(), _stamp(), lambda: convert(ensure_wheel()))
    return tuple(build_task(t) for t in doc["tasks"])


def load_behavior_tasks() -> tuple[Task, ...]:
    """The 100 BEHAVIOR tasks (converted on first use, then read from the cache)."""
    return _load()


def load_behavior_task(key: str) -> Task:
    """One task, by demo id (``bottling_fruit_0_Wainscott_0_int_0_...``) or activity name."""
    for t in _load():
        if key in (t.identifier, t.name):
            return t
    raise KeyError(key)


def goal_reached(task: Task, trace: Trace) -> bool:
    """Task success: the goal holds in the final state of ``trace`` (the reference checks
    the BDDL goal once, after the last executed action), quantifiers ranging over the
    task's typed objects; the domain's action predicates exclude ``open``, a state in goals."""
    return evaluate_final(
        task.goal, trace, universe=task.world.universe, actions=task.world.domain.action_predicates
    )
