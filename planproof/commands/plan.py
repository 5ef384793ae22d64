"""``planproof plan --domain D.pddl --problem P.pddl [--engine E]``: solve a problem with a
classical planner (Fast Downward's driver, pyperplan or the built-in search), then replay the
plan found with the generic simulator core as a check.

The plan found is checked with the validator ``planproof verify`` uses. Exit 0 when a
plan was found (and it validates), 1 when none was found within the time limit or the
engine cannot handle the task, 2 on bad input (including a ``--timeout`` that is not a
positive finite number and a task over the grounding limit, refused up front with its
size).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from planproof.commands.executor_options import (
    add_executor_arguments,
    executor_config,
    open_configured,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", required=True, type=Path, help="PDDL domain file")
    parser.add_argument("--problem", required=True, type=Path, help="PDDL problem file")
    parser.add_argument(
        "--engine",
        choices=("fast-downward", "pyperplan", "builtin"),
        default="fast-downward",
        help="planner (default fast-downward; builtin: planproof's in-process search)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="CPU seconds per planner process, reading the model included (default 60); "
        "CPU time, so the verdict does not depend on the machine's load",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_executor_arguments(parser)


def solve(job: tuple[Any, Any, str, float]) -> Any:
    """The planner call, as an executor task (``--executor ray`` runs it on the cluster)."""
    from planproof.pddl.planners import plan

    domain, problem, engine, timeout = job
    return plan(domain, problem, engine=engine, timeout=timeout)


def run(args: argparse.Namespace) -> int:
    import time

    # --timeout (CPU seconds) covers reading and checking the model too: counted in this
    # process's CPU time, never wall time, so that a loaded machine cannot eat the budget
    started = time.process_time()
    from planproof.boundary import check_seconds
    from planproof.commands.verify import _Bad, load

    check_seconds(args.timeout, source="--timeout")  # nan, inf, 0, -1: exit 2, named
    from planproof.pddl.planners import MAX_GROUNDING, count_text, grounding_size

    config = executor_config(args)
    domain, problem = load(args.domain, args.problem, fold_case=True)
    size = grounding_size(domain, problem) if args.engine != "fast-downward" else 0
    if size > MAX_GROUNDING:  # Fast Downward grounds by reachability itself
        raise _Bad(
            f"{args.problem}: {count_text(size)} ground actions, over the limit of "
            f"{MAX_GROUNDING:,}",
            {"error": "too-large", "ground_actions": size if size < 2**53 else count_text(size)},
        )
    from planproof.pddl.plan_result import PlanResult, PlanStatus
    from planproof.pddl.validate import ValidationLimitError, compile_task, validate

    try:  # nested quantifiers too large to expand are refused before any grounding
        task = compile_task(domain, problem)
    except ValidationLimitError as exc:
        raise _Bad(f"{args.domain}: {exc}", {"error": "too-large"}) from None
    from planproof.commands.progress import progress_bar

    with (
        open_configured(config, tasks=1) as executor,
        progress_bar(f"planning with {args.engine} (time limit {args.timeout:g} s)", None),
    ):
        left = max(0.01, args.timeout - (time.process_time() - started))
        (outcome,) = executor.map(solve, [(domain, problem, args.engine, left)])
    result: PlanResult = (
        outcome.unwrap()
        if outcome.failure is None
        else PlanResult(args.engine, PlanStatus.ERROR, reason=str(outcome.failure.message))
    )
    data: dict[str, object] = {"ok": True, **result.to_dict()}
    valid = False
    if result.solved:
        check = validate(task, result.plan)
        valid = check.valid
        if not valid:
            data["replay_error"] = check.to_dict()["error"] or {"unmet_goal": check.unmet_goal}
        data["metric"] = check.metric
        data["replay_valid"] = valid
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        print(f"{result.engine}: {result.status.value} in {result.seconds:.2f} s")
        if result.reason:
            print(f"  {result.reason}")
        for i, line in enumerate(result.plan_lines(), start=1):
            print(f"{i:>3}  ({line})")
        if result.solved:
            print("check: " + ("valid" if valid else "NOT valid"))
    return 0 if result.solved and valid else 1
