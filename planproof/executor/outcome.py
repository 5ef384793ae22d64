"""What a task ends in, on every executor alike.

Workers send back plain tuples, not exception objects: a user's exception class does not
always survive pickling, and a Ray task error wraps it differently from a process pool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

R = TypeVar("R")

MAX_ATTEMPTS = 2
"""A task whose worker dies is tried this many times in all (once more), then failed."""

WORKER_DIED = "worker-died"

_MESSAGE_LIMIT = 1000


@dataclass(frozen=True)
class TaskFailure:
    """Why a task has no value: ``kind`` is the exception's ``kind`` attribute or class
    name, or ``"worker-died"`` when the process running it died ``attempts`` times."""

    kind: str
    message: str
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "attempts": self.attempts}


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """A task's value, or why there is none (``failure`` is set exactly when it failed)."""

    value: R | None = None
    failure: TaskFailure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def unwrap(self) -> R:
        """The value; raises :class:`TaskFailedError` for a failed task."""
        if self.failure is not None:
            raise TaskFailedError(self.failure)
        return self.value  # type: ignore[return-value]  # None is a legitimate value


class TaskFailedError(RuntimeError):
    """Raised by :meth:`Outcome.unwrap` on a failed task."""

    def __init__(self, failure: TaskFailure) -> None:
        super().__init__(f"{failure.kind}: {failure.message}")
        self.failure = failure


Wire = tuple[str, Any, str]
"""``("ok", value, "")`` or ``("error", kind, message)``: what crosses a process boundary."""


def call(fn: Callable[[Any], Any], arg: Any) -> Wire:
    """Run one task in a worker; every exception becomes data (see the module docstring)."""
    try:
        return ("ok", fn(arg), "")
    except Exception as exc:
        kind = str(getattr(exc, "kind", "") or type(exc).__name__)
        message = str(getattr(exc, "message", "") or exc)[:_MESSAGE_LIMIT]
        return ("error", kind, message or type(exc).__name__)


def from_wire(wire: Wire) -> Outcome[Any]:
    status, a, b = wire
    if status == "ok":
        return Outcome(a)
    return Outcome(failure=TaskFailure(str(a), b))


def worker_died(attempts: int) -> Outcome[Any]:
    """The same failure on every executor, so their results compare byte for byte."""
    return Outcome(
        failure=TaskFailure(
            WORKER_DIED,
            f"the worker process died while running this task ({attempts} attempts)",
            attempts,
        )
    )


def echo(x: Any) -> Any:
    """A task that does nothing: what a round trip through an executor costs is measured
    with it (``benchmarks/bench_executor.py``)."""
    return x
