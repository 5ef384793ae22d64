"""The reference implementation's venvs are test artefacts: the suite builds them under
pytest's temporary root (``$PLANPROOF_REFERENCE_ENVS``), never into the checkout or the
user's planproof cache, and reuses a current one the cache already holds."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from benchmarks import reference_env
from tests.conftest import REFERENCE_ENVS


def test_the_suite_builds_reference_venvs_under_pytests_temporary_root() -> None:
    assert REFERENCE_ENVS == reference_env.ENVS_VARIABLE
    where = Path(os.environ[REFERENCE_ENVS])
    assert where.parent.name.startswith("pytest-of-") and where.name == "planproof-reference-envs"
    assert Path(tempfile.gettempdir()) in where.parents
    assert reference_env.envs_root() == where


def test_venv_dir_follows_the_variable_and_reuses_a_current_cached_venv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANPROOF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(REFERENCE_ENVS, str(tmp_path / "artefacts"))
    flavour = reference_env.LTL
    assert reference_env.venv_dir(flavour) == tmp_path / "artefacts" / flavour.venv
    # a current venv in the user cache (stamp and interpreter present) is reused
    cached = tmp_path / "cache" / flavour.venv
    python = cached / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("", encoding="utf-8")
    stamp = reference_env._stamp(flavour)
    (cached / reference_env.STAMP_NAME).write_text(json.dumps(stamp), encoding="utf-8")
    assert reference_env.venv_dir(flavour) == cached
    monkeypatch.delenv(REFERENCE_ENVS)
    assert reference_env.venv_dir(flavour) == cached  # benchmarks: the planproof cache
