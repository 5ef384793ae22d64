"""Helpers for the agent tests."""

from __future__ import annotations

from collections.abc import Sequence

from planproof.simulators.core import Task


def key(task: Task) -> str:
    """How the tests name a task: its identifier (VirtualHome) or activity (BEHAVIOR)."""
    return task.name if task.dataset == "behavior" else task.identifier


def by_key(tasks: Sequence[Task], name: str) -> Task:
    return next(t for t in tasks if key(t) == name)
