"""The one error type of BDDL reading and conversion, and how to place it at a node."""

from __future__ import annotations

from planproof.ltl.bddl.sexpr import SExpr
from planproof.ltl.errors import LTLSyntaxError


class BDDLSyntaxError(LTLSyntaxError):
    """BDDL text that cannot be read or converted; carries the 1-based line and column."""


def error_at(message: str, at: SExpr | None, text: str, kind: str) -> BDDLSyntaxError:
    """An error positioned where ``at`` starts (line 1, column 1 without a node)."""
    line, col = (at.line, at.column) if at is not None else (1, 1)
    return BDDLSyntaxError(message, line=line, column=col, kind=kind, text=text)
