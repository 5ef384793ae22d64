"""``planproof reproduce eai`` output (``reproduce.json``) as sections of the report: per
module, the paper's figure, the reference code's on the same file and planproof's, for
every published model (and the user's runs given to ``reproduce eai --run``), and
Kendall's tau of the model ranking against the paper's.

That command writes its own page with charts; here the same figures sit beside the
runs and evaluate directories of one report, two figures per table so that tables sit
side by side. ``reproduce.json`` is read defensively like
every other file: a section or row of the wrong shape is left out with a note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planproof.report.load import (
    REPRODUCE_FILE,
    ReportError,
    Run,
    RunInfo,
    as_bool,
    as_dict,
    as_list,
    as_str,
    opt_float,
    read_object,
    str_list,
)
from planproof.report.tables import Column, MetricTable, metric_table

REPRODUCE = "reproduce"
FIGURES_PER_TABLE = 2
"""Figures per table (each with up to three columns), so that a table fits the page."""
MAX_FIGURES = 24
SOURCES = (
    ("paper", "paper"),
    ("reference", "ref."),
    ("reference_reading", "ref. reading"),
    ("planproof", "planproof"),
)
"""The columns per figure: the paper, the reference code on the same file, planproof
scoring it by the reference's rules (where the module has that reading), planproof."""
MODULE_NAMES = {
    "goal-interpretation": "goal interpretation",
    "subgoal-decomposition": "subgoal decomposition",
    "action-sequencing": "action sequencing",
    "transition-modeling": "transition modeling",
}


def section_title(key: str) -> str:
    """``action-sequencing/json.loads`` → ``action sequencing (json.loads reading)``."""
    module, _, variant = key.partition("/")
    name = MODULE_NAMES.get(module, module)
    return f"{name} ({variant} reading)" if variant else name


def load_reproduced(path: Path) -> list[Run]:
    """One run per section of ``reproduce.json`` (its summary holds the rows and taus)."""
    doc = read_object(path / REPRODUCE_FILE)
    sections = as_dict(doc.get("sections"))
    if not sections:
        raise ReportError(
            f"{path / REPRODUCE_FILE}: no sections (expected the tables of planproof reproduce eai)"
        )
    taus = [t for t in map(as_dict, as_list(doc.get("kendall_tau"))) if t]
    notes = str_list(doc.get("notes"))
    runs: list[Run] = []
    for n, (key, raw) in enumerate(sections.items()):
        rows = [r for r in map(as_dict, as_list(raw)) if r]
        skipped = len(as_list(raw)) - len(rows)
        published = sum(not as_bool(r.get("user_run")) for r in rows)
        summary = {
            "rows": rows,
            "kendall_tau": [t for t in taus if as_str(t.get("module")) == key],
        }
        runs.append(
            Run(
                path=path,
                info=RunInfo(
                    model=f"{published} published models",
                    module=REPRODUCE,
                    dataset=key,
                    tasks=len(rows),
                ),
                summary=summary,
                responses=(),
                results=(),
                # the notes concern the whole reproduction: shown once, with its first section
                notes=(
                    *(notes if n == 0 else ()),
                    *([f"{skipped} rows of {key} are not objects"] if skipped else []),
                ),
                evaluated=False,
            )
        )
    return runs


def _figures(summaries: Sequence[Mapping[str, Any]]) -> list[str]:
    """The figures the command showed (those it computed a tau for), in its order; else
    those the paper has; else planproof's."""
    seen: dict[str, None] = {}
    for s in summaries:
        for t in map(as_dict, as_list(s.get("kendall_tau"))):
            if as_str(t.get("figure")):
                seen.setdefault(as_str(t.get("figure")), None)
    for source in ("paper", "planproof"):
        if seen:
            break
        for s in summaries:
            for r in map(as_dict, as_list(s.get("rows"))):
                for fig in as_dict(r.get(source)):
                    seen.setdefault(fig, None)
    return list(seen)[:MAX_FIGURES]


def _header(fig: str) -> str:
    return fig.replace("_planner_success", " planner SR").replace("_", " ")


