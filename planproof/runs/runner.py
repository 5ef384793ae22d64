"""``planproof run``: prompt a model on every task of a module, cache each answer as it
arrives, then score the answers and write the run directory.

The cache is the durable record: every finished call is committed to SQLite before the
next one is counted, so a run killed at any point and started again asks only for what is
missing. The run directory (``run.json``, ``responses.jsonl``, ``results.jsonl``,
``summary.json``) is written at the end from the cache and the evaluator.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from planproof.boundary import output_lock, replace_json, replace_lines
from planproof.executor import ExecutorConfig
from planproof.interface.agents import AGENTS
from planproof.interface.llm.cache import ResponseCache, default_cache_path
from planproof.interface.llm.types import Completion, LLMError, Request, Usage
from planproof.metrics.summary_intervals import summary_intervals
from planproof.runs.modules import Evaluation, evaluate_answers, module_tasks, with_task_fields
from planproof.simulators.core import Task


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines a run. Decoding parameters are part of the cache key."""

    model: str
    module: str
    dataset: str
    out_dir: Path
    limit: int | None = None
    concurrency: int = 4
    temperature: float = 0.0
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    api_base: str | None = None
    timeout: float = 120.0
    max_retries: int = 5
    cache_path: Path | None = None
    refresh: bool = False
    client_extra: Mapping[str, Any] = field(default_factory=dict)
    executor: ExecutorConfig | None = None
    """Where built-in agents run; default: ``concurrency`` local worker processes."""
    agent_budget: int | None = None
    """The planner agent's simulated steps per task (None: its default); part of the
    cache key when set, so a larger budget asks again."""

    def request(self, prompt: str) -> Request:
        return Request(
            model=self.model,
            prompt=prompt,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            top_p=self.top_p,
            seed=self.seed,
        )

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
        }
        if self.model == "planner":
            from planproof.interface.agents.planner import DEFAULT_MAX_STEPS

            out["agent_budget"] = self.agent_budget or DEFAULT_MAX_STEPS
        return out


@dataclass(frozen=True)
class Call:
    """One task's call: its prompt, and either a completion or the error that ended it."""

    task: Task
    prompt: str
    completion: Completion | None = None
    error_kind: str = ""
    error_message: str = ""

    def to_dict(self, config: RunConfig) -> dict[str, Any]:
        c = self.completion
        return {
            "identifier": self.task.identifier,
            "module": config.module,
            "dataset": config.dataset,
            "model": config.model,
            "prompt": self.prompt,
            "llm_output": c.text if c is not None else None,
            "error": None
            if c is not None
            else {"kind": self.error_kind, "message": self.error_message},
            "cached": c.cached if c is not None else False,
            "usage": {
                "prompt_tokens": c.usage.prompt_tokens if c else 0,
                "completion_tokens": c.usage.completion_tokens if c else 0,
            },
            "cost_usd": c.cost_usd if c is not None else None,
            "seconds": round(c.seconds, 4) if c is not None else 0.0,
            "attempts": c.attempts if c is not None else 0,
        }


class Progress(Protocol):
    """What the runner reports while calls finish (the command draws a rich bar)."""

    def start(self, total: int, cached: int) -> None: ...
    def advance(self, call: Call, cost_usd: float) -> None: ...
    def stop(self) -> None: ...


class _Silent:
    def start(self, total: int, cached: int) -> None:
        pass

    def advance(self, call: Call, cost_usd: float) -> None:
        pass

    def stop(self) -> None:
        pass


Caller = Callable[[Request, Task], Awaitable[Completion]]


@dataclass(frozen=True)
class RunOutcome:
    out_dir: Path
    calls: tuple[Call, ...]
    evaluation: Evaluation
    info: dict[str, Any]

    @property
    def failed(self) -> tuple[Call, ...]:
        return tuple(c for c in self.calls if c.completion is None)


def prompts_for(config: RunConfig) -> list[tuple[Task, str]]:
    """The tasks of the run with their prompts. Prompts are built over the whole module
    task list (the worked example is chosen from it), so ``--limit`` never changes a
    prompt and the cache stays valid across limits."""
    from planproof.interface.prompts import build_prompts

    tasks = module_tasks(config.module, config.dataset)
    chosen = tasks if config.limit is None else tasks[: max(config.limit, 0)]
    prompts = build_prompts(tasks, config.module, only={t.identifier for t in chosen})
    by_id = {p.identifier: p.prompt for p in prompts}
    return [(t, by_id[t.identifier]) for t in chosen]


