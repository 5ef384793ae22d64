"""Choosing an executor: ``local`` (the default, a process pool on this machine) or
``ray``; ``serial`` runs in this process and is what ``local`` becomes with one worker or
one task, where starting processes would only cost time."""

from __future__ import annotations

import os
from dataclasses import dataclass

from planproof.boundary.limits import LOCAL_WORKERS_PER_CPU
from planproof.executor.base import Executor, SerialExecutor

EXECUTORS = ("local", "ray")
"""The choices a person makes on the command line (``--executor``)."""

_KINDS = ("serial", *EXECUTORS)


class ExecutorError(ValueError):
    """An executor that cannot be opened as asked (bad worker count, Ray missing or its
    cluster unreachable); the message says what to do."""


def cpu_count() -> int:
    """CPUs this process may use (its affinity, not the machine's total)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class ExecutorConfig:
    """``workers`` None means every CPU (local) or every CPU of the cluster (ray);
    ``address`` None means ``$RAY_ADDRESS``, and without it a local Ray runtime."""

    kind: str = "local"
    workers: int | None = None
    address: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ExecutorError(f"unknown executor {self.kind!r}; choose {' or '.join(_KINDS)}")
        if self.workers is not None and self.workers < 1:
            raise ExecutorError(f"--workers must be at least 1, not {self.workers}")
        if self.address is not None and self.kind != "ray":
            raise ExecutorError("--ray-address needs --executor ray")

    def ray_address(self) -> str | None:
        return self.address or os.environ.get("RAY_ADDRESS", "").strip() or None


def open_executor(config: ExecutorConfig | None = None, *, tasks: int | None = None) -> Executor:
    """The executor ``config`` asks for, sized for ``tasks`` tasks when that is known.
    Close it (or use it in a ``with`` block) to release its workers."""
    config = config or ExecutorConfig()
    if config.kind == "ray":
        from planproof.executor.ray_executor import RayExecutor, RayUnavailableError

        try:
            return RayExecutor(config.workers, config.ray_address())
        except RayUnavailableError as exc:
            raise ExecutorError(str(exc)) from None
        except Exception as exc:  # Ray raises a bare Exception when its node does not
            # come up within its own 30 s (an overloaded machine): still "cannot start"
            raise ExecutorError(
                f"cannot start or reach Ray at {config.ray_address() or 'a local runtime'}: "
                f"{str(exc)[:300]}"
            ) from None
    workers = cpu_count() if config.workers is None else config.workers
    workers = min(workers, LOCAL_WORKERS_PER_CPU * cpu_count())  # a bounded clamp
    if tasks is not None:
        workers = min(workers, tasks)
    if config.kind == "serial" or workers <= 1:
        return SerialExecutor()
    from planproof.executor.local import LocalExecutor

    return LocalExecutor(workers)
