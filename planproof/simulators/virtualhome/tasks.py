"""Typed VirtualHome tasks from the converted EAI data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from planproof.ltl.ast import TRUE, Atom, Binder, Const, Exists, Formula, Or, Var
from planproof.simulators.core import Action, GoalParts, Task, World, initial_state
from planproof.simulators.virtualhome.convert import (
    CHARACTER_ID,
    converted_stamp,
    load_converted,
    object_name,
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
