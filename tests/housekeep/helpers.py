"""Fixtures shared by the Housekeep tests: a small scene, and the hand-written store and
episodes of ``tests/data/housekeep/handmade`` whose metric values were worked out by hand
(docs/housekeep.md §6). The hand-written store is **not** Housekeep data: it only makes
the arithmetic checkable; the real store is ``default_store()``."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from planproof.simulators.housekeep.preferences import PreferenceStore, load_store

HANDMADE = Path(__file__).resolve().parents[1] / "data" / "housekeep" / "handmade"
REAL_DEMO = (
    Path(__file__).resolve().parents[2] / "planproof" / "examples" / "housekeep"
) / "real_episodes.jsonl"


@cache
def handmade_store() -> PreferenceStore:
    return load_store(HANDMADE / "preferences.json")


def scene(actions: list[Any] | None = None, **changes: Any) -> dict[str, Any]:
    """Kitchen and bedroom; the cup starts misplaced on the bed, the plate correct in the
    cabinet (capacity 2), the pillow correct on the bed."""
    doc: dict[str, Any] = {
        "id": "small",
        "rooms": {"kitchen_0": "kitchen", "bedroom_0": "bedroom"},
        "receptacles": {
            "cabinet_0": {"category": "cabinet", "room": "kitchen_0", "capacity": 2},
            "sink_0": {"category": "sink", "room": "kitchen_0"},
            "table_0": {"category": "table", "room": "kitchen_0", "capacity": 1},
            "bed_0": {"category": "bed", "room": "bedroom_0"},
        },
        "objects": {
            "cup_0": {"category": "cup", "on": "bed_0"},
            "plate_0": {"category": "plate", "on": "cabinet_0"},
            "pillow_0": {"category": "pillow", "on": "bed_0"},
        },
        "agent": {"id": "robot", "at": "sink_0"},
        "actions": actions or [],
    }
    doc.update(changes)
    return doc
