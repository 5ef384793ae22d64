"""The default executor: a pool of worker processes on this machine (pebble).

pebble rather than ``concurrent.futures.ProcessPoolExecutor``: when a worker dies, pebble
fails only the task that worker was running (``ProcessExpired``) and replaces the worker,
where the standard pool breaks and fails every pending task, so the culprit could not be
told from its neighbours. Workers start with ``spawn``: the parent runs threads (pebble's
own, asyncio's), and a forked child could inherit one of their locks held.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import signal
from collections.abc import Callable
from typing import Any, TypeVar

from planproof.executor.base import Executor, settle
from planproof.executor.outcome import (
    MAX_ATTEMPTS,
    Outcome,
    TaskFailure,
    call,
    from_wire,
    worker_died,
)

A = TypeVar("A")
R = TypeVar("R")


def ignore_interrupts() -> None:
    """Worker start-up: Ctrl-C at a terminal signals the whole process group, and a worker
    interrupted in the middle of a task printed a traceback (or z3's half-built-context
    warning) for each worker. Only the parent decides: it stops the pool, which ends
    the workers, and reports the interrupt once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalExecutor(Executor):
    name = "local"

    def __init__(self, workers: int) -> None:
        import pebble

        if workers < 1:
            raise ValueError("a process pool needs at least one worker")
        self.workers = workers
        self._pebble = pebble
        self._pool: Any = pebble.ProcessPool(
            max_workers=workers,
            context=multiprocessing.get_context("spawn"),
            initializer=ignore_interrupts,
        )

    def submit(self, fn: Callable[[A], R], arg: A) -> concurrent.futures.Future[Outcome[R]]:
        outer: concurrent.futures.Future[Outcome[R]] = concurrent.futures.Future()
        self._dispatch(fn, arg, outer, 1)
        return outer

    def _dispatch(
        self,
        fn: Callable[[A], R],
        arg: A,
        outer: concurrent.futures.Future[Outcome[R]],
        attempt: int,
    ) -> None:
        try:
            inner = self._pool.submit(call, None, fn, arg)
        except RuntimeError as exc:  # pebble: the pool itself failed (a worker cannot start)
            outer.set_result(Outcome(failure=TaskFailure("pool-error", str(exc)[:1000])))
            return

        def outcome(f: concurrent.futures.Future[Any]) -> Outcome[Any] | None:
            try:
                return from_wire(f.result())
            except self._pebble.ProcessExpired:
                if attempt < MAX_ATTEMPTS:
                    self._dispatch(fn, arg, outer, attempt + 1)
                    return None
                return worker_died(attempt)

        def done(f: concurrent.futures.Future[Any]) -> None:
            if not outer.done():  # unless the caller cancelled it meanwhile
                settle(outer, lambda: outcome(f))

        inner.add_done_callback(done)

    def close(self) -> None:
        self._pool.stop()
        self._pool.join()
