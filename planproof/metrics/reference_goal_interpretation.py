"""Goal interpretation counted by the reference's rules (virtualhome-eval 0.1.1,
``evaluation/goal_interpretation/scripts/evaluate_results.py``, read and re-implemented,
not imported): the "reference reading" of ``planproof reproduce eai``, whose figures equal
the reference code's on the same published file.

Its rules, quirks included (``docs/goal-interpretation.md``, "The reference reading";
every one a class of ``docs/reference-differences.md``):

- the answer is read with ``json.loads`` after a light clean-up (the ``<|eot_id|>`` token
  and a leading fence removed, newlines dropped, every ``'`` turned into ``"``); an answer
  it cannot read is left out entirely, its gold goals not even counted as missed
  (``reference-skips-unparsable-response``); a repeated key keeps its last value
  (``repeated-key-in-item``);
- a goal list that is no list is iterated (a string's characters, an object's keys:
  format errors, ``goal-list-iterated``);
- items equal as Python values are removed (``remove_duplicate_dicts``: ``1``, ``1.0``
  and ``true`` are one value, ``duplicate-by-python-equality``), an empty one is skipped, one
  without its keys is a format error, whose test is ``in`` — a *substring* test on a
  string item (``action-goal-as-name``);
- object names resolve through the class name → id map of the task's relevant nodes under
  the string-hash seed that gives the paper's figures
  (:mod:`planproof.simulators.virtualhome.reference_goals`): one id per name
  (``one-name-several-objects``); a name outside it is a hallucination, left out
  (``object-outside-relevant-set``);
- a resolved item is a true positive when it equals a gold item exactly, else a false
  positive, whatever its state or relation (``malformed-item-counted``);
- a predicted action is a true positive whenever some gold alternative group holds it:
  a group is never consumed (``alternative-matched-repeatedly``), so the false negatives
  ``gold − TP`` can be negative.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.metrics.goal_interpretation import GOAL_TYPES

_KEYS = {
    "state": ("name", "state"),
    "relation": ("from_name", "to_name", "relation"),
    "action": ("action",),
}
_ANSWER_KEYS = {"state": "node goals", "relation": "edge goals", "action": "action goals"}


@dataclass(frozen=True)
class ReferenceGoalCounts:
    """One answer as the reference counts it: ``(tp, fp, fn)`` per goal type (``fn`` may be
    negative), its format errors and hallucinated items; ``read`` is False when its
    ``json.loads`` failed and the task is left out of every count."""

    identifier: str
    read: bool
    counts: Mapping[str, tuple[int, int, int]]
    format_errors: int = 0
    hallucinations: int = 0

    def log_record(self) -> dict[str, Any]:
        """The answer as the reference's evaluator logs it per task (``TP`` / ``FP`` /
        ``FN`` per goal kind, format errors, hallucinations; only ``read`` False where
        its ``json.loads`` failed): the terms the reference's own per-task records are
        compared in (``benchmarks/fuzz_gi_reading.py``)."""
        if not self.read:
            return {"read": False}
        kinds = {"state": "node", "relation": "edge", "action": "action"}
        return {
            "read": True,
            **{
                kinds[k]: dict(zip(("TP", "FP", "FN"), v, strict=True))
                for k, v in self.counts.items()
            },
            "format_wrong": self.format_errors,
            "hallucinated": self.hallucinations,
        }


def reference_json(text: str) -> Any:
    """The answer as the reference's ``json.loads`` reads it after its clean-up; raises
    ``ValueError`` where it fails."""
    out = text.replace("<|eot_id|>", "")
    if out.startswith("```json"):
        out = out[7:].strip("`")
    out = out.strip().replace("\n", "").replace("'", '"')
    return json.loads(out)


def _dedup(items: Sequence[Any]) -> list[Any]:
    """``remove_duplicate_dicts``: one of the items equal *as Python values*, at the first
    one's position, with the last one's value. Its key is the item made hashable, so
    ``1``, ``1.0`` and ``true`` are one value there (as ``0`` and ``false``): ``{"name": 1}``
    and ``{"name": true}`` are one item, the second kept (``duplicate-by-python-equality``,
    found by ``benchmarks/fuzz_gi_reading.py``)."""
    out: list[Any] = []
    for item in items:
        at = next((k for k, seen in enumerate(out) if seen == item), None)
        if at is None:
            out.append(item)
        else:
            out[at] = item
    return out


def _goal_items(raw: Any) -> list[Any]:
    """What the reference's loop visits for one goal list: the list itself, or whatever
    iterating the value gives (a string: its characters, an object: its keys; each then a
    format error, ``goal-list-iterated``); a number, a boolean or null, which it cannot
    iterate (it stops there), is one format error here."""
    if isinstance(raw, list | str | dict):
        return list(raw)
    return [raw]


def _has(item: Any, key: str) -> bool:
    """Python's ``key in item`` as the reference writes it (a substring test on a string)."""
    if isinstance(item, dict | str | list):
        return key in item
    return False


