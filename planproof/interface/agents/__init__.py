"""Built-in agents that answer the EAI module prompts without a model or an API key.

``planner`` answers with planproof's own machinery (the goal, a plan found by planning,
its subgoals, the gold operators); ``gold`` with the dataset's gold answers. The runner
looks an agent up by name with :func:`builtin_agent` (``planproof run --model planner``).
See ``docs/agents.md``.
"""

from __future__ import annotations

from collections.abc import Callable

from planproof.interface.agents.base import MODULES, Agent, AgentError
from planproof.interface.agents.gold import GoldAgent
from planproof.interface.agents.planner import PlannerAgent

__all__ = ["AGENTS", "MODULES", "Agent", "AgentError", "GoldAgent", "PlannerAgent", "builtin_agent"]

AGENTS: dict[str, Callable[[], Agent]] = {"planner": PlannerAgent, "gold": GoldAgent}
"""The built-in agents by model name."""


def builtin_agent(name: str, budget: int | None = None) -> Agent | None:
    """A new instance of the built-in agent called ``name`` (None for any other name, e.g.
    a litellm model string). ``budget``: the planner's simulated steps per task (default
    :data:`~planproof.interface.agents.planner.DEFAULT_MAX_STEPS`)."""
    if name == "planner" and budget is not None:
        return PlannerAgent(max_steps=budget)
    make = AGENTS.get(name)
    return make() if make is not None else None
