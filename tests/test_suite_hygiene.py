"""The suite writes only under pytest's temporary directories: the planproof cache, Ray's
temporary directory and the reference venvs are there, hypothesis keeps no database in
the checkout, and a command run by a test writes into the session's cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from planproof.data.cache import cache_dir
from tests.cli.helpers import ROOT, env


def test_the_caches_are_under_the_sessions_temporary_directory(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    base = tmp_path_factory.getbasetemp()
    assert cache_dir() == base / "planproof-cache"
    assert Path(os.environ["RAY_TMPDIR"]) == base / "ray"
    for name in ("PLANPROOF_CACHE_DIR", "RAY_TMPDIR", "PLANPROOF_REFERENCE_ENVS"):
        assert ROOT not in Path(os.environ[name]).parents, name
    assert settings().database is None


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_a_command_run_by_a_test_writes_into_the_session_cache(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The session cache links to the user's files; what a command writes lands beside
    the links (a rewritten file replaces its link), never behind them."""
    cache = tmp_path_factory.getbasetemp() / "planproof-cache"
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_symlink()}
    for link in before:
        assert Path(os.readlink(link)).is_absolute()
    done = subprocess.run(
        [sys.executable, "-m", "planproof.cli", "tasks", "--dataset", "behavior", "--limit", "1"],
        capture_output=True,
        text=True,
        env=env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    after = {p: p.stat().st_mtime_ns for p in before if p.exists()}
    assert after == {p: t for p, t in before.items() if p in after}
