"""``planproof evaluate goal-interpretation``: score predicted symbolic goals on the EAI
tasks (precision / recall / F1 per goal type, grammar errors, Z3 logic verdicts).

Reads a responses file (the reference's JSON list of ``{identifier, llm_output}`` or JSON
lines of the same), or with ``--gold`` each task's own gold goal written as LTL, and
writes per-task JSONL plus a summary JSON. Exit 0 when the file was evaluated, 2 on bad
input (unreadable file, unknown dataset).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from planproof.commands.eai_module import add_common_arguments, run_module
from planproof.commands.solver_budget import add_budget_arguments, budget_of

MODULE = "goal-interpretation"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser, MODULE)
    parser.add_argument(
        "--no-logic", action="store_true", help="skip the Z3 satisfiability / entailment checks"
    )
    add_budget_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from planproof.metrics.goal_interpretation import (
        evaluate_goal_response,
        gold_response,
        parse_error_result,
        summarize,
    )

    logic = not args.no_logic
    budget = budget_of(args)
    return run_module(
        args,
        MODULE,
        gold=gold_response,
        score=lambda t, text: evaluate_goal_response(t, text, logic=logic, rlimit=budget),
        failed=parse_error_result,
        summarize=summarize,
        source="gold goals",
        table=_table,
        reading_options={"logic": logic, "rlimit": budget},
    )


def _table(summary: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    from planproof.commands.console import stdout_console
    from planproof.commands.headline import rate

    goal = summary["goal_evaluation"]
    table = Table(title=f"Goal interpretation — {summary['dataset']} ({summary['tasks']} tasks)")
    for col in ("goals", "precision", "recall", "F1"):
        table.add_column(col, justify="left" if col == "goals" else "right")
    for k in ("state", "relation", "action", "overall"):
        c = goal[k]
        if c["tp"] + c["fp"] + c["fn"] == 0:
            table.add_row(k, "—", "—", "—")
            continue
        table.add_row(k, rate(c["precision"]), rate(c["recall"]), rate(c["f1"]))
    console = stdout_console()
    console.print(table)
    g, lg = summary["grammar"], summary["logic"]
    console.print(
        f"unparsable responses {g['unparsable_responses']}, format errors "
        f"{rate(g['format_error_rate'], unit='%')}, hallucinations "
        f"{rate(g['hallucination_rate'], unit='%')} of items"
    )
    console.print(
        f"Z3 ({lg['checked']} checked): satisfiable {lg['satisfiable']}, entails gold "
        f"{lg['entails_gold']}, equivalent to gold {lg['equivalent']}, undecided "
        f"{lg['undecided']}"
        + (f" (Z3 budget spent: {lg['budget_spent']})" if lg.get("budget_spent") else "")
    )
    console.print(
        f"results: {out}/results.jsonl, summary: {out}/summary.json ({summary['seconds']} s)"
    )
