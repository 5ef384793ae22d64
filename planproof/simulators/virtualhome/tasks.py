"""Typed VirtualHome tasks from the converted EAI data."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from planproof.ltl.ast import TRUE, Atom, Binder, Const, Exists, Formula, Or, Var
from planproof.simulators.core import Action, GoalParts, Task, World, initial_state
from planproof.simulators.virtualhome.convert import (
    CHARACTER_ID,
    converted_stamp,
    load_converted,
    object_name,
    scene_extension,
)
from planproof.simulators.virtualhome.domain import SOURCES, virtualhome_domain

DATASET = "virtualhome"
CHARACTER = object_name("character", CHARACTER_ID)
TASKS_CACHE = "virtualhome_tasks"
TASKS_CACHE_VERSION = 1
"""Bump when the tasks built from the converted data change without a source edit."""
_DOMAIN_ID = "virtualhome-domain"


class AtomTable:
    """One ``Atom`` (and ``Const``) object per distinct fact across the tasks of a load.

    The 342 tasks share one scene: their 24 500 initial and static facts are about 3 900
    distinct atoms. Sharing them makes building (and the binary cache) proportional to
    the distinct facts, and set operations between states meet identical objects.
    """

    def __init__(self) -> None:
        self._atoms: dict[tuple[str, ...], Atom] = {}
        self._consts: dict[str, Const] = {}
        self._strings: dict[str, str] = {}
        self._types: dict[frozenset[str], frozenset[str]] = {}

    def string(self, s: str) -> str:
        return self._strings.setdefault(s, s)

    def types(self, names: Sequence[str]) -> frozenset[str]:
        ts = frozenset(self.string(n) for n in names)
        return self._types.setdefault(ts, ts)

    def const(self, name: str) -> Const:
        c = self._consts.get(name)
        if c is None:
            c = self._consts[name] = Const(self.string(name))
        return c

    def __call__(self, parts: Sequence[str]) -> Atom:
        key = tuple(parts)
        a = self._atoms.get(key)
        if a is None:
            args = tuple(self.const(n) for n in key[1:])
            a = self._atoms[key] = Atom(self.string(key[0]), args)
        return a


def action_goal(alternatives: str) -> Formula:
    """``"LOOKAT|WATCH"`` → ``exists x. (lookat(x) or watch(x))``; zero-argument actions
    (``SLEEP``) are atoms without arguments."""
    names = [a.strip().lower() for a in alternatives.split("|") if a.strip()]
    domain = virtualhome_domain()
    atoms: list[Formula] = []
    width = 0
    for n in names:
        op = domain.lookup(n)
        arity = op.arity if op is not None else 1
        width = max(width, arity)
        atoms.append(Atom(n, tuple(Var(f"x{i}") for i in range(arity))))
    out: Formula = atoms[0] if len(atoms) == 1 else Or(tuple(atoms))
    for i in reversed(range(width)):
        out = Exists(Binder(f"x{i}"), out)
    return out


def task_from_json(doc: Mapping[str, Any], atoms: AtomTable | None = None) -> Task:
    """One task from its converted JSON (``atoms``: share atoms with other tasks)."""
    from planproof.ltl.parser import parse

    domain = virtualhome_domain()
    table = atoms if atoms is not None else AtomTable()
    objects = {table.string(n): table.types(ts) for n, ts in doc["objects"].items()}
    atom = table
    facts = [atom(a) for a in doc["initial"]] + [atom(a) for a in doc["static"]]
    state, static = initial_state(facts, domain)
    world = World(domain, objects, static, agent=CHARACTER)
    g = doc["goal"]
    parts = GoalParts(
        states=tuple(atom(a) for a in g["states"]),
        relations=tuple(atom(a) for a in g["relations"]),
        actions=tuple(action_goal(a) for a in g["actions"]),
    )
    return Task(
        dataset=DATASET,
        identifier=doc["identifier"],
        name=doc["name"],
        description=doc["description"],
        world=world,
        initial=state,
        goal=parse(doc["tl_goal"]) if doc["tl_goal"] else TRUE,
        parts=parts,
        gold=tuple(Action(a, tuple(args)) for a, args in doc["gold"]),
    )


def build_virtualhome_tasks() -> tuple[Task, ...]:
    """Every task, built from the converted data (what the binary cache stores)."""
    atoms = AtomTable()
    tasks = tuple(task_from_json(t, atoms) for t in load_converted()["tasks"])
    for t in tasks:  # derived once here rather than after every load
        _ = t.world.universe
    return tasks


@cache
def load_virtualhome_tasks() -> tuple[Task, ...]:
    """All 342 VirtualHome tasks of the EAI data (4 have no ``tl_goal``; see
    ``docs/virtualhome.md``), converting the wheel's data on first use and keeping the
    built tasks in a binary cache (``planproof.simulators.core.compiled``)."""
    from planproof.simulators.core.compiled import cached_build

    domain = virtualhome_domain()
    return cached_build(
        TASKS_CACHE,
        build_virtualhome_tasks,
        sources=SOURCES,
        stamp={"converted": converted_stamp(), "tasks": TASKS_CACHE_VERSION},
        shared={_DOMAIN_ID: domain},
    )


_SCENE_NAME = re.compile(r"\b([A-Za-z_]\w*)\.(\d+)\b")
_EXTENDED: dict[tuple[str, frozenset[str]], tuple[Task, Task]] = {}


def with_scene_objects(task: Task, texts: Iterable[str]) -> Task:
    """``task`` with the objects ``texts`` name (``chair.356``) that its world leaves out
    but its initial scene graph has, converted as the converter converts a kept node (the
    reference checks names against, and runs plans on, the whole scene graph). The same
    ``task`` when there are none; built once per (task, objects)."""
    objects = task.world.objects
    wanted = frozenset(
        m.group(0) for t in texts for m in _SCENE_NAME.finditer(t) if m.group(0) not in objects
    )
    if not wanted:
        return task
    key = (task.identifier, wanted)
    hit = _EXTENDED.get(key)
    if hit is not None and hit[0] is task:
        return hit[1]
    world_ids = [int(n.rsplit(".", 1)[1]) for n in objects if n.rsplit(".", 1)[-1].isdigit()]
    pairs = [(n.rsplit(".", 1)[0], int(n.rsplit(".", 1)[1])) for n in wanted]
    ext = scene_extension(task.identifier, pairs, world_ids)
    out = task
    if ext["objects"]:
        table = AtomTable()
        fluents, static = initial_state(
            [table(a) for a in ext["initial"]] + [table(a) for a in ext["static"]],
            task.world.domain,
        )
        new = {n: frozenset(ts) for n, ts in ext["objects"].items()}
        world = World(
            task.world.domain,
            {**objects, **new},
            task.world.static | static,
            agent=task.world.agent,
            aliases=task.world.aliases,
        )
        out = dataclasses.replace(task, world=world, initial=task.initial | fluents)
    _EXTENDED[key] = (task, out)
    return out
