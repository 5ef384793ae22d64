"""The corrections between goal interpretation's two readings: each (task, goal type) whose
true / false positives and false negatives differ between the reference reading
(:mod:`planproof.metrics.reference_goal_interpretation`) and planproof's own
(:mod:`planproof.metrics.goal_interpretation`) gets the class of
``docs/reference-differences.md`` that explains it, with the counts it moves. Summed over a
file, the moves of all classes are the whole gap between the two readings' counts
(``unexplained`` where no class applies: none on the 15 published files).

The class tests were written for ``benchmarks/differential_published.py``, which compares
with the reference code's own per-task counts; it uses them from here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

UNEXPLAINED = "unexplained"
SKIPPED = "reference-skips-unparsable-response"


@dataclass(frozen=True)
class Correction:
    """One (task, goal type) whose counts differ: planproof's minus the reference
    reading's true positives, false positives and false negatives."""

    identifier: str
    goal_type: str
    cls: str
    tp: int
    fp: int
    fn: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "goal_type": self.goal_type,
            "class": self.cls,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


def _names(text: str) -> set[str]:
    """The words of an answer that could be object names (quotes and ids removed)."""
    words = text.replace(",", " ").replace(":", " ").replace("{", " ").replace("}", " ").split()
    return {w.strip("\"'[]").split(".")[0] for w in words} - {""}


def several_objects(text: str, task: Any) -> bool:
    """Does the answer name a class of which the task has several objects (the
    reference keys objects by class name and keeps one id)?"""
    from planproof.interface.goals import resolve_object

    return any(len(resolve_object(n, task.world)) > 1 for n in _names(text) if n.isidentifier())


def outside_relevant(text: str, task: Any, relevant: Iterable[str]) -> bool:
    """Does the answer name an object of the scene that is not among the reference's
    ``relevant`` class names (the nodes that change between the task's initial and final
    graphs, ``docs/published-answers.md``)? The reference drops such an item as a
    hallucination."""
    from planproof.interface.goals import resolve_object

    known = set(relevant)
    return any(
        n not in known and resolve_object(n, task.world) for n in _names(text) if n.isidentifier()
    )


def reference_cleanup(text: str) -> str:
    """The light clean-up the reference's goal-interpretation and transition-modeling
    evaluators make before ``json.loads``: a leading json fence cut, newlines dropped,
    every ``'`` made ``"``."""
    if text.startswith("```json"):
        text = text[7:].strip("`")
    return text.strip().replace("\n", "").replace("'", '"')


def reference_pairs(text: str) -> Any:
    """The answer as the reference's goal-interpretation evaluator reads it, with each
    object's members kept as a tuple of pairs so a repeated key stays visible; None where
    ``json.loads`` fails there."""
    try:
        return json.loads(
            reference_cleanup(text.replace("<|eot_id|>", "")), object_pairs_hook=tuple
        )
    except ValueError:
        return None


def _members(obj: Any, key: str) -> list[Any]:
    """The list under ``key`` of a pairs-tuple object (the last such member, as
    ``json.loads`` keeps), or []."""
    found: Any = [v for k, v in obj if k == key][-1:] if isinstance(obj, tuple) else []
    return found[0] if found and isinstance(found[0], list) else []


def _as_loaded(item: Any) -> Any:
    """An item as ``json.loads`` leaves it: for a repeated key, the last value only."""
    return tuple(sorted(dict(item).items(), key=str)) if isinstance(item, tuple) else item


def collapsed_items(answer: Any, key: str) -> int:
    """How many of the distinct items under ``key`` (``"node goals"``, ``"edge goals"``)
    become copies of another once ``json.loads`` keeps only the last value of a repeated
    key (``{"to_name": "filter", "to_name": "coffe_maker"}``): the reference's
    ``remove_duplicate_dicts`` then scores them once."""
    items = [i for i in _members(answer, key) if isinstance(i, tuple)]
    kept = {repr(i) for i in items}
    loaded = {repr(_as_loaded(i)) for i in items}
    return len(kept) - len(loaded)


