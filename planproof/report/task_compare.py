"""A user's run compared task by task with the published models (``planproof reproduce eai
--run DIR``): on the tasks both answered, how many both solve, only one solves, neither
(action sequencing and subgoal decomposition: task success), or where one's F1 is higher
(goal interpretation), and the tasks that differ. A figure two runs share can hide
opposite task-level verdicts; this table shows them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

LISTED = 12
"""Differing task identifiers listed per comparison (the count is always whole)."""


@dataclass(frozen=True)
class TaskComparison:
    """``user`` vs one published ``model`` on ``shared`` tasks: ``both``, ``user_only``,
    ``model_only``, ``neither`` (successes; for goal interpretation: equal F1 with F1 > 0,
    user's F1 higher, the model's higher, both 0), and up to :data:`LISTED` identifiers of
    each side's wins."""

    module: str
    user: str
    model: str
    shared: int
    both: int
    user_only: int
    model_only: int
    neither: int
    user_wins: tuple[str, ...] = ()
    model_wins: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "user": self.user,
            "model": self.model,
            "shared": self.shared,
            "both": self.both,
            "user_only": self.user_only,
            "model_only": self.model_only,
            "neither": self.neither,
            "user_wins": list(self.user_wins),
            "model_wins": list(self.model_wins),
        }


def _score(module: str, verdict: Mapping[str, Any]) -> float | None:
    key = "f1" if module == "goal-interpretation" else "success"
    value = verdict.get(key)
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def compare(
    module: str,
    user: str,
    user_tasks: Sequence[Mapping[str, Any]],
    model: str,
    model_tasks: Sequence[Mapping[str, Any]],
) -> TaskComparison:
    """Compare two lists of per-task verdicts (``identifier`` and ``success`` or ``f1``)."""
    mine = {str(t.get("identifier")): _score(module, t) for t in user_tasks}
    theirs = {str(t.get("identifier")): _score(module, t) for t in model_tasks}
    shared = sorted(i for i in mine.keys() & theirs.keys() if mine[i] is not None)
    both = user_only = model_only = neither = 0
    ours: list[str] = []
    others: list[str] = []
    for i in shared:
        a, b = mine[i] or 0.0, theirs[i] or 0.0
        if a > b:
            user_only += 1
            ours.append(i)
        elif b > a:
            model_only += 1
            others.append(i)
        elif a > 0:
            both += 1
        else:
            neither += 1
    return TaskComparison(
        module,
        user,
        model,
        len(shared),
        both,
        user_only,
        model_only,
        neither,
        tuple(ours[:LISTED]),
        tuple(others[:LISTED]),
    )


def comparisons_html(rows: Sequence[TaskComparison]) -> Markup:
    """One table per user run and module: a row per published model."""
    if not rows:
        return Markup("")
    head = (
        "<tr><th>your run</th><th>published model</th><th>tasks</th><th>both</th>"
        "<th>yours only</th><th>model only</th><th>neither</th><th>your wins (first)</th>"
        "<th>model's wins (first)</th></tr>"
    )
    body = "".join(
        f"<tr><th>{escape(r.user)}</th><td>{escape(r.model)}</td><td>{r.shared}</td>"
        f"<td>{r.both}</td><td>{r.user_only}</td><td>{r.model_only}</td><td>{r.neither}</td>"
        f"<td>{escape(', '.join(r.user_wins))}</td><td>{escape(', '.join(r.model_wins))}</td></tr>"
        for r in rows
    )
    return Markup(  # every value above is a number or escaped
        "<p><b>Your run, task by task</b> (success; goal interpretation: higher F1), on the "
        f"tasks both answered:</p><table class='lb'>{head}{body}</table>"
    )
