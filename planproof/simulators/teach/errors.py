"""Typed errors of the TEACh simulator: bad task definitions, states and episodes.

They derive from ``ValueError`` so callers that only know "bad input" can catch them, and
from one base class so the command turns every one of them into exit status 2.
"""

from __future__ import annotations


class TeachError(ValueError):
    """Any TEACh input planproof cannot use, with a message a person can act on."""


class TDLError(TeachError):
    """A Task Definition Language file or instantiation that is malformed: a missing key,
    an unknown subtask, a wrong parameter count, an unsupported determiner."""


class StateError(TeachError):
    """A symbolic AI2-THOR state that is malformed (duplicate ids, unknown parents...)."""


class EpisodeError(TeachError):
    """An episode file that does not follow the documented format (docs/teach.md)."""
