"""One Ray runtime for the whole test session (starting one costs seconds and hundreds of
megabytes), shut down at the end."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator

import pytest

from planproof.executor import Executor, ExecutorConfig, open_executor


@pytest.fixture(scope="session")
def pool() -> Iterator[Executor]:
    """A local pool of two worker processes, shared by the tests of the session."""
    from planproof.executor.local import LocalExecutor

    with LocalExecutor(2) as ex:
        yield ex


@pytest.fixture(scope="session")
def ray_executor() -> Iterator[Executor]:
    """A local Ray runtime with two workers. Ray comes with ``.[test]``: missing, the test
    is skipped on a developer's machine and fails under CI (``CI`` set)."""
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI"):
            pytest.fail("ray is not installed: pip install -e '.[test]'")
        pytest.skip("ray is not installed (pip install -e '.[test]')")
    os.environ.pop("RAY_ADDRESS", None)
    with open_executor(ExecutorConfig("ray", workers=2)) as ex:
        yield ex
