"""``planproof reproduce eai``: re-score the EAI paper's published LLM answers (15 models,
four VirtualHome modules) and print the paper's tables with three columns per figure —
the paper, the reference code on the same file, planproof — plus Kendall's tau of the
model ranking; writes ``reproduce.json`` and a side-by-side HTML report. ``--run DIR``
adds your own run directories to the same tables.

Each (model, module) cell is scored once and cached by file content and planproof's
code (``<cache>/reproduce/``), so a second run only prints.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planproof.commands.errors import BadInput
from planproof.commands.executor_options import (
    add_executor_arguments,
    executor_config,
    open_configured,
)

CACHE_VERSION = 1
"""Bump when a cell result's layout changes: cached cells are scored again."""
PIPED_WIDTH = 200
"""Width of the printed tables on a pipe or file (unless ``COLUMNS`` says otherwise): there
is no terminal width to follow, and rich's default 80 cuts the figure names of goal
interpretation's nine columns to "over… prec…"."""
CODE = ("ltl", "pddl", "simulators", "interface", "metrics", "runs", "data")
"""planproof's sub-packages whose code decides a cell's result (a change re-scores)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from planproof.runs.published_sweep import MODULES

    parser.add_argument(
        "--modules", nargs="+", choices=MODULES, default=list(MODULES), help="modules to score"
    )
    parser.add_argument("--models", nargs="+", help="published models (file stems or names)")
    parser.add_argument(
        "--run",
        action="append",
        type=Path,
        default=[],
        help="your own run or evaluate output directory (summary.json), added to the tables",
    )
    parser.add_argument(
        "--output", type=Path, default=Path("planproof-reproduce"), help="output directory"
    )
    parser.add_argument(
        "--no-planner", action="store_true", help="transition modeling: F1 only, no planner"
    )
    parser.add_argument(
        "--datasets",
        nargs="+",
        choices=("virtualhome", "behavior"),
        default=["virtualhome"],
        help="datasets to score (default virtualhome; behavior adds BEHAVIOR transition "
        "modeling, the one BEHAVIOR module with published answers: its planner needs far "
        "more time, docs/reproduce.md)",
    )
    parser.add_argument("--all-figures", action="store_true", help="print every figure group")
    parser.add_argument("--no-cache", action="store_true", help="score every cell again")
    parser.add_argument("--json", action="store_true", help="print the tables as JSON")
    add_executor_arguments(parser)


def _cache_key(cell: Any) -> str:
    from dataclasses import asdict

    from planproof.data.cache import source_stamp

    content = hashlib.sha256(Path(cell.path).read_bytes()).hexdigest()
    raw = json.dumps([CACHE_VERSION, asdict(cell), content, source_stamp(*CODE)], sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def _cache_dir() -> Path:
    from planproof.data.cache import cache_dir

    return cache_dir() / "reproduce"


def score_cells(cells: Sequence[Any], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every cell's result: read from the cache, or scored through the executor (with a
    progress bar on a terminal) and written to the cache as it finishes."""
    from planproof.commands.progress import progress_bar
    from planproof.data.cache import atomic_write_text
    from planproof.runs.published_sweep import Shard, evaluate_job, merge_shards

    config = executor_config(args)  # a bad option is refused even when all is cached
    results: dict[int, dict[str, Any]] = {}
    keys = [_cache_key(c) for c in cells]
    todo: list[int] = []
    for i, key in enumerate(keys):
        path = _cache_dir() / f"{key}.json"
        if not args.no_cache and path.is_file():
            try:
                results[i] = json.loads(path.read_text(encoding="utf-8"))
                continue
            except (OSError, ValueError):
                pass
        todo.append(i)
    jobs = _jobs(cells, todo)
    failed: dict[int, str] = {}
    parts: dict[int, list[Any]] = {i: [] for i in todo}
    if jobs:
        with (
            open_configured(config, tasks=len(jobs)) as executor,
            progress_bar(_label(len(todo), jobs), len(jobs)) as advance,
        ):

            def done(index: int, outcome: Any) -> None:
                job, members = jobs[index]
                advance()
                if not outcome.ok:
                    for i in members:
                        failed.setdefault(
                            i, f"{cells[i].module} {cells[i].model}: {outcome.failure}"
                        )
                    return
                if not isinstance(job, Shard):
                    finished(members[0], outcome.value)
                    return
                for i, part in zip(members, outcome.value, strict=True):
                    parts[i].append(part)
                    if len(parts[i]) == job.count and i not in failed:
                        finished(i, merge_shards(cells[i], parts[i]))

            def finished(i: int, value: dict[str, Any]) -> None:
                results[i] = value
                atomic_write_text(_cache_dir() / f"{keys[i]}.json", json.dumps(value))

            executor.map(evaluate_job, [job for job, _ in jobs], on_done=done)
    failures = [failed[i] for i in sorted(failed)]
    for f in failures:
        print(f"planproof: warning: a cell failed and is left out: {f}", file=sys.stderr)
    return [results[i] for i in sorted(results)]


