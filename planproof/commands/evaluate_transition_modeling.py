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

from planproof.commands.errors import BadInput
from planproof.commands.executor_options import (
    add_executor_arguments,
    executor_config,
    open_configured,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", choices=("virtualhome", "behavior"), required=True)
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--responses", type=Path, help="LLM answers (JSON list or JSON Lines)")
    src.add_argument(
        "--gold", action="store_true", help="evaluate the gold operators (the default)"
    )
    parser.add_argument("--engine", choices=("fast-downward", "pyperplan"), default="fast-downward")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per problem")
    parser.add_argument("--no-planner", action="store_true", help="logic-form scores only")
    parser.add_argument("--limit", type=int, help="evaluate only the first N answers")
    parser.add_argument(
        "--output",
        type=Path,
        help="directory for results.jsonl and summary.json "
        "(default: planproof-results/transition-modeling-DATASET)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_executor_arguments(parser)


class ResponsesError(ValueError):
    """A responses file that cannot be used."""


def read_responses(path: Path) -> list[dict[str, Any]]:
    """Answers from a JSON list or JSON Lines file; each needs an ``identifier``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResponsesError(f"cannot read {path}: {exc}") from None
    items: list[Any]
    try:
        doc = json.loads(text)
        items = doc if isinstance(doc, list) else [doc]
    except json.JSONDecodeError:
        items = []
        for n, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ResponsesError(f"{path}:{n}: invalid JSON ({exc.msg})") from None
    out: list[dict[str, Any]] = []
    for n, it in enumerate(items, start=1):
        if not isinstance(it, dict) or not isinstance(it.get("identifier"), str):
            raise ResponsesError(f"{path}: answer {n} needs a string 'identifier'")
        if not isinstance(it.get("llm_output", it.get("output")), str):
            raise ResponsesError(f"{path}: answer {n} needs a string 'llm_output'")
        out.append(it)
    return out


def run(args: argparse.Namespace) -> int:
    from planproof.data import DataUnavailableError
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl

    try:
        if args.timeout <= 0:
            raise ResponsesError("--timeout must be positive")
        config = executor_config(args)
        data = load_eai_pddl(args.dataset)
        if args.responses is None:
            responses = [
                {"identifier": i, "llm_output": data.gold_response(i)} for i in data.solved
            ]
        else:
            responses = read_responses(args.responses)
    except (ResponsesError, DataUnavailableError) as exc:
        raise BadInput(str(exc)) from None
    if args.limit is not None:
        responses = responses[: max(0, args.limit)]
    with open_configured(config, tasks=len(responses)) as executor:
        report = evaluate_responses(
            data,
            responses,
            engine=args.engine,
            timeout=args.timeout,
            run_planner=not args.no_planner,
            executor=executor,
        )
    summary = report.summary()
    out: Path = args.output or Path("planproof-results") / f"transition-modeling-{args.dataset}"
    try:
        out.mkdir(parents=True, exist_ok=True)
        with (out / "results.jsonl").open("w", encoding="utf-8") as fh:
            for t in report.tasks:
                fh.write(json.dumps(t.to_dict(), sort_keys=True) + "\n")
        (out / "summary.json").write_text(
            json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
    except OSError as exc:
        raise BadInput(f"cannot write results to {out}: {exc}") from None
    if args.json:
        print(json.dumps({"ok": True, **summary}, indent=2, sort_keys=True))
    else:
        _table(summary)
    return 0


def _table(s: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

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
            f"{100 * v['precision']:.1f}",
            f"{100 * v['recall']:.1f}",
            f"{100 * v['f1']:.1f}",
            "-" if found is None else f"{100 * found:.1f}",
            "-" if valid is None else f"{100 * valid:.1f}",
        )
    Console().print(t)
    print(
        f"format errors: {s['format_errors']}, hallucinated operators: "
        f"{s['hallucinated_operators']}, skipped answers: {s['skipped']}, "
        f"operator issues: {s['issues'] or 'none'}"
    )
