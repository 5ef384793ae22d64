"""Typed VirtualHome tasks from the converted EAI data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from planproof.ltl.ast import TRUE, Atom, Binder, Const, Exists, Formula, Or, Var
from planproof.ltl.parser import parse
from planproof.simulators.core import Action, GoalParts, Task, World, initial_state
from planproof.simulators.virtualhome.convert import CHARACTER_ID, load_converted, object_name
from planproof.simulators.virtualhome.domain import virtualhome_domain

DATASET = "virtualhome"
CHARACTER = object_name("character", CHARACTER_ID)


def _atom(parts: Sequence[str]) -> Atom:
    return Atom(parts[0], tuple(Const(a) for a in parts[1:]))


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


def task_from_json(doc: Mapping[str, Any]) -> Task:
    domain = virtualhome_domain()
    objects = {n: frozenset(ts) for n, ts in doc["objects"].items()}
    atoms = [_atom(a) for a in doc["initial"]] + [_atom(a) for a in doc["static"]]
    state, static = initial_state(atoms, domain)
    world = World(domain, objects, static, agent=CHARACTER)
    g = doc["goal"]
    parts = GoalParts(
        states=tuple(_atom(a) for a in g["states"]),
        relations=tuple(_atom(a) for a in g["relations"]),
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


@cache
def load_virtualhome_tasks() -> tuple[Task, ...]:
    """All 342 VirtualHome tasks of the EAI data (4 have no ``tl_goal``; see
    ``docs/virtualhome.md``), converting the wheel's data on first use."""
    return tuple(task_from_json(t) for t in load_converted()["tasks"])
