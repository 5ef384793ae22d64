"""The one typed error for untrusted input that a person must fix.

Every reader of files, LLM text and command-line values reports bad input through
:class:`InputError`: *which* input (the file or option), *where* in it (line and column,
byte offset, JSON path or entry), *what* is wrong and *what to do*. The CLI turns it into
exit status 2 without a traceback, so a new reader gets that behaviour by using the
boundary instead of re-inventing it.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = ["InputError", "InputKind"]

InputKind: TypeAlias = Literal[
    "not-found",
    "not-a-file",
    "unreadable",
    "binary",
    "not-utf8",
    "wrong-encoding",
    "surrogate",
    "too-large",
    "too-deep",
    "not-json",
    "bad-shape",
    "bad-number",
    "bad-output",
    "busy",
]


class InputError(Exception):
    """Input that cannot be used as given. ``source`` names the input (a path, an option
    such as ``--timeout``, or ``<response>``), ``where`` the place in it, ``hint`` what to
    do about it; ``kind`` is a stable machine-readable category."""

    def __init__(
        self,
        message: str,
        *,
        source: str,
        kind: InputKind,
        hint: str,
        where: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.kind: InputKind = kind
        self.hint = hint
        self.where = where
        super().__init__(str(self))

    def __str__(self) -> str:
        place = f" ({self.where})" if self.where else ""
        return f"{self.source}{place}: {self.message}; {self.hint}"

    def to_dict(self) -> dict[str, object]:
        return {
            "error": self.kind,
            "source": self.source,
            "where": self.where,
            "message": self.message,
            "hint": self.hint,
        }
