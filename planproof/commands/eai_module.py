"""What the EAI module evaluators share: arguments, pairing tasks with responses (or gold),
writing results.jsonl + summary.json, and bad-input exits."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from planproof.boundary.options import count
from planproof.commands.errors import BadInput
from planproof.commands.progress import progress_bar
from planproof.interface.modules import DATASETS


def add_common_arguments(parser: argparse.ArgumentParser, module: str) -> None:
    """Arguments shared by the module evaluators (same layout as action sequencing)."""
    parser.add_argument("--dataset", choices=DATASETS, required=True, help="the EAI dataset")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--responses", type=Path, help="responses file (JSON list or JSON lines)")
    src.add_argument(
        "--gold", action="store_true", help="evaluate the dataset's own gold (the default)"
    )
    parser.add_argument("--limit", type=count, help="evaluate only the first K tasks")
    parser.add_argument(
        "--output",
        type=Path,
        help=f"directory for results.jsonl and summary.json "
        f"(default: planproof-results/{module}-DATASET)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_reading_argument(parser)


def add_reading_argument(parser: argparse.ArgumentParser) -> None:
    """``--reading planproof|reference|both`` (docs/cli.md, "The reference reading")."""
    from planproof.runs.reference_reading import DEFAULT_READING, READINGS

    parser.add_argument(
        "--reading",
        choices=READINGS,
        default=DEFAULT_READING,
        help="planproof's reading, the reference's (virtualhome-eval 0.1.1's rules, the "
        "figure to cite as the reference's), or both beside each other with the corrections "
        f"between them (default {DEFAULT_READING}; VirtualHome, and BEHAVIOR transition "
        "modeling's logic form)",
    )


def reading_in_effect(args: argparse.Namespace, module: str) -> str:
    """``--reading`` as it applies to the module and dataset: ``planproof`` where there is
    no reference reading (the default then says so in the summary); asking for the
    reference reading there is bad input."""
    from planproof.runs.reference_reading import unavailable

    reading = str(getattr(args, "reading", "planproof"))
    reason = unavailable(module, args.dataset)
    if reason is None or reading == "planproof":
        return reading
    if reading == "reference":
        raise BadInput(reason)
    return "planproof"


def load_tasks(dataset: str) -> tuple[Any, ...]:
    """The dataset's tasks (fetching and converting the EAI data on first use, which takes
    10-20 s: a spinner says so on a terminal)."""
    from planproof.runs.modules import load_tasks as load

    with progress_bar(f"loading the {dataset} tasks", None):
        return load(dataset)


def evaluate_file(
    args: argparse.Namespace,
    gold: Callable[[Any], str],
    score: Callable[[Any, str], Any],
    failed: Callable[[Any, str], Any],
) -> tuple[list[Any], dict[str, Any], Sequence[Any], list[dict[str, Any]]]:
    """Pair tasks with responses (or gold texts) and score each: the results, how the
    responses met the tasks, the tasks in scope, and the answers scored. How the responses met the
    tasks goes to stderr; a file that matches no task is bad input (no silent zeros)."""
    from planproof.commands.matching import match, tell
    from planproof.data.cache import DataUnavailableError
    from planproof.interface.errors import ResponsesFileError
    from planproof.interface.responses import read_responses

    if args.limit is not None and args.limit < 0:
        raise BadInput("--limit must not be negative")
    try:
        every = load_tasks(args.dataset)
        tasks = every[: args.limit] if args.limit is not None else every
        info: dict[str, Any] = {"unknown_identifiers": [], "file_notes": []}
        if args.responses is not None:
            responses = read_responses(args.responses)
            matching, by_id = match(
                responses,
                source=str(args.responses),
                dataset=args.dataset,
                known=[t.identifier for t in every],
                scope=[t.identifier for t in tasks],
                outside_reason=f"beyond --limit {args.limit}",
            )
            matching.require_some()
            tell(matching.lines())
            info = matching.to_dict()
            pairs: list[tuple[Any, str | None, str]] = []
            for t in tasks:
                e = by_id.get(t.identifier)
                if e is None:
                    continue
                msg = e.error.message if e.error is not None else "no llm_output"
                pairs.append((t, e.text if e.error is None else None, msg))
        else:
            pairs = [(t, gold(t), "") for t in tasks]
    except (DataUnavailableError, ResponsesFileError) as exc:
        raise BadInput(str(exc)) from None
    if not pairs:
        raise BadInput(
            f"nothing to evaluate: {args.dataset} has no task within --limit {args.limit}"
        )
    with progress_bar(f"scoring {len(pairs)} tasks", len(pairs)) as advance:
        results = []
        for t, text, msg in pairs:
            results.append(score(t, text) if text is not None else failed(t, msg))
            advance()
    answers = [
        {
            "identifier": t.identifier,
            "llm_output": text,
            "error": None if text is not None else {"kind": "no-output", "message": msg},
        }
        for t, text, msg in pairs
    ]
    return results, info, tasks, answers


def output_path(args: argparse.Namespace, module: str) -> Path:
    """``--output``, or ``planproof-results/MODULE-DATASET``."""
    out: Path = args.output or Path("planproof-results") / f"{module}-{args.dataset}"
    return out


def write_outputs(
    args: argparse.Namespace,
    module: str,
    results: Sequence[Any],
    summary: dict[str, Any],
    *,
    answers: Sequence[dict[str, Any]] = (),
    tasks: Sequence[Any] = (),
    rows: Sequence[dict[str, Any]] | None = None,
) -> Path:
    """results.jsonl (``rows``, or each result's ``to_dict()``) + summary.json (+ the
    answers scored, responses.jsonl, for the report) in ``--output``; the directory (a
    failure to write is an InputError)."""
    from planproof.boundary import replace_files
    from planproof.runs.modules import with_task_fields

    out = output_path(args, module)
    rows = with_task_fields(
        list(rows) if rows is not None else [r.to_dict() for r in results], tasks
    )
    replace_files(  # each file replaced whole: a reader or a kill never sees half of one
        out,
        {
            "responses.jsonl": (json.dumps(a, ensure_ascii=False) + "\n" for a in answers),
            "results.jsonl": (json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
            "summary.json": (json.dumps(summary, indent=2) + "\n",),
        },
    )
    return out


def fail(args: argparse.Namespace, message: str) -> int:
    """Bad input: raised for ``planproof.cli`` to present (exit status 2)."""
    raise BadInput(message)


def run_module(
    args: argparse.Namespace,
    module: str,
    *,
    gold: Callable[[Any], str],
    score: Callable[[Any, str], Any],
    failed: Callable[[Any, str], Any],
    summarize: Callable[[Sequence[Any]], dict[str, Any]],
    source: str,
    table: Callable[[dict[str, Any], Path], None],
    extra: dict[str, Any] | None = None,
    reading_options: dict[str, Any] | None = None,
) -> int:
    """The whole evaluate command of one module: score every response (or the gold),
    summarise, write the outputs, print the summary (JSON) or a table. With ``--reading
    reference|both`` each answer is scored in both readings
    (:mod:`planproof.runs.reference_reading`, ``reading_options`` passed on)."""
    import time

    from planproof.boundary import output_lock
    from planproof.runs import reference_reading as rr

    reading = reading_in_effect(args, module)
    # checked and locked before the work: a second evaluate writing the same directory is
    # refused at once instead of interleaving its files with this one's
    with output_lock(output_path(args, module)):
        start = time.perf_counter()
        rows: list[dict[str, Any]] | None = None
        if reading == "planproof":
            results, info, tasks, answers = evaluate_file(args, gold, score, failed)
            summary = summarize(results)
            why = rr.unavailable(module, args.dataset)
            if why is not None:
                summary.update(reference_reading=None, reference_reading_note=why)
        else:
            scorer = rr.readings(
                module,
                lambda: _rows_in_order(args, gold),
                path=str(args.responses) if args.responses is not None else None,
                **(reading_options or {}),
            )
            both, info, tasks, answers = evaluate_file(args, gold, scorer.score, scorer.failed)
            summary, rows, results = rr.summary_and_rows(scorer, both)
        summary["reading"] = reading
        from planproof.metrics.summary_intervals import summary_intervals

        summary["intervals"] = summary_intervals(module, [r.to_dict() for r in results])
        summary.update(
            module=module,
            dataset=args.dataset,
            source=str(args.responses) if args.responses else source,
            **(extra or {}),
            tasks_in_dataset=len(tasks),
            tasks_without_response=len(tasks) - len(results),
            **info,
            seconds=round(time.perf_counter() - start, 3),
        )
        out = write_outputs(args, module, results, summary, answers=answers, tasks=tasks, rows=rows)
        if args.json:
            print(json.dumps(summary, indent=2))
        else:
            from planproof.commands.reading_table import print_readings

            if reading != "reference":
                table(summary, out)
            print_readings(module, summary, reading)
            if reading == "reference":
                print(f"results: {out}/results.jsonl, summary: {out}/summary.json")
                return 0
            from planproof.commands.failures import CLASSIFY, failures, print_failures

            rows = [r.to_dict() for r in results]
            names = {t.identifier: t.name for t in tasks}
            print_failures(failures(rows, CLASSIFY[module]), len(rows), names)
        return 0


def _rows_in_order(args: argparse.Namespace, gold: Callable[[Any], str]) -> list[dict[str, Any]]:
    """The answers as the reference reads them, in file order (every entry, repeated
    identifiers included), or the gold texts in task order."""
    from planproof.interface.responses import read_responses

    if args.responses is None:
        every = load_tasks(args.dataset)
        tasks = every[: args.limit] if args.limit is not None else every
        return [{"identifier": t.identifier, "llm_output": gold(t)} for t in tasks]
    f = read_responses(args.responses)
    entries = sorted((*f.entries, *f.duplicates), key=lambda e: e.index)
    return [{"identifier": e.identifier, "llm_output": e.text} for e in entries]
