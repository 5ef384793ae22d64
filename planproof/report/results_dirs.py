"""Which reader reads each results directory the report is given: planproof's own runs
(:func:`planproof.report.load.read_run`), the benchmarks' episode directories
(:mod:`planproof.report.episode_dirs`) and ``reproduce eai`` output
(:mod:`planproof.report.reproduced`).

The dispatch lives above the readers, so that they import the record types of
:mod:`planproof.report.load` and nothing imports back (no import circle).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from planproof.report.episode_dirs import benchmark_of, load_benchmark_run
from planproof.report.load import (
    EXPECTED,
    RUN_FILE,
    SUMMARY_FILE,
    ReportError,
    Run,
    is_reproduce_dir,
    is_results_dir,
    read_object,
    read_run,
)
from planproof.report.reproduced import load_reproduced

__all__ = ["find_run_dirs", "load_results", "load_run", "load_runs"]


def load_run(path: Path) -> Run:
    """Read one results directory (``planproof run`` or ``evaluate`` output);
    :class:`ReportError` when it is neither."""
    if not path.is_dir():
        raise ReportError(
            f"{path}: not a results directory (it does not exist or is a file); "
            f"expected a directory with {EXPECTED}"
        )
    if is_reproduce_dir(path):
        raise ReportError(f"{path}: reproduce eai output holds several sections: load_runs")
    if not is_results_dir(path):
        raise ReportError(f"{path}: not a results directory; expected {EXPECTED}")
    summary = read_object(path / SUMMARY_FILE)
    if not (path / RUN_FILE).exists():
        benchmark = benchmark_of(path, summary)
        if benchmark is not None:
            return load_benchmark_run(path, benchmark, summary)
    return read_run(path, summary)


SEARCH_DEPTH = 3
"""How deep a directory without results is searched for results directories: the
default layout of ``planproof run`` is ``planproof-runs/MODEL/MODULE-DATASET`` (two
levels), ``planproof-results/MODULE-DATASET`` one."""


def _results_below(path: Path, depth: int) -> list[Path]:
    """Results directories under ``path`` (not descending into one), sorted."""
    if depth == 0:
        return []
    out: list[Path] = []
    try:
        children = sorted(d for d in path.iterdir() if d.is_dir() and not d.is_symlink())
    except OSError:
        return []
    for d in children:
        out.extend([d] if is_results_dir(d) else _results_below(d, depth - 1))
    return out


def find_run_dirs(paths: Iterable[Path]) -> list[Path]:
    """The results directories named: a directory holding ``run.json`` or ``summary.json``
    is one; a directory without either stands for the results directories below it, up
    to :data:`SEARCH_DEPTH` levels (so ``planproof report planproof-runs`` finds every
    run of the default layout). Anything else is passed through for :func:`load_run` to
    reject with a message."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir() and not is_results_dir(p):
            out.extend(_results_below(p, SEARCH_DEPTH) or [p])
        else:
            out.append(p)
    return list(dict.fromkeys(out))


def load_results(path: Path) -> list[Run]:
    """The runs of one results directory: one, or one per table section of a
    ``reproduce eai`` directory."""
    if is_reproduce_dir(path):
        return load_reproduced(path)
    return [load_run(path)]


def load_runs(paths: Sequence[Path]) -> list[Run]:
    """:func:`load_results` over :func:`find_run_dirs`; at least one run is required."""
    dirs = find_run_dirs(paths)
    if not dirs:
        raise ReportError("no run directories given")
    return [run for d in dirs for run in load_results(d)]
