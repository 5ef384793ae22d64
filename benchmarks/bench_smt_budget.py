"""Calibration of Z3's resource budget (``planproof.ltl.smt.DEFAULT_RLIMIT`` and the
budgets of the callers): how many resource units today's queries spend.

Run ``python benchmarks/bench_smt_budget.py [--only gi,sd,tm,compare,bench]``. Every Z3
query of the chosen workloads is recorded (its status and the units it spent, Z3's
``rlimit count``) while the real commands run in this process:

* ``gi``: ``evaluate goal-interpretation`` on every published VirtualHome answer file;
* ``sd``: ``evaluate subgoal-decomposition`` on every published answer file;
* ``tm``: ``evaluate transition-modeling --no-planner --compare-operators --limit 40`` on
  every published answer file (VirtualHome and BEHAVIOR): the static checks and the
  operator comparison, both Z3 (the first 40 tasks of each file: a whole VirtualHome file
  takes minutes);
* ``compare``: ``compare-domains`` of every IPC domain in ``tests/data/ipc`` against
  itself and against a mutation (a precondition dropped, an add turned into a delete);
* ``bench``: the queries of ``benchmarks/bench_smt.py`` that finish (BEHAVIOR-sized goals).

Printed per workload: queries, undecided ones, the largest spend and the 99th percentile.
The figures are counts, the same on every machine and under any load (same Z3).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from planproof.cli import main as cli_main
from planproof.data.published import published_files
from planproof.ltl import smt

ROOT = Path(__file__).resolve().parents[1]
IPC = ROOT / "tests" / "data" / "ipc"

Record = tuple[str, int]  # (status, units spent)


@contextlib.contextmanager
def recording(into: list[Record]) -> Iterator[None]:
    """Every query of :mod:`planproof.ltl.smt` made inside, with its spend."""
    real = smt._solve

    def spy(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        into.append((out.reason or out.status, out.work))
        return out

    smt._solve = spy  # type: ignore[assignment]
    try:
        yield
    finally:
        smt._solve = real  # type: ignore[assignment]


def _quiet(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cli_main(argv)


def published(module: str, extra: list[str]) -> Callable[[Path], None]:
    def run(tmp: Path) -> None:
        for f in published_files():
            if f.module != module:
                continue
            argv = ["evaluate", module, "--dataset", f.dataset, "--responses", str(f.path)]
            code = _quiet([*argv, *extra, "--output", str(tmp / f"{module}-{f.path.stem}")])
            print(f"    {f.dataset} {f.path.name}: exit {code}", flush=True)

    return run


def compare(tmp: Path) -> None:
    codes: list[int] = []
    for path in sorted(IPC.rglob("domain*.pddl")):
        mutated = tmp / f"{path.parent.name}-{path.stem}-mutated.pddl"
        mutated.write_text(_mutate(path.read_text()))
        for cand in (path, mutated):
            codes.append(_quiet(["compare-domains", str(path), str(cand), "--json"]))
    print(f"    {len(codes)} comparisons, exit codes {sorted(set(codes))}", flush=True)


def _mutate(text: str) -> str:
    """Every ``:effect (and (`` gets its first add turned into a delete; the first
    ``:precondition (and`` loses its first conjunct."""
    out = text.replace(":effect (and (", ":effect (and (not (", 1)
    if out != text:
        i = out.index(":effect (and (not (") + len(":effect (and (not (")
        depth, j = 1, i
        while depth:
            depth += {"(": 1, ")": -1}.get(out[j], 0)
            j += 1
        out = out[:j] + ")" + out[j:]
    k = out.find(":precondition (and (")
    if k >= 0:
        i = k + len(":precondition (and ")
        depth, j = 0, i
        while True:
            depth += {"(": 1, ")": -1}.get(out[j], 0)
            j += 1
            if depth == 0:
                break
        out = out[:i] + out[j:]
    return out


def bench(tmp: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_smt

    bench_smt.REPEAT = 1
    with contextlib.redirect_stdout(io.StringIO()):
        bench_smt.main()


WORKLOADS: dict[str, Callable[[Path], None]] = {
    "gi": published("goal-interpretation", []),
    "sd": published("subgoal-decomposition", []),
    "tm": published(
        "transition-modeling",
        ["--no-planner", "--compare-operators", "--workers", "1", "--limit", "40"],
    ),
    "compare": compare,
    "bench": bench,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(WORKLOADS))
    args = parser.parse_args()
    for name in args.only.split(","):
        records: list[Record] = []
        with tempfile.TemporaryDirectory() as tmp, recording(records):
            print(f"{name}:", flush=True)
            WORKLOADS[name](Path(tmp))
        works = sorted(w for _, w in records)
        undecided = [(s, w) for s, w in records if s not in ("sat", "unsat")]
        p99 = works[int(0.99 * (len(works) - 1))] if works else 0
        print(
            f"  {name}: {len(works)} queries, undecided {len(undecided)} {undecided[:5]}, "
            f"max {works[-1] if works else 0:,} units, p99 {p99:,}, "
            f"median {statistics.median(works) if works else 0:,}",
            flush=True,
        )


if __name__ == "__main__":
    main()
