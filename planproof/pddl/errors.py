"""Typed errors of the pddl layer."""

from __future__ import annotations

from planproof.ltl.errors import LTLSyntaxError


class PDDLSyntaxError(LTLSyntaxError):
    """PDDL text (a domain, a problem, an operator an LLM wrote) that cannot be read;
    carries the 1-based line and column of the offending expression."""