def _label(files: int, jobs: Sequence[tuple[Any, list[int]]]) -> str:
    """The progress bar's label: files, and the task slices when some are sliced."""
    from planproof.runs.published_sweep import Shard

    sliced = [members for job, members in jobs if isinstance(job, Shard)]
    if not sliced:
        return f"scoring {files} published files"
    return (
        f"scoring {files} published files ({len(sliced[0])} of them in {len(sliced)} task slices)"
    )


def _jobs(cells: Sequence[Any], todo: Sequence[int]) -> list[tuple[Any, list[int]]]:
    """The executor's work for the cells ``todo`` indexes, each job with the indexes of
    its cells: subgoal decomposition as task slices of every model's file
    (``published_sweep.Shard``), the rest a cell each; the slow ones first, so that the
    workers finish together."""
    from planproof.runs.published_sweep import SHARDED, shards

    weight = {"transition-modeling": 0, "subgoal-decomposition": 1}
    ordered = sorted(todo, key=lambda i: weight.get(cells[i].module, 2))
    jobs: list[tuple[Any, list[int]]] = []
    for module in dict.fromkeys(cells[i].module for i in ordered):
        members = [i for i in ordered if cells[i].module == module]
        if module in SHARDED:
            jobs += [(s, members) for s in shards([cells[i] for i in members])]
        else:
            jobs += [(cells[i], [i]) for i in members]
    return jobs


def _reference_lookup() -> tuple[Any, list[str]]:
    """A (module, model, figure) → value lookup over the reference's stored figures, and
    a note when there are none."""
    try:
        from planproof.data import reference_figures as rf

        doc = rf.reference_figures()
    except (ImportError, OSError, ValueError):
        return (lambda module, model, fig: None), [
            "the reference code's figures are not stored in this planproof: the reference "
            "column is empty (benchmarks/differential_published.py --write-figures makes them)"
        ]
    modules = doc.get("modules", {}) if isinstance(doc, dict) else {}
    partial = list(rf.partial_cells().values())

    def lookup(module: str, model: str, fig: str) -> float | None:
        cell = modules.get(module, {}).get(model)
        if not isinstance(cell, dict):
            return None
        figs = cell.get("figures", {})
        for name in (
            fig,
            fig.replace("non_spatial", "non-spatial"),
            fig + "_rate",
            fig.replace("non_spatial", "non-spatial") + "_rate",
        ):
            value = figs.get(name)
            if isinstance(value, int | float):
                return float(value)
        return None

    return lookup, partial


def _user_runs(paths: Sequence[Path]) -> list[tuple[str, str, dict[str, Any]]]:
    """(module, label, summary) per summary.json under the given directories."""
    from planproof.runs.published_sweep import MODULES

    out: list[tuple[str, str, dict[str, Any]]] = []
    for root in paths:
        found = [root / "summary.json"] if (root / "summary.json").is_file() else []
        found += sorted(root.glob("*/summary.json"))
        if not found:
            raise BadInput(f"{root}: no summary.json here or one level down (a run directory?)")
        for path in found:
            from planproof.boundary import read_json

            summary = read_json(path)  # bounded size and depth, typed errors
            if not isinstance(summary, dict):
                raise BadInput(f"{path}: not a summary object")
            module = str(summary.get("module") or "")
            if module not in MODULES:
                module = next((m for m in MODULES if path.parent.name.startswith(m)), "")
            if not module:
                raise BadInput(
                    f"{path}: cannot tell the module (no 'module' field, and the directory "
                    f"is not named after one of {', '.join(MODULES)})"
                )
            dataset = str(summary.get("dataset") or "virtualhome")
            if dataset != "virtualhome":
                raise BadInput(f"{path}: dataset {dataset!r}; the paper's tables are VirtualHome")
            label = str(summary.get("model") or path.parent.name)
            out.append((module, label, summary))
    return out


