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


def _code_prefix() -> str:
    """The cache files' name prefix: planproof's code version (a cell scored by other code
    is never read again, so :func:`_prune` removes it and the cache stays one sweep big)."""
    from planproof.data.cache import source_stamp

    raw = json.dumps([CACHE_VERSION, source_stamp(*CODE)], sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:8]


def _cache_key(cell: Any) -> str:
    from dataclasses import asdict

    content = hashlib.sha256(Path(cell.path).read_bytes()).hexdigest()
    raw = json.dumps([asdict(cell), content], sort_keys=True)
    return f"{_code_prefix()}-{hashlib.sha256(raw.encode()).hexdigest()[:32]}"


def _prune() -> int:
    """Remove the cached cells of other code versions (each holds every task's record: a
    sweep's cells are tens of MB); the number removed."""
    prefix = _code_prefix() + "-"
    removed = 0
    root = _cache_dir()
    if not root.is_dir():
        return 0
    for path in root.glob("*.json"):
        if not path.name.startswith(prefix):
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
    return removed


def _cache_dir() -> Path:
    from planproof.data.cache import cache_dir

    return cache_dir() / "reproduce"


def score_cells(
    cells: Sequence[Any],
    args: argparse.Namespace,
    failures: list[str] | None = None,
    failed_cells: list[tuple[Any, str]] | None = None,
) -> list[dict[str, Any]]:
    """Every cell's result: read from the cache, or scored through the executor (with a
    progress bar on a terminal) and written to the cache as it finishes. A cell that fails
    (a corrupt, truncated or unreadable file: the message names it) is left out with a
    warning and added to ``failures`` (its message) and ``failed_cells`` (the cell and
    the message); the other cells are scored."""
    from planproof.boundary import replace_text
    from planproof.commands.progress import progress_bar
    from planproof.runs.published_sweep import Shard, evaluate_job, merge_shards

    config = executor_config(args)  # a bad option is refused even when all is cached
    _prune()
    results: dict[int, dict[str, Any]] = {}
    failed: dict[int, str] = {}
    keys: list[str] = []
    for i, c in enumerate(cells):
        try:
            keys.append(_cache_key(c))
        except OSError as exc:  # unreadable (gone, a directory, no permission): this cell only
            keys.append("")
            failed[i] = f"{c.module} {c.model}: {c.path}: cannot read it ({exc.strerror or exc})"
    todo: list[int] = []
    for i, key in enumerate(keys):
        if i in failed:
            continue
        path = _cache_dir() / f"{key}.json"
        if not args.no_cache and path.is_file():
            try:
                results[i] = json.loads(path.read_text(encoding="utf-8"))
                continue
            except (OSError, ValueError):
                pass
        todo.append(i)
    jobs = _jobs(cells, todo)
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
                    if "error" in part:
                        failed.setdefault(i, f"{cells[i].module} {cells[i].model}: {part['error']}")
                        continue
                    parts[i].append(part)
                    if len(parts[i]) == job.count and i not in failed:
                        finished(i, merge_shards(cells[i], parts[i]))

            def finished(i: int, value: dict[str, Any]) -> None:
                results[i] = value
                replace_text(_cache_dir() / f"{keys[i]}.json", json.dumps(value), durable=True)

            executor.map(evaluate_job, [job for job, _ in jobs], on_done=done)
    for i in sorted(failed):
        print(f"planproof: warning: a cell failed and is left out: {failed[i]}", file=sys.stderr)
        if failures is not None:
            failures.append(failed[i])
        if failed_cells is not None:
            failed_cells.append((cells[i], failed[i]))
    return [results[i] for i in sorted(results)]


def _label(files: int, jobs: Sequence[tuple[Any, list[int]]]) -> str:
    """The progress bar's label: files, and the task slices when some are sliced."""
    from planproof.runs.published_sweep import Shard

    sliced = [members for job, members in jobs if isinstance(job, Shard) and job.count > 1]
    if not sliced:
        return f"scoring {files} published files"
    return (
        f"scoring {files} published files ({len(sliced[0])} of them in {len(sliced)} task slices)"
    )


