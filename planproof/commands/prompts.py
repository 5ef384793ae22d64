"""``planproof prompts``: write one prompt per task for an EAI ability module.

Output is JSON lines, one ``{identifier, module, dataset, prompt, output_schema}`` per
task, in ``--output DIR`` as ``prompts-MODULE-DATASET.jsonl`` (default DIR:
``planproof-results``; a path ending in ``.jsonl`` names the file itself).
Exit 0 when written, 2 on bad input (unknown module or dataset, data unavailable,
unwritable file).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from planproof.boundary.options import count
from planproof.commands.eai_module import fail, load_tasks
from planproof.interface.modules import DATASETS, MODULES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--module", choices=MODULES, required=True, help="the EAI module")
    parser.add_argument("--dataset", choices=DATASETS, required=True, help="the EAI dataset")
    parser.add_argument("--limit", type=count, help="only the first K tasks")
    parser.add_argument(
        "--output",
        type=Path,
        help="directory for prompts-MODULE-DATASET.jsonl (default planproof-results), or "
        "the file itself when it ends in .jsonl",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON summary")


def run(args: argparse.Namespace) -> int:
    from planproof.data.cache import DataUnavailableError
    from planproof.interface.prompts import build_prompts

    start = time.perf_counter()
    try:
        tasks = load_tasks(args.dataset)
    except DataUnavailableError as exc:
        return fail(args, str(exc))
    if args.limit is not None:
        tasks = tasks[: max(args.limit, 0)]
    prompts = build_prompts(tasks, args.module)
    out: Path = args.output or Path("planproof-results")
    if out.suffix != ".jsonl":
        out = out / f"prompts-{args.module}-{args.dataset}.jsonl"
    from planproof.boundary import write_text

    text = "".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in prompts)
    write_text(out, text, source="--output")  # typed errors; a FIFO without a reader refused
    seconds = round(time.perf_counter() - start, 3)
    summary = {
        "module": args.module,
        "dataset": args.dataset,
        "prompts": len(prompts),
        "output": str(out),
        "seconds": seconds,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{len(prompts)} {args.module} prompts for {args.dataset} → {out} ({seconds} s)")
    return 0
