"""What replaying an action can come to: the error taxonomy shared by every world."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from planproof.ltl.trace import State


class ErrorKind(StrEnum):
    """The EAI trajectory-error categories (grammar errors first, then runtime errors)."""

    PARSING = "parsing"
    HALLUCINATION = "hallucination"
    ARGUMENT_COUNT = "argument_count"
    AFFORDANCE = "affordance"
    ADDITIONAL_STEP = "additional_step"
    MISSING_STEP = "missing_step"
    WRONG_ORDER = "wrong_order"

    @property
    def is_grammar(self) -> bool:
        return self in _GRAMMAR

    @property
    def blocks(self) -> bool:
        """Every error stops execution except an additional step, which is a warning."""
        return self is not ErrorKind.ADDITIONAL_STEP


_GRAMMAR = frozenset({ErrorKind.PARSING, ErrorKind.HALLUCINATION, ErrorKind.ARGUMENT_COUNT})


@dataclass(frozen=True, slots=True)
class Action:
    """A surface action as an LLM writes it: a name and its explicit arguments."""

    name: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"

    def __reduce__(self) -> tuple[type[Action], tuple[str, tuple[str, ...]]]:
        return Action, (self.name, self.args)  # faster to unpickle than slots setstate


@dataclass(frozen=True)
class StepError:
    """Why the action at ``index`` (0-based) could not run as intended.

    ``unmet`` lists the failing conditions in PDDL-like text (``closed(fridge.1)``); for a
    wrong order, ``held_at`` is the latest earlier state index in which the whole
    precondition held.
    """

    index: int
    action: Action | None
    kind: ErrorKind
    message: str
    unmet: tuple[str, ...] = ()
    held_at: int | None = None

    def __str__(self) -> str:
        """Human text, where steps are counted from 1 (``to_dict`` keeps the 0-based index)."""
        return f"{self.kind.value} at step {self.index + 1}: {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.index,
            "action": str(self.action) if self.action else None,
            "error_type": self.kind.value,
            "message": self.message,
            "unmet": list(self.unmet),
            "held_at": self.held_at,
        }


@dataclass(frozen=True)
class StepResult:
    """One transition: the next state if the action ran (or the unchanged state), and the
    error if it did not run as intended (an additional step still leaves ``ok`` false)."""

    state: State
    error: StepError | None = None
    changed: frozenset[str] = field(default_factory=frozenset)

    @property
    def ok(self) -> bool:
        return self.error is None
