"""Typed errors of the Housekeep simulator: every failure on untrusted input is one of these,
so a command can turn it into exit status 2 with a message a person can act on."""

from __future__ import annotations


class HousekeepError(ValueError):
    """Base class for malformed Housekeep input (preference data or episodes)."""


class PreferenceFormatError(HousekeepError):
    """A preference file (JSON or CSV) is not of the documented shape."""


class EpisodeFormatError(HousekeepError):
    """An episode document is not of the documented shape or is inconsistent (an object
    on an unknown receptacle, a receptacle in an unknown room, a duplicate id...)."""
