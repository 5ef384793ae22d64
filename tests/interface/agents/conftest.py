"""Fixtures for the built-in agents: the real EAI tasks (fetched once; skipped offline,
a failure under CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planproof.data import DataUnavailableError
from planproof.simulators.core import Task
from tests.helpers import needed_resource


@pytest.fixture(scope="session")
def virtualhome_tasks(eai_wheel: Path) -> tuple[Task, ...]:
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    return needed_resource(load_virtualhome_tasks, DataUnavailableError, "EAI VirtualHome data")


@pytest.fixture(scope="session")
def behavior_tasks(eai_wheel: Path) -> tuple[Task, ...]:
    from planproof.simulators.behavior.tasks import load_behavior_tasks

    return needed_resource(load_behavior_tasks, DataUnavailableError, "EAI BEHAVIOR data")
