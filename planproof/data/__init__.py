"""Benchmark data: fetched once from its published source, converted, and cached locally.

The goal-conversion names (``load_eai_goals`` ...) are imported on first use: they need
the goal parser, which commands that only read cached tasks never load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planproof.data.cache import DataUnavailableError, cache_dir
from planproof.data.eai_wheel import ensure_wheel, open_wheel

if TYPE_CHECKING:
    from planproof.data.eai_goals import (
        BehaviorGoal,
        BehaviorObject,
        EaiGoals,
        VirtualHomeGoal,
        load_eai_goals,
    )

_LAZY = frozenset(
    {"BehaviorGoal", "BehaviorObject", "EaiGoals", "VirtualHomeGoal", "load_eai_goals"}
)

__all__ = [
    "BehaviorGoal",
    "BehaviorObject",
    "DataUnavailableError",
    "EaiGoals",
    "VirtualHomeGoal",
    "cache_dir",
    "ensure_wheel",
    "load_eai_goals",
    "open_wheel",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from planproof.data import eai_goals

        return getattr(eai_goals, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
