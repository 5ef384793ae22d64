"""``planproof evaluate transition-modeling --dataset virtualhome --responses FILE``: score
LLM-written operators against the EAI gold (logic-form precision / recall / F1 per
category), plan with them (Fast Downward by default), validate each plan found under the
gold operators, and check every operator with Z3.

``--responses`` is a JSON list (or JSON Lines) of ``{"identifier": ..., "llm_output":
...}``; ``--gold`` (the default, as for the other modules) evaluates the gold operators
themselves instead (F1 must be 1.0). Writes ``results.jsonl`` (one line per task) and
``summary.json`` in ``--output DIR`` (default
``planproof-results/transition-modeling-DATASET``); prints a table, or the summary as JSON
with ``--json``. Exit 0 when the answers were evaluated, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from planproof.boundary.options import positive_count, seconds
from planproof.commands.errors import BadInput
from planproof.commands.executor_options import (
    add_executor_arguments,
    executor_config,
    open_configured,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dataset", choices=("virtualhome", "behavior"), required=True, help="the EAI dataset"
    )
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--responses", type=Path, help="LLM answers (JSON list or JSON Lines)")
    src.add_argument(
        "--gold", action="store_true", help="evaluate the gold operators (the default)"
    )
    parser.add_argument(
        "--engine",
        choices=("fast-downward", "pyperplan", "builtin"),
        default="fast-downward",
        help="planner (default fast-downward; builtin: planproof's in-process search)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=60.0,
        help="planner CPU seconds per problem (not wall time)",
    )
    parser.add_argument(
        "--max-expansions",
        type=positive_count,
        help="builtin engine: a budget of search expansions per problem instead of --timeout, "
        "so that the verdict is the same under any load (status 'budget' when spent; cached)",
    )
    parser.add_argument("--no-planner", action="store_true", help="logic-form scores only")
    parser.add_argument(
        "--no-plan-cache",
        action="store_true",
        help="call the planner for every task (default: reuse the verdicts kept in the user "
        "cache for the same domain and problem)",
    )
    parser.add_argument(
        "--compare-operators",
        action="store_true",
        help="also compare every predicted operator with the gold one with Z3 (the engine of "
        "compare-domains): a verdict per operator, the literal to blame, a counterexample",
    )
    parser.add_argument("--limit", type=positive_count, help="evaluate only the first K tasks")
    parser.add_argument(
        "--output",
        type=Path,
        help="directory for results.jsonl and summary.json "
        "(default: planproof-results/transition-modeling-DATASET)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    from planproof.commands.eai_module import add_reading_argument

    add_reading_argument(parser)
    add_executor_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from planproof.boundary import output_lock

    out: Path = args.output or Path("planproof-results") / f"transition-modeling-{args.dataset}"
    with output_lock(out):  # checked and held before the work (one writer at a time)
        return _run(args, out)


def _run(args: argparse.Namespace, out: Path) -> int:
    from planproof.boundary import replace_files
    from planproof.commands.eai_module import load_tasks
    from planproof.commands.matching import match, tell
    from planproof.commands.progress import progress_bar
    from planproof.interface.responses import read_responses
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl
    from planproof.runs.modules import with_task_fields

    if args.limit is not None and args.limit < 1:
        raise BadInput("--limit must be at least 1")
    if args.max_expansions is not None and args.engine != "builtin":
        raise BadInput("--max-expansions needs --engine builtin (the other engines have --timeout)")
    config = executor_config(args)
    with progress_bar(f"loading the {args.dataset} PDDL data", None):
        data = load_eai_pddl(args.dataset)
    scope = list(data.solved)[: args.limit]
    info: dict[str, Any] = {}
    if args.responses is None:
        responses = [{"identifier": i, "llm_output": data.gold_response(i)} for i in scope]
    else:
        matching, by_id = match(
            read_responses(args.responses),
            source=str(args.responses),
            dataset=args.dataset,
            known=list(data.task_actions),
            scope=scope,
            outside_reason="not in the evaluated set (the tasks the paper's planner solved "
            "with the gold operators)" + (f" or beyond --limit {args.limit}" if args.limit else ""),
        )
        matching.require_some()
        tell(matching.lines())
        info = {**matching.to_dict(), "tasks_without_response": matching.without_response}
        responses = [
            {"identifier": i, "llm_output": by_id[i].text or ""} for i in scope if i in by_id
        ]
    with (
        open_configured(config, tasks=len(responses)) as executor,
        progress_bar(f"planning {len(responses)} tasks", len(responses)) as advance,
    ):
        report = evaluate_responses(
            data,
            responses,
            engine=args.engine,
            timeout=args.timeout,
            run_planner=not args.no_planner,
            plan_cache=not args.no_plan_cache,
            compare=args.compare_operators,
            max_expansions=args.max_expansions,
            executor=executor,
            progress=lambda done, total: advance(),
        )
    tasks = load_tasks(args.dataset)
    summary = {
        **report.summary(),
        "module": "transition-modeling",
        "source": str(args.responses) if args.responses else "gold operators",
        **info,
        "reading": args.reading,
    }
    rows = [t.to_dict() for t in report.tasks]
    if args.reading != "planproof":  # the logic form counted as the reference counts
        from planproof.runs.reference_reading import logic_form_reading, logic_form_words

        reading, per_task = logic_form_reading(data, responses)
        figs = {
            k.replace("non-spatial", "non_spatial"): v for k, v in reading["logic_form"].items()
        }
        summary.update(
            reference_reading=reading,
            reference_reading_figures=figs,
            reference_counting=reading["logic_form"],  # as the sweep keeps it
            reference_reading_note=reading["planner_success_note"],
        )
        rows = [
            {
                **r,
                "reference_reading": logic_form_words(per_task.get(r["identifier"], {})),
                "reference_verdict": {"logic_form": per_task.get(r["identifier"], {})},
            }
            for r in rows
        ]
    rows = with_task_fields(rows, tasks)
    replace_files(  # each file replaced whole: a reader or a kill never sees half of one
        out,
        {
            "responses.jsonl": (
                json.dumps({**r, "error": None}, ensure_ascii=False) + "\n" for r in responses
            ),
            "results.jsonl": (json.dumps(r, sort_keys=True) + "\n" for r in rows),
            "summary.json": (json.dumps(summary, indent=2, sort_keys=True) + "\n",),
        },
    )
    if args.json:
        print(json.dumps({"ok": True, **summary}, indent=2, sort_keys=True))
    else:
        from planproof.commands.failures import failures, operator_failure, print_failures
        from planproof.commands.reading_table import print_readings

        if args.reading != "reference":
            _table(summary)
        print_readings("transition-modeling", summary, args.reading)
        print(f"results: {out}/results.jsonl, summary: {out}/summary.json")
        if args.reading == "reference":
            return 0
        rows = [t.to_dict() for t in report.tasks]
        names = {t.identifier: t.name for t in tasks}
        print_failures(failures(rows, operator_failure), len(rows), names)
    return 0


def _table(s: dict[str, Any]) -> None:
    from rich.table import Table

    from planproof.commands.console import stdout_console
    from planproof.commands.headline import rate

    t = Table(title=f"transition modeling — {s['dataset']} ({s['tasks']} tasks)")
    for col in ("category", "precision", "recall", "F1", "planner found", "valid under gold"):
        t.add_column(col, justify="right" if col != "category" else "left")
    rows = [*s["by_category"].items(), ("overall", s["overall"])]
    for cat, v in rows:
        sr = s["planner_by_category"].get(cat, {})
        found = s["planner_found"] if cat == "overall" else sr.get("planner_found")
        valid = s["plan_valid_under_gold"] if cat == "overall" else sr.get("plan_valid_under_gold")
        t.add_row(
            cat,
            rate(v["precision"], scale=100),
            rate(v["recall"], scale=100),
            rate(v["f1"], scale=100),
            rate(found, scale=100),
            rate(valid, scale=100),
        )
    stdout_console().print(t)
    print(
        f"format errors: {s['format_errors']}, hallucinated operators: "
        f"{s['hallucinated_operators']}, skipped answers: {s['skipped']}, "
        f"operator issues: {s['issues'] or 'none'}"
        + (
            f", planner budget spent: {s['planner_budget_spent']}"
            f", planner timeouts: {s['planner_timeouts']}"
            if s.get("planner_budget_spent") or s.get("planner_timeouts")
            else ""
        )
    )
