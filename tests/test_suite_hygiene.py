"""The suite writes only under temporary directories: the planproof cache and the
reference venvs are under pytest's, Ray's is a short one of the session's own (its socket
paths are limited to 107 characters) removed when the session ends, hypothesis keeps no
database and writes none of its files (collected constants, patches) into the checkout,
and what the code writes into the seeded cache never reaches the user's."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from planproof.data.cache import cache_dir
from tests.cli.helpers import ROOT


def test_the_caches_are_under_the_sessions_temporary_directory(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    base = tmp_path_factory.getbasetemp()
    assert cache_dir() == base / "planproof-cache"
    ray = Path(os.environ["RAY_TMPDIR"])  # short (socket paths), removed at the end
    assert ray.name.startswith("pp-ray-") and ray.parent == Path(tempfile.gettempdir())
    for name in ("PLANPROOF_CACHE_DIR", "RAY_TMPDIR", "PLANPROOF_REFERENCE_ENVS"):
        assert ROOT not in Path(os.environ[name]).parents, name
    assert settings().database is None
    from hypothesis.configuration import storage_directory

    found = storage_directory(intent_to_write=False)
    home = Path(getattr(found, "path", found)).resolve()  # a wrapper since hypothesis 6.13x
    assert ROOT.resolve() not in home.parents and home.name.startswith("planproof-hypothesis-")
    assert home.parent == Path(tempfile.gettempdir()).resolve()


def test_the_seeded_session_cache_never_writes_behind_its_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session cache links to the user's files; a file the code rewrites (atomically)
    replaces its link, and the user's file stays as it was."""
    from planproof.boundary import replace_text
    from tests.conftest import _seed

    user = tmp_path / "user"
    (user / "eai").mkdir(parents=True)
    (user / "eai" / "tasks.json").write_text("user's")
    (user / "planner-cache.sqlite3").write_text("db")
    (user / "reference-x-venv" / "bin").mkdir(parents=True)
    session = tmp_path / "session"
    session.mkdir()
    monkeypatch.setenv("PLANPROOF_CACHE_DIR", str(user))
    _seed(session)
    link = session / "eai" / "tasks.json"
    assert link.is_symlink() and link.read_text() == "user's"
    assert (session / "reference-x-venv").is_symlink()
    assert not (session / "planner-cache.sqlite3").exists()  # written in place: not linked
    replace_text(link, "session's")
    assert not link.is_symlink() and link.read_text() == "session's"
    assert (user / "eai" / "tasks.json").read_text() == "user's"