def _jobs(cells: Sequence[Any], todo: Sequence[int]) -> list[tuple[Any, list[int]]]:
    """The executor's work for the cells ``todo`` indexes, each job with the indexes of
    its cells: subgoal decomposition and VirtualHome's transition modeling as task slices
    of every model's file (``published_sweep.Shard``, ``sharded``), action sequencing's
    cells of one file together (one slice), the rest a cell each; the slow ones first, so
    that the workers finish together."""
    from planproof.runs.published_sweep import PAIRED, Shard, sharded, shards

    weight = {"transition-modeling": 0, "subgoal-decomposition": 1}
    # BEHAVIOR's transition modeling (Fast Downward per answer) is the slowest of all
    ordered = sorted(
        todo, key=lambda i: (weight.get(cells[i].module, 2), cells[i].dataset != "behavior")
    )
    jobs: list[tuple[Any, list[int]]] = []
    for module in dict.fromkeys(cells[i].module for i in ordered):
        members = [i for i in ordered if cells[i].module == module]
        sliced = [i for i in members if sharded(cells[i])]
        if module in PAIRED:
            by_file: dict[str, list[int]] = {}
            for i in members:
                by_file.setdefault(cells[i].path, []).append(i)
            jobs += [
                (Shard(tuple(cells[i] for i in group), 0, 1), group)
                if len(group) > 1
                else (cells[group[0]], group)
                for group in by_file.values()
            ]
        else:
            jobs += [(cells[i], [i]) for i in members if i not in sliced]
        jobs += [(s, sliced) for s in shards([cells[i] for i in sliced])]
    return jobs


def _reference_lookup(wanted: Sequence[str] = ()) -> tuple[Any, list[str]]:
    """A (module, model, figure) → value lookup over the reference's stored figures, and
    the notes on them for the modules ``wanted`` (all when empty)."""
    try:
        from planproof.data import reference_figures as rf

        doc = rf.reference_figures()
    except (ImportError, OSError, ValueError):
        return (lambda module, model, fig: None), [
            "the reference code's figures are not stored in this planproof: the reference "
            "column is empty (benchmarks/differential_published.py --write-figures makes them)"
        ]
    modules = doc.get("modules", {}) if isinstance(doc, dict) else {}
    partial = [n for m, n in rf.partial_cells().items() if not wanted or m in wanted]

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


def _check_numbers(summary: Mapping[str, Any], path: Path) -> None:
    """Every number in a user's summary is a finite float: a 4,000-digit integer or
    ``Infinity`` would otherwise fail as an ``OverflowError`` deep in the tables. Walked
    with a stack (the document's depth is bounded, but no recursion is needed)."""
    import math

    stack: list[tuple[str, object]] = [("$", summary)]
    while stack:
        where, v = stack.pop()
        if isinstance(v, dict):
            stack.extend((f"{where}.{k}", item) for k, item in v.items())
        elif isinstance(v, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(v))
        elif isinstance(v, int | float) and not isinstance(v, bool):
            try:
                finite = math.isfinite(float(v))
            except OverflowError:
                finite = False
            if not finite:
                digits = int(abs(v).bit_length() * 0.30103) + 1 if isinstance(v, int) else 0
                shown = str(v) if isinstance(v, float) else f"an integer of about {digits} digits"
                raise BadInput(
                    f"{path} ({where}): {shown} is not a finite number; a summary holds "
                    "rates and counts"
                )


def _sampled_lookup() -> Any:
    """(module, model, figure) → whether the stored reference figure is a sample's."""
    try:
        from planproof.data import reference_figures as rf

        doc = rf.reference_figures()
    except (ImportError, OSError, ValueError):
        return lambda module, model, fig: False
    return lambda module, model, fig: rf.is_sampled(module, model, fig, doc)


HEADLINE = {
    "goal-interpretation": "overall_f1",
    "action-sequencing": "task_success",
    "transition-modeling": "object_states_planner_success",
}
"""The figure a module's corrections table explains."""


