"""What a built-in agent is: something that answers a module's prompt for a task with the
response text an LLM would give, in the module's exact output format.

The runner treats a built-in agent like a model: it asks for one answer per task and
scores it with the module's evaluator. An agent that cannot answer raises
:class:`AgentError`, which the runner records as an errored call (the run goes on).
"""

from __future__ import annotations

from typing import Protocol

from planproof.interface.modules import MODULES
from planproof.simulators.core import Task

__all__ = ["MODULES", "Agent", "AgentError", "check_module"]


class AgentError(Exception):
    """An agent could not answer. ``kind``: ``unsupported`` (a module or task the agent
    has nothing for), ``unsolvable`` (the planner's search ended without a plan),
    ``gave-up`` (its work budget ran out), ``no-gold`` (the dataset has no gold answer)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message}


class Agent(Protocol):
    """A built-in answerer. ``answer`` must be deterministic and safe to call from several
    threads at once."""

    name: str

    def answer(self, task: Task, module: str) -> str:
        """The response text for ``task`` in ``module``'s output format; raises
        :class:`AgentError` when there is none."""
        ...


def check_module(module: str) -> None:
    """Raise :class:`AgentError` (``unsupported``) for an unknown module name."""
    if module not in MODULES:
        raise AgentError(
            "unsupported", f"unknown module {module!r}; choose one of {', '.join(MODULES)}"
        )
