"""What a planner says: a status and, when solved, the plan in the original names
(shared by every engine: :mod:`planproof.pddl.planners`, :mod:`planproof.pddl.fd_budget`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

PlanStep = tuple[str, tuple[str, ...]]


class PlanStatus(StrEnum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIMEOUT = "timeout"
    BUDGET = "budget"
    """The search budget (expansions, or Fast Downward's ``cpu_budget`` in CPU seconds) was
    spent: no verdict, but one that does not depend on the machine's load, so it is cached
    and reported like a verdict."""
    UNSUPPORTED = "unsupported"
    ERROR = "error"


@dataclass(frozen=True)
class PlanResult:
    """What a planner said. ``plan`` uses the original action and object names."""

    engine: str
    status: PlanStatus
    plan: tuple[PlanStep, ...] = ()
    seconds: float = 0.0
    reason: str = ""
    renamed: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    expanded: int = 0
    """States the builtin search expanded (0 for the other engines)."""

    @property
    def solved(self) -> bool:
        return self.status is PlanStatus.SOLVED

    def plan_lines(self) -> list[str]:
        return [" ".join([name, *args]) for name, args in self.plan]

    def to_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "status": self.status.value,
            "plan": self.plan_lines(),
            "seconds": round(self.seconds, 4),
            "reason": self.reason,
            "renamed": self.renamed,
            "expanded": self.expanded,
        }
