"""Helpers shared by test modules."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def needed_resource(build: Callable[[], T], error: type[Exception], what: str) -> T:
    """``build()``; if it raises ``error``, skip with the reason on a developer's machine,
    but fail under CI (``CI`` set), so tests on real data are never skipped silently."""
    try:
        return build()
    except error as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{what} unavailable: {exc}")
