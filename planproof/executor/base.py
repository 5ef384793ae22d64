"""The executor interface and the in-process one.

``map`` keeps at most :attr:`Executor.in_flight` tasks submitted at a time, so memory stays
bounded on long sweeps and each finished task reaches ``on_done`` as soon as it ends (a
caller writes it away there: an interrupted sweep keeps every finished cell).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

from planproof.executor.outcome import Outcome, TaskFailure, Wire, call, from_wire

A = TypeVar("A")
R = TypeVar("R")

OnDone = Callable[[int, Outcome[Any]], None]


class Executor(ABC):
    """Runs ``fn(arg)`` tasks. ``fn`` must be a module-level function and ``arg`` and the
    result picklable (the process pool and Ray send them to other processes). Workers keep
    their imports and module-level caches between tasks, so a task loads shared data (a
    dataset, a domain) through a memoised loader instead of receiving it."""

    name: str = ""
    workers: int = 1

    @property
    def in_flight(self) -> int:
        """How many tasks ``map`` keeps submitted at once."""
        return 2 * max(1, self.workers)

    @abstractmethod
    def submit(self, fn: Callable[[A], R], arg: A) -> concurrent.futures.Future[Outcome[R]]:
        """Start one task; the future always resolves to an :class:`Outcome`."""

    def map(
        self,
        fn: Callable[[A], R],
        items: Iterable[A],
        *,
        on_done: Callable[[int, Outcome[R]], None] | None = None,
    ) -> list[Outcome[R]]:
        """One outcome per item, in the items' order; ``on_done(index, outcome)`` is called
        in this thread as each task ends, in the order they end."""
        work = list(items)
        results: list[Outcome[R] | None] = [None] * len(work)
        pending: dict[concurrent.futures.Future[Outcome[R]], int] = {}
        queue = iter(enumerate(work))

        def fill() -> None:
            while len(pending) < self.in_flight:
                nxt = next(queue, None)
                if nxt is None:
                    return
                pending[self.submit(fn, nxt[1])] = nxt[0]

        try:
            fill()
            while pending:
                done, _ = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for fut in done:
                    index = pending.pop(fut)
                    outcome = fut.result()
                    results[index] = outcome
                    if on_done is not None:
                        on_done(index, outcome)
                fill()
        finally:
            for fut in pending:
                fut.cancel()
        return [r for r in results if r is not None]

    def close(self) -> None:  # noqa: B027 -- nothing to release by default
        """Release the workers (a no-op for the in-process executor)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs each task at once in this process: no start-up, no pickling; the right choice
    for one worker or a handful of tasks. A task that kills the interpreter ends the run
    here (there is no worker to lose), which only a pool or Ray can survive."""

    name = "serial"
    workers = 1

    @property
    def in_flight(self) -> int:
        return 1

    def submit(self, fn: Callable[[A], R], arg: A) -> concurrent.futures.Future[Outcome[R]]:
        fut: concurrent.futures.Future[Outcome[R]] = concurrent.futures.Future()
        fut.set_result(from_wire(call(fn, arg)))
        return fut


def map_items(
    executor: Executor | None,
    fn: Callable[[A], R],
    items: Iterable[A],
    *,
    on_done: Callable[[int, Outcome[R]], None] | None = None,
) -> list[Outcome[R]]:
    """``executor.map``, in this process when no executor is given."""
    return (executor or SerialExecutor()).map(fn, items, on_done=on_done)


def settle(
    outer: concurrent.futures.Future[Outcome[R]], outcome: Callable[[], Outcome[Any] | None]
) -> None:
    """Resolve ``outer`` with ``outcome()`` (``None``: the task was handed on, a retry). A
    cancelled task cancels ``outer``; any other exception (a result that could not be
    unpickled, a task the engine could not start) becomes the task's failure."""
    try:
        result = outcome()
    except concurrent.futures.CancelledError:
        outer.cancel()
        return
    except Exception as exc:
        result = Outcome(failure=TaskFailure(type(exc).__name__, str(exc)[:1000]))
    if result is not None:
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            outer.set_result(result)  # unless the caller cancelled it meanwhile


def run_batch(job: tuple[Callable[[Any], Any], Sequence[Any]]) -> list[Wire]:
    """A worker's side of :func:`map_batched`: each item's exception stays its own."""
    fn, chunk = job
    return [call(fn, x) for x in chunk]


def batches(n: int, size: int) -> list[range]:
    """``range(n)`` cut into consecutive pieces of at most ``size``."""
    return [range(i, min(i + size, n)) for i in range(0, n, max(1, size))]


def map_batched(
    executor: Executor,
    fn: Callable[[A], R],
    items: Sequence[A],
    *,
    size: int,
    on_done: Callable[[int], None] | None = None,
) -> list[Outcome[R]]:
    """One outcome per item, computed ``size`` items per task: for work of a few
    milliseconds per item (an episode), where a task per item would cost more in
    transport than in work. A batch whose worker died twice fails each of its items;
    ``on_done(items finished so far)`` follows progress."""
    pieces = batches(len(items), size)
    out: list[Outcome[R]] = []
    finished = 0

    def tick(index: int, _outcome: Outcome[list[Wire]]) -> None:
        nonlocal finished
        finished += len(pieces[index])
        if on_done is not None:
            on_done(finished)

    jobs = [(fn, [items[i] for i in r]) for r in pieces]
    for r, outcome in zip(pieces, executor.map(run_batch, jobs, on_done=tick), strict=True):
        if outcome.failure is not None or outcome.value is None:
            out.extend(Outcome(failure=outcome.failure) for _ in r)
        else:
            out.extend(from_wire(w) for w in outcome.value)
    return out
