"""``planproof demo``: the no-key path through everything. The built-in ``planner`` agent
answers every task of an EAI module (by planning in planproof's own symbolic world, not by
copying the gold plan), the answers are scored like any model's, and the HTML report is
written next to the run. Equivalent to ``planproof run --model planner ... --report``, with
the same exit status: a task the planner finds no plan for within its work budget
(``--agent-budget``; VirtualHome 688_1) is its own category, "agent gave up" — cached,
listed in the summary, never a parsing error and never a proof — not a failed call."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from planproof.boundary.options import count, worker_count
from planproof.commands.executor_options import add_executor_arguments
from planproof.commands.run import add_agent_budget
from planproof.interface.modules import DATASETS, MODULES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--module",
        default="action-sequencing",
        choices=MODULES,
        help="the EAI ability module (default action-sequencing)",
    )
    parser.add_argument(
        "--dataset", default="virtualhome", choices=DATASETS, help="default virtualhome"
    )
    parser.add_argument("--limit", type=count, help="only the first K tasks")
    parser.add_argument(
        "--concurrency",
        type=worker_count,
        default=os.cpu_count() or 1,
        help="the planner's worker processes, i.e. its calls in flight, as in run "
        "(default: every CPU)",
    )
    parser.add_argument("--output", type=Path, help="run directory")
    parser.add_argument("--cache", type=Path, help="SQLite response cache")
    parser.add_argument("--refresh", action="store_true", help="plan again, ignore the cache")
    parser.add_argument("--json", action="store_true", help="print run.json + summary as JSON")
    add_agent_budget(parser)
    add_executor_arguments(parser, workers=False)


def run(args: argparse.Namespace) -> int:
    from planproof.commands import run as run_command

    out = args.output or run_command.default_output("planner", args.module, args.dataset)
    ns = argparse.Namespace(
        model="planner",
        module=args.module,
        dataset=args.dataset,
        concurrency=args.concurrency,
        limit=args.limit,
        temperature=0.0,
        max_tokens=None,
        top_p=None,
        seed=None,
        api_base=None,
        timeout=120.0,
        max_retries=0,
        output=out,
        cache=args.cache,
        refresh=args.refresh,
        mock_response=None,
        report=out / "report.html",
        json=args.json,
        executor=args.executor,
        ray_address=args.ray_address,
        agent_budget=args.agent_budget,
    )
    return run_command.run(ns)