def corrections(
    results: Sequence[Mapping[str, Any]], models: Sequence[str] | None
) -> dict[str, list[Any]]:
    """Module → the corrections table's rows (a model each), from the cells scored in both
    readings."""
    from planproof.data.published import MODELS
    from planproof.report.leaderboard import PLANNER_TABLE

    out: dict[str, list[Any]] = {}
    for r in results:
        cell, table = r["cell"], r["summary"].get("corrections")
        if not isinstance(table, dict) or cell.get("repeated") == "last":
            continue
        module = cell["module"]
        fig = str(table.get("figure") or HEADLINE.get(module, "task_success"))
        if cell.get("dataset") == "behavior":
            module = f"{module}-behavior"  # its section (leaderboard.TM_BEHAVIOR)
            planner = r["summary"].get("planner_corrections")
            planned = r["figures"].get(HEADLINE["transition-modeling"]) is not None
            if isinstance(planner, dict) and planned:  # a second table, same section
                out.setdefault(f"{module}{PLANNER_TABLE}", []).append(
                    _correction_row(r, planner, HEADLINE["transition-modeling"])
                )
        out.setdefault(module, []).append(_correction_row(r, table, fig))
    order = list(MODELS)
    for rows in out.values():
        rows.sort(key=lambda c: order.index(c.model) if c.model in order else len(order))
    return out


def _correction_row(r: Mapping[str, Any], table: Mapping[str, Any], fig: str) -> Any:
    from planproof.data.published import MODELS
    from planproof.report.leaderboard import CorrectionRow

    cell = r["cell"]
    return CorrectionRow(
        model=cell["model"],
        label=MODELS.get(cell["model"], cell["model"]),
        figure=fig,
        reading=r.get("reference_reading_figures", {}).get(fig),
        planproof=r["figures"].get(fig),
        classes=table.get("classes", {}),
        total=table.get("total", {}),
        unexplained=int(table.get("unexplained", 0)),
        deltas=tuple(table.get("deltas", ("tp", "fp", "fn"))),
    )


def _seconds_key(cell: Mapping[str, Any]) -> str:
    """A cell's key in ``reproduce.json``'s ``seconds`` (BEHAVIOR's transition modeling
    apart from VirtualHome's)."""
    module = cell["module"] + ("-behavior" if cell.get("dataset") == "behavior" else "")
    return f"{module}/{cell['model']}/{cell['repeated']}"


def _user_runs(paths: Sequence[Path]) -> list[tuple[str, str, dict[str, Any]]]:
    """(module, label, summary) per summary.json under the given directories."""
    from planproof.runs.published_sweep import MODULES

    out: list[tuple[str, str, dict[str, Any]]] = []
    for root in paths:
        top = root / "summary.json"  # a FIFO or device here is named by read_json, not skipped
        found = [top] if top.exists() or top.is_symlink() else []
        found += sorted(root.glob("*/summary.json"))
        if not found:
            raise BadInput(f"{root}: no summary.json here or one level down (a run directory?)")
        for path in found:
            from planproof.boundary import read_json

            summary = read_json(path)  # bounded size and depth, typed errors
            if not isinstance(summary, dict):
                raise BadInput(f"{path}: not a summary object")
            _check_numbers(summary, path)
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
            out.append((module, label, {**summary, "_path": str(path.parent)}))
    return out


