"""Shared fixtures: the EAI tasks (converted once per session)."""

from __future__ import annotations

import pytest

from planproof.simulators.core import Task


@pytest.fixture(scope="session")
def vh_tasks() -> tuple[Task, ...]:
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    return load_virtualhome_tasks()


@pytest.fixture(scope="session")
def behavior_tasks() -> tuple[Task, ...]:
    from planproof.simulators.behavior.tasks import load_behavior_tasks

    return load_behavior_tasks()


@pytest.fixture(scope="session")
def wash(vh_tasks: tuple[Task, ...]) -> Task:
    """VirtualHome 27_2 "Wash clothes": closed/on/plugged_in(washing_machine.1001),
    ontop(clothes_jacket.1003 / soap.1002, washing_machine.1001)."""
    return next(t for t in vh_tasks if t.identifier == "27_2")


@pytest.fixture(scope="session")
def tv(vh_tasks: tuple[Task, ...]) -> Task:
    """VirtualHome 188_1: an action goal ``touch or push`` besides state goals."""
    return next(t for t in vh_tasks if t.identifier == "188_1")
