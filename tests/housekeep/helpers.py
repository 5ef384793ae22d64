"""A small scene shared by the Housekeep tests (categories from the bundled sample store)."""

from __future__ import annotations

from typing import Any


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