def _user_tasks(paths: Sequence[Path]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(module, label, per-task results) for the user's runs that hold ``results.jsonl``
    beside their summary (bad lines are skipped, as the report skips them)."""
    from planproof.report.load import ReportError, read_jsonl

    out: list[tuple[str, str, list[dict[str, Any]]]] = []
    for module, label, summary in _user_runs(paths):
        where = Path(str(summary.get("_path", "")))
        notes: list[str] = []
        try:
            rows = read_jsonl(where / "results.jsonl", notes) if where.parts else None
        except ReportError as exc:
            raise BadInput(str(exc)) from None
        if rows:
            out.append((module, label, rows))
    return out


def task_comparisons(results: Sequence[Mapping[str, Any]], paths: Sequence[Path]) -> list[Any]:
    """Each user run against every published model of its module, task by task."""
    from planproof.data.published import MODELS
    from planproof.report.task_compare import compare

    out = []
    for module, label, rows in _user_tasks(paths):
        for r in results:
            cell = r["cell"]
            if cell["module"] == module and cell.get("repeated", "steps") == "steps":
                name = MODELS.get(cell["model"], cell["model"])
                # each published task's full record: the same fields, in the same units, as
                # the user's results.jsonl (the verdict's F1 is a fraction, the record's a %)
                published = [t.get("record", t) for t in r["tasks"]]
                out.append(compare(module, label, rows, name, published))
    return out


def write_task_dirs(results: Sequence[Mapping[str, Any]], root: Path) -> list[Path]:
    """Per published model and module scored task by task, an evaluate-style directory
    (``summary.json``, ``results.jsonl`` with each task's record and its reference reading,
    ``responses.jsonl`` with the published answer) under ``root``: ``planproof report`` on
    it gives the per-task drill-down, as for a run."""
    from planproof.data.published import MODELS

    written: list[Path] = []
    for r in results:
        cell = r["cell"]
        records = [t["record"] for t in r["tasks"] if isinstance(t.get("record"), dict)]
        if not records or cell.get("repeated", "steps") != "steps":
            continue
        out = root / f"{cell['module']}-{cell['dataset']}" / cell["model"]
        out.mkdir(parents=True, exist_ok=True)
        summary = {
            **r["summary"],
            "module": cell["module"],
            "dataset": cell["dataset"],
            "model": MODELS.get(cell["model"], cell["model"]),
            "source": cell["path"],
        }
        (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
        lines = "".join(json.dumps(x) + "\n" for x in records)
        (out / "results.jsonl").write_text(lines, encoding="utf-8")
        try:
            answers = json.loads(Path(cell["path"]).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            answers = []
        kept = [
            {"identifier": a.get("identifier"), "llm_output": a.get("llm_output")}
            for a in answers
            if isinstance(a, dict)
        ]
        (out / "responses.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in kept), encoding="utf-8"
        )
        written.append(out)
    return written


def _sections_of(cell: Mapping[str, Any]) -> tuple[str, ...]:
    """The table sections a cell's figures fill (a cell is plain data: ``asdict(Cell)``)."""
    from planproof.report.leaderboard import (
        JSON_LOADS,
        TM_BEHAVIOR,
        TM_BEHAVIOR_COUNTING,
        TM_COUNTING,
    )

    if cell["module"] == "transition-modeling":
        if cell.get("dataset") == "behavior":
            return (TM_BEHAVIOR, TM_BEHAVIOR_COUNTING)
        return ("transition-modeling", TM_COUNTING)
    return (JSON_LOADS if cell.get("repeated") == "last" else cell["module"],)


def build(
    results: Sequence[Mapping[str, Any]],
    user: Sequence[tuple[str, str, Mapping[str, Any]]],
    modules: Sequence[str],
    models: Sequence[str] | None,
    failed: Sequence[tuple[Any, str]] = (),
) -> tuple[dict[str, list[Any]], list[Any], list[str]]:
    """Rows per section, Kendall's taus and notes, from the scored cells; ``failed``, the
    cells that could not be scored with why, marks their rows (never a silent gap)."""
    from dataclasses import asdict

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

    reference, notes = _reference_lookup(modules)
    sampled = _sampled_lookup()

    def paper(name: str, module: str, fig: str) -> float | None:
        if module == TM_BEHAVIOR:
            f = paper_figure(name, "transition-modeling", fig, dataset="behavior")
        else:
            f = paper_figure(name, module, fig)
        return None if f is None else f.value

    pp: dict[str, dict[str, dict[str, float]]] = {}
    reading: dict[str, dict[str, dict[str, float]]] = {}
    for r in results:
        cell = r["cell"]
        behavior = cell.get("dataset") == "behavior"
        section = JSON_LOADS if cell["repeated"] == "last" else cell["module"]
        section = TM_BEHAVIOR if behavior else section
        pp.setdefault(section, {})[cell["model"]] = r["figures"]
        if isinstance(r.get("reference_reading_figures"), dict):
            reading.setdefault(section, {})[cell["model"]] = r["reference_reading_figures"]
        counted = r["summary"].get("reference_counting")
        if cell["module"] == "transition-modeling" and isinstance(counted, dict):
            pp.setdefault(TM_BEHAVIOR_COUNTING if behavior else TM_COUNTING, {})[cell["model"]] = {
                k.replace("non-spatial", "non_spatial"): float(v) for k, v in counted.items()
            }
    notes = [*notes, *_planner_notes(results)]
    broken: dict[str, dict[str, str]] = {}
    for cell, message in failed:
        plain = cell if isinstance(cell, Mapping) else asdict(cell)
        for section in _sections_of(plain):
            broken.setdefault(section, {})[plain["model"]] = message
    chosen = [(s, n) for s, n in MODELS.items() if not models or s in models]
    sections: dict[str, list[Any]] = {}
    all_taus: list[Any] = []
    for module in modules:
        extra = {
            "action-sequencing": (JSON_LOADS,),
            "transition-modeling": (TM_COUNTING, TM_BEHAVIOR, TM_BEHAVIOR_COUNTING),
        }
        for section in (module, *extra.get(module, ())):
            if section not in pp and section not in broken:
                continue
            rows = rows_for(
                section,
                chosen,
                pp.get(section, {}),
                paper,
                reference,
                reading=reading.get(section),
                sampled=sampled,
                failed=broken.get(section),
            )
            all_taus += taus(section, rows)
            rows += [
                user_row(module, label, *_user_figures(section, module, s))
                for m, label, s in user
                if section == m
                or (
                    section == TM_COUNTING
                    and m == "transition-modeling"
                    and isinstance(s.get("reference_counting"), dict)
                )
            ]
            sections[section] = rows
    return sections, all_taus, notes


def _user_figures(
    section: str, module: str, summary: Mapping[str, Any]
) -> tuple[dict[str, float], dict[str, float]]:
    """A user's run in a section: (planproof's figures, the reference reading's) from its
    summary.json. An evaluate or run scored in both readings keeps the reference reading's
    summary in ``reference_reading``; transition modeling's logic form counted as the
    reference counts (``reference_counting``) is a section of its own, as for the
    published models."""
    from planproof.report.leaderboard import TM_COUNTING
    from planproof.runs.figures import figures

    if section == TM_COUNTING:
        counted = summary["reference_counting"]
        return {
            k.replace("non-spatial", "non_spatial"): float(v)
            for k, v in counted.items()
            if isinstance(v, int | float)
        }, {}
    reading = summary.get("reference_reading")
    ref = figures(module, reading) if isinstance(reading, Mapping) else {}
    return figures(module, summary), ref


def _unreadable_rows(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per scored cell whose published file has rows that are not answers (the
    sweep's ``unreadable_rows``): the file, how many rows, the first problems. Such a
    cell is scored on its readable rows; its other tasks count as unanswered."""
    out: list[str] = []
    for r in results:
        cell, bad = r["cell"], r["summary"].get("unreadable_rows")
        if isinstance(bad, dict) and cell.get("repeated") != "last":
            first = "; ".join(str(x) for x in bad.get("first", ()))
            out.append(
                f"{cell['module']} {cell['model']}: {cell['path']}: {bad.get('count')} of "
                f"{bad.get('of')} rows are not answers ({first}); scored on the other rows, "
                "the tasks they should answer count as unanswered"
            )
    return out


def _planner_notes(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """One note per transition-modeling cell whose planner stopped without a verdict on
    some task (its budget spent, or a wall-clock timeout), naming the tasks: such a task
    counts as "no plan found" in planner success, so it is said, never silent."""
    from planproof.runs.published_sweep import TM_BEHAVIOR_CPU_BUDGET, TM_MAX_EXPANSIONS

    out: list[str] = []
    for r in results:
        cell = r["cell"]
        stopped = [
            f"{t['identifier']} ({t['planner_status']})"
            for t in r.get("tasks", ())
            if t.get("planner_status") in ("budget", "timeout")
        ]
        if cell["module"] == "transition-modeling" and stopped:
            budget = (
                f"Fast Downward's budget of {TM_BEHAVIOR_CPU_BUDGET:g} CPU s"
                if cell["dataset"] == "behavior"
                else f"a budget of {TM_MAX_EXPANSIONS:,} expansions"
            )
            out.append(
                f"transition modeling, {cell['dataset']}, {cell['model']}: the planner stopped "
                f"without a verdict on {len(stopped)} task(s) ({budget}; not a plan found, "
                f"so not a planner success): {', '.join(stopped)}"
            )
        theirs = [
            str(t["identifier"])
            for t in r.get("tasks", ())
            if isinstance(t.get("reference"), dict) and t["reference"].get("status") == "budget"
        ]
        if cell["module"] == "transition-modeling" and theirs:
            out.append(
                f"transition modeling, {cell['dataset']}, {cell['model']}: the reference "
                f"reading's planner spent its budget on {len(theirs)} task(s) (no plan): "
                f"{', '.join(theirs)}"
            )
    return out


def _print(
    sections: Mapping[str, Sequence[Any]],
    tau_rows: Sequence[Any],
    every: bool,
    fixes: Mapping[str, Sequence[Any]] | None = None,
) -> None:
    """The tables in the terminal: by default every figure group but the long tail
    (``leaderboard.shown_groups``: the error taxonomy and planner success included), each
    figure as paper | ref. | ref. reading (where the section has one) | planproof."""
    from rich.table import Table

    from planproof.commands.console import stdout_console
    from planproof.report.leaderboard import (
        PLANNER_TABLE,
        SAMPLE_LEGEND,
        TITLES,
        cell_text,
        correction_cell,
        sampled_text,
        shown_groups,
    )

    console = stdout_console()

    def fmt(v: float | None) -> str:
        return "—" if v is None else f"{v:.1f}"

    for section, rows in sections.items():
        reading = any(r.reading for r in rows)
        sources = ("paper", "reference", *(("reading",) if reading else ()), "planproof")
        names = {"paper": "paper", "reference": "ref.", "reading": "ref. reading"}
        for group in shown_groups(section, every):
            table = Table(title=TITLES[section], title_justify="left")
            table.add_column("model")
            for fig in group:
                name = fig.replace("_planner_success", " planner SR").replace("_", " ")
                for col in sources:
                    label = names.get(col, col)
                    table.add_column(
                        f"{name}\n{label}" if col == "paper" else label, justify="right"
                    )
            for r in rows:
                cells = [cell_text(r, col, fig) for fig in group for col in sources]
                table.add_row(r.label + (" (your run)" if r.user_run else ""), *cells)
            captions = []
            if any(fig in r.sampled for r in rows for fig in group):
                captions.append(SAMPLE_LEGEND)
            if any(r.failed for r in rows):
                captions.append("failed: planproof could not score the published file (notes)")
            if captions:
                table.caption = "; ".join(captions)
            console.print(table)
        for module, crows in (fixes or {}).items():
            if module.removesuffix(PLANNER_TABLE) != section or not crows:
                continue
            classes = list(dict.fromkeys(c for r in crows for c in r.classes))
            table = Table(
                title=f"{TITLES[section]}: corrections, reference reading → planproof "
                "(planproof minus the reference reading; docs/reference-differences.md)",
                title_justify="left",
            )
            for col in ("model", crows[0].figure.replace("_", " "), *classes, "total", "unexpl."):
                table.add_column(col, justify="left")
            for c in crows:
                table.add_row(
                    c.label,
                    f"{fmt(c.reading)} → {fmt(c.planproof)}",
                    *(
                        correction_cell(c.classes[k], c.deltas) if k in c.classes else ""
                        for k in classes
                    ),
                    correction_cell(c.total, c.deltas),
                    str(c.unexplained),
                )
            console.print(table)
    table = Table(title="Ranking vs the paper (Kendall's tau)", title_justify="left")
    cols = ("module", "figure", "planproof", "ref. reading", "reference", "ref. sampled", "models")
    for col in cols:
        table.add_column(col, justify="left" if col in ("module", "figure") else "right")
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    for t in tau_rows:
        pairs.setdefault((t.module, t.figure), {})[t.versus] = t
    for (module, fig), d in pairs.items():
        if not any(fig in group for group in shown_groups(module, every)):
            continue
        pp, rd, ref = d["planproof"], d.get("reading"), d["reference"]
        table.add_row(
            module,
            fig,
            "—" if pp.tau is None else f"{pp.tau:.2f}",
            "—" if rd is None or rd.tau is None else f"{rd.tau:.2f}",
            ("—" if ref.tau is None else f"{ref.tau:.2f}") + ("*" if ref.sampled else ""),
            sampled_text(ref),
            str(pp.models),
        )
    if any(t.sampled for t in tau_rows):
        table.caption = (
            "* the reference's tau mixes figures on a sample of the file with whole-file "
            "ones; 'ref. sampled': how many of its figures are a sample's"
        )
    console.print(table)


def _print_comparisons(rows: Sequence[Any]) -> None:
    if not rows:
        return
    from rich.table import Table

    from planproof.commands.console import stdout_console

    table = Table(title="Your runs, task by task (success; goal interpretation: F1)")
    for col in ("your run", "module", "published model", "tasks", "both", "yours only"):
        table.add_column(col)
    table.add_column("model only")
    table.add_column("neither")
    for r in rows:
        table.add_row(
            r.user,
            r.module,
            r.model,
            str(r.shared),
            str(r.both),
            str(r.user_only),
            str(r.model_only),
            str(r.neither),
        )
    stdout_console().print(table)


def run(args: argparse.Namespace) -> int:
    from planproof.data.published import MODELS
    from planproof.report.leaderboard import as_plain, corrections_plain, render_html
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
    failures: list[str] = []
    failed_cells: list[tuple[Any, str]] = []
    results = score_cells(cells, args, failures, failed_cells)
    if not results:
        raise BadInput("no published file could be scored (see the warnings above)")
    sections, tau_rows, notes = build(results, user, args.modules, models, failed_cells)
    notes += [f"a cell failed and is left out: {f}" for f in failures]
    partial = _unreadable_rows(results)
    for line in partial:
        print(f"planproof: warning: {line}", file=sys.stderr)
    notes += partial
    try:
        args.output.mkdir(parents=True, exist_ok=True)
        fixes = corrections(results, models)
        compared = task_comparisons(results, args.run)
        task_dirs = write_task_dirs(results, args.output / "tasks")
        doc = {
            "sections": {k: as_plain(v) for k, v in sections.items()},
            "corrections": {k: corrections_plain(v) for k, v in fixes.items()},
            "kendall_tau": [t.__dict__ for t in tau_rows],
            "seconds": {_seconds_key(r["cell"]): r["seconds"] for r in results},
            "notes": notes,
            "failed_cells": failures,
            "unreadable_rows": partial,
            "failed": [
                {
                    "module": c.module,
                    "dataset": c.dataset,
                    "model": c.model,
                    "reading": "json.loads" if c.repeated == "last" else "",
                    "path": c.path,
                    "message": m,
                }
                for c, m in failed_cells
            ],
            "task_comparison": [c.to_dict() for c in compared],
            "task_dirs": [str(p) for p in task_dirs],
        }
        (args.output / "reproduce.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
        (args.output / "report.html").write_text(
            render_html(
                sections,
                notes,
                tau_rows,
                corrections=fixes,
                compared=compared,
                task_dirs=args.output / "tasks" if task_dirs else None,
            ),
            encoding="utf-8",
        )
    except OSError as exc:
        raise BadInput(f"cannot write to {args.output}: {exc}") from None
    # some published file could not be scored: everything else is written and shown, but
    # the tables are incomplete, so the run is not "done" (exit 1; docs/reproduce.md)
    status = 1 if failures or partial else 0
    if args.json:
        print(json.dumps(doc, indent=1))
        return status
    _print(sections, tau_rows, args.all_figures, fixes)
    _print_comparisons(compared)
    for n in notes:
        print(f"note: {n}")
    print(f"report: {args.output / 'report.html'}, tables: {args.output / 'reproduce.json'}")
    return status
