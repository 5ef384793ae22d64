"""Helpers shared by test modules."""

from __future__ import annotations

import os
import subprocess
import sys
import time
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


def jumping_clock(monkeypatch: pytest.MonkeyPatch, step: float) -> list[float]:
    """``time.perf_counter`` and ``time.monotonic`` jump ``step`` seconds at every look: a
    machine so loaded that any wall-clock limit is reached at once. Returns the clock's
    one-element state, so a test can check that it was read."""
    now = [0.0]

    def tick() -> float:
        now[0] += step
        return now[0]

    monkeypatch.setattr(time, "perf_counter", tick)
    monkeypatch.setattr(time, "monotonic", tick)
    return now


def modules_loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code`` (start-up cost
    checks: which heavy libraries a command pulls in)."""
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())
