"""Shared helpers of the PARTNR tests: the bundled corpus and small state builders."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from planproof.ltl.trace import State
from planproof.simulators.partnr.predicates import atom
from planproof.simulators.partnr.world import Episode, load_episodes


@cache
def corpus() -> dict[str, Episode]:
    text = resources.files("planproof.examples").joinpath("partnr", "episodes.json")
    return {e.episode_id: e for e in load_episodes(json.loads(text.read_text("utf-8")))}


@cache
def _plans_text() -> str:
    path = resources.files("planproof.examples").joinpath("partnr", "plans.json")
    return path.read_text("utf-8")


def plans() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(_plans_text())["plans"]
    return data


def agents_of(plan: dict[str, Any]) -> dict[str, list[str]]:
    return {k: v for k, v in plan.items() if k.startswith("agent_")}


def state(*facts: str) -> State:
    """``state("on_top cup table", "clean cup")``: atoms written as space-separated words."""
    out = set()
    for f in facts:
        pred, *args = f.split()
        out.add(atom(pred, *args))
    return frozenset(out)
