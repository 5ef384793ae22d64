"""What the EAI module evaluators share: arguments, pairing tasks with responses (or gold),
writing results.jsonl + summary.json, and bad-input exits."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from planproof.commands.errors import BadInput
from planproof.interface.modules import DATASETS


def add_common_arguments(parser: argparse.ArgumentParser, module: str) -> None:
    """Arguments shared by the module evaluators (same layout as action sequencing)."""
    parser.add_argument("--dataset", choices=DATASETS, required=True)
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--responses", type=Path, help="responses file (JSON list or JSON lines)")
    src.add_argument(
        "--gold", action="store_true", help="evaluate the dataset's own gold (the default)"
    )
    parser.add_argument("--limit", type=int, help="evaluate only the first K tasks")
    parser.add_argument(
        "--output",
        type=Path,
        help=f"directory for results.jsonl and summary.json "
        f"(default: planproof-results/{module}-DATASET)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def load_tasks(dataset: str) -> tuple[Any, ...]:
    """The dataset's tasks (fetching and converting the EAI data on first use)."""
    from planproof.runs.modules import load_tasks as load

    return load(dataset)


def evaluate_file(
    args: argparse.Namespace,
    gold: Callable[[Any], str],
    score: Callable[[Any, str], Any],
    failed: Callable[[Any, str], Any],
) -> tuple[list[Any], dict[str, Any], Sequence[Any]] | str:
    """Pair tasks with responses (or gold texts) and score each; a message on bad input."""
    from planproof.data.cache import DataUnavailableError
    from planproof.interface.errors import ResponsesFileError
    from planproof.interface.responses import read_responses

    try:
        tasks = load_tasks(args.dataset)
        if args.limit is not None:
            tasks = tasks[: max(args.limit, 0)]
        info: dict[str, Any] = {"unknown_identifiers": [], "file_notes": []}
        if args.responses is not None:
            responses = read_responses(args.responses)
            by_id = responses.by_identifier()
            known = {t.identifier for t in tasks}
            info["unknown_identifiers"] = sorted(i for i in by_id if i not in known)
            info["file_notes"] = list(responses.notes) + [
                e.error.message
                for e in responses.errors
                if e.identifier is None and e.error is not None
            ]
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
        return str(exc)
    results = [score(t, text) if text is not None else failed(t, msg) for t, text, msg in pairs]
    return results, info, tasks


def write_outputs(
    args: argparse.Namespace, module: str, results: Sequence[Any], summary: dict[str, Any]
) -> Path | str:
    """results.jsonl + summary.json in ``--output``; the directory, or an error message."""
    out: Path = args.output or Path("planproof-results") / f"{module}-{args.dataset}"
    try:
        out.mkdir(parents=True, exist_ok=True)
        with (out / "results.jsonl").open("w", encoding="utf-8") as f:
            for r in results:
                f.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        return f"cannot write results to {out}: {exc}"
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
) -> int:
    """The whole evaluate command of one module: score every response (or the gold),
    summarise, write the outputs, print the summary (JSON) or a table."""
    import time

    start = time.perf_counter()
    got = evaluate_file(args, gold, score, failed)
    if isinstance(got, str):
        return fail(args, got)
    results, info, tasks = got
    summary = summarize(results)
    summary.update(
        dataset=args.dataset,
        source=str(args.responses) if args.responses else source,
        **(extra or {}),
        tasks_in_dataset=len(tasks),
        tasks_without_response=len(tasks) - len(results),
        **info,
        seconds=round(time.perf_counter() - start, 3),
    )
    out = write_outputs(args, module, results, summary)
    if isinstance(out, str):
        return fail(args, out)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        table(summary, out)
    return 0
