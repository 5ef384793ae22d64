"""ruff (lint and format) and mypy (strict) are part of the suite, configured in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean() -> None:
    exe = shutil.which("ruff")
    assert exe is not None, "ruff is a test extra: pip install -e '.[test]'"
    proc = subprocess.run(
        [exe, "check", "planproof", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    exe = shutil.which("ruff")
    assert exe is not None, "ruff is a test extra: pip install -e '.[test]'"
    proc = subprocess.run(
        [exe, "format", "--check", "planproof", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
