"""Task identifiers as the published EAI files write them.

virtualhome-eval 0.1.1's subgoal-decomposition answers name VirtualHome tasks
``scene_1_27_2`` (scene, then the task id) where every other file, and planproof, says
``27_2``; its evaluator looks tasks up with the scene prefix, the others without.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TypeVar

T = TypeVar("T")

SCENE_PREFIX = "scene_1_"
"""The only VirtualHome scene of the EAI data."""


def canonical_identifiers(
    by_id: Mapping[str, T], known: Collection[str]
) -> tuple[dict[str, T], list[str]]:
    """``by_id`` with ``scene_1_<id>`` keys read as ``<id>`` where that is a known task
    (and ``<id>`` itself is not also in the file); the map and a note saying how many."""
    out: dict[str, T] = {}
    renamed = 0
    for ident, value in by_id.items():
        short = ident.removeprefix(SCENE_PREFIX)
        if ident not in known and short != ident and short in known and short not in by_id:
            out[short] = value
            renamed += 1
        else:
            out[ident] = value
    notes = [f"{renamed} identifiers written {SCENE_PREFIX}<id> read as <id>"] if renamed else []
    return out, notes
