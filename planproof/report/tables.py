"""The paper-style summary tables: one per (module, dataset), one row per model, the
columns of the EAI paper's tables grouped under two-level headers, the best value of each
column in bold. Values come from each run's ``summary.json`` (the module evaluator's
summary); a value the summary lacks shows as a dash."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.report.load import as_dict, as_int, dig, opt_float

HIGH, LOW = "high", "low"  # which direction is better


@dataclass(frozen=True, slots=True)
class Column:
    group: str
    label: str
    path: tuple[str, ...]
    better: str | None = HIGH
    scale: float = 1.0  # TM summaries hold fractions; the page shows percents
    count: bool = False  # an integer count rather than a percent
    tip: str = ""
    guard: tuple[str, ...] = ()  # a count record; when all zero, the rate is undefined
    spread: tuple[str, ...] = ()  # a standard error, shown as "± s.e." after the value
    zero_if_absent: bool = False  # a count missing from its (present) parent record is 0
    digits: int = 1  # decimals shown (a rate in %: 1; a correlation: 2)


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    value: float | None
    best: bool = False


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    color: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class MetricTable:
    caption: str
    groups: tuple[tuple[str, int], ...]
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


def _c(group: str, label: str, *path: str, better: str | None = HIGH, tip: str = "") -> Column:
    return Column(group, label, path, better, tip=tip)


def _n(group: str, label: str, *path: str, better: str | None = None, tip: str = "") -> Column:
    return Column(group, label, path, better, count=True, tip=tip)


_GOAL = "Goal evaluation (%)"
_GRAMMAR = "Grammar errors (% of tasks)"
_RUNTIME = "Runtime errors (% of tasks)"
_TRAJECTORY_COLUMNS = (
    _c(_GOAL, "Task SR", "goal_evaluation", "task_success_rate", tip="task success rate"),
    *(
        dataclasses.replace(
            _c(
                _GOAL,
                kind.capitalize(),
                "goal_evaluation",
                f"{kind}_goal",
                tip=f"{kind} goals satisfied",
            ),
            guard=("counts", "goals", kind),
        )
        for kind in ("state", "relation", "action")
    ),
    _c(_GOAL, "Total", "goal_evaluation", "total_goal", tip="all goals satisfied"),
    _c(_GOAL, "Partial", "goal_evaluation", "partial_success", tip="mean partial success"),
    _c(
        "Trajectory (%)",
        "Executable",
        "trajectory_evaluation",
        "execution_success_rate",
        tip="execution success rate",
    ),
    _c(_GRAMMAR, "Parsing", "trajectory_evaluation", "grammar_error", "parsing", better=LOW),
    _c(
        _GRAMMAR,
        "Halluc.",
        "trajectory_evaluation",
        "grammar_error",
        "hallucination",
        better=LOW,
        tip="hallucinated action or object",
    ),
    _c(
        _GRAMMAR,
        "Arg. no.",
        "trajectory_evaluation",
        "grammar_error",
        "predicate_argument_number",
        better=LOW,
        tip="wrong number of arguments",
    ),
    _c(
        _RUNTIME, "Wrong order", "trajectory_evaluation", "runtime_error", "wrong_order", better=LOW
    ),
    _c(
        _RUNTIME,
        "Missing step",
        "trajectory_evaluation",
        "runtime_error",
        "missing_step",
        better=LOW,
    ),
    _c(
        _RUNTIME,
        "Affordance",
        "trajectory_evaluation",
        "runtime_error",
        "affordance_error",
        better=LOW,
    ),
    _c(
        _RUNTIME,
        "Add. step",
        "trajectory_evaluation",
        "runtime_error",
        "additional_step",
        better=LOW,
        tip="additional steps (a warning: execution continues)",
    ),
)

_SUBGOAL = "Subgoals (count)"
_SUBGOAL_COLUMNS = (
    _n(_SUBGOAL, "Total", "subgoals", "total"),
    _n(_SUBGOAL, "Reached", "subgoals", "reached", better=HIGH),
    _n(_SUBGOAL, "Already true", "subgoals", "already_true"),
    _n(_SUBGOAL, "Unreachable", "subgoals", "unreachable", better=LOW),
    _n(
        _SUBGOAL,
        "Unsat.",
        "subgoals",
        "unsatisfiable",
        better=LOW,
        tip="no state satisfies it (Z3)",
    ),
    _n(_SUBGOAL, "Limit", "subgoals", "limit", better=LOW, tip="search budget exhausted"),
)


def _gi_columns() -> tuple[Column, ...]:
    cols: list[Column] = []
    for kind in ("state", "relation", "action", "overall"):
        group = f"{kind.capitalize()} goals (%)"
        for key, label in (("precision", "P"), ("recall", "R"), ("f1", "F1")):
            col = _c(group, label, "goal_evaluation", kind, key)
            cols.append(dataclasses.replace(col, guard=("goal_evaluation", kind)))
    grammar = "Grammar"
    cols += [
        _n(
            grammar,
            "Unparsable",
            "grammar",
            "unparsable_responses",
            better=LOW,
            tip="responses that are not a goal",
        ),
        _c(
            grammar,
            "Format %",
            "grammar",
            "format_error_rate",
            better=LOW,
            tip="% of predicted items",
        ),
        _c(
            grammar,
            "Halluc. %",
            "grammar",
            "hallucination_rate",
            better=LOW,
            tip="% of predicted items",
        ),
        _n("Z3 logic (count)", "Checked", "logic", "checked"),
        _n(
            "Z3 logic (count)",
            "Equivalent",
            "logic",
            "equivalent",
            better=HIGH,
            tip="prediction equivalent to the gold goal",
        ),
        _n("Z3 logic (count)", "Entails gold", "logic", "entails_gold", better=HIGH),
        _n("Z3 logic (count)", "Unsat.", "logic", "unsatisfiable", better=LOW),
    ]
    return tuple(cols)


TM_CATEGORIES = (
    ("object_states", "Object states"),
    ("object_affordance", "Affordance"),
    ("spatial_relations", "Spatial"),
    ("non-spatial_relations", "Non-spatial"),
)


def _tm_columns() -> tuple[Column, ...]:
    f1 = "Logic-form F1 (%)"
    sr = "Planner success (%)"
    cols = [
        Column(f1, label, ("by_category", key, "f1"), scale=100) for key, label in TM_CATEGORIES
    ]
    cols += [
        Column(f1, "Precond.", ("precondition", "f1"), scale=100),
        Column(f1, "Effect", ("effect", "f1"), scale=100),
        Column(f1, "Overall", ("overall", "f1"), scale=100),
    ]
    cols += [
        Column(
            sr,
            label,
            ("planner_by_category", key, "plan_valid_under_gold"),
            scale=100,
            tip="plan found and valid under the gold operators",
        )
        for key, label in TM_CATEGORIES
    ]
    cols += [
        Column(sr, "Found", ("planner_found",), scale=100, tip="a plan was found"),
        Column(
            sr,
            "Valid",
            ("plan_valid_under_gold",),
            scale=100,
            tip="plan valid under the gold operators",
        ),
        _n("Errors (count)", "Format", "format_errors", better=LOW),
        _n("Errors (count)", "Halluc. ops", "hallucinated_operators", better=LOW),
    ]
    return tuple(cols)


# the denominator: tasks with a score (a failed call has none)
_SCORED = _n("Tasks", "Scored", "tasks", tip="tasks with a score (failed calls have none)")
COLUMNS: dict[str, tuple[Column, ...]] = {
    "action-sequencing": (_SCORED, *_TRAJECTORY_COLUMNS),
    "subgoal-decomposition": (_SCORED, *_TRAJECTORY_COLUMNS, *_SUBGOAL_COLUMNS),
    "goal-interpretation": (_SCORED, *_gi_columns()),
    "transition-modeling": (_SCORED, *_tm_columns()),
    "compare-domains": (
        _n("Operators", "Compared", "operators", "total"),
        Column("Operators", "Equivalent (%)", ("operators", "equivalent_rate"), scale=100),
        _n("Operators", "Stronger", "operators", "stronger"),
        _n("Operators", "Weaker", "operators", "weaker"),
        _n("Operators", "Incomparable", "operators", "incomparable"),
        Column(
            "Plans valid (%)",
            "ref. under cand.",
            ("plans", "reference_valid_under_candidate"),
            scale=100,
        ),
        Column(
            "Plans valid (%)",
            "cand. under ref.",
            ("plans", "candidate_valid_under_reference"),
            scale=100,
        ),
    ),
}


def _generic_columns(summaries: Sequence[Mapping[str, Any]]) -> tuple[Column, ...]:
    """Every numeric leaf of the summaries (for a module this report does not know)."""
    paths: dict[tuple[str, ...], None] = {}

    def walk(doc: Mapping[str, Any], prefix: tuple[str, ...]) -> None:
        for k, v in doc.items():
            if isinstance(v, dict) and len(prefix) < 3:
                walk(v, (*prefix, k))
            elif opt_float(v) is not None:
                paths[(*prefix, k)] = None

    for s in summaries:
        walk(s, ())
    return tuple(
        Column(p[0] if len(p) > 1 else "Summary", " ".join(p[1:]) or p[0], p, None)
        for p in list(paths)[:40]
    )


def column_value(summary: Mapping[str, Any], col: Column) -> float | None:
    v = opt_float(dig(summary, *col.path))
    if v is None and col.zero_if_absent and isinstance(dig(summary, *col.path[:-1]), dict):
        return 0.0
    if v is None:
        return None
    if col.guard:
        counts = dig(summary, *col.guard)
        keys = ("tp", "fp", "fn", "total")
        if isinstance(counts, dict) and not any(as_int(counts.get(k)) for k in keys):
            return None
    return v * col.scale


def _fmt(col: Column, value: float | None, summary: Mapping[str, Any]) -> str:
    if value is None:
        return "—"
    if col.count:
        return f"{value:,.0f}"
    spread = opt_float(dig(summary, *col.spread)) if col.spread else None
    shown = f"{value:.{col.digits}f}"
    if spread is not None:
        return f"{shown} ± {spread * col.scale:.{col.digits}f}"
    return shown + _interval(col, summary)


def _interval(col: Column, summary: Mapping[str, Any]) -> str:
    """`` [lo, hi]``: the figure's 95 % confidence interval when the summary has one
    (``intervals``, keyed by the figure's dotted path, in the figure's unit)."""
    iv = as_dict(as_dict(summary.get("intervals")).get(".".join(col.path)))
    low, high = opt_float(iv.get("low")), opt_float(iv.get("high"))
    if low is None or high is None:
        return ""
    return f" [{low * col.scale:.{col.digits}f}, {high * col.scale:.{col.digits}f}]"


def metric_table(
    module: str,
    caption: str,
    runs: Sequence[tuple[str, str, Mapping[str, Any]]],
    columns: Sequence[Column] = (),
) -> MetricTable:
    """``runs``: (row label, colour, summary) per model; ``columns`` when the caller
    knows them, else the module's, else every numeric leaf of the summaries."""
    columns = tuple(columns) or COLUMNS.get(module) or _generic_columns([s for _, _, s in runs])
    values = [[column_value(summary, c) for c in columns] for _, _, summary in runs]
    best: list[float | None] = []
    for j, c in enumerate(columns):
        # compared as shown, so that two cells reading 66.7 are never told apart
        col = [round(v, 0 if c.count else 1) for row in values if (v := row[j]) is not None]
        if c.better is None or len(runs) < 2 or not col:
            best.append(None)
        else:
            b = max(col) if c.better == HIGH else min(col)
            best.append(None if all(x == b for x in col) else b)
    rows = tuple(
        Row(
            label,
            color,
            tuple(
                Cell(
                    _fmt(c, v, summary),
                    v,
                    v is not None and round(v, 0 if c.count else 1) == best[j],
                )
                for j, (c, v) in enumerate(zip(columns, vals, strict=True))
            ),
        )
        for (label, color, summary), vals in zip(runs, values, strict=True)
    )
    groups: list[tuple[str, int]] = []
    for c in columns:
        if groups and groups[-1][0] == c.group:
            groups[-1] = (c.group, groups[-1][1] + 1)
        else:
            groups.append((c.group, 1))
    return MetricTable(caption, tuple(groups), columns, rows)
