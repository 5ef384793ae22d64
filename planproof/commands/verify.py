"""``planproof verify --domain D.pddl --problem P.pddl --plan PLAN``: replay a plan under
a PDDL transition model with the generic simulator core, print a readable trace, stop at
the first failing step with its unmet precondition and error class, and check the goal.

Exit 0 when the plan is valid (every step runs and the goal holds), 1 when it is not, 2 on
bad input (unreadable files, malformed PDDL or plan). ``--json`` prints the same as data.
unified-planning is never imported here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from planproof.commands.errors import BadInput

EXIT_VALID, EXIT_INVALID, EXIT_BAD_INPUT = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", required=True, type=Path, help="PDDL domain file")
    parser.add_argument("--problem", required=True, type=Path, help="PDDL problem file")
    parser.add_argument(
        "--plan",
        required=True,
        help="plan file (one action per line, or JSON); '-' reads standard input",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


class _Bad(BadInput):
    """Bad input with the PDDL reader's position details (presented by ``planproof.cli``)."""

    def __init__(self, message: str, detail: dict[str, Any] | None = None) -> None:
        extra = dict(detail or {})
        kind = str(extra.pop("error", "bad-input"))
        extra.pop("message", None)
        super().__init__(message, kind=kind, detail=extra)


def _read(path: Path | str) -> str:
    import sys

    try:
        if str(path) == "-":
            return sys.stdin.read()
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _Bad(f"cannot read {path}: {exc}") from None


def load(domain_path: Path, problem_path: Path) -> tuple[Any, Any]:
    """(Domain, Problem) from files; a problem that does not fit its domain is bad input."""
    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.reader import check_problem, read_domain, read_problem

    try:
        domain = read_domain(_read(domain_path))
    except PDDLSyntaxError as exc:
        raise _Bad(f"{domain_path}: {exc}", {**exc.to_dict(), "file": str(domain_path)}) from None
    try:
        problem = read_problem(_read(problem_path))
    except PDDLSyntaxError as exc:
        raise _Bad(f"{problem_path}: {exc}", {**exc.to_dict(), "file": str(problem_path)}) from None
    issues = [i for i in check_problem(domain, problem) if not i.startswith("unknown predicate")]
    if issues:
        raise _Bad(f"{problem_path} does not fit {domain_path}: " + "; ".join(issues[:5]))
    return domain, problem


def run(args: argparse.Namespace) -> int:
    from planproof.pddl.plan_io import PlanFormatError, read_plan

    domain, problem = load(args.domain, args.problem)
    try:
        steps = read_plan(_read(args.plan))
    except PlanFormatError as exc:
        raise _Bad(f"plan: {exc}", {**exc.to_dict(), "file": str(args.plan)}) from None
    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions

    check = check_plan(pddl_task(domain, problem), to_actions(steps))
    data = {"ok": True, "domain": str(args.domain), "problem": str(args.problem), **check.to_dict()}
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        _print_human(data)
    return EXIT_VALID if check.valid else EXIT_INVALID


def _print_human(data: dict[str, Any]) -> None:
    for s in data["trace"]:
        changes = [f"+{a}" for a in s["added"]] + [f"-{d}" for d in s["deleted"]]
        print(f"{s['step']:>3}  {s['action']:<40} {' '.join(changes)}")
        if s["warning"]:
            print(f"     warning (additional step): {s['warning']}")
    err = data["error"]
    if err is not None:
        print(f"{err['step']:>3}  {err['action']}  FAILED [{err['error_type']}]")
        print(f"     {err['message']}")
        if err["unmet"]:
            print(f"     unmet: {', '.join(err['unmet'])}")
    if data["goal_holds"]:
        print("goal: satisfied")
    else:
        print(f"goal: NOT satisfied; unmet: {', '.join(data['unmet_goal'])}")
    verdict = "VALID" if data["valid"] else "INVALID"
    print(f"{verdict}: {data['executed']} of {data['steps']} steps executed")