def bare_action_names(answer: Any) -> int:
    """Action goals written as a bare name (``"action goals": ["OPEN", "READ"]``) instead of
    the prompt's ``{"action": ..., "description": ...}``: the reference's ``"action" not in
    item`` is then a substring test on the name, so each is a format error, not scored."""
    return sum(
        1 for i in _members(answer, "action goals") if isinstance(i, str) and "action" not in i
    )


def goal_interpretation_class(
    kind: str,
    ref: Mapping[str, int],
    pp: Mapping[str, int],
    several: bool,
    *,
    outside: bool = False,
    malformed: int = 0,
    collapsed: int = 0,
    bare_actions: int = 0,
) -> str:
    """The cause of one (task, goal type) difference in (TP, FP, FN); ``ref`` in the
    reference's keys (``TP``, ``FP``, ``FN``), ``pp`` in planproof's (``tp``, ...);
    ``malformed``: how many items of this type planproof reported as format errors (not
    scored); ``collapsed``: how many items the reference's ``json.loads`` turned into
    copies (:func:`collapsed_items`); ``bare_actions``: action goals written as bare
    names (:func:`bare_action_names`)."""
    scored = ref.get("TP", 0) + ref.get("FP", 0)
    if kind == "action" and bare_actions and scored == pp["tp"] + pp["fp"] - bare_actions:
        return "action-goal-as-name"
    if (
        kind != "action"
        and collapsed
        and ref.get("TP", 0) == pp["tp"]
        and pp["fp"] - ref.get("FP", 0) == collapsed
    ):
        return "repeated-key-in-item"
    if kind == "action" and ref.get("TP", 0) > pp["tp"] and ref.get("FN", 0) < pp["fn"]:
        return "alternative-matched-repeatedly"
    if kind != "action" and ref.get("TP", 0) < pp["tp"] and several:
        return "one-name-several-objects"
    if kind != "action" and several and ref.get("FP", 0) + ref.get("TP", 0) < pp["tp"] + pp["fp"]:
        return "one-name-several-objects"
    if (
        kind != "action"
        and outside
        and ref.get("FP", 0) < pp["fp"]
        and ref.get("TP", 0) == pp["tp"]
    ):
        return "object-outside-relevant-set"
    if malformed and ref.get("FP", 0) - pp["fp"] == malformed and ref.get("TP", 0) == pp["tp"]:
        return "malformed-item-counted"
    return UNEXPLAINED


_REFERENCE_KEY = {"state": "node", "relation": "edge", "action": "action"}


def task_corrections(
    task: Any,
    text: str,
    reference: Any,
    planproof: Any,
    relevant: Iterable[str],
) -> list[Correction]:
    """The corrections of one answer: ``reference`` a
    :class:`~planproof.metrics.reference_goal_interpretation.ReferenceGoalCounts`,
    ``planproof`` a :class:`~planproof.metrics.goal_interpretation.GoalResult`."""
    from planproof.metrics.goal_interpretation import GOAL_TYPES

    pp = {
        k: (c.tp, c.fp, c.fn) if (c := planproof.counts.get(k)) is not None else (0, 0, 0)
        for k in GOAL_TYPES
    }
    if not reference.read:
        return [Correction(task.identifier, k, SKIPPED, *pp[k]) for k in GOAL_TYPES if any(pp[k])]
    out: list[Correction] = []
    differing = [k for k in GOAL_TYPES if tuple(reference.counts[k]) != pp[k]]
    if not differing:
        return out
    several = several_objects(text, task)
    outside = outside_relevant(text, task, relevant)
    answer = reference_pairs(text)
    bare = bare_action_names(answer)
    for k in differing:
        rtp, rfp, rfn = reference.counts[k]
        ptp, pfp, pfn = pp[k]
        field = f"{k}:"
        malformed = sum(1 for i in planproof.issues if i.kind == "format" and field in str(i.item))
        cls = goal_interpretation_class(
            _REFERENCE_KEY[k],
            {"TP": rtp, "FP": rfp, "FN": rfn},
            {"tp": ptp, "fp": pfp, "fn": pfn},
            several,
            outside=outside,
            malformed=malformed,
            collapsed=collapsed_items(answer, f"{_REFERENCE_KEY[k]} goals"),
            bare_actions=bare,
        )
        out.append(Correction(task.identifier, k, cls, ptp - rtp, pfp - rfp, pfn - rfn))
    return out
