"""Where CPU-bound work runs: in this process, on a local pool of worker processes, or on
a Ray cluster, behind one interface (:class:`Executor`).

Callers map a plain, importable function over picklable items; each task ends in an
:class:`Outcome` holding the value or a :class:`TaskFailure`, never an exception, so one
bad task never costs a sweep its finished ones. A task whose worker process dies is run
once more, then reported as failed. Ray is imported only when ``ray`` is chosen.
"""

from planproof.executor.base import (
    Executor,
    SerialExecutor,
    batches,
    map_batched,
    map_items,
)
from planproof.executor.config import (
    EXECUTORS,
    ExecutorConfig,
    ExecutorError,
    open_executor,
)
from planproof.executor.outcome import MAX_ATTEMPTS, Outcome, TaskFailure

__all__ = [
    "EXECUTORS",
    "MAX_ATTEMPTS",
    "Executor",
    "ExecutorConfig",
    "ExecutorError",
    "Outcome",
    "SerialExecutor",
    "TaskFailure",
    "batches",
    "map_batched",
    "map_items",
    "open_executor",
]