def make_caller(config: RunConfig) -> tuple[Caller, Callable[[], None]]:
    """The function that answers one request, and how to release what it holds: a
    built-in agent (no key, run in worker processes) or a provider through litellm."""
    if config.model in AGENTS:
        from planproof.runs.agent_pool import AgentPool

        executor = config.executor or ExecutorConfig("local", workers=config.concurrency)
        pool = AgentPool(config.model, config.module, config.dataset, executor, config.agent_budget)
        return pool.complete, pool.close
    from planproof.interface.llm.client import LLMClient

    client = LLMClient(
        api_base=config.api_base,
        timeout=config.timeout,
        max_retries=config.max_retries,
        extra=config.client_extra,
    )

    async def call(request: Request, task: Task) -> Completion:
        return await client.complete(request)

    return call, lambda: None


async def _call_all(
    config: RunConfig,
    work: Sequence[tuple[Task, str]],
    cache: ResponseCache,
    caller: Caller,
    progress: Progress,
) -> list[Call]:
    """One call per distinct request: tasks whose prompts are identical (VirtualHome has
    such pairs) share one answer, marked ``cached`` for all but the first, exactly as a
    later run would find it in the cache."""
    calls: dict[str, Call] = {}
    groups: dict[str, tuple[Request, list[tuple[Task, str]]]] = {}
    by_task = config.model in AGENTS
    for task, prompt in work:
        # a built-in agent reads the task itself (the gold agent its gold plan), so its
        # answer is keyed by task; a model only sees the prompt
        budget = "" if config.agent_budget is None else f"; budget {config.agent_budget}"
        tag = f"[task {task.identifier}{budget}]"
        req = config.request(f"{tag}\n{prompt}" if by_task else prompt)
        hit = None if config.refresh else cache.get(req)
        if hit is not None:
            calls[task.identifier] = Call(task, prompt, hit)
        else:
            groups.setdefault(req.key(), (req, []))[1].append((task, prompt))
    progress.start(len(work), len(calls))
    gate = asyncio.Semaphore(max(config.concurrency, 1))
    spent = 0.0

    async def one(req: Request, members: list[tuple[Task, str]]) -> None:
        nonlocal spent
        done: Completion | None = None
        kind = message = ""
        async with gate:
            # another process on the same cache may have answered it since the run began
            hit = None if config.refresh else cache.get(req)
            try:
                done = hit if hit is not None else await caller(req, members[0][0])
            except LLMError as exc:
                kind, message = exc.kind, exc.message
            except Exception as exc:  # an agent or provider failure must not stop the run
                kind = str(getattr(exc, "kind", type(exc).__name__))
                message = str(getattr(exc, "message", "")) or _one_line(exc)
            else:
                if hit is None:
                    cache.put(req, done)
                    spent += done.cost_usd or 0.0
        for i, (t, p) in enumerate(members):
            if done is None:
                call = Call(t, p, None, kind, message)
            else:
                call = Call(t, p, done if i == 0 else dataclasses.replace(done, cached=True))
            calls[t.identifier] = call
            progress.advance(call, spent)

    await asyncio.gather(*(one(req, members) for req, members in groups.values()))
    return [calls[t.identifier] for t, _ in work]


def _without_credentials(url: str | None) -> str | None:
    """The server address without any ``user:password@`` part (it may hold a key)."""
    if url is None:
        return None
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=f"***@{netloc}"))


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:500]


def _gave_up(answers: Mapping[str, str]) -> dict[str, str]:
    """Tasks the planner agent gave up on (identifier → reason). They are their own
    category, listed in the summary like failed calls: scored as responses they read as
    parsing errors (an empty answer), and a search that gives up proves nothing."""
    from planproof.interface.agents.planner import gave_up_reason

    out = {}
    for identifier, text in answers.items():
        reason = gave_up_reason(text)
        if reason is not None:
            out[identifier] = reason
    return out


def _as_gave_up(evaluation: Evaluation, gave_up: Mapping[str, str]) -> Evaluation:
    """The tasks the agent gave up on stay in every denominator (failed tasks), but under
    their own category: the module scored their empty answer as a parsing error, which
    is moved to ``agent_gave_up`` (results, counts and rates)."""
    results = []
    moved = 0
    for row in evaluation.results:
        reason = gave_up.get(row.get("identifier", ""))
        if reason is not None and row.get("error_type") == "parsing":
            moved += 1
            error = {**(row.get("error") or {}), "error_type": "agent_gave_up", "message": reason}
            results.append({**row, "error_type": "agent_gave_up", "error": error})
        else:
            results.append(row)
    summary = json.loads(json.dumps(evaluation.summary))  # a deep copy of plain data
    n = summary.get("tasks") or 0
    counts = summary.get("counts", {}).get("errors")
    traj = summary.get("trajectory_evaluation", {})
    if isinstance(counts, dict) and "parsing" in counts and n:
        counts["parsing"] -= moved
        counts["agent_gave_up"] = moved
        traj.get("grammar_error", {})["parsing"] = round(100.0 * counts["parsing"] / n, 4)
        traj["agent_gave_up"] = round(100.0 * moved / n, 4)
    summary["agent_gave_up"] = [{"identifier": k, "reason": v} for k, v in gave_up.items()]
    return Evaluation(results, summary)


