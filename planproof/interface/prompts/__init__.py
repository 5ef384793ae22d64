"""Prompts for the four EAI ability modules, built from planproof's own task model.

Each prompt follows the structure of the EAI paper's prompt templates: the role,
the vocabulary (actions, state predicates, relations), the relevant objects and the
initial state, the goal in the module's input form, one in-context example worked out
from another task of the same dataset, and the required output format. Nothing is copied
from the reference's prompt files. See ``docs/prompts.md``.
"""

from planproof.interface.modules import MODULES
from planproof.interface.prompts.build import Prompt, build_prompts

__all__ = ["MODULES", "Prompt", "build_prompts"]
