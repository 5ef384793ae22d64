"""The EAI BEHAVIOR world: the 30 actions of Tables 27/28 as operator schemas and the
100 tasks with their gold plans (see ``docs/behavior.md``)."""

from planproof.simulators.behavior.domain import behavior_domain, object_properties
from planproof.simulators.behavior.tasks import (
    goal_reached,
    load_behavior_task,
    load_behavior_tasks,
)

__all__ = [
    "behavior_domain",
    "goal_reached",
    "load_behavior_task",
    "load_behavior_tasks",
    "object_properties",
]
