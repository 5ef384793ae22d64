"""Typed errors of the ltl layer: every failure on untrusted text is one of these."""

from __future__ import annotations

from planproof.boundary import InputError, check_text


class LTLError(Exception):
    """Base class for everything the ltl layer raises on bad input."""


class LTLSyntaxError(LTLError):
    """The text is not a formula. Carries where (1-based line and column) and what the
    parser would have accepted there, so a person can fix the text."""

    def __init__(
        self,
        message: str,
        *,
        line: int,
        column: int,
        expected: tuple[str, ...] = (),
        kind: str = "syntax",
        text: str = "",
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.expected = expected
        self.kind = kind
        self.text = text
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"line {self.line}, column {self.column}"
        exp = f"; expected one of: {', '.join(self.expected)}" if self.expected else ""
        return f"{self.message} at {where}{exp}"

    def context(self, width: int = 30) -> str:
        """The offending line with a caret under the column."""
        lines = self.text.splitlines() or [""]
        src = lines[min(self.line, len(lines)) - 1]
        start = max(0, self.column - 1 - width)
        snippet = src[start : self.column - 1 + width]
        return f"{snippet}\n{' ' * (self.column - 1 - start)}^"

    def to_dict(self) -> dict[str, object]:
        return {
            "error": self.kind,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "expected": list(self.expected),
        }


class LTLLimitError(LTLSyntaxError):
    """The text exceeds a resource bound (length or nesting depth) set to keep parsing of
    adversarial LLM output bounded in time and memory."""


def check_text_length(
    text: object,
    *,
    caller: str,
    what: str,
    max_length: int,
    error: type[LTLSyntaxError] = LTLLimitError,
) -> str:
    """The first guard of every reader of untrusted text: the shared boundary's
    :func:`~planproof.boundary.check_text` (a ``str``, of bounded length, without lone
    surrogates), its failure raised as this reader's own ``error`` type."""
    if not isinstance(text, str):
        raise TypeError(f"{caller}() takes a str, not {type(text).__name__}")
    try:
        return check_text(text, source=what, max_chars=max_length)
    except InputError as err:
        line, column = _line_column(text, err.where)
        raise error(
            f"{what} is {len(text)} characters long, over the limit of {max_length}"
            if err.kind == "too-large"
            else f"{what} holds {err.message}",
            line=line,
            column=column,
            kind="too-long" if err.kind == "too-large" else err.kind,
            text=text[:200],
        ) from None


def _line_column(text: str, where: str | None) -> tuple[int, int]:
    if where and where.startswith("line "):
        line, column = where.removeprefix("line ").split(", column ")
        return int(line), int(column)
    return 1, 1


class GroundingError(LTLError):
    """A formula cannot be grounded: a free variable, or a quantifier over an unknown type."""


class GroundingLimitError(GroundingError):
    """Grounding the formula over the universe would be too large (or too deep) to encode
    or evaluate; raised before the work starts, with the number that was too large."""


class UnsupportedFormulaError(LTLError):
    """The formula is outside the fragment an operation supports (e.g. ``then`` under
    ``not`` when expanding goal options, or ``then`` in the Z3 state fragment)."""
