"""The goal logic: parse, print, simplify, ground, expand, evaluate, and decide with Z3.

``parse`` is imported on first use: it needs lark, which code that only builds or
evaluates formulas (a replay of cached tasks) never loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planproof.ltl.ast import (
    FALSE,
    TRUE,
    And,
    Atom,
    Binder,
    Bottom,
    Const,
    Exists,
    Forall,
    Formula,
    ForN,
    ForNPairs,
    ForPairs,
    Implies,
    Literal,
    Not,
    Or,
    Then,
    Top,
    Var,
)
from planproof.ltl.errors import (
    GroundingError,
    LTLError,
    LTLLimitError,
    LTLSyntaxError,
    UnsupportedFormulaError,
)
from planproof.ltl.printer import to_text

if TYPE_CHECKING:
    from planproof.ltl.parser import parse

__all__ = [
    "FALSE",
    "TRUE",
    "And",
    "Atom",
    "Binder",
    "Bottom",
    "Const",
    "Exists",
    "ForN",
    "ForNPairs",
    "ForPairs",
    "Forall",
    "Formula",
    "GroundingError",
    "Implies",
    "LTLError",
    "LTLLimitError",
    "LTLSyntaxError",
    "Literal",
    "Not",
    "Or",
    "Then",
    "Top",
    "UnsupportedFormulaError",
    "Var",
    "parse",
    "to_text",
]


def __getattr__(name: str) -> Any:
    if name == "parse":
        from planproof.ltl.parser import parse

        return parse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
