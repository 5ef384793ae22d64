"""The failing tasks of an ``evaluate`` run, listed on the terminal after the summary
table (capped, with "+N more"), so a person sees *which* tasks failed and why without
reading results.jsonl. Steps are 1-based here (human text) and 0-based in the JSON files,
as docs/cli.md says once for every command."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SHOWN = 10


@dataclass(frozen=True)
class Failure:
    """One failing task: ``step`` is 0-based, as in the JSON (None: not a step error)."""

    identifier: str
    error: str
    step: int | None = None
    unmet: str = ""


def _first(items: Sequence[Any]) -> str:
    return str(items[0]) + (f" (+{len(items) - 1} more)" if len(items) > 1 else "") if items else ""


def plan_failure(row: Mapping[str, Any]) -> Failure | None:
    """Action sequencing and subgoal decomposition: the first failing step, or the goal
    left unmet by an executable plan."""
    if row.get("success"):
        return None
    err = row.get("error") or {}
    if err:
        unmet = _first(err.get("unmet") or []) or _first(row.get("unmet_goals") or [])
        return Failure(
            str(row["identifier"]),
            f"{err.get('error_type', 'error')}: {err.get('message', '')}".strip(),
            err.get("step") if err.get("action") else None,
            unmet,
        )
    return Failure(
        str(row["identifier"]), "goal not reached", None, _first(row.get("unmet_goals") or [])
    )


def goal_failure(row: Mapping[str, Any]) -> Failure | None:
    """Goal interpretation: an unparsable answer, or goals missed or added."""
    if row.get("parse_error"):
        return Failure(str(row["identifier"]), f"unparsable: {row['parse_error']}")
    missed, extra = row.get("missed_goals") or [], row.get("extra_goals") or []
    if not missed and not extra and not row.get("hallucinations"):
        return None
    what = f"F1 {row.get('f1', 0):.1f} %"
    if row.get("hallucinations"):
        what += f", unknown names: {_first(row['hallucinations'])}"
    if extra:
        what += f", extra: {_first(extra)}"
    return Failure(str(row["identifier"]), what, None, _first(missed))


def operator_failure(row: Mapping[str, Any]) -> Failure | None:
    """Transition modeling: a format error, no plan, or a plan invalid under gold."""
    ident = str(row["identifier"])
    if row.get("format_error"):
        return Failure(ident, f"format error: {row['format_error']}")
    if not row.get("planner_found"):
        return Failure(
            ident, f"planner: {row.get('planner_status')} {row.get('planner_reason') or ''}".strip()
        )
    if not row.get("plan_valid_under_gold"):
        return Failure(
            ident, "plan invalid under the gold operators", None, str(row.get("gold_failure") or "")
        )
    return None


CLASSIFY: dict[str, Callable[[Mapping[str, Any]], Failure | None]] = {
    "action-sequencing": plan_failure,
    "subgoal-decomposition": plan_failure,
    "goal-interpretation": goal_failure,
    "transition-modeling": operator_failure,
}
"""How each EAI module's results.jsonl row tells a failure."""


def failures(
    rows: Sequence[Mapping[str, Any]], classify: Callable[[Mapping[str, Any]], Failure | None]
) -> list[Failure]:
    return [f for f in map(classify, rows) if f is not None]


def print_failures(
    found: Sequence[Failure], scored: int, names: Mapping[str, str], *, shown: int = SHOWN
) -> None:
    """A table of the first ``shown`` failing tasks and a "+N more" line (terminal)."""
    from rich.table import Table

    from planproof.commands.console import stdout_console

    console = stdout_console()
    if not found:
        console.print(f"no failing task among the {scored} scored")
        return
    table = Table(title=f"{len(found)} of {scored} tasks failed", title_justify="left", expand=True)
    table.add_column("task", no_wrap=True)
    table.add_column("name", overflow="fold", ratio=1)
    table.add_column("step", justify="right")
    table.add_column("first error", overflow="fold", ratio=3)
    table.add_column("unmet condition", overflow="fold", ratio=2)
    for f in found[:shown]:
        table.add_row(
            f.identifier,
            names.get(f.identifier, ""),
            "" if f.step is None else str(f.step + 1),
            f.error,
            f.unmet,
        )
    console.print(table)
    if len(found) > shown:
        console.print(
            f"+{len(found) - shown} more failing tasks: every task is in results.jsonl "
            "(steps there are 0-based)"
        )