def _starred(table: MetricTable, rows: Sequence[tuple[str, str, Mapping[str, Any]]]) -> MetricTable:
    """The table with a ``*`` after every reference figure that is a sample's (the row's
    ``reference_sampled``), as the notes promise, and ``failed`` in planproof's columns of
    a published file planproof could not score (the row's ``failed``)."""
    from dataclasses import replace

    from planproof.report.leaderboard import FAILED

    out = []
    for row, (_, _, r) in zip(table.rows, rows, strict=True):
        sampled = set(str_list(r.get("reference_sampled")))
        failed = bool(as_str(r.get("failed")))
        cells = []
        for col, cell in zip(table.columns, row.cells, strict=True):
            shown = cell
            if col.path[0] == "reference" and col.path[-1] in sampled and cell.value is not None:
                shown = replace(cell, text=cell.text + "*")
            elif (
                failed and col.path[0] in ("planproof", "reference_reading") and cell.value is None
            ):
                shown = replace(cell, text=FAILED)
            cells.append(shown)
        out.append(replace(row, cells=tuple(cells)))
    return replace(table, rows=tuple(out))


def _tau_starred(table: MetricTable, samples: Sequence[Mapping[str, str] | None]) -> MetricTable:
    """The tau table with ``* (k of n sampled)`` after each reference tau computed over
    ``k`` sampled reference figures (``samples``: per row, figure → ``k of n``, None for the
    rows without samples)."""
    from dataclasses import replace

    out = []
    for row, counts in zip(table.rows, samples, strict=True):
        cells = tuple(
            replace(cell, text=f"{cell.text}* ({counts[col.path[0]]} sampled)")
            if counts and col.path[0] in counts and cell.value is not None
            else cell
            for col, cell in zip(table.columns, row.cells, strict=True)
        )
        out.append(replace(row, cells=cells))
    return replace(table, rows=tuple(out))


def tables(
    caption: str, runs: Sequence[tuple[str, Mapping[str, Any]]], colors: Sequence[str]
) -> tuple[MetricTable, ...]:
    """The figure tables (paper | reference | planproof per figure, a row per model) and
    the tau table. ``runs``: (label, summary) per reproduce run of the section; with two
    or more, a row's label names its run."""
    summaries = [s for _, s in runs]
    figures = _figures(summaries)
    rows: list[tuple[str, str, Mapping[str, Any]]] = []
    for k, (label, summary) in enumerate(runs):
        for r in map(as_dict, as_list(summary.get("rows"))):
            name = as_str(r.get("label")) or as_str(r.get("model")) or "(unnamed)"
            if as_bool(r.get("user_run")):
                name += " (your run)"
            if len(runs) > 1:
                name = f"{label}: {name}"
            rows.append((name, colors[k % len(colors)], r))
    sources = [
        (key, short)
        for key, short in SOURCES
        if any(as_dict(r.get(key)) for _, _, r in rows) or key == "planproof"
    ]
    out: list[MetricTable] = []
    for i in range(0, len(figures), FIGURES_PER_TABLE):
        chunk = figures[i : i + FIGURES_PER_TABLE]
        cols = [
            Column(_header(fig), short, (key, fig), None, tip=f"{_header(fig)}: {key}")
            for fig in chunk
            for key, short in sources
        ]
        out.append(_starred(metric_table(REPRODUCE, caption, rows, cols), rows))
    tau_rows = []
    tau_samples: list[dict[str, str] | None] = []
    for k, (label, summary) in enumerate(runs):
        by: dict[str, dict[str, float]] = {}
        counts: dict[str, dict[str, str]] = {}
        for t in map(as_dict, as_list(summary.get("kendall_tau"))):
            tau = opt_float(t.get("tau"))
            if tau is not None:
                versus, fig = as_str(t.get("versus")), as_str(t.get("figure"))
                by.setdefault(versus, {})[fig] = tau
                n, models = opt_float(t.get("samples")), opt_float(t.get("models"))
                if n and models:
                    counts.setdefault(versus, {})[fig] = f"{int(n)} of {int(models)}"
        for versus, values in sorted(by.items()):
            name = f"{versus} vs paper" + (f" ({label})" if len(runs) > 1 else "")
            tau_rows.append((name, colors[k % len(colors)], values))
            tau_samples.append(counts.get(versus))
    if tau_rows:
        cols = [Column("Kendall's tau", _header(fig), (fig,), None, digits=2) for fig in figures]
        for i in range(0, len(cols), 3 * FIGURES_PER_TABLE):
            table = metric_table(
                REPRODUCE, "Kendall's tau", tau_rows, cols[i : i + 3 * FIGURES_PER_TABLE]
            )
            out.append(_tau_starred(table, tau_samples))
    return tuple(out)
