"""``planproof report DIR... --output OUT``: one self-contained HTML page from results
directories — those of ``planproof run``/``demo`` and of every ``evaluate`` command (the
EAI modules, TEACh, Housekeep, PARTNR; one section per benchmark) and of ``reproduce
eai`` (its tables): paper-style tables with the models side by side, charts, and a
per-task drill-down with task names and goals, failing tasks first. ``--output`` is a
directory (the page is ``OUT/report.html``) or, when it ends in ``.html``, the page
itself. Exit 0, or 2 when a directory is missing or holds no results."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from planproof.commands.errors import BadInput


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "runs",
        nargs="+",
        type=Path,
        help="results directories (planproof run / demo / evaluate: EAI modules, teach, "
        "housekeep, partnr / reproduce eai), or directories holding them",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("report.html"),
        help="directory for report.html, or the page's own path when it ends in .html "
        "(default: report.html)",
    )
    parser.add_argument("--json", action="store_true", help="print where the report went")


def run(args: argparse.Namespace) -> int:
    from planproof.report import ReportError, find_run_dirs, write_report

    out: Path = args.output
    if out.suffix.lower() != ".html":
        out = out / "report.html"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_report(args.runs, out)
    except (ReportError, OSError) as exc:
        raise BadInput(str(exc)) from None
    size = out.stat().st_size
    runs = len(find_run_dirs(args.runs))
    if args.json:
        print(json.dumps({"report": str(out), "bytes": size, "runs": runs}))
    else:
        print(f"report: {out} ({size / 1024:.0f} KiB, {runs} runs)")
    return 0
