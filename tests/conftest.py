"""Shared fixtures. The EAI data fixtures fetch the ``eai-eval`` wheel into the user cache
(or ``$PLANPROOF_CACHE_DIR``) at most once, ever; tests that need a private cache copy the
wheel from here instead of downloading again. The persistent planner cache is off for
the suite (and the worker processes it starts): planner tests must run the planner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from planproof.data import DataUnavailableError, EaiGoals, ensure_wheel, load_eai_goals
from tests.helpers import needed_resource

os.environ["PLANPROOF_PLAN_CACHE"] = "off"
# Tests bound work, never wall-clock time: hypothesis's default 200 ms deadline per
# example is a timing assertion that fails on a loaded machine (timings are in benchmarks/).
settings.register_profile("planproof", deadline=None)
settings.load_profile("planproof")

REFERENCE_ENVS = "PLANPROOF_REFERENCE_ENVS"  # benchmarks.reference_env.ENVS_VARIABLE


def _reference_envs(config: pytest.Config) -> Path:
    cache = getattr(config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("planproof-reference-envs"))
    return Path(config.rootpath) / ".pytest_cache" / "d" / "planproof-reference-envs"


def pytest_configure(config: pytest.Config) -> None:
    """The reference implementation's venvs (up to about 950 MB) are test artefacts: they
    go under ``.pytest_cache`` of the checkout, not into the user's planproof cache
    (``$PLANPROOF_REFERENCE_ENVS`` chooses another place). A current venv already in the
    user cache is reused, never written."""
    os.environ.setdefault(REFERENCE_ENVS, str(_reference_envs(config)))
    # ``-n 2`` spreads tests by load; tests marked ``xdist_group`` (the Ray tests, which
    # start a whole Ray runtime per worker) then share one worker. An explicit --dist wins.
    if not any(str(a).startswith("--dist") for a in config.invocation_params.args):
        if getattr(config.option, "dist", "no") == "load":  # the controller
            config.option.dist = "loadgroup"
        if hasattr(config, "workerinput"):  # a worker: its test ids name their group
            config.option.loadgroup = True


def pytest_report_header(config: pytest.Config) -> str:
    return f"reference venvs (test artefacts, up to ~950 MB): {os.environ[REFERENCE_ENVS]}"


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