def count_answer(identifier: str, text: str, gold: Mapping[str, Any]) -> ReferenceGoalCounts:
    """Count one answer against the task's reference data (``reference_goals()[id]``).

    Where the reference's own code would stop with an exception (a bare string item that
    holds the key's name, ``"action goals": ["an action"]``, or a top-level value that is no
    object) the whole file would be lost there; this reading counts such an item as a format
    error and such an answer as not read, and goes on."""
    try:
        answer = reference_json(text)
    except ValueError:
        return ReferenceGoalCounts(identifier, False, dict.fromkeys(GOAL_TYPES, (0, 0, 0)))
    if not isinstance(answer, dict):  # the reference would stop on ``.get``: not read
        return ReferenceGoalCounts(identifier, False, dict.fromkeys(GOAL_TYPES, (0, 0, 0)))
    names: Mapping[str, int] = gold["names"]
    counts: dict[str, tuple[int, int, int]] = {}
    fmt = hall = 0
    for kind in GOAL_TYPES:
        items = _dedup(_goal_items(answer.get(_ANSWER_KEYS[kind], [])))
        tp = fp = 0
        for item in items:
            if isinstance(item, dict | str | list) and len(item) == 0:
                continue
            if not all(_has(item, k) for k in _KEYS[kind]) or not isinstance(item, dict):
                fmt += 1
                continue
            if kind == "action":
                action = str(item["action"]).upper()
                if any(action in [a.upper() for a in g.split("|")] for g in gold["actions"]):
                    tp += 1
                else:
                    fp += 1
                continue
            objects = [item["name"]] if kind == "state" else [item["from_name"], item["to_name"]]
            if not all(isinstance(o, str) and o in names for o in objects):
                hall += 1
                continue
            if kind == "state":
                indexed: dict[str, Any] = {
                    "id": names[item["name"]],
                    "class_name": item["name"],
                    "state": item["state"],
                }
                hit = indexed in gold["node"]
            else:
                indexed = {
                    "from_id": names[item["from_name"]],
                    "to_id": names[item["to_name"]],
                    "relation_type": item["relation"],
                }
                hit = indexed in gold["edge"]
            tp, fp = (tp + 1, fp) if hit else (tp, fp + 1)
        total = len(gold[{"state": "node", "relation": "edge", "action": "actions"}[kind]])
        counts[kind] = (tp, fp, total - tp)
    return ReferenceGoalCounts(identifier, True, counts, fmt, hall)


def _prf(tp: int, fp: int, fn: int) -> dict[str, Any]:
    """``precision_recall_f1`` of the reference (0 where a denominator is 0), in percent."""
    p = tp / (tp + fp) if tp + fp != 0 else 0.0
    r = tp / (tp + fn) if tp + fn != 0 else 0.0
    f = 2 * p * r / (p + r) if p + r != 0 else 0.0
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": round(100 * p, 4),
        "recall": round(100 * r, 4),
        "f1": round(100 * f, 4),
    }


def summarize_reference(results: Sequence[ReferenceGoalCounts]) -> dict[str, Any]:
    """The reference's summary figures, in the shape of planproof's goal-interpretation
    summary (``goal_evaluation`` per type and overall), plus what it left out."""
    totals = {k: [0, 0, 0] for k in GOAL_TYPES}
    for r in results:
        for k, (tp, fp, fn) in r.counts.items():
            totals[k][0] += tp
            totals[k][1] += fp
            totals[k][2] += fn
    overall = [sum(t[i] for t in totals.values()) for i in range(3)]
    return {
        "tasks": len(results),
        "reading": "reference",
        "goal_evaluation": {
            **{k: _prf(*totals[k]) for k in GOAL_TYPES},
            "overall": _prf(*overall),
        },
        "grammar": {
            "unread_responses": sum(1 for r in results if not r.read),
            "format_error_items": sum(r.format_errors for r in results),
            "hallucination_items": sum(r.hallucinations for r in results),
        },
    }
