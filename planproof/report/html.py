"""The report page: runs grouped by (module, dataset), each group with its paper-style
table (models side by side), charts, and one drill-down row per task.

The page is one self-contained file: an inline style sheet, inline SVG, and one short
inline script (it copies shared prompt passages into a drill-down when it opens). A
Content-Security-Policy admits exactly that script and that style sheet by hash and
forbids every other resource, so even markup that slipped through escaping could neither
load nor run anything. Everything read from a run directory is untrusted text and goes
through jinja2's autoescaping (or :func:`text_content` inside elements).
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from planproof.report import episodes
from planproof.report.charts import Series, bar_chart
from planproof.report.episode_dirs import BENCHMARKS, DATASET
from planproof.report.escaping import neutralise
from planproof.report.load import ReportError, ResponseRecord, Run, as_str
from planproof.report.outcome import OK, TaskOutcome, task_outcome
from planproof.report.prompts import PromptPool, Segment
from planproof.report.reproduced import REPRODUCE, section_title, tables
from planproof.report.results_dirs import load_runs
from planproof.report.tables import (
    COLUMNS,
    TM_CATEGORIES,
    Column,
    MetricTable,
    column_value,
    metric_table,
)

if TYPE_CHECKING:
    import jinja2

MODULE_ORDER = (
    "goal-interpretation",
    "subgoal-decomposition",
    "action-sequencing",
    "transition-modeling",
    "compare-domains",
    *BENCHMARKS,
    REPRODUCE,
)
MODULE_TITLES = {
    "goal-interpretation": "Goal interpretation",
    "subgoal-decomposition": "Subgoal decomposition",
    "action-sequencing": "Action sequencing",
    "transition-modeling": "Transition modeling",
    "compare-domains": "Domain comparison",
    **episodes.TITLES,
    REPRODUCE: "EAI paper reproduced",
}
DATASET_TITLES = {"virtualhome": "VirtualHome", "behavior": "BEHAVIOR", DATASET: DATASET}
PALETTE = (
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)  # fmt: skip

SCRIPT = """\
document.addEventListener("toggle", function (e) {
  var d = e.target;
  if (!d.open || !d.querySelectorAll) return;
  d.querySelectorAll("a.r").forEach(function (a) {
    var src = document.getElementById(a.getAttribute("href").slice(1));
    if (src) a.replaceWith(src.textContent);
  });
}, true);
"""


def text_content(value: object) -> Markup:
    """Escape for element content only (never an attribute): there, ``<`` and ``&`` are
    the only characters that start markup, so quotes stay as they are; JSON-heavy
    responses are a quarter smaller than with ``&#34;``."""
    s = str(value)
    return Markup(s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


@dataclass(frozen=True, slots=True)
class ModelCell:
    """One model's answer to one task."""

    label: str
    color: str
    outcome: TaskOutcome
    response: ResponseRecord | None


@dataclass(frozen=True, slots=True)
class PromptView:
    segments: tuple[Segment, ...]
    chars: int
    models: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TaskRow:
    identifier: str
    anchor: str
    all_ok: bool
    cells: tuple[ModelCell, ...]
    prompts: tuple[PromptView, ...]
    name: str = ""
    goal: str = ""


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    svg: Markup


@dataclass(frozen=True, slots=True)
class RunView:
    label: str
    color: str  # the model's CSS class (c0, c1, ...)
    fill: str  # the same colour for SVG
    run: Run
    directory: str
    responses: int
    results: int


@dataclass(frozen=True, slots=True)
class Section:
    anchor: str
    title: str
    module: str
    dataset: str
    runs: tuple[RunView, ...]
    table: MetricTable
    charts: tuple[Chart, ...]
    tasks: tuple[TaskRow, ...]
    failing: int
    coverage: tuple[str, ...] = ()
    has_responses: bool = True  # False: scored plans without model calls (no Response box)
    more_tables: tuple[MetricTable, ...] = ()
    per_task: bool = True  # False: figures only (reproduce eai keeps no per-task records)

    @property
    def tables(self) -> tuple[MetricTable, ...]:
        return (self.table, *self.more_tables)


def _group_key(run: Run) -> tuple[int, str, int, str]:
    m, d = run.info.module, run.info.dataset
    mi = MODULE_ORDER.index(m) if m in MODULE_ORDER else len(MODULE_ORDER)
    di = list(DATASET_TITLES).index(d) if d in DATASET_TITLES else len(DATASET_TITLES)
    return mi, m, di, d


def _col(module: str, label: str, group_prefix: str = "") -> Column:
    return next(c for c in COLUMNS[module] if c.label == label and c.group.startswith(group_prefix))


def _chart_specs(
    module: str, summaries: Sequence[Mapping[str, Any]]
) -> list[tuple[str, list[tuple[str, Column]], float | None]]:
    """(title, [(category, column)], axis max or None for automatic) per chart."""
    if module in BENCHMARKS:
        return episodes.chart_specs(module, summaries)
    if module in ("action-sequencing", "subgoal-decomposition"):
        errors = [
            ("parsing", _col(module, "Parsing")),
            ("hallucination", _col(module, "Halluc.")),
            ("argument number", _col(module, "Arg. no.")),
            ("wrong order", _col(module, "Wrong order")),
            ("missing step", _col(module, "Missing step")),
            ("affordance", _col(module, "Affordance")),
            ("additional step", _col(module, "Add. step")),
        ]
        goals = [(k.lower(), _col(module, k)) for k in ("State", "Relation", "Action", "Total")] + [
            ("task success", _col(module, "Task SR"))
        ]
        return [
            ("Error taxonomy (% of tasks)", errors, None),
            ("Goal success by goal type (%)", goals, 100.0),
        ]
    if module == "goal-interpretation":
        kinds = ("State", "Relation", "Action", "Overall")
        return [
            ("F1 by goal type (%)", [(k.lower(), _col(module, "F1", k)) for k in kinds], 100.0),
            (
                "Recall by goal type (%)",
                [(k.lower(), _col(module, "R", k)) for k in kinds],
                100.0,
            ),
        ]
    if module == "transition-modeling":
        f1 = [(label.lower(), _col(module, label, "Logic")) for _, label in TM_CATEGORIES]
        sr = [(label.lower(), _col(module, label, "Planner")) for _, label in TM_CATEGORIES]
        return [
            (
                "Logic-form F1 by predicate category (%)",
                [*f1, ("overall", _col(module, "Overall"))],
                100.0,
            ),
            ("Planner success by category (%)", [*sr, ("all tasks", _col(module, "Valid"))], 100.0),
        ]
    return []


def _charts(
    module: str, runs: Sequence[RunView], summaries: Sequence[Mapping[str, Any]]
) -> tuple[Chart, ...]:
    """The module's charts; a category no model has a value for is left out, and a chart
    with no bar to draw (every value missing or zero) is dropped."""
    out: list[Chart] = []
    for title, cats, top in _chart_specs(module, summaries):
        values = [[column_value(summaries[i], c) for _, c in cats] for i in range(len(runs))]
        keep = [j for j in range(len(cats)) if any(v[j] is not None for v in values)]
        if not any(v[j] for v in values for j in keep):
            continue
        series = [
            Series(r.label, r.fill, tuple(v[j] for j in keep))
            for r, v in zip(runs, values, strict=True)
        ]
        names = [cats[j][0] for j in keep]
        unit = "" if all(cats[j][1].count for j in keep) else "%"
        out.append(Chart(title, bar_chart(title, names, series, unit=unit, max_value=top)))
    return tuple(out)


PLANNER_KEYS = ("planner_found", "plan_valid_under_gold", "planner_by_category")


def _shown_summary(run: Run) -> Mapping[str, Any]:
    """The summary as the table shows it: a transition-modeling run evaluated without the
    planner reports 0 % planner success, which would read as a measurement; its planner
    columns are left empty instead."""
    if run.info.module != "transition-modeling" or not run.results:
        return run.summary
    if any(as_str(r.get("planner_status")) for r in run.results):
        return run.summary
    return {k: v for k, v in run.summary.items() if k not in PLANNER_KEYS}


def _labels(runs: Sequence[Run]) -> list[str]:
    """The model name, with the directory name when two runs of a group share a model."""
    names = [r.info.model for r in runs]
    return [
        n if names.count(n) == 1 else f"{n} ({r.path.name or r.path})"
        for n, r in zip(names, runs, strict=True)
    ]


def _identifiers(runs: Sequence[Run]) -> list[str]:
    """Every task of the group in the order the runs list them."""
    seen: dict[str, None] = {}
    for r in runs:
        for resp in r.responses:
            seen.setdefault(resp.identifier, None)
        for res in r.results:
            ident = as_str(res.get("identifier"))
            if ident:
                seen.setdefault(ident, None)
    return list(seen)


def _task_text(by_result: Sequence[Mapping[str, Mapping[str, Any]]], ident: str) -> tuple[str, str]:
    """(name, goal) of a task, as the results rows record them (``task_name``,
    ``task_goal``); empty for rows written before they did. ``by_result`` holds each run's
    results by identifier, built once per section (not once per task)."""
    for results in by_result:
        row = results.get(ident)
        if row is not None and (as_str(row.get("task_name")) or as_str(row.get("task_goal"))):
            return as_str(row.get("task_name")), as_str(row.get("task_goal"))
    return "", ""


def _coverage(views: Sequence[RunView]) -> tuple[str, ...]:
    """Warnings when the compared runs did not score the same tasks (their rates are then
    over different denominators and must not be read side by side as equals)."""
    views = [v for v in views if v.run.evaluated]  # a run not yet scored has no task set
    sets = [{as_str(r.get("identifier")) for r in v.run.results} - {""} for v in views]
    if len(views) < 2 or all(s == sets[0] for s in sets):
        return ()
    common = set.intersection(*sets)
    out = [
        f"the runs compared here scored different task sets: {len(common)} tasks are "
        "common to all; rates are over each run's own tasks"
    ]
    for v, s in zip(views, sets, strict=True):
        if s != common:
            only = sorted(s - common)
            out.append(
                f"{v.label}: {len(s)} tasks, {len(only)} not scored by every other run"
                + (f" (e.g. {', '.join(only[:3])})" if only else "")
            )
    return tuple(out)


def _section(
    index: int, runs: Sequence[Run], colors: Mapping[str, int], pool: PromptPool
) -> Section:
    module, dataset = runs[0].info.module, runs[0].info.dataset
    views = tuple(
        RunView(
            label,
            f"c{colors[r.info.model] % len(PALETTE)}",
            PALETTE[colors[r.info.model] % len(PALETTE)],
            r,
            r.path.name or str(r.path),
            len(r.responses),
            len(r.results),
        )
        for label, r in zip(_labels(runs), runs, strict=True)
    )
    title = f"{MODULE_TITLES.get(module, module)} — {DATASET_TITLES.get(dataset, dataset)}"
    if module == REPRODUCE:
        title = f"{MODULE_TITLES[REPRODUCE]} — {section_title(dataset)}"
        figures = tables(title, [(v.label, v.run.summary) for v in views], [v.color for v in views])
        if figures:
            return Section(
                f"s{index}",
                title,
                module,
                dataset,
                views,
                figures[0],
                charts=(),
                tasks=(),
                failing=0,
                more_tables=figures[1:],
                has_responses=False,
                per_task=False,
            )
    summaries = [_shown_summary(v.run) for v in views]
    table = metric_table(
        module,
        title,
        [(v.label, v.color, s) for v, s in zip(views, summaries, strict=True)],
        episodes.columns(module, summaries) if module in BENCHMARKS else (),
    )
    reader = episodes.READERS.get(module)
    by_resp = [v.run.response_by_id() for v in views]
    by_res = [v.run.result_by_id() for v in views]
    rows: list[TaskRow] = []
    for k, ident in enumerate(_identifiers(runs)):
        name, goal = _task_text(by_res, ident)
        cells = []
        prompts: dict[str, list[str]] = {}
        for v, resp_map, res_map in zip(views, by_resp, by_res, strict=True):
            resp = resp_map.get(ident)
            res = res_map.get(ident)
            if resp is None and res is None:
                continue
            cells.append(ModelCell(v.label, v.color, task_outcome(module, res, resp, reader), resp))
            if resp is not None and resp.prompt:
                prompts.setdefault(resp.prompt, []).append(v.label)
        rows.append(
            TaskRow(
                ident,
                f"s{index}t{k}",
                all(c.outcome.status == OK for c in cells),
                tuple(cells),
                tuple(PromptView(pool.segments(p), len(p), tuple(m)) for p, m in prompts.items()),
                name,
                goal,
            )
        )
    rows.sort(key=lambda r: r.all_ok)  # failing tasks first, each part in run order
    return Section(
        anchor=f"s{index}",
        title=title,
        module=module,
        dataset=dataset,
        runs=views,
        table=table,
        charts=_charts(module, views, summaries),
        tasks=tuple(rows),
        failing=sum(not r.all_ok for r in rows),
        coverage=_coverage(views),
        has_responses=any(v.run.responses for v in views) or module not in BENCHMARKS,
    )


def _sha256(text: str) -> str:
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


def _csp(script: str, css: str) -> str:
    """Nothing may load; the one script and the one style sheet run by hash."""
    return (
        f"default-src 'none'; style-src {_sha256(css)}; img-src data:; "
        f"script-src {_sha256(script)}; base-uri 'none'; form-action 'none'"
    )


@functools.cache
def _css() -> str:
    return (resources.files("planproof.report") / "templates" / "report.css").read_text(
        encoding="utf-8"
    )


def _money(x: float | None) -> str:
    return "—" if x is None else f"${x:,.4f}"


def _seconds(x: float | None) -> str:
    return "—" if x is None else f"{x:,.1f} s"


def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("planproof.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["money"] = _money
    env.filters["secs"] = _seconds
    env.filters["num"] = lambda n: f"{n:,}"
    env.filters["t"] = text_content
    return env


def render_runs(runs: Sequence[Run]) -> str:
    """The page for already loaded runs."""
    if not runs:
        raise ReportError("no run directories given")
    colors: dict[str, int] = {}
    for r in runs:
        colors.setdefault(r.info.model, len(colors))
    groups: dict[tuple[int, str, int, str], list[Run]] = {}
    for r in runs:
        groups.setdefault(_group_key(r), []).append(r)
    pool = PromptPool(resp.prompt for r in runs for resp in r.responses if resp.prompt)
    sections = [_section(i, g, colors, pool) for i, (_, g) in enumerate(sorted(groups.items()))]
    cost = [r.info.cost_usd for r in runs]
    totals = {
        "made": sum(r.info.calls.made for r in runs),
        "cached": sum(r.info.calls.cached for r in runs),
        "failed": sum(r.info.calls.failed for r in runs),
        "prompt_tokens": sum(r.info.prompt_tokens for r in runs),
        "completion_tokens": sum(r.info.completion_tokens for r in runs),
        "cost": sum(c for c in cost if c is not None) if any(c is not None for c in cost) else None,
        # scored plans without model calls (evaluate teach/housekeep/partnr) have no price
        "cost_unknown": sum(r.info.cost_usd is None and bool(r.responses) for r in runs),
        "seconds": sum(r.info.seconds.get("total", 0.0) for r in runs),
    }
    template = _environment().get_template("report.html.j2")
    text: str = template.render(
        sections=sections,
        run_views=[v for s in sections for v in s.runs],
        totals=totals,
        pool=pool.used(),
        script=Markup(SCRIPT),
        css=Markup(_css()),
        csp=_csp(SCRIPT, _css()),
        versions=sorted({r.info.planproof_version for r in runs if r.info.planproof_version}),
    )
    return neutralise(text)


def build_report(run_dirs: Sequence[Path]) -> str:
    """The HTML page for the runs in ``run_dirs`` (a directory without ``run.json``
    stands for its run subdirectories). :class:`ReportError` when one is not a run."""
    return render_runs(load_runs(run_dirs))


def write_report(run_dirs: Sequence[Path], out: Path) -> Path:
    """Build the page and write it to ``out`` (parent directories created)."""
    from planproof.boundary import write_text

    return write_text(out, build_report(run_dirs))  # a FIFO without a reader refused
