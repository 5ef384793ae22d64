"""Housekeep (Kant et al. 2022): the human-preference store, symbolic episodes, the
pick / place / navigate world replayed by the generic core, and the tidy goal in the goal
logic with its Z3 satisfiability check. Metrics are in ``planproof.metrics.housekeep``."""

from __future__ import annotations

from planproof.simulators.housekeep.episode import Episode, Item, Receptacle, episode_from_json
from planproof.simulators.housekeep.errors import (
    EpisodeFormatError,
    HousekeepError,
    PreferenceFormatError,
)
from planproof.simulators.housekeep.preferences import (
    Judgement,
    PreferenceStore,
    Verdict,
    default_store,
    load_store,
)

__all__ = [
    "Episode",
    "EpisodeFormatError",
    "HousekeepError",
    "Item",
    "Judgement",
    "PreferenceFormatError",
    "PreferenceStore",
    "Receptacle",
    "Verdict",
    "default_store",
    "episode_from_json",
    "load_store",
]
