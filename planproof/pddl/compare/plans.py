"""Plan cross-validation: a plan found under one domain, replayed under the other.

The builtin planner runs with a budget of stored states (never wall time), so whether a
plan is found does not depend on the machine's load. Both domains speak the reference's
names (the candidate is translated first), so one problem file serves both.
"""

from __future__ import annotations

from planproof.pddl.compare.model import PlanReplay, ProblemCheck
from planproof.pddl.reader import Problem, check_problem
from planproof.pddl.schema import Domain

DEFAULT_MAX_STATES = 200_000
"""States the builtin planner may store per problem and domain."""


def cross_validate(
    reference: Domain,
    candidate: Domain,
    problem: Problem,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> ProblemCheck:
    """The reference's plan under the candidate and the candidate's under the reference."""
    mismatch = check_problem(candidate, problem)
    ref_plan = _replay(reference, candidate, problem, "reference", max_states)
    if mismatch:
        why = "the problem does not fit the candidate: " + "; ".join(mismatch[:5])
        return ProblemCheck(problem.name, ref_plan, PlanReplay("candidate", "unsupported"), why)
    cand_plan = _replay(candidate, reference, problem, "candidate", max_states)
    return ProblemCheck(problem.name, ref_plan, cand_plan)


def _replay(
    planned: Domain, other: Domain, problem: Problem, label: str, max_states: int
) -> PlanReplay:
    from planproof.pddl.planners import plan
    from planproof.pddl.validate import ValidationLimitError, compile_task, validate

    res = plan(planned, problem, engine="builtin", max_states=max_states)
    if not res.solved:
        return PlanReplay(label, res.status.value, message=res.reason)
    lines = tuple(res.plan_lines())
    try:
        check = validate(compile_task(other, problem), res.plan)
    except (ValidationLimitError, ValueError) as exc:
        return PlanReplay(label, "solved", lines, message=f"replay refused: {exc}")
    if check.failure is not None:
        step = check.failure.step
        return PlanReplay(
            label,
            "solved",
            lines,
            valid=False,
            failed_step=step,
            blame=res.plan[step - 1][0] if 0 < step <= len(res.plan) else "",
            message=check.failure.message,
        )
    message = "" if check.goal_holds else "goal unmet: " + ", ".join(check.unmet_goal[:5])
    return PlanReplay(
        label, "solved", lines, valid=check.valid, message=message, goal_reached=check.goal_holds
    )
