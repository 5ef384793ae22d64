"""Hypothesis strategies for LLM action-sequencing responses: random plans rendered in
every form :func:`planproof.interface.responses.parse_actions` accepts, so a parser (ours
or a user's) can be checked to read them back. Needs the ``testing`` extra."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from hypothesis import strategies as st

from planproof.interface.responses import (
    render_behavior,
    render_virtualhome,
    render_virtualhome_script,
)
from planproof.simulators.core import Action

__all__ = [
    "PROSE",
    "behavior_plans",
    "behavior_responses",
    "dressed",
    "virtualhome_plans",
    "virtualhome_responses",
]

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"


def _word(letters: str, inner: str, max_inner: int) -> st.SearchStrategy[str]:
    """A letter, up to ``max_inner`` of ``inner``, a letter (``st.from_regex`` is slower)."""
    return st.builds(
        lambda a, b, c: a + b + c,
        st.sampled_from(letters),
        st.text(alphabet=inner, max_size=max_inner),
        st.sampled_from(letters),
    )


_ACTION = _word(_UPPER, _UPPER + "_", 10)
_VH_NAME = _word(_LOWER, _LOWER + "_", 10)
_VH_ID = st.integers(min_value=0, max_value=10**6).map(str)
_BEHAVIOR_OBJECT = st.builds(
    lambda w, n: f"{w}_{n}", _word(_LOWER, _LOWER + "_", 8), st.integers(0, 999)
)

PROSE = (
    "Here's the plan:",
    "Sure! The action sequence is below.",
    "Output:",
    "Let me think step by step: first walk, then grab (carefully).",
    "This plan achieves every goal.",
    "Note: the robot's hands are free; it's fine.",
)
"""Sentences LLMs put around their JSON (apostrophes and parentheses included)."""


def virtualhome_plans(max_steps: int = 8) -> st.SearchStrategy[list[Action]]:
    """Plans of 1..max_steps actions of 0..2 ``name.id`` objects."""
    obj = st.builds(lambda n, i: f"{n}.{i}", _VH_NAME, _VH_ID)
    action = st.builds(Action, _ACTION, st.lists(obj, max_size=2).map(tuple))
    return st.lists(action, min_size=1, max_size=max_steps)


def behavior_plans(max_steps: int = 8) -> st.SearchStrategy[list[Action]]:
    """Plans of 1..max_steps actions of 1..2 BEHAVIOR object names."""
    action = st.builds(
        Action, _ACTION, st.lists(_BEHAVIOR_OBJECT, min_size=1, max_size=2).map(tuple)
    )
    return st.lists(action, min_size=1, max_size=max_steps)


def _q(s: str, quote: str) -> str:
    return json.dumps(s) if quote == '"' else "'" + s + "'"  # strategy names hold no quotes


def _vh_args(args: Sequence[str], style: str, quote: str) -> str:
    items: list[str] = []
    for arg in args:
        name, _, ident = arg.rpartition(".")
        if style == "pairs":
            items += [_q(name, quote), _q(ident, quote)]
        elif style == "int-ids":
            items += [_q(name, quote), ident]
        elif style == "angle":
            items.append(_q(f"<{name}> ({ident})", quote))
        elif style == "dotted":
            items.append(_q(arg, quote))
        else:  # underscore
            items.append(_q(f"{name}_{ident}", quote))
    return "[" + ", ".join(items) + "]"


def _vh_render(actions: Sequence[Action], shape: str, style: str, quote: str, trail: bool) -> str:
    if shape == "script":
        return render_virtualhome_script(actions)
    if shape == "object" and style == "pairs" and quote == '"' and not trail:
        return render_virtualhome(actions, indent=2)
    members = [f"{_q(a.name, quote)}: {_vh_args(a.args, style, quote)}" for a in actions]
    comma = "," if trail else ""
    if shape == "object":
        return "{\n  " + ",\n  ".join(members) + comma + "\n}"
    if shape == "list":
        return "[" + ", ".join("{" + m + "}" for m in members) + comma + "]"
    return "{" + _q("output", quote) + ": {" + ", ".join(members) + comma + "}}"  # wrapper


def dressed(body: str) -> st.SearchStrategy[str]:
    """``body`` as an LLM might send it: optionally fenced, with prose before or after."""
    fence = st.sampled_from(["", "```json\n", "```\n", "```JSON\n"])
    prose = st.sampled_from(("", *PROSE))
    return st.builds(
        lambda f, before, after: (
            (before + "\n" if before else "")
            + (f + body + "\n```" if f else body)
            + ("\n" + after if after else "")
        ),
        fence,
        prose,
        prose,
    )


def virtualhome_responses(
    plans: st.SearchStrategy[list[Action]] | None = None,
) -> st.SearchStrategy[tuple[list[Action], str]]:
    """(plan, response text) in one of the VirtualHome forms, possibly dressed."""
    render: Callable[[list[Action], str, str, str, bool], str] = _vh_render

    @st.composite
    def build(draw: st.DrawFn) -> tuple[list[Action], str]:
        plan = draw(plans if plans is not None else virtualhome_plans())
        shape = draw(st.sampled_from(["object", "list", "wrapper", "script"]))
        style = draw(st.sampled_from(["pairs", "int-ids", "angle", "dotted", "underscore"]))
        quote = draw(st.sampled_from(['"', "'"]))
        trail = draw(st.booleans())
        body = render(plan, shape, style, quote, trail)
        return plan, draw(dressed(body))

    return build()


def behavior_responses(
    plans: st.SearchStrategy[list[Action]] | None = None,
) -> st.SearchStrategy[tuple[list[Action], str]]:
    """(plan, response text) in the BEHAVIOR record-list form, possibly dressed."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[list[Action], str]:
        plan = draw(plans if plans is not None else behavior_plans())
        quote = draw(st.sampled_from(['"', "'"]))
        spaced = draw(st.booleans())
        sep = ", " if spaced else ","
        if quote == '"' and not spaced:
            body = render_behavior(plan, indent=draw(st.sampled_from([None, 2, 4])))
        else:
            records = [
                "{"
                + f"{_q('action', quote)}: {_q(a.name, quote)}, "
                + f"{_q('object', quote)}: {_q(sep.join(a.args), quote)}"
                + "}"
                for a in plan
            ]
            body = "[" + ",\n ".join(records) + "]"
        if draw(st.booleans()):
            body = "{" + _q("output", quote) + ": " + body + "}"
        return plan, draw(dressed(body))

    return build()
