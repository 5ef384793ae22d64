"""Typed errors of the interface layer: what can be wrong with an LLM response or a
responses file, as data a report can show and a person can act on."""

from __future__ import annotations

from dataclasses import dataclass

from planproof.simulators.core import ErrorKind


@dataclass(frozen=True, slots=True)
class ResponseError:
    """Why a response could not be read as a plan.

    ``kind`` is a grammar category: :attr:`ErrorKind.PARSING` for text that is not a plan,
    :attr:`ErrorKind.ARGUMENT_COUNT` for a VirtualHome argument list that cannot be read
    as object name/id pairs. ``position`` is a 0-based character offset into the response
    (``line``/``column`` are 1-based) when the failure has a place; ``step`` is the 0-based
    index of the offending action when it has one.
    """

    message: str
    kind: ErrorKind = ErrorKind.PARSING
    position: int | None = None
    line: int | None = None
    column: int | None = None
    step: int | None = None

    def __str__(self) -> str:
        where = f" (line {self.line}, column {self.column})" if self.line is not None else ""
        return f"{self.kind.value}: {self.message}{where}"

    def to_dict(self) -> dict[str, object]:
        return {
            "error_type": self.kind.value,
            "message": self.message,
            "position": self.position,
            "line": self.line,
            "column": self.column,
            "step": self.step,
        }

    @classmethod
    def at(
        cls,
        text: str,
        position: int | None,
        message: str,
        *,
        kind: ErrorKind = ErrorKind.PARSING,
        step: int | None = None,
    ) -> ResponseError:
        """An error located at ``position`` in ``text`` (line and column computed)."""
        if position is None:
            return cls(message, kind, step=step)
        position = max(0, min(position, len(text)))
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        return cls(message, kind, position, line, column, step)


class ResponsesFileError(Exception):
    """A responses file that cannot be read at all (missing, not UTF-8, too large, or
    neither a JSON list nor JSON lines). Malformed *entries* are not this: they become
    per-entry :class:`ResponseError` values and the rest of the file is still read."""
