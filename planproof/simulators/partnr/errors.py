"""Typed errors of the PARTNR evaluator and world: every bad episode, evaluation function,
trace or plan ends in one of these, never in a crash.

They derive from ``ValueError`` so callers that only know "bad input" can catch them, and
from one base class so the command turns every one of them into exit status 2.
"""

from __future__ import annotations


class PartnrError(ValueError):
    """Any PARTNR input planproof cannot use, with a message a person can act on."""


class EvaluationFormatError(PartnrError):
    """An evaluation function (propositions, dependencies, constraints) that does not follow
    the format of docs/partnr.md: unknown predicate or argument, bad index, cyclic DAG."""


class EpisodeFormatError(PartnrError):
    """An episode or world description that is malformed (unknown room, duplicate entity,
    an object placed on something that is not furniture...)."""


class TraceFormatError(PartnrError):
    """A state trace that is malformed (empty, unknown atom text, reflexive next_to)."""


class PlanFormatError(PartnrError):
    """A plans file that is malformed (not a mapping of agents to action lists)."""


class CompileError(PartnrError):
    """An evaluation function the LTL compiler cannot express exactly (tie constraints,
    clusters over too many entities, cyclic proposition dependencies)."""
