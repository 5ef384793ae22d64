"""``planproof run --model MODEL --module M --dataset D``: prompt a model (any litellm
provider, or a built-in agent such as ``planner``) on every task of an EAI module, cache
each answer in SQLite as it arrives, then score the answers and write a run directory
(``responses.jsonl``, ``results.jsonl``, ``summary.json``, ``run.json``).

Exit 0 when every task was answered and scored, 1 when some calls failed (they are listed
in ``summary.json``; running the same command again retries only them), 2 on bad input,
130 when interrupted (finished answers are kept in the cache).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from planproof.boundary.options import (
    count,
    number_between,
    positive_count,
    seconds,
    worker_count,
)
from planproof.commands.errors import BadInput
from planproof.commands.executor_options import add_executor_arguments, executor_config
from planproof.interface.modules import DATASETS, MODULES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        required=True,
        help="a litellm model (openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
        "hosted_vllm/NAME with --api-base...) or a built-in agent: planner, gold",
    )
    parser.add_argument("--module", choices=MODULES, required=True, help="the EAI module")
    parser.add_argument("--dataset", choices=DATASETS, required=True, help="the EAI dataset")
    parser.add_argument(
        "--concurrency",
        type=worker_count,
        default=4,
        help="calls in flight (4); a built-in agent runs in as many worker processes",
    )
    add_agent_budget(parser)
    parser.add_argument("--limit", type=count, help="only the first K tasks")
    parser.add_argument(
        "--temperature", type=number_between(0.0, 2.0), default=0.0, help="0, as in the paper"
    )
    parser.add_argument("--max-tokens", type=positive_count, help="completion token limit")
    parser.add_argument(
        "--top-p", type=number_between(0.0, 1.0), help="nucleus sampling (provider default)"
    )
    parser.add_argument("--seed", type=int, help="sampling seed, where the provider has one")
    parser.add_argument("--api-base", help="OpenAI-compatible server (vLLM, Ollama...)")
    parser.add_argument("--timeout", type=seconds, default=120.0, help="seconds per call")
    parser.add_argument("--max-retries", type=count, default=5, help="retries per call")
    parser.add_argument(
        "--output", type=Path, help="run directory (default planproof-runs/MODEL/MODULE-DATASET)"
    )
    parser.add_argument(
        "--cache", type=Path, help="SQLite response cache (default: in planproof's cache dir)"
    )
    parser.add_argument(
        "--refresh", action="store_true", help="ask again even when the cache has an answer"
    )
    parser.add_argument(
        "--mock-response",
        help="answer every call with this text through litellm's offline mock (no network)",
    )
    parser.add_argument("--report", type=Path, help="also write the HTML report here")
    parser.add_argument("--json", action="store_true", help="print run.json + summary as JSON")
    add_executor_arguments(parser, workers=False)


def add_agent_budget(parser: argparse.ArgumentParser) -> None:
    """``--agent-budget``, shared by ``run`` and ``demo``."""
    parser.add_argument(
        "--agent-budget",
        type=positive_count,
        metavar="STEPS",
        help="the planner agent's work limit per task in simulated steps (default 2000); "
        "a work budget, not time, so results do not depend on the machine's load",
    )


def default_output(model: str, module: str, dataset: str) -> Path:
    slug = "".join(c if c.isalnum() or c in "-._" else "_" for c in model).strip("_") or "model"
    return Path("planproof-runs") / slug / f"{module}-{dataset}"


def _bad(args: argparse.Namespace, message: str) -> int:
    """Bad input: raised for ``planproof.cli`` to present (exit status 2)."""
    raise BadInput(message)


def _check_arguments(args: argparse.Namespace) -> str | None:
    if args.concurrency < 1:
        return "--concurrency must be at least 1"
    if args.timeout <= 0 or args.max_retries < 0:
        return "--timeout must be positive and --max-retries not negative"
    if args.limit is not None and args.limit < 0:
        return "--limit must not be negative"
    return None


def _missing_keys(model: str, api_base: str | None) -> list[str]:
    """Environment variables the provider needs and that are unset (checked before any
    call, so a missing key is one clear message instead of one error per task)."""
    from planproof.interface.llm.keys import known_missing_key

    quick = known_missing_key(model)  # before litellm's import, which takes seconds
    if quick:
        return quick
    from planproof.interface.llm.client import missing_environment

    return missing_environment(model, api_base)


def run(args: argparse.Namespace) -> int:
    from planproof.interface.agents import builtin_agent

    problem = _check_arguments(args)
    if problem:
        return _bad(args, problem)
    if args.cache is not None:
        from planproof.boundary import output_file

        output_file(args.cache, source="--cache")  # a directory or a path under a file
    builtin = builtin_agent(args.model) is not None
    if not builtin and args.mock_response is None:
        missing = _missing_keys(args.model, args.api_base)
        if missing:
            return _bad(
                args,
                f"model {args.model!r} needs {', '.join(missing)} in the environment "
                "(a local OpenAI-compatible server needs none: --model hosted_vllm/NAME "
                "--api-base URL; or --model planner)",
            )
    from planproof.data.cache import DataUnavailableError
    from planproof.runs.modules import module_tasks
    from planproof.runs.runner import RunConfig, execute

    out = args.output or default_output(args.model, args.module, args.dataset)
    extra: dict[str, Any] = {}
    if args.mock_response is not None:
        extra["mock_response"] = args.mock_response
    config = RunConfig(
        model=args.model,
        module=args.module,
        dataset=args.dataset,
        out_dir=out,
        limit=args.limit,
        concurrency=args.concurrency,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        top_p=args.top_p,
        seed=args.seed,
        api_base=args.api_base,
        timeout=args.timeout,
        max_retries=args.max_retries,
        cache_path=args.cache,
        refresh=args.refresh,
        client_extra=extra,
        executor=executor_config(args),
        agent_budget=getattr(args, "agent_budget", None),
    )
    from planproof.commands.progress import RichProgress, progress_bar

    try:
        with progress_bar(f"loading the {args.dataset} tasks", None):
            module_tasks(args.module, args.dataset)  # cached: the run finds them loaded
        outcome = execute(config, RichProgress(args.model))
    except KeyboardInterrupt:
        print(
            "interrupted: every finished answer is in the cache; run the same command "
            "again to resume",
            file=sys.stderr,
        )
        return 130
    except (DataUnavailableError, ValueError, OSError) as exc:
        return _bad(args, str(exc))
    if args.report is not None:
        from planproof.report import ReportError, write_report

        try:
            write_report([outcome.out_dir], args.report)
        except (ReportError, OSError) as exc:
            return _bad(args, f"cannot write the report: {exc}")
    summary = json.loads((outcome.out_dir / "summary.json").read_text(encoding="utf-8"))
    if args.json:
        print(json.dumps({"run": outcome.info, "summary": summary}, indent=2))
    else:
        _print(outcome.info, summary, outcome.out_dir, args.report)
    return 1 if outcome.failed else 0


def _print(info: dict[str, Any], summary: dict[str, Any], out: Path, report: Path | None) -> None:
    from planproof.commands.console import stdout_console
    from planproof.commands.headline import headline

    console = stdout_console()
    calls = info["calls"]
    cost = info["cost_usd"]
    console.print(
        f"[bold]{info['model']}[/] · {info['module']} · {info['dataset']}: "
        f"{info['tasks']} tasks, {calls['made']} calls made, {calls['cached']} from the "
        f"cache, {calls['failed']} failed; tokens {info['tokens']['prompt']} in / "
        f"{info['tokens']['completion']} out; cost "
        + ("unknown" if cost is None else f"${cost:.4f}")
        + f"; {info['seconds']['total']:.1f} s"
    )
    scored, in_run = summary.get("tasks_scored", summary.get("tasks")), info["tasks"]
    gave_up = summary.get("agent_gave_up", [])
    failed = len(summary.get("call_errors", []))
    why = [f"{failed} failed calls"] if failed else []
    console.print(f"  scored {scored} of {in_run} tasks" + (f" ({'; '.join(why)})" if why else ""))
    if gave_up:
        budget = info.get("params", {}).get("agent_budget")
        within = f", with a budget of {budget} simulated steps" if budget else ""
        console.print(
            f"  the agent gave up on {len(gave_up)} of {scored} tasks (no plan found{within}; "
            "failed tasks, not parsing errors, and no proof that none exists)"
        )
    for line in headline(info["module"], summary):
        console.print("  " + line)
    from planproof.commands.reading_table import reading_line

    ref = reading_line(info["module"], summary)
    if ref:
        console.print("  " + ref, markup=False)
    for item in gave_up[:5]:
        console.print(f"  [yellow]agent gave up[/] {item['reason']}")
    for err in summary.get("call_errors", [])[:5]:
        console.print(f"  [red]call failed[/] {err['identifier']}: {err['kind']}: {err['message']}")
    console.print(f"run directory: {out}" + (f"; report: {report}" if report else ""))