@contextlib.contextmanager
def _interrupts() -> Iterator[list[bool]]:
    """Remember a Ctrl-C (SIGINT) during the calls, and raise it at once. asyncio's own
    handler only cancels the main task, and a cancellation can be lost (``wait_for``
    whose call finishes at the same moment, a library that catches it): the run then
    finished with exit 0 although the user had interrupted it. Yields a list that is
    non-empty once an interrupt arrived."""
    seen: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return

    def on_interrupt(signum: int, frame: Any) -> None:
        seen.append(True)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


def execute(config: RunConfig, progress: Progress | None = None) -> RunOutcome:
    """Run the calls (answering from the cache first), evaluate, write the run directory.
    The run directory is locked for the whole run: a second run given the same directory
    is refused at once, before it pays for any call."""
    with output_lock(config.out_dir):
        return _execute(config, progress)


def _execute(config: RunConfig, progress: Progress | None) -> RunOutcome:
    from planproof import __version__

    started = datetime.now(UTC)
    t0 = time.perf_counter()
    work = prompts_for(config)
    progress = progress or _Silent()
    cache_path = config.cache_path or default_cache_path()
    caller, close = make_caller(config)
    with ResponseCache(cache_path) as cache, _interrupts() as interrupted:
        try:
            calls = asyncio.run(_call_all(config, work, cache, caller, progress))
            if interrupted:  # a Ctrl-C that a task swallowed still ends the run
                raise KeyboardInterrupt
        finally:
            progress.stop()
            close()
    t1 = time.perf_counter()
    answers = {c.task.identifier: c.completion.text for c in calls if c.completion is not None}
    evaluation = evaluate_answers(config.module, config.dataset, [t for t, _ in work], answers)
    gave_up = _gave_up(answers)
    if gave_up:
        evaluation = _as_gave_up(evaluation, gave_up)
    t2 = time.perf_counter()
    done = [c.completion for c in calls if c.completion is not None]
    fresh = [c for c in done if not c.cached]
    costs = [c.cost_usd for c in fresh]
    usage = Usage(
        sum(c.usage.prompt_tokens for c in done), sum(c.usage.completion_tokens for c in done)
    )
    failed = [c for c in calls if c.completion is None]
    info: dict[str, Any] = {
        "planproof_version": __version__,
        "model": config.model,
        "module": config.module,
        "dataset": config.dataset,
        "params": config.params(),
        "api_base": _without_credentials(config.api_base),
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "tasks": len(work),
        "calls": {"made": len(fresh), "cached": len(done) - len(fresh), "failed": len(failed)},
        "tokens": {"prompt": usage.prompt_tokens, "completion": usage.completion_tokens},
        "cost_usd": None
        if any(c is None for c in costs)
        else round(sum(c or 0.0 for c in costs), 6),
        "cost_usd_with_cached": round(sum(c.cost_usd or 0.0 for c in done), 6),
        "seconds": {
            "calls": round(t1 - t0, 3),
            "evaluation": round(t2 - t1, 3),
            "total": round(time.perf_counter() - t0, 3),
        },
        "cache": str(cache_path),
    }
    summary = dict(evaluation.summary)
    summary["intervals"] = summary_intervals(config.module, evaluation.results)
    summary.update(
        model=config.model,
        module=config.module,
        dataset=config.dataset,
        tasks_in_run=len(work),
        tasks_scored=len(evaluation.results),
        call_errors=[
            {"identifier": c.task.identifier, "kind": c.error_kind, "message": c.error_message}
            for c in failed
        ],
    )
    write_run_dir(config, calls, evaluation, summary, info)
    return RunOutcome(config.out_dir, tuple(calls), evaluation, info)


def write_run_dir(
    config: RunConfig,
    calls: Sequence[Call],
    evaluation: Evaluation,
    summary: dict[str, Any],
    info: dict[str, Any],
) -> None:
    out = config.out_dir
    out.mkdir(parents=True, exist_ok=True)
    _write_lines(out / "responses.jsonl", (c.to_dict(config) for c in calls))
    _write_lines(
        out / "results.jsonl", with_task_fields(evaluation.results, [c.task for c in calls])
    )
    _write_json(out / "summary.json", summary)
    _write_json(out / "run.json", info)


def _write_lines(path: Path, rows: Any) -> None:
    replace_lines(path, (json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    replace_json(path, data, indent=2, ensure_ascii=False)
