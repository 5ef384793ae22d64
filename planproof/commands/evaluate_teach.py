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
    from planproof.boundary import output_dir
    from planproof.metrics.summary_intervals import rate_entry
    from planproof.metrics.teach import episode_metrics, summarise, summarise_by_task
    from planproof.simulators.teach.episode import load_episodes, run_episode
    from planproof.simulators.teach.errors import TeachError

    paths: list[Path] = list(args.episodes) or [demo_dir()]
    if args.output is not None:
        output_dir(args.output)  # refused before the work, not after it
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
    for r in runs:
        m = episode_metrics(
            r.episode.episode_id,
            r.episode.task.name,
            success=r.final_status.success,
            initial=(r.initial_status.gc_satisfied, r.initial_status.gc_total),
            final=(r.final_status.gc_satisfied, r.final_status.gc_total),
            reference_length=(
                r.episode.reference_length if r.episode.reference_length is not None else r.steps
            ),
            length=r.steps,
        )
        metrics.append(m)
        rows.append({**r.to_dict(), "actions": list(r.episode.actions), "metrics": m.to_dict()})
    summary: dict[str, Any] = {
        "benchmark": "teach",
        "overall": summarise(metrics).to_dict(),
        "by_task": {k: v.to_dict() for k, v in summarise_by_task(metrics).items()},
        "intervals": {
            "overall.success_rate": rate_entry(sum(m.success for m in metrics), len(metrics))
        },
    }
    try:
        if args.output:
            args.output.mkdir(parents=True, exist_ok=True)
            (args.output / "results.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
            )
            (args.output / "summary.json").write_text(
                json.dumps(summary, indent=2) + "\n", encoding="utf-8"
            )
    except OSError as exc:
        return _fail(args, f"cannot write results: {exc}")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _table(rows, summary["overall"], summary["intervals"]["overall.success_rate"])
    return 0


def _fail(args: argparse.Namespace, message: str) -> int:
    """Bad input: raised for ``planproof.cli`` to present (exit status 2)."""
    raise BadInput(message)


def _table(rows: list[dict[str, Any]], overall: dict[str, Any], sr: dict[str, Any]) -> None:
    from rich.table import Table

    from planproof.commands.console import stdout_console

    t = Table(title="TEACh episodes")
    for col in ("episode", "task", "success", "GC", "TLW-SR", "TLW-GC", "steps", "failures"):
        t.add_column(col)
    for r in rows:
        m = r["metrics"]
        t.add_row(
            r["id"],
            r["task"],
            "yes" if m["success"] else "no",
            f"{m['gc']:.2f}",
            f"{m['tlw_success']:.2f}",
            f"{m['tlw_gc']:.2f}",
            str(r["steps"]),
            str(len(r["failures"])),
        )
    console = stdout_console()
    console.print(t)
    console.print(
        f"SR {overall['success_rate']:.1%} [{sr['low']:.1%}, {sr['high']:.1%}]  "
        f"GC {overall['gc_macro']:.1%} "
        f"(pooled {overall['gc_pooled']:.1%})  TLW-SR {overall['tlw_success_weighted']:.1%}  "
        f"TLW-GC {overall['tlw_gc_weighted']:.1%}  over {overall['episodes']} episode(s)"
    )
