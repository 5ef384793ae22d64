"""The ``eai-eval`` wheel from PyPI: the EAI tasks (goal formulas, BDDL problems).

A :class:`~planproof.data.wheels.PinnedWheel`; this module keeps the names the rest of
planproof reads it by.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from planproof.data.wheels import (
    DOWNLOAD_TIMEOUT,
    PinnedWheel,
    WheelReader,
    ensure,
    open_pinned,
    verify,
)

EAI_EVAL_VERSION = "1.0.5"
WHEEL_SHA256 = "fe09f2a84cfb2451e111d02a2fa57e18797e747b73de23cb036d0d4e6502099f"
"""SHA-256 of the wheel on PyPI; a different file (mirror, tampering) is rejected."""

VH_GOALS_MEMBER = "virtualhome_eval/resources/task_state_LTL_formula_accurate.json"
BEHAVIOR_PDDL_DIR = "behavior_eval/evaluation/transition_modeling/resources/pddl_behavior/"

EAI_WHEEL = PinnedWheel(
    distribution="eai-eval",
    version=EAI_EVAL_VERSION,
    sha256=WHEEL_SHA256,
    folder="eai",
    what="EAI data",
    size_hint="~27 MB",
    required=((VH_GOALS_MEMBER, ""), (BEHAVIOR_PDDL_DIR, ".pddl")),
)
WHEEL_NAME = EAI_WHEEL.filename
RECORD_MEMBER = EAI_WHEEL.record_member

EaiWheel = WheelReader


def wheel_path() -> Path:
    """Where the wheel lives in the cache (put a manually downloaded copy here)."""
    return EAI_WHEEL.path()


def verify_wheel(path: Path) -> None:
    """Raise :class:`DataUnavailableError` unless ``path`` is the pinned eai-eval wheel."""
    verify(EAI_WHEEL, path)


def ensure_wheel(*, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """The verified wheel in the cache, downloading it on first use only."""
    return ensure(EAI_WHEEL, timeout=timeout)


@contextmanager
def open_wheel(path: Path | None = None) -> Iterator[WheelReader]:
    """Open the wheel (``ensure_wheel()`` unless a path is given) for reading data."""
    with open_pinned(EAI_WHEEL, path) as reader:
        yield reader
