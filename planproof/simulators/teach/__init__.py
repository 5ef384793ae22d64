"""TEACh: the Task Definition Language, a checker over symbolic AI2-THOR states, its
compilation to planproof goals, and the Follower's 8-action world (docs/teach.md)."""

from planproof.simulators.teach.checker import TaskStatus, check
from planproof.simulators.teach.compile import goal_reached, to_ltl, witness
from planproof.simulators.teach.errors import EpisodeError, StateError, TDLError, TeachError
from planproof.simulators.teach.state import ObjectState, SymbolicState
from planproof.simulators.teach.tdl import Task, TaskRegistry, default_registry, load_task

__all__ = [
    "EpisodeError",
    "ObjectState",
    "StateError",
    "SymbolicState",
    "TDLError",
    "Task",
    "TaskRegistry",
    "TaskStatus",
    "TeachError",
    "check",
    "default_registry",
    "goal_reached",
    "load_task",
    "to_ltl",
    "witness",
]
