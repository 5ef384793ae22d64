"""The one failure a command raises for input a person must fix.

Commands raise :class:`BadInput`; ``planproof.cli.main`` alone presents it (one prefix,
exit status 2, the same JSON shape with ``--json``), so no command prints its own errors.
"""

from __future__ import annotations

from typing import Any


class BadInput(Exception):
    """Input a person must fix (a missing file, a responses file that matches no task...).

    ``message`` is one sentence for a person, never an exception class name; ``kind`` is a
    short machine-readable tag; ``detail`` adds fields to the JSON form; ``context`` is an
    extra text block (e.g. the offending line with a caret) for the terminal."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "bad-input",
        detail: dict[str, Any] | None = None,
        context: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.detail = dict(detail or {})
        self.context = context

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"ok": false, "error": KIND, "message": ..., **detail}``."""
        return {**self.detail, "ok": False, "error": self.kind, "message": self.message}
