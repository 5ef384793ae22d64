"""``planproof evaluate action-sequencing``: score LLM action plans on the EAI tasks.

Reads a responses file (the reference's JSON list of ``{identifier, llm_output}`` or JSON
lines of the same), or with ``--gold`` the dataset's own gold plans, replays each plan in
the symbolic world and writes per-task JSONL plus a summary JSON with the paper's table
columns. Exit 0 when the file was evaluated, 2 on bad input (unreadable file, unknown
dataset).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from planproof.commands.eai_module import add_common_arguments, run_module

MODULE = "action-sequencing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser, MODULE)


def gold_text(task: Any) -> str:
    """A gold plan rendered as an LLM would answer (the reference's response format)."""
    from planproof.interface.responses import render_behavior, render_virtualhome

    if task.dataset == "virtualhome":
        return render_virtualhome(task.gold)
    return render_behavior(task.gold)


def run(args: argparse.Namespace) -> int:
    import gc

    # Importing the evaluator, loading the tasks and replaying the plans allocate hundreds
    # of thousands of small acyclic objects, which only make the cyclic collector scan
    # the heap again and again (an eighth of the run). It is back on before returning,
    # with the objects alive then frozen (left to reference counting): otherwise the
    # collector walks all of them once more at exit, a sixth of the run of this command.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from planproof.metrics.action_sequencing import (
            evaluate_response,
            parse_error_result,
            summarize,
        )

        return run_module(
            args,
            MODULE,
            gold=gold_text,
            score=lambda t, text: evaluate_response(t, text, args.dataset),
            failed=parse_error_result,
            summarize=summarize,
            source="gold plans",
            table=_table,
        )
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()


def _table(summary: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    from planproof.commands.console import stdout_console
    from planproof.commands.headline import rate

    goal = summary["goal_evaluation"]
    traj = summary["trajectory_evaluation"]
    table = Table(title=f"Action sequencing — {summary['dataset']} ({summary['tasks']} tasks)")
    table.add_column("metric")
    table.add_column("%", justify="right")
    rows = [
        ("task success", goal["task_success_rate"]),
        ("execution success", traj["execution_success_rate"]),
        *((f"{k.replace('_', ' ')}", v) for k, v in goal.items() if k.endswith("_goal")),
        ("partial success", goal["partial_success"]),
        *((f"grammar: {k}", v) for k, v in traj["grammar_error"].items()),
        *((f"runtime: {k}", v) for k, v in traj["runtime_error"].items()),
    ]
    for name, value in rows:
        table.add_row(name, rate(value))
    console = stdout_console()
    console.print(table)
    console.print(
        f"results: {out}/results.jsonl, summary: {out}/summary.json ({summary['seconds']} s)"
    )
