"""``planproof evaluate subgoal-decomposition``: refine predicted subgoal sequences into
actions by search and score them with the action-sequencing metrics.

Reads a responses file (``{identifier, llm_output}`` as a JSON list or JSON lines), or
with ``--gold`` a subgoal sequence derived from each task's gold plan, and writes per-task
JSONL (with the outcome of every subgoal) plus a summary JSON. Exit 0 when the file was
evaluated, 2 on bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from planproof.boundary.options import positive_count
from planproof.commands.eai_module import (
    add_common_arguments,
    fail,
    run_module,
)

MODULE = "subgoal-decomposition"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser, MODULE)
    parser.add_argument(
        "--depth",
        type=positive_count,
        default=6,
        help="most actions searched per subgoal (default 6)",
    )
    parser.add_argument(
        "--search",
        choices=("bfs", "greedy"),
        default="bfs",
        help="breadth-first as the paper (shortest), or greedy best-first (faster)",
    )
    parser.add_argument(
        "--max-states", type=positive_count, default=500, help="states expanded per subgoal at most"
    )


def run(args: argparse.Namespace) -> int:
    from planproof.interface.subgoals import SubgoalError
    from planproof.metrics.subgoal_decomposition import (
        evaluate_subgoal_response,
        gold_response,
        grammar_error_result,
        summarize,
    )
    from planproof.simulators.core import ErrorKind

    if args.depth < 1 or args.max_states < 1:
        return fail(args, "--depth and --max-states must be positive")
    return run_module(
        args,
        MODULE,
        gold=gold_response,
        score=lambda t, text: evaluate_subgoal_response(
            t, text, depth=args.depth, mode=args.search, max_states=args.max_states
        ),
        failed=lambda t, msg: grammar_error_result(t, SubgoalError(ErrorKind.PARSING, msg)),
        summarize=summarize,
        source="subgoals derived from gold plans",
        table=_table,
        extra={"search": {"mode": args.search, "depth": args.depth, "max_states": args.max_states}},
        reading_options={
            "search": {"depth": args.depth, "mode": args.search, "max_states": args.max_states}
        },
    )


def _table(summary: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    from planproof.commands.console import stdout_console
    from planproof.commands.headline import rate

    goal = summary["goal_evaluation"]
    traj = summary["trajectory_evaluation"]
    sub = summary["subgoals"]
    table = Table(title=f"Subgoal decomposition — {summary['dataset']} ({summary['tasks']} tasks)")
    table.add_column("metric")
    table.add_column("%", justify="right")
    rows = [
        ("task success", goal["task_success_rate"]),
        ("execution success", traj["execution_success_rate"]),
        *((k.replace("_", " "), v) for k, v in goal.items() if k.endswith("_goal")),
        *((f"grammar: {k}", v) for k, v in traj["grammar_error"].items()),
        *((f"runtime: {k}", v) for k, v in traj["runtime_error"].items()),
    ]
    for name, value in rows:
        table.add_row(name, rate(value))
    console = stdout_console()
    console.print(table)
    console.print(
        f"subgoals {sub['total']}: reached {sub['reached']}, already true "
        f"{sub['already_true']}, unreachable {sub['unreachable']}, unsatisfiable "
        f"{sub['unsatisfiable']}, search limit {sub['limit']}"
    )
    console.print(
        f"results: {out}/results.jsonl, summary: {out}/summary.json ({summary['seconds']} s)"
    )
