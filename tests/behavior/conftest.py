"""Fixtures for the BEHAVIOR world: the 100 converted tasks (real data, fetched once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planproof.data import DataUnavailableError
from planproof.simulators.behavior.tasks import load_behavior_tasks
from planproof.simulators.core import Task
from tests.helpers import needed_resource


@pytest.fixture(scope="session")
def behavior_tasks(eai_wheel: Path) -> tuple[Task, ...]:
    """All 100 BEHAVIOR tasks (skipped offline, a failure under CI)."""
    return needed_resource(load_behavior_tasks, DataUnavailableError, "EAI BEHAVIOR data")
