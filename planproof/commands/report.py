"""``planproof report RUN_DIR... -o report.html``: one self-contained HTML page from run
directories (paper-style tables with the models side by side, error-taxonomy charts,
goal-type breakdowns, per-task drill-down). Exit 0, or 2 when a run directory is missing
or unreadable."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from planproof.commands.errors import BadInput


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", type=Path, help="run directories (planproof run)")
    parser.add_argument("-o", "--output", type=Path, default=Path("report.html"))
    parser.add_argument("--json", action="store_true", help="print where the report went")


def run(args: argparse.Namespace) -> int:
    from planproof.report import ReportError, find_run_dirs, write_report

    try:
        write_report(args.runs, args.output)
    except (ReportError, OSError) as exc:
        raise BadInput(str(exc)) from None
    size = args.output.stat().st_size
    runs = len(find_run_dirs(args.runs))
    if args.json:
        print(json.dumps({"report": str(args.output), "bytes": size, "runs": runs}))
    else:
        print(f"report: {args.output} ({size / 1024:.0f} KiB, {runs} runs)")
    return 0
