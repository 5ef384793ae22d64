"""The names every layer above agrees on: the four EAI ability modules and the two EAI
datasets. A module of its own with no imports, so the CLI can offer them as choices
without loading prompts or worlds."""

from __future__ import annotations

MODULES = (
    "goal-interpretation",
    "subgoal-decomposition",
    "action-sequencing",
    "transition-modeling",
)
DATASETS = ("virtualhome", "behavior")
