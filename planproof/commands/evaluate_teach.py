"""``planproof evaluate teach``: replay TEACh episodes and score them (SR, GC, TLW).

Without an episode path it runs the demo episodes shipped in ``planproof/examples/teach``.
With ``--output DIR`` writes ``results.jsonl`` (one line per episode) and ``summary.json``;
prints a table, or the summary as JSON with ``--json``. Exit 0 when every episode was evaluated,
2 on bad input (an unreadable file, an unknown task, a malformed state).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from planproof.boundary.options import positive_count
from planproof.commands.errors import BadInput


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "episodes",
        nargs="*",
        type=Path,
        help="episode files (JSON, JSON list or JSON Lines) or directories of *.json; "
        "default: the bundled demo episodes",
    )
    parser.add_argument(
        "--output",
        type=Path,
        help="directory for results.jsonl (one line per episode) and summary.json",
    )
    parser.add_argument(
        "--max-steps", type=positive_count, default=1000, help="step budget (default 1000)"
    )
    parser.add_argument(
        "--max-failures", type=positive_count, default=30, help="failed-action budget (default 30)"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def demo_dir() -> Path:
    from importlib import resources

    return Path(str(resources.files("planproof.examples").joinpath("teach")))


def run(args: argparse.Namespace) -> int:
    from planproof.boundary import optional_output_lock

    # checked and held before the work: a second writer of --output is refused at once
    with optional_output_lock(args.output):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from planproof.boundary import replace_files
    from planproof.metrics.summary_intervals import rate_entry
    from planproof.metrics.teach import episode_metrics, summarise, summarise_by_task
    from planproof.simulators.teach.episode import load_episodes, run_episode
    from planproof.simulators.teach.errors import TeachError

    paths: list[Path] = list(args.episodes) or [demo_dir()]
    try:
        if args.max_steps < 1 or args.max_failures < 1:
            raise TeachError("--max-steps and --max-failures must be positive")
        episodes = [e for p in paths for e in load_episodes(p)]
        if not episodes:
            raise TeachError(f"no episodes found in {', '.join(map(str, paths))}")
        from planproof.commands.progress import progress_bar

        runs = []
        with progress_bar(f"replaying {len(episodes)} episodes", len(episodes)) as advance:
            for e in episodes:
                runs.append(
                    run_episode(e, max_steps=args.max_steps, max_failures=args.max_failures)
                )
                advance()
    except TeachError as exc:
        return _fail(args, str(exc))
    rows: list[dict[str, Any]] = []
    metrics = []
    reference_metrics = []  # GC as the reference's checker counts it (its whole-object quirk)
    for r in runs:
        m, theirs = (
            episode_metrics(
                r.episode.episode_id,
                r.episode.task.name,
                success=r.final_status.success,
                initial=(initial, r.initial_status.gc_total),
                final=(final, r.final_status.gc_total),
                reference_length=(
                    r.episode.reference_length
                    if r.episode.reference_length is not None
                    else r.steps
                ),
                length=r.steps,
            )
            for initial, final in (
                (r.initial_status.gc_satisfied, r.final_status.gc_satisfied),
                (r.initial_status.gc_satisfied_reference, r.final_status.gc_satisfied_reference),
            )
        )
        metrics.append(m)
        reference_metrics.append(theirs)
        row = {**r.to_dict(), "actions": list(r.episode.actions), "metrics": m.to_dict()}
        if theirs != m:
            row["reference_reading"] = {
                k: getattr(theirs, k) for k in ("gc", "gc_final", "tlw_gc", "completed", "needed")
            }
        rows.append(row)
    summary: dict[str, Any] = {
        "benchmark": "teach",
        "overall": summarise(metrics).to_dict(),
        "by_task": {k: v.to_dict() for k, v in summarise_by_task(metrics).items()},
        "intervals": {
            "overall.success_rate": rate_entry(sum(m.success for m in metrics), len(metrics))
        },
    }
    differing = sum(1 for row in rows if "reference_reading" in row)
    if differing:
        theirs_overall = summarise(reference_metrics)
        summary["reference_reading"] = {
            "episodes_differing": differing,
            **{
                k: getattr(theirs_overall, k)
                for k in ("gc_macro", "gc_pooled", "tlw_gc_macro", "tlw_gc_weighted")
            },
        }
        summary["notes"] = [
            f"GC in the reference's reading differs on {differing} of {len(rows)} "
            f"episode(s): {theirs_overall.gc_macro:.1%} against planproof's "
            f"{summary['overall']['gc_macro']:.1%} (TEACh's whole-object quirk in "
            "check_component_n_instances, docs/teach.md)"
        ]
    if args.output is not None:
        replace_files(
            args.output,
            {
                "results.jsonl": (json.dumps(r) + "\n" for r in rows),
                "summary.json": (json.dumps(summary, indent=2) + "\n",),
            },
        )
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _table(rows, summary)
    return 0


def _fail(args: argparse.Namespace, message: str) -> int:
    """Bad input: raised for ``planproof.cli`` to present (exit status 2)."""
    raise BadInput(message)


def _table(rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    from rich.table import Table

    from planproof.commands.console import stdout_console

    overall = summary["overall"]
    sr = summary["intervals"]["overall.success_rate"]
    both = "reference_reading" in summary  # GC in both readings only where they differ
    t = Table(title="TEACh episodes")
    cols = ["episode", "task", "success", "GC", "TLW-SR", "TLW-GC", "steps", "failures"]
    if both:
        cols.insert(4, "GC (reference)")
    for col in cols:
        t.add_column(col)
    for r in rows:
        m = r["metrics"]
        cells = [
            r["id"],
            r["task"],
            "yes" if m["success"] else "no",
            f"{m['gc']:.2f}",
            f"{m['tlw_success']:.2f}",
            f"{m['tlw_gc']:.2f}",
            str(r["steps"]),
            str(len(r["failures"])),
        ]
        if both:
            theirs = r.get("reference_reading")
            cells.insert(4, f"{theirs['gc']:.2f}" if theirs else "same")
        t.add_row(*cells)
    console = stdout_console()
    console.print(t)
    for note in summary.get("notes", []):
        console.print(note)
    console.print(
        f"SR {overall['success_rate']:.1%} [{sr['low']:.1%}, {sr['high']:.1%}]  "
        f"GC {overall['gc_macro']:.1%} "
        f"(pooled {overall['gc_pooled']:.1%})  TLW-SR {overall['tlw_success_weighted']:.1%}  "
        f"TLW-GC {overall['tlw_gc_weighted']:.1%}  over {overall['episodes']} episode(s)"
    )