def build(
    results: Sequence[Mapping[str, Any]],
    user: Sequence[tuple[str, str, Mapping[str, Any]]],
    modules: Sequence[str],
    models: Sequence[str] | None,
) -> tuple[dict[str, list[Any]], list[Any], list[str]]:
    """Rows per section, Kendall's taus and notes, from the scored cells."""
    from planproof.data.paper_eai import paper_figure
    from planproof.data.published import MODELS
    from planproof.report.leaderboard import (
        JSON_LOADS,
        TM_BEHAVIOR,
        TM_BEHAVIOR_COUNTING,
        TM_COUNTING,
        rows_for,
        taus,
        user_row,
    )
    from planproof.runs.published_sweep import figures

    reference, notes = _reference_lookup()

    def paper(name: str, module: str, fig: str) -> float | None:
        if module == TM_BEHAVIOR:
            f = paper_figure(name, "transition-modeling", fig, dataset="behavior")
        else:
            f = paper_figure(name, module, fig)
        return None if f is None else f.value

    pp: dict[str, dict[str, dict[str, float]]] = {}
    for r in results:
        cell = r["cell"]
        behavior = cell.get("dataset") == "behavior"
        section = JSON_LOADS if cell["repeated"] == "last" else cell["module"]
        section = TM_BEHAVIOR if behavior else section
        pp.setdefault(section, {})[cell["model"]] = r["figures"]
        counted = r["summary"].get("reference_counting")
        if cell["module"] == "transition-modeling" and isinstance(counted, dict):
            pp.setdefault(TM_BEHAVIOR_COUNTING if behavior else TM_COUNTING, {})[cell["model"]] = {
                k.replace("non-spatial", "non_spatial"): float(v) for k, v in counted.items()
            }
    notes = [*notes, *_planner_notes(results)]
    chosen = [(s, n) for s, n in MODELS.items() if not models or s in models]
    sections: dict[str, list[Any]] = {}
    all_taus: list[Any] = []
    for module in modules:
        extra = {
            "action-sequencing": (JSON_LOADS,),
            "transition-modeling": (TM_COUNTING, TM_BEHAVIOR, TM_BEHAVIOR_COUNTING),
        }
        for section in (module, *extra.get(module, ())):
            if section not in pp:
                continue
            rows = rows_for(section, chosen, pp[section], paper, reference)
            all_taus += taus(section, rows)
            rows += [
                user_row(module, label, figures(module, s)) for m, label, s in user if m == section
            ]
            sections[section] = rows
    return sections, all_taus, notes


