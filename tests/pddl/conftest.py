"""Fixtures of the pddl tests: the EAI PDDL data (skipped offline, required under CI)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from planproof.pddl.eai import EaiPddl, load_eai_pddl

T = TypeVar("T")


@pytest.fixture(scope="session")
def vh(eai_wheel: Path) -> EaiPddl:
    return load_eai_pddl("virtualhome")


@pytest.fixture(scope="session")
def bh(eai_wheel: Path) -> EaiPddl:
    return load_eai_pddl("behavior")


def sample(ids: Sequence[T], n: int) -> list[T]:
    """``n`` items spread evenly over ``ids`` (a fixed, representative sample)."""
    n = min(n, len(ids))
    step = len(ids) / n
    return [ids[int(i * step)] for i in range(n)]
