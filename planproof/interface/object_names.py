"""Reading VirtualHome plans whose objects have no ids, as the EAI reference did.

virtualhome-eval 0.1.1's action-sequencing prompt asked the LLM to "only output object
names but not their ids", so the published answers say ``"WALK": ["washing_machine"]``.
:func:`resolve_names` gives each bare name the id the reference's rule gives it
(:mod:`planproof.simulators.virtualhome.reference_names`); a name the rule does not know
stays bare and the simulator reports it as a hallucination, as the reference does.

:func:`collapse_repeated` is the reference's *other* reading: it parsed the answer with
``json.loads``, so a repeated key (``"WALK"`` twice) kept its first position and its last
arguments and every earlier occurrence was lost. planproof reads repeated keys as
successive steps; the collapsed reading exists to compare with the reference task by
task (``docs/published-answers.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal, TypeAlias

from planproof.simulators.core import Action

RepeatedKeys: TypeAlias = Literal["steps", "last"]
"""How a repeated action key is read: each occurrence a step (planproof), or one step at
the first position with the last arguments (``json.loads``, virtualhome-eval 0.1.1)."""

_HAS_ID = re.compile(r".+\.\d+")


def has_id(arg: str) -> bool:
    """Whether an argument is written ``name.id``."""
    return _HAS_ID.fullmatch(arg) is not None


def resolve_names(
    actions: Sequence[Action], names: Mapping[str, str]
) -> tuple[tuple[Action, ...], tuple[str, ...]]:
    """Each argument written without an id, mapped through ``names`` (class name →
    ``name.id``); the plan and one note per resolved argument."""
    out: list[Action] = []
    notes: list[str] = []
    for step, action in enumerate(actions):
        args: list[str] = []
        for arg in action.args:
            resolved = None if has_id(arg) else names.get(arg)
            if resolved is not None:
                notes.append(f"step {step + 1} ({action.name}): {arg!r} read as {resolved}")
                args.append(resolved)
            else:
                args.append(arg)
        out.append(Action(action.name, tuple(args)) if args != list(action.args) else action)
    return tuple(out), tuple(notes)


def collapse_repeated(actions: Sequence[Action]) -> tuple[tuple[Action, ...], tuple[str, ...]]:
    """``json.loads`` semantics for a plan written as one object with repeated keys: one
    step per action name, at its first position, with its last arguments."""
    first: dict[str, int] = {}
    last: dict[str, Action] = {}
    for i, action in enumerate(actions):
        first.setdefault(action.name, i)
        last[action.name] = action
    if len(last) == len(actions):
        return tuple(actions), ()
    kept = tuple(last[name] for name in sorted(first, key=first.__getitem__))
    note = (
        f"repeated action keys read as json.loads does (virtualhome-eval 0.1.1): "
        f"{len(actions)} steps become {len(kept)}"
    )
    return kept, (note,)
