"""``planproof plan --domain D.pddl --problem P.pddl [--engine E]``: solve a problem with a
classical planner (Fast Downward through unified-planning, or pyperplan), then replay the
plan found with the generic simulator core as a check.

Exit 0 when a plan was found (and it replays to the goal), 1 when none was found within
the time limit or the engine cannot handle the task, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", required=True, type=Path, help="PDDL domain file")
    parser.add_argument("--problem", required=True, type=Path, help="PDDL problem file")
    parser.add_argument(
        "--engine",
        choices=("fast-downward", "pyperplan"),
        default="fast-downward",
        help="planner (default fast-downward)",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    from planproof.commands.verify import _Bad, load

    if args.timeout <= 0:
        raise _Bad("--timeout must be positive")
    domain, problem = load(args.domain, args.problem)
    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
    from planproof.pddl.planners import plan

    result = plan(domain, problem, engine=args.engine, timeout=args.timeout)
    data: dict[str, object] = {"ok": True, **result.to_dict()}
    valid = False
    if result.solved:
        check = check_plan(pddl_task(domain, problem), to_actions(result.plan))
        valid = check.valid
        data["replay_valid"] = valid
        if not valid:
            data["replay_error"] = check.to_dict()["error"]
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        print(f"{result.engine}: {result.status.value} in {result.seconds:.2f} s")
        if result.reason:
            print(f"  {result.reason}")
        for i, line in enumerate(result.plan_lines()):
            print(f"{i:>3}  {line}")
        if result.solved:
            print("replay: " + ("reaches the goal" if valid else "DOES NOT reach the goal"))
    return 0 if result.solved and valid else 1
