"""Shared fixtures. The suite writes only under pytest's temporary directories:

- ``$PLANPROOF_CACHE_DIR`` is a per-session directory, seeded with symbolic links to the
  files the user's planproof cache already holds (the fetched wheels, the converted data,
  the published answers, reproduce's cell results), so nothing is fetched or converted
  twice and nothing is written into the user's cache (a file the code rewrites replaces
  its link, atomically); a missing wheel is fetched into the session directory;
- Ray's temporary directory (``$RAY_TMPDIR``) is in the session directory too;
- the reference implementation's venvs (test artefacts, up to ~1.5 GB) are built under
  pytest's temporary root (``/tmp/pytest-of-USER/planproof-reference-envs``), shared by
  the sessions and their workers; a current venv in the user's cache is reused;
- hypothesis keeps no example database and its other files (the constants it collects
  from the code, its patches) go to a per-process temporary directory, never
  ``.hypothesis`` in the checkout; it draws the same examples on every run (profile
  ``planproof``); ``--hypothesis-profile planproof-explore --hypothesis-seed N`` draws
  new ones, to hunt for bugs.

The persistent planner cache is off for the suite (and the worker processes it starts):
planner tests must run the planner."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

from planproof.data import DataUnavailableError, EaiGoals, ensure_wheel, load_eai_goals
from tests.helpers import needed_resource

os.environ["PLANPROOF_PLAN_CACHE"] = "off"
# Tests bound work, never wall-clock time: hypothesis's default 200 ms deadline per
# example is a timing assertion that fails on a loaded machine (timings are in benchmarks/).
# No example database: it would grow in the checkout (.hypothesis/); failing examples
# that matter are written into the tests with @example.
# Derandomised: a verdict is a function of the code, so a rare counterexample cannot turn
# one run of an unchanged commit red (as simplify's idempotence did). Random search is
# opt-in: `--hypothesis-profile planproof-explore` (with `--hypothesis-seed N` to repeat
# a run); what it finds goes into the tests as @example.
settings.register_profile("planproof", deadline=None, database=None, derandomize=True)
settings.register_profile(
    "planproof-explore", settings.get_profile("planproof"), derandomize=False, print_blob=True
)
settings.load_profile("planproof")
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="planproof-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)

REFERENCE_ENVS = "PLANPROOF_REFERENCE_ENVS"  # benchmarks.reference_env.ENVS_VARIABLE


SEEDED = ("eai", "published", "reproduce", "compiled")
"""Directories of the user's cache whose files the session cache links to."""


def _pytest_temp_root() -> Path:
    """pytest's temporary root for this user (the parent of its numbered basetemps)."""
    import getpass
    import tempfile

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return Path(tempfile.gettempdir()) / f"pytest-of-{user}"


def _seed(session_cache: Path) -> None:
    """Link the user's cached files into ``session_cache`` (files one by one, so that
    new files land in the session directory; reference venvs as whole directories, only
    read when current)."""
    from planproof.data.cache import cache_dir

    user = cache_dir()
    for name in SEEDED:
        for src in (user / name).rglob("*") if (user / name).is_dir() else ():
            if src.is_file() and not src.name.endswith((".lock", ".sqlite3", ".tmp")):
                dst = session_cache / src.relative_to(user)
                dst.parent.mkdir(parents=True, exist_ok=True)
                if not dst.exists():
                    dst.symlink_to(src)
    for venv in user.glob("reference-*-venv"):
        if venv.is_dir() and not (session_cache / venv.name).exists():
            (session_cache / venv.name).symlink_to(venv, target_is_directory=True)


def pytest_configure(config: pytest.Config) -> None:
    """The reference venvs' place (see the module docstring; ``$PLANPROOF_REFERENCE_ENVS``
    chooses another), and xdist's grouping."""
    os.environ.setdefault(REFERENCE_ENVS, str(_pytest_temp_root() / "planproof-reference-envs"))
    # ``-n 2`` spreads tests by load; tests marked ``xdist_group`` (the Ray tests, which
    # start a whole Ray runtime per worker) then share one worker. An explicit --dist wins.
    if not any(str(a).startswith("--dist") for a in config.invocation_params.args):
        if getattr(config.option, "dist", "no") == "load":  # the controller
            config.option.dist = "loadgroup"
        if hasattr(config, "workerinput"):  # a worker: its test ids name their group
            config.option.loadgroup = True


def pytest_sessionstart(session: pytest.Session) -> None:
    """The session's own planproof cache and Ray directory (see the module docstring),
    set before any test is collected, so child processes inherit them too."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        factory = pytest.TempPathFactory.from_config(session.config, _ispytest=True)
    base = factory.getbasetemp()
    cache = base / "planproof-cache"
    cache.mkdir(exist_ok=True)
    _seed(cache)
    os.environ["PLANPROOF_CACHE_DIR"] = str(cache)
    # Ray's socket paths must stay under 107 characters, which a worker's basetemp
    # (/tmp/pytest-of-USER/pytest-N/popen-gwK/...) exceeds: a short directory of the
    # session's own in the system's temporary directory, removed when the session ends.
    os.environ["RAY_TMPDIR"] = tempfile.mkdtemp(prefix="pp-ray-")
    # xdist's workers inherit COLUMNS=80 from execnet; the commands honour a COLUMNS the
    # user set, so the suite runs without one, as a script or CI log would.
    os.environ.pop("COLUMNS", None)


def pytest_sessionfinish(session: pytest.Session) -> None:
    ray = os.environ.get("RAY_TMPDIR", "")
    if Path(ray).name.startswith("pp-ray-"):
        shutil.rmtree(ray, ignore_errors=True)
    shutil.rmtree(_HYPOTHESIS_HOME, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str:
    return f"reference venvs (test artefacts, up to ~1.5 GB): {os.environ[REFERENCE_ENVS]}"


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
