"""Shared fixtures. The EAI data fixtures fetch the ``eai-eval`` wheel into the user cache
(or ``$PLANPROOF_CACHE_DIR``) at most once, ever; tests that need a private cache copy the
wheel from here instead of downloading again."""

from __future__ import annotations

from pathlib import Path

import pytest

from planproof.data import DataUnavailableError, EaiGoals, ensure_wheel, load_eai_goals
from tests.helpers import needed_resource


@pytest.fixture(scope="session")
def eai_wheel() -> Path:
    """The verified eai-eval wheel. On a developer's offline machine the test is skipped
    with pip's reason (``pytest -m "not data"`` leaves these out); under CI (``CI`` set) a
    missing wheel is a failure, so the real-data tests can never be skipped silently."""
    return needed_resource(ensure_wheel, DataUnavailableError, "EAI data")


@pytest.fixture(scope="session")
def eai_goals(eai_wheel: Path) -> EaiGoals:
    """All converted EAI goals (338 VirtualHome goal strings, 100 BEHAVIOR goals)."""
    return load_eai_goals()
