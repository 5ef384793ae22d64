"""Benchmark data: fetched once from its published source, converted, and cached locally."""

from planproof.data.cache import DataUnavailableError, cache_dir
from planproof.data.eai_goals import (
    BehaviorGoal,
    BehaviorObject,
    EaiGoals,
    VirtualHomeGoal,
    load_eai_goals,
)
from planproof.data.eai_wheel import ensure_wheel, open_wheel

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
