"""PARTNR metrics of one replayed multi-agent plan, and their averages over episodes.

Success and percent complete come from the evaluation engine on the replayed state
trace; the efficiency measures are defined on the symbolic replay (docs/partnr.md §7):

* **steps**: rounds executed (both agents act in one round, as they do in parallel);
* **planning cycles**: the largest number of actions one agent issued (one planner call
  per high-level action);
* **task offloading**: the robot's share of the successful object-changing actions
  (everything but Navigate / Explore / Wait / Done) — reported for successful episodes;
* **extraneous effort**: the share of successful placements (Place / Rearrange) that
  move an object no proposition mentions (the paper's A.12 "unnecessary rearranges /
  successful rearranges").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from planproof.simulators.partnr.engine import EvaluationResult, Evaluator
from planproof.simulators.partnr.errors import CompileError
from planproof.simulators.partnr.ltl import compile_evaluation
from planproof.simulators.partnr.world import ROBOT, Episode, MultiReplay, run_plan

_MOVES = frozenset({"navigate", "explore", "wait", "done"})


@dataclass(frozen=True)
class EpisodeMetrics:
    """Everything planproof reports for one (episode, plan) pair."""

    episode_id: str
    plan: str
    success: bool
    percent_complete: float
    steps: int
    planning_cycles: int
    offloading: float | None
    extraneous_effort: float | None
    executable: bool
    error: dict[str, object] | None
    warnings: int
    explanation: str
    result: EvaluationResult = field(repr=False)
    ltl_percent_complete: float | None = None
    ltl_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "plan": self.plan,
            "success": self.success,
            "percent_complete": self.percent_complete,
            "steps": self.steps,
            "planning_cycles": self.planning_cycles,
            "task_offloading": self.offloading,
            "extraneous_effort": self.extraneous_effort,
            "executable": self.executable,
            "error": self.error,
            "warnings": self.warnings,
            "explanation": self.explanation,
            "failures": [f.to_dict() for f in self.result.failures],
            "ltl_percent_complete": self.ltl_percent_complete,
            "ltl_note": self.ltl_note,
        }


def episode_metrics(
    episode: Episode,
    plans: Mapping[str, Sequence[str]],
    *,
    name: str = "plan",
    ltl: bool = False,
) -> EpisodeMetrics:
    """Replay ``plans`` (agent → skill strings) in ``episode`` and score it."""
    mr = run_plan(episode, plans)
    result = Evaluator(episode.evaluation).run(mr.states)
    ltl_pc: float | None = None
    note = ""
    if ltl:
        try:
            compiled = compile_evaluation(episode.evaluation)
            ltl_pc = compiled.percent_complete(mr.replay.trace)
            if abs(ltl_pc - result.percent_complete) > 1e-9:
                note = "LTL view disagrees with the engine"
        except CompileError as err:
            note = str(err)
    offload, extraneous = _effort(episode, mr)
    rep = mr.replay
    executed = len(rep.executed)
    return EpisodeMetrics(
        episode_id=episode.episode_id,
        plan=name,
        success=result.success,
        percent_complete=result.percent_complete,
        steps=(mr.rounds[executed - 1] + 1) if executed else 0,
        planning_cycles=max((len(v) for v in plans.values()), default=0),
        offloading=offload if result.success else None,
        extraneous_effort=extraneous,
        executable=rep.executable,
        error=rep.first_error.to_dict() if rep.first_error else None,
        warnings=len(rep.warnings),
        explanation=result.explanation,
        result=result,
        ltl_percent_complete=ltl_pc,
        ltl_note=note,
    )


def _effort(episode: Episode, mr: MultiReplay) -> tuple[float | None, float | None]:
    warned = {w.index for w in mr.replay.warnings}
    mentioned = {e for p in episode.evaluation.propositions for g in p.groups for e in g}
    robot = total = placements = extraneous = 0
    for i, action in enumerate(mr.replay.executed):
        if i in warned or action.name in _MOVES:
            continue
        total += 1
        robot += episode.agents.get(mr.agents[i]) == ROBOT
        if action.name.startswith(("place", "rearrange")):
            placements += 1
            extraneous += action.args[1] not in mentioned
    return (
        robot / total if total else None,
        extraneous / placements if placements else None,
    )


def aggregate(rows: Sequence[EpisodeMetrics]) -> dict[str, float | int | None]:
    """Averages as in the paper's tables: success rate, percent complete, steps and
    cycles over all episodes; offloading and extraneous effort over successful ones."""

    def mean(xs: Sequence[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    ok = [r for r in rows if r.success]
    return {
        "plans": len(rows),
        "success_rate": mean([float(r.success) for r in rows]),
        "percent_complete": mean([r.percent_complete for r in rows]),
        "steps": mean([float(r.steps) for r in rows]),
        "planning_cycles": mean([float(r.planning_cycles) for r in rows]),
        "task_offloading": mean([r.offloading for r in ok if r.offloading is not None]),
        "extraneous_effort": mean(
            [r.extraneous_effort for r in ok if r.extraneous_effort is not None]
        ),
        "executable_rate": mean([float(r.executable) for r in rows]),
    }