def _planner_notes(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """One note per transition-modeling cell whose planner stopped without a verdict on
    some task (its budget spent, or a wall-clock timeout), naming the tasks: such a task
    counts as "no plan found" in planner success, so it is said, never silent."""
    from planproof.runs.published_sweep import TM_BEHAVIOR_TIMEOUT, TM_MAX_EXPANSIONS

    out: list[str] = []
    for r in results:
        cell = r["cell"]
        stopped = [
            f"{t['identifier']} ({t['planner_status']})"
            for t in r.get("tasks", ())
            if t.get("planner_status") in ("budget", "timeout")
        ]
        if cell["module"] == "transition-modeling" and stopped:
            out.append(
                f"transition modeling, {cell['dataset']}, {cell['model']}: the planner stopped "
                f"without a verdict on {len(stopped)} task(s), counted as no plan "
                f"(VirtualHome: a budget of {TM_MAX_EXPANSIONS:,} expansions; BEHAVIOR: Fast "
                f"Downward's {TM_BEHAVIOR_TIMEOUT:g} s): {', '.join(stopped)}"
            )
    return out


def _print(sections: Mapping[str, Sequence[Any]], tau_rows: Sequence[Any], every: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from planproof.data.reference_figures import is_sampled, reference_figures
    from planproof.report.leaderboard import BASE, GROUPS, TITLES

    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = PIPED_WIDTH
    try:
        doc: dict[str, Any] | None = reference_figures()
    except (OSError, ValueError):
        doc = None

    def star(section: str, model: str, fig: str) -> bool:
        return doc is not None and is_sampled(BASE.get(section, section), model, fig, doc)

    def fmt(v: float | None) -> str:
        return "—" if v is None else f"{v:.1f}"

    for section, rows in sections.items():
        for group in GROUPS[section] if every else GROUPS[section][:1]:
            table = Table(title=TITLES[section], title_justify="left")
            table.add_column("model")
            for fig in group:
                name = fig.replace("_planner_success", " planner SR").replace("_", " ")
                for col in ("paper", "ref.", "planproof"):
                    table.add_column(f"{name}\n{col}" if col == "paper" else col, justify="right")
            for r in rows:
                cells = []
                for fig in group:
                    cells += [
                        fmt(r.paper.get(fig)),
                        fmt(r.reference.get(fig)) + ("*" if star(section, r.model, fig) else ""),
                        fmt(r.planproof.get(fig)),
                    ]
                table.add_row(r.label + (" (your run)" if r.user_run else ""), *cells)
            if any(star(section, r.model, fig) for r in rows for fig in group):
                table.caption = (
                    "* the reference code on a sample of the file's tasks (see the notes)"
                )
            console.print(table)
    table = Table(title="Ranking vs the paper (Kendall's tau)", title_justify="left")
    for col in ("module", "figure", "planproof", "reference", "models"):
        table.add_column(col, justify="left" if col in ("module", "figure") else "right")
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    for t in tau_rows:
        pairs.setdefault((t.module, t.figure), {})[t.versus] = t
    for (module, fig), d in pairs.items():
        if not every and fig not in (GROUPS[module][0]):
            continue
        pp, ref = d["planproof"], d["reference"]
        table.add_row(
            module,
            fig,
            "—" if pp.tau is None else f"{pp.tau:.2f}",
            "—" if ref.tau is None else f"{ref.tau:.2f}",
            str(pp.models),
        )
    console.print(table)


def run(args: argparse.Namespace) -> int:
    from planproof.data.published import MODELS
    from planproof.report.leaderboard import as_plain, render_html
    from planproof.runs.published_sweep import published_cells

    models: list[str] | None = None
    if args.models:
        by_name = {n.lower(): s for s, n in MODELS.items()}
        models = []
        for m in args.models:
            stem = m if m in MODELS else by_name.get(m.lower())
            if stem is None:
                raise BadInput(
                    f"unknown published model {m!r}; the models are: {', '.join(MODELS)}"
                )
            models.append(stem)
    user = _user_runs(args.run)
    cells = published_cells(
        args.modules, models, planner=not args.no_planner, datasets=args.datasets
    )
    results = score_cells(cells, args)
    if not results:
        raise BadInput("no published file could be scored (see the warnings above)")
    sections, tau_rows, notes = build(results, user, args.modules, models)
    try:
        args.output.mkdir(parents=True, exist_ok=True)
        doc = {
            "sections": {k: as_plain(v) for k, v in sections.items()},
            "kendall_tau": [t.__dict__ for t in tau_rows],
            "seconds": {
                f"{r['cell']['module']}/{r['cell']['model']}/{r['cell']['repeated']}": r["seconds"]
                for r in results
            },
            "notes": notes,
        }
        (args.output / "reproduce.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
        (args.output / "report.html").write_text(
            render_html(sections, notes, tau_rows), encoding="utf-8"
        )
    except OSError as exc:
        raise BadInput(f"cannot write to {args.output}: {exc}") from None
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    _print(sections, tau_rows, args.all_figures)
    for n in notes:
        print(f"note: {n}")
    print(f"report: {args.output / 'report.html'}, tables: {args.output / 'reproduce.json'}")
    return 0
