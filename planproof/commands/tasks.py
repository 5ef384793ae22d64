"""``planproof tasks --dataset D``: the identifiers, names and goals of a dataset's EAI
tasks, so a person can write a responses file (``{"identifier": ID, "llm_output": ...}``)
without reading the benchmark's files. ``--module transition-modeling`` lists only the
tasks that module is evaluated on. Exit 0, 2 on bad input (data unavailable)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from planproof.boundary.options import positive_count
from planproof.commands.errors import BadInput
from planproof.interface.modules import DATASETS, MODULES

EXAMPLE = "planproof tasks --dataset virtualhome | head"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", choices=DATASETS, required=True, help="the EAI dataset")
    parser.add_argument(
        "--module",
        choices=MODULES,
        help="only the tasks this module is evaluated on (transition modeling: the tasks the "
        "paper's planner solved with the gold operators); default: every task",
    )
    parser.add_argument("--limit", type=positive_count, help="only the first K tasks")
    parser.add_argument(
        "--json", action="store_true", help="print a JSON list of {identifier, name, goal}"
    )


def rows(dataset: str, module: str | None, limit: int | None) -> list[dict[str, Any]]:
    """One ``{identifier, name, description, goal}`` per task, in dataset order."""
    from planproof.commands.progress import progress_bar
    from planproof.ltl.printer import to_text
    from planproof.runs.modules import load_tasks, module_tasks

    with progress_bar(f"loading the {dataset} tasks", None):
        tasks = module_tasks(module, dataset) if module else load_tasks(dataset)
    return [
        {
            "identifier": t.identifier,
            "name": t.name,
            "description": t.description,
            "goal": to_text(t.goal),
        }
        for t in tasks[:limit]
    ]


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise BadInput("--limit must be at least 1")
    found = rows(args.dataset, args.module, args.limit)
    if args.json:
        print(json.dumps(found, indent=2, ensure_ascii=False))
        return 0
    from rich.table import Table

    from planproof.commands.console import stdout_console

    table = Table(
        title=f"{len(found)} {args.dataset} tasks" + (f" ({args.module})" if args.module else ""),
        title_justify="left",
        expand=True,
    )
    table.add_column("identifier", no_wrap=True)
    table.add_column("name", ratio=1, overflow="fold")
    table.add_column("goal", ratio=3, overflow="fold")
    for r in found:
        table.add_row(r["identifier"], r["name"], r["goal"])
    stdout_console().print(table)
    return 0
