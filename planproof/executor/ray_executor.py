"""Ray as the executor (``pip install 'planproof[ray]'``): a cluster when an address is
given (``--ray-address`` or ``RAY_ADDRESS``), else a local Ray runtime started here with
one CPU per worker.

Ray itself retries a task whose worker dies (``max_retries``), so the same
:data:`~planproof.executor.outcome.MAX_ATTEMPTS` holds as on the process pool; exceptions
raised by the task are data (:func:`~planproof.executor.outcome.call`), never retried.
Every ``PLANPROOF_*`` variable of this process reaches the workers, so they use the same
cache directory (the planner cache among it) when the nodes share a file system; a local
runtime's workers also get this process's import path.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from planproof.executor.base import Executor, settle
from planproof.executor.outcome import (
    MAX_ATTEMPTS,
    Outcome,
    call,
    from_wire,
    worker_died,
)

A = TypeVar("A")
R = TypeVar("R")


class RayUnavailableError(RuntimeError):
    """Ray was chosen but is not installed."""


def import_ray() -> Any:
    """The ``ray`` module (untyped here: mypy need not analyse all of Ray)."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayUnavailableError(
            "--executor ray needs Ray: pip install 'planproof[ray]'"
        ) from None


def worker_env(*, local: bool = False) -> dict[str, str]:
    """The environment Ray workers need to see: planproof's settings, and on a local
    runtime this process's import path (Ray does not pass ``sys.path`` on, so code this
    process imports from a source tree, tests included, would not import in a worker)."""
    env = {k: v for k, v in os.environ.items() if k.startswith("PLANPROOF_")}
    if local:
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    return env


class RayExecutor(Executor):
    name = "ray"

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        ray = import_ray()
        self._ray = ray
        self._owned = False
        if not ray.is_initialized():
            options: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
            if address:
                ray.init(address=address, runtime_env={"env_vars": worker_env()}, **options)
            else:
                ray.init(
                    address="local",
                    num_cpus=workers or os.cpu_count() or 1,
                    include_dashboard=False,
                    runtime_env={"env_vars": worker_env(local=True)},
                    **options,
                )
            self._owned = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = min(workers, cpus) if workers else cpus
        self._remote = ray.remote(num_cpus=1, max_retries=MAX_ATTEMPTS - 1)(call)
        self._crash = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError)

    def submit(self, fn: Callable[[A], R], arg: A) -> concurrent.futures.Future[Outcome[R]]:
        outer: concurrent.futures.Future[Outcome[R]] = concurrent.futures.Future()
        inner = self._remote.remote(fn, arg).future()

        def outcome(f: concurrent.futures.Future[Any]) -> Outcome[Any]:
            try:
                return from_wire(f.result())
            except self._crash:
                return worker_died(MAX_ATTEMPTS)

        def done(f: concurrent.futures.Future[Any]) -> None:
            settle(outer, lambda: outcome(f))

        inner.add_done_callback(done)
        return outer

    def close(self) -> None:
        """Stop the local Ray runtime if this executor started it (a connection to a
        cluster is closed, the cluster keeps running)."""
        if self._owned:
            self._ray.shutdown()
            self._owned = False
