"""``planproof evaluate action-sequencing``: score LLM action plans on the EAI tasks.

Reads a responses file (the reference's JSON list of ``{identifier, llm_output}`` or JSON
lines of the same), or with ``--gold`` the dataset's own gold plans, replays each plan in
the symbolic world and writes per-task JSONL plus a summary JSON with the paper's table
columns. Exit 0 when the file was evaluated, 2 on bad input (unreadable file, unknown
dataset).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

DATASETS = ("virtualhome", "behavior")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", choices=DATASETS, required=True)
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--responses", type=Path, help="responses file (JSON list or JSON lines)")
    src.add_argument(
        "--gold", action="store_true", help="evaluate the dataset's gold plans (the default)"
    )
    parser.add_argument("--limit", type=int, help="evaluate only the first K tasks")
    parser.add_argument(
        "--output",
        type=Path,
        help="directory for results.jsonl and summary.json "
        "(default: planproof-results/action-sequencing-DATASET)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def load_tasks(dataset: str) -> tuple[Any, ...]:
    """The dataset's tasks (fetching and converting the EAI data on first use)."""
    if dataset == "virtualhome":
        from planproof.simulators.virtualhome import load_virtualhome_tasks

        return load_virtualhome_tasks()
    from planproof.simulators import behavior

    return tuple(behavior.load_behavior_tasks())


def gold_text(task: Any) -> str:
    """A gold plan rendered as an LLM would answer (the reference's response format)."""
    from planproof.interface.responses import render_behavior, render_virtualhome

    if task.dataset == "virtualhome":
        return render_virtualhome(task.gold)
    return render_behavior(task.gold)


def run(args: argparse.Namespace) -> int:
    from planproof.data.cache import DataUnavailableError
    from planproof.interface.errors import ResponsesFileError
    from planproof.interface.responses import ResponseEntry, read_responses
    from planproof.metrics.action_sequencing import evaluate_response, summarize

    start = time.perf_counter()
    try:
        tasks = load_tasks(args.dataset)
        if args.limit is not None:
            tasks = tasks[: max(args.limit, 0)]
        file_notes: list[str] = []
        unknown: list[str] = []
        if args.responses is not None:
            responses = read_responses(args.responses)
            by_id = responses.by_identifier()
            known = {t.identifier for t in tasks}
            unknown = sorted(i for i in by_id if i not in known)
            file_notes = list(responses.notes)
            file_notes += [
                e.error.message
                for e in responses.errors
                if e.identifier is None and e.error is not None
            ]
            pairs = [(t, by_id[t.identifier]) for t in tasks if t.identifier in by_id]
            texts: list[tuple[Any, str | None, ResponseEntry | None]] = [
                (t, e.text if e.error is None else None, e) for t, e in pairs
            ]
        else:
            texts = [(t, gold_text(t), None) for t in tasks]
    except (DataUnavailableError, ResponsesFileError) as exc:
        return _fail(args, str(exc))
    results = []
    for task, text, entry in texts:
        if text is None:
            from planproof.metrics.action_sequencing import parse_error_result

            msg = entry.error.message if entry is not None and entry.error else "no llm_output"
            results.append(parse_error_result(task, msg))
        else:
            results.append(evaluate_response(task, text, args.dataset))
    summary = summarize(results)
    summary["dataset"] = args.dataset
    summary["source"] = str(args.responses) if args.responses else "gold plans"
    summary["tasks_in_dataset"] = len(tasks)
    summary["tasks_without_response"] = len(tasks) - len(results)
    summary["unknown_identifiers"] = unknown
    summary["file_notes"] = file_notes
    summary["seconds"] = round(time.perf_counter() - start, 3)
    out = args.output or Path("planproof-results") / f"action-sequencing-{args.dataset}"
    try:
        out.mkdir(parents=True, exist_ok=True)
        with (out / "results.jsonl").open("w", encoding="utf-8") as f:
            for r in results:
                f.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        return _fail(args, f"cannot write results to {out}: {exc}")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _table(summary, out)
    return 0


def _fail(args: argparse.Namespace, message: str) -> int:
    if args.json:
        print(json.dumps({"error": "bad-input", "message": message}))
    else:
        print(f"error: {message}", file=sys.stderr)
    return 2


def _table(summary: dict[str, Any], out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

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
        table.add_row(name, f"{value:.1f}")
    console = Console()
    console.print(table)
    console.print(
        f"results: {out}/results.jsonl, summary: {out}/summary.json ({summary['seconds']} s)"
    )
