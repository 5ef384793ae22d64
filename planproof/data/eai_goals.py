"""The EAI goal formulas (338 VirtualHome + 100 BEHAVIOR), converted once and cached.

VirtualHome goals are taken verbatim from the wheel's ``task_state_LTL_formula_accurate.json``
(342 task ids; 4 have no goal). BEHAVIOR goals are converted from the 100 BDDL problem
files with :mod:`planproof.ltl.bddl`, in planproof's typed form and, for comparison, in
the reference implementation's untyped string format. The result is one stamped JSON
file in the cache; see ``docs/data.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planproof.data.cache import DataUnavailableError, cache_dir, cached_json
from planproof.data.eai_wheel import (
    BEHAVIOR_PDDL_DIR,
    VH_GOALS_MEMBER,
    WHEEL_NAME,
    WHEEL_SHA256,
    ensure_wheel,
    open_wheel,
)
from planproof.ltl.ast import Formula
from planproof.ltl.bddl import (
    bddl_goal_to_ltl,
    ltl_category,
    ltl_object,
    parse_problem,
    reference_tl_string,
)
from planproof.ltl.parser import parse
from planproof.ltl.printer import to_text
from planproof.ltl.trace import Universe

CONVERTER_VERSION = 1
"""Bump whenever the conversion's output changes: cached files with another version
are rebuilt on the next load."""
GOALS_FILE = "eai_goals.json"


@dataclass(frozen=True)
class VirtualHomeGoal:
    task_id: str
    task_name: str
    scene: str
    tl_goal: str | None
    """The dataset's goal formula, verbatim; None for the 4 tasks that have none."""

    def formula(self) -> Formula | None:
        return None if self.tl_goal is None else parse(self.tl_goal)


@dataclass(frozen=True)
class BehaviorObject:
    name: str
    """LTL name, e.g. ``jar_n_01.1``."""
    category: str
    """LTL type, e.g. ``jar_n_01``."""
    bddl_name: str
    bddl_category: str


@dataclass(frozen=True)
class BehaviorGoal:
    task_id: str
    """The demo / problem file name, e.g. ``bottling_fruit_0_Wainscott_0_int_0_2021-...``."""
    task_name: str
    """The BEHAVIOR activity, e.g. ``bottling_fruit``."""
    problem: str
    bddl_goal: str
    """The raw ``(:goal ...)`` section."""
    bddl_problem: str
    """The whole BDDL problem text (objects and initial state for simulators)."""
    tl_goal: str
    """planproof's typed form (typed quantifiers, ``forpairs``), printed by ``to_text``."""
    tl_goal_reference: str
    """The same goal in the EAI reference's untyped string format."""
    objects: tuple[BehaviorObject, ...]

    def formula(self) -> Formula:
        return parse(self.tl_goal)

    def universe(self) -> Universe:
        return Universe.of({o.name: {o.category} for o in self.objects})


@dataclass(frozen=True)
class EaiGoals:
    virtualhome: tuple[VirtualHomeGoal, ...]
    behavior: tuple[BehaviorGoal, ...]
    wheel: str
    wheel_sha256: str

    def summary(self) -> dict[str, Any]:
        """Counts and provenance, as plain JSON-ready data (for ``planproof data fetch``)."""
        return {
            "source": f"{self.wheel} (sha256 {self.wheel_sha256})",
            "cache": str(goals_path()),
            "virtualhome_task_ids": len(self.virtualhome),
            "virtualhome_goals": len(self.virtualhome_tl_goals()),
            "behavior_goals": len(self.behavior),
        }

    def virtualhome_tl_goals(self) -> dict[str, str]:
        """task id → goal string, for the tasks that have a goal."""
        return {g.task_id: g.tl_goal for g in self.virtualhome if g.tl_goal is not None}

    def virtualhome_task(self, task_id: str) -> VirtualHomeGoal:
        for g in self.virtualhome:
            if g.task_id == task_id:
                return g
        raise KeyError(task_id)

    def behavior_task(self, task_id_or_name: str) -> BehaviorGoal:
        """Look up by demo id or by activity name."""
        for g in self.behavior:
            if task_id_or_name in (g.task_id, g.task_name):
                return g
        raise KeyError(task_id_or_name)


def goals_path() -> Path:
    return cache_dir() / "eai" / GOALS_FILE


def _stamp() -> dict[str, Any]:
    return {
        "format": "planproof.eai_goals",
        "version": CONVERTER_VERSION,
        "wheel": WHEEL_NAME,
        "wheel_sha256": WHEEL_SHA256,
    }


def _virtualhome(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict):
        raise DataUnavailableError(f"{VH_GOALS_MEMBER}: expected an object of scenes")
    out: list[dict[str, Any]] = []
    for scene, tasks in data.items():
        if not isinstance(tasks, dict):
            raise DataUnavailableError(f"{VH_GOALS_MEMBER}: scene {scene!r} is not an object")
        for task_name, instances in tasks.items():
            if not isinstance(instances, dict):
                raise DataUnavailableError(f"{VH_GOALS_MEMBER}: task {task_name!r} malformed")
            for task_id, entry in instances.items():
                goal = entry.get("tl_goal") if isinstance(entry, dict) else None
                if goal is not None and not isinstance(goal, str):
                    raise DataUnavailableError(f"{VH_GOALS_MEMBER}: {task_id} tl_goal malformed")
                out.append(
                    {"task_id": task_id, "task_name": task_name, "scene": scene, "tl_goal": goal}
                )
    return out


def _behavior(task_id: str, text: str) -> dict[str, Any]:
    problem = parse_problem(text)
    goal = bddl_goal_to_ltl(problem.goal, objects=problem.objects)
    return {
        "task_id": task_id,
        "task_name": re.sub(r"_[0-9]+$", "", problem.name),
        "problem": problem.name,
        "bddl_goal": problem.goal_text,
        "bddl_problem": text,
        "tl_goal": to_text(goal),
        "tl_goal_reference": reference_tl_string(problem.goal),
        "objects": [
            {"name": ltl_object(o), "category": ltl_category(c), "bddl_name": o, "bddl_category": c}
            for o, c in problem.objects.items()
        ],
    }


def convert_wheel(wheel: Path) -> dict[str, Any]:
    """Read the goal data out of the wheel and convert it (the cached payload)."""
    with open_wheel(wheel) as w:
        vh = _virtualhome(w.read_json(VH_GOALS_MEMBER))
        members = w.members(BEHAVIOR_PDDL_DIR, ".pddl")
        behavior = [_behavior(Path(m).stem, w.read_text(m)) for m in members]
    return {"virtualhome": vh, "behavior": behavior}


def _from_json(doc: Mapping[str, Any]) -> EaiGoals:
    stamp = doc["stamp"]
    return EaiGoals(
        virtualhome=tuple(VirtualHomeGoal(**g) for g in doc["virtualhome"]),
        behavior=tuple(
            BehaviorGoal(
                **{k: v for k, v in g.items() if k != "objects"},
                objects=tuple(BehaviorObject(**o) for o in g["objects"]),
            )
            for g in doc["behavior"]
        ),
        wheel=stamp["wheel"],
        wheel_sha256=stamp["wheel_sha256"],
    )


def load_eai_goals() -> EaiGoals:
    """The EAI goals, from the cache; on first use fetches the wheel and converts it."""
    doc = cached_json(goals_path(), _stamp(), lambda: convert_wheel(ensure_wheel()))
    return _from_json(doc)
