"""The generic simulator core: worlds built from operator schemas, one-step execution and
the error classifier every simulator shares."""

from planproof.simulators.core.outcome import Action, ErrorKind, StepError, StepResult
from planproof.simulators.core.replay import Replay, action_atom, check_grammar, replay
from planproof.simulators.core.task import GoalParts, Task
from planproof.simulators.core.world import Bound, World, initial_state

__all__ = [
    "Action",
    "Bound",
    "ErrorKind",
    "GoalParts",
    "Replay",
    "StepError",
    "StepResult",
    "Task",
    "World",
    "action_atom",
    "check_grammar",
    "initial_state",
    "replay",
]
