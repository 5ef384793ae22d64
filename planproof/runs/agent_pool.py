"""Built-in agents answer through the executor (``planproof.executor``): planning and
subgoal search are CPU-bound Python, so threads would serialise on the GIL. Each worker
loads the agent and the dataset once (memoised per process) and answers tasks by
identifier; the executor is opened on the first call, so a run answered wholly from the
cache starts no worker at all."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import time
from dataclasses import dataclass

from planproof.executor import Executor, ExecutorConfig, SerialExecutor, open_executor
from planproof.interface.agents import Agent, AgentError, builtin_agent
from planproof.interface.llm.types import Completion, Request, Usage
from planproof.simulators.core import Task


@dataclass(frozen=True)
class _State:
    agent: Agent
    tasks: dict[str, Task]


@functools.cache
def _state(agent: str, dataset: str, budget: int | None) -> _State:
    from planproof.runs.modules import load_tasks

    made = builtin_agent(agent, budget)
    if made is None:
        raise ValueError(f"{agent!r} is not a built-in agent")
    return _State(made, {t.identifier: t for t in load_tasks(dataset)})


def answer(job: tuple[str, str, str, int | None, str]) -> str:
    """The agent's answer to one task: ``job`` = (agent, module, dataset, budget,
    identifier). Giving up (the search ended, or its budget ran out, without a plan) is
    an answer too: the planner's
    :func:`~planproof.interface.agents.planner.no_plan_answer`, cached, and counted by
    the runner as "agent gave up"."""
    agent, module, dataset, budget, identifier = job
    state = _state(agent, dataset, budget)
    try:
        return state.agent.answer(state.tasks[identifier], module)
    except AgentError as exc:
        if exc.kind not in ("unsolvable", "gave-up"):
            raise
        from planproof.interface.agents.planner import no_plan_answer

        return no_plan_answer(module, exc.message)


class AgentPool:
    """``complete(request, task)`` for a built-in agent on the executor ``config`` asks
    for (one in-process thread when it resolves to a single worker)."""

    def __init__(
        self,
        agent: str,
        module: str,
        dataset: str,
        config: ExecutorConfig,
        budget: int | None = None,
    ) -> None:
        self._job = (agent, module, dataset, budget)
        self._config = config
        self._executor: Executor | None = None
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    def _open(self) -> Executor:
        if self._executor is None:
            self._executor = open_executor(self._config)
            if isinstance(self._executor, SerialExecutor):
                self._thread = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        return self._executor

    async def complete(self, request: Request, task: Task) -> Completion:
        executor = self._open()
        job = (*self._job, task.identifier)
        t0 = time.perf_counter()
        if self._thread is not None:  # in this process, off the event loop
            loop = asyncio.get_running_loop()
            outcome = await loop.run_in_executor(
                self._thread, lambda: executor.submit(answer, job).result()
            )
        else:
            outcome = await asyncio.wrap_future(executor.submit(answer, job))
        if outcome.failure is not None:
            raise AgentError(outcome.failure.kind, outcome.failure.message)
        return Completion(outcome.unwrap(), Usage(), 0.0, 1, time.perf_counter() - t0)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.shutdown(wait=True, cancel_futures=True)
        if self._executor is not None:
            self._executor.close()
