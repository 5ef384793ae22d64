"""Built-in agents answer in worker processes: planning is CPU-bound Python, so threads
would serialise on the GIL. Each worker loads the dataset once (``spawn`` start, so no
lock held by the parent's threads is ever inherited)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import time
from dataclasses import dataclass

from planproof.interface.agents import Agent, AgentError, builtin_agent
from planproof.interface.llm.types import Completion, Request, Usage
from planproof.simulators.core import Task


@dataclass
class _State:
    agent: Agent
    module: str
    tasks: dict[str, Task]


_STATE: _State | None = None


def _init(agent: str, module: str, dataset: str) -> None:
    global _STATE  # noqa: PLW0603 -- one agent per worker process, set by the initializer
    from planproof.runs.modules import load_tasks

    made = builtin_agent(agent)
    if made is None:
        raise ValueError(f"{agent!r} is not a built-in agent")
    _STATE = _State(made, module, {t.identifier: t for t in load_tasks(dataset)})


def _answer(identifier: str) -> tuple[str, str, str]:
    """``("ok", text, "")`` or ``("error", kind, message)``: plain tuples, because custom
    exception classes do not always survive pickling back to the parent."""
    assert _STATE is not None, "worker not initialised"
    try:
        return ("ok", _STATE.agent.answer(_STATE.tasks[identifier], _STATE.module), "")
    except Exception as exc:
        kind = str(getattr(exc, "kind", type(exc).__name__))
        message = str(getattr(exc, "message", exc))[:500]
        return ("error", kind, message or type(exc).__name__)


class AgentPool:
    """``complete(request, task)`` for a built-in agent, on ``workers`` processes (one
    in-process thread when ``workers`` is 1, which is cheapest for small runs)."""

    def __init__(self, agent: str, module: str, dataset: str, workers: int) -> None:
        self._executor: concurrent.futures.Executor
        if workers <= 1:
            _init(agent, module, dataset)
            self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        else:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init,
                initargs=(agent, module, dataset),
            )

    async def complete(self, request: Request, task: Task) -> Completion:
        loop = asyncio.get_running_loop()
        t0 = time.perf_counter()
        status, a, b = await loop.run_in_executor(self._executor, _answer, task.identifier)
        if status != "ok":
            raise AgentError(a, b)
        return Completion(a, Usage(), 0.0, 1, time.perf_counter() - t0)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
