"""``planproof compare RUN_A RUN_B``: is A really better than B on the same tasks?

Both are results directories (``run``/``demo``/``evaluate``) of the same module. Each
yes/no figure per task (task success, executability, planner success) gets McNemar's
exact test on the tasks both scored; each per-task score (goal interpretation's F1) a
seeded paired bootstrap of the mean difference. Exit 0 when compared, 2 on bad input
(not a results directory, different modules, no task in common)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planproof.boundary.options import positive_count
from planproof.commands.errors import BadInput

LABELS = {
    "success": "task success",
    "executable": "executable",
    "planner_found": "planner success",
    "plan_valid_under_gold": "plan valid under gold",
    "f1": "per-task F1 (mean)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", type=Path, help="results directory A")
    parser.add_argument("run_b", type=Path, help="results directory B (the same module)")
    parser.add_argument(
        "--resamples", type=positive_count, default=2000, help="bootstrap resamples (2000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    parser.add_argument("--json", action="store_true", help="print the tests as JSON")


def run(args: argparse.Namespace) -> int:
    from planproof.metrics.paired import compare_rows
    from planproof.report.load import ReportError
    from planproof.report.results_dirs import load_run

    try:
        a, b = load_run(args.run_a), load_run(args.run_b)
    except ReportError as exc:
        raise BadInput(str(exc)) from None
    if a.info.module != b.info.module:
        raise BadInput(
            f"the runs score different modules ({a.info.module} and {b.info.module}); "
            "compare runs of the same module"
        )
    result = compare_rows(a.results, b.results, resamples=args.resamples, seed=args.seed)
    if result.shared == 0:
        raise BadInput(f"{args.run_a} and {args.run_b} have no scored task in common")
    doc: dict[str, Any] = {
        "a": {"path": str(args.run_a), "model": a.info.model},
        "b": {"path": str(args.run_b), "model": b.info.model},
        "module": a.info.module,
        **result.to_dict(),
    }
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    from planproof.commands.console import stdout_console

    console = stdout_console(highlight=False)
    console.print(
        f"{a.info.module}: A = {a.info.model} ({args.run_a}), B = {b.info.model} "
        f"({args.run_b}); {result.shared} tasks in common"
        + (
            f", {result.only_a} only in A, {result.only_b} only in B"
            if result.only_a or result.only_b
            else ""
        )
    )
    for key, test in result.tests.items():
        console.print("  " + _line(LABELS.get(key, key), test))
    if not result.tests:
        console.print("  no per-task figure both runs carry")
    return 0


def _line(label: str, test: Mapping[str, Any]) -> str:
    p = test["p_value"]
    if test["test"] == "mcnemar-exact":
        return (
            f"{label}: A {100 * test['rate_a']:.1f} % vs B {100 * test['rate_b']:.1f} %; "
            f"only A {test['a_only']}, only B {test['b_only']} of {test['n']}; "
            f"McNemar exact p = {p:.3g}"
        )
    iv = test["interval"]
    return (
        f"{label}: A {test['mean_a']:.1f} vs B {test['mean_b']:.1f}; difference "
        f"{test['difference']:+.1f} [{iv['low']:+.1f}, {iv['high']:+.1f}] (95 %, paired "
        f"bootstrap, {test['resamples']} resamples); p = {p:.3g}"
    )
