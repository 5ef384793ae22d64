"""The multi-model reproduction of the EAI paper's VirtualHome tables: for every model and
figure, the paper's value, the reference code's on the same file and planproof's; the
15-model ranking agreement (Kendall's tau) per figure; and a self-contained HTML page
with a leaderboard chart per module and the error taxonomy per model.

Built only from plain data: the sweep's cell results (:mod:`planproof.runs.published_sweep`),
the paper's figures (:mod:`planproof.data.paper_eai`) and the reference's stored figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from planproof.data.paper_eai import TRAJECTORY_METRICS
from planproof.report.charts import Series, bar_chart

JSON_LOADS = "action-sequencing/json.loads"
"""The section of action sequencing read with the reference's json.loads reading."""
TM_COUNTING = "transition-modeling/reference counting"
"""The section of transition modeling's logic-form figures counted as the reference
counts (:mod:`planproof.pddl.reference_logic_form`)."""
TM_BEHAVIOR = "transition-modeling-behavior"
"""The section of BEHAVIOR transition modeling (the paper's BEHAVIOR columns of Tables 14
and 15); also the module name of its stored reference figures."""
TM_BEHAVIOR_COUNTING = "transition-modeling-behavior/reference counting"
"""BEHAVIOR transition modeling's logic form counted as the reference counts."""
BASE = {
    JSON_LOADS: "action-sequencing",
    TM_COUNTING: "transition-modeling",
    TM_BEHAVIOR_COUNTING: TM_BEHAVIOR,
}
"""A section → the module its paper and reference figures come from."""
DATASET_OF = {TM_BEHAVIOR: "behavior", TM_BEHAVIOR_COUNTING: "behavior"}
"""A section → the dataset of its paper figures (VirtualHome when absent)."""

GROUPS: dict[str, tuple[tuple[str, ...], ...]] = {
    "goal-interpretation": (
        ("overall_precision", "overall_recall", "overall_f1"),
        ("state_f1", "relation_f1", "action_f1"),
    ),
    "action-sequencing": (
        ("task_success", "execution_success"),
        ("parsing", "hallucination", "argument_count"),
        ("wrong_order", "missing_step", "affordance"),
        ("additional_step", "goal_total"),
    ),
    "subgoal-decomposition": (
        ("task_success", "execution_success"),
        ("parsing", "hallucination", "argument_count"),
        ("wrong_order", "missing_step", "affordance"),
        ("additional_step", "goal_total"),
    ),
    "transition-modeling": (
        ("object_states_f1", "object_orientation_f1", "object_affordance_f1"),
        ("spatial_relations_f1", "non_spatial_relations_f1"),
        (
            "object_states_planner_success",
            "object_orientation_planner_success",
            "object_affordance_planner_success",
        ),
        ("spatial_relations_planner_success", "non_spatial_relations_planner_success"),
    ),
}
GROUPS[JSON_LOADS] = GROUPS["action-sequencing"][:1]
GROUPS[TM_COUNTING] = GROUPS["transition-modeling"][:2]
GROUPS[TM_BEHAVIOR] = (
    ("object_states_f1", "spatial_relations_f1", "non_spatial_relations_f1"),
    (
        "object_states_planner_success",
        "spatial_relations_planner_success",
        "non_spatial_relations_planner_success",
    ),
)
GROUPS[TM_BEHAVIOR_COUNTING] = GROUPS[TM_BEHAVIOR][:1]
"""The figures shown, in groups of at most three (each shown as paper | reference |
planproof); the first group of each module is its headline."""

ERRORS: tuple[str, ...] = TRAJECTORY_METRICS[2:8]
"""The error taxonomy of Tables 10 and 12 (additional steps are not a failure)."""

TITLES: dict[str, str] = {
    "goal-interpretation": "Goal interpretation (Table 9)",
    "action-sequencing": "Action sequencing (Tables 11, 12)",
    "subgoal-decomposition": "Subgoal decomposition (Tables 10, 11)",
    "transition-modeling": "Transition modeling (Tables 13, 15)",
    JSON_LOADS: "Action sequencing, repeated keys read as json.loads (the reference's reading)",
    TM_COUNTING: "Transition modeling, logic form counted as the reference counts "
    "(predicate names per operator part; docs/reference-differences.md)",
    TM_BEHAVIOR: "Transition modeling, BEHAVIOR (Tables 14, 15)",
    TM_BEHAVIOR_COUNTING: "Transition modeling, BEHAVIOR, logic form counted as the "
    "reference counts",
}


@dataclass(frozen=True)
class Row:
    """One model's figures for one module: ``paper``, ``reference`` (the reference code
    on the same file) and ``planproof``."""

    model: str
    label: str
    paper: Mapping[str, float] = field(default_factory=dict)
    reference: Mapping[str, float] = field(default_factory=dict)
    planproof: Mapping[str, float] = field(default_factory=dict)
    user_run: bool = False


@dataclass(frozen=True)
class Tau:
    """Kendall's tau between the paper's ranking of the models and another column's."""

    module: str
    figure: str
    versus: str
    tau: float | None
    models: int


def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Kendall's tau-b of two paired sequences (scipy), None with fewer than 3 pairs or a
    constant column."""
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    from scipy.stats import kendalltau

    value = float(kendalltau(xs, ys).statistic)
    return None if math.isnan(value) else round(value, 3)


def taus(module: str, rows: Sequence[Row]) -> list[Tau]:
    """Per figure of the module: tau of planproof's and of the reference's column against
    the paper's, over the published models holding both figures."""
    out: list[Tau] = []
    for group in GROUPS[module]:
        for fig in group:
            for versus in ("planproof", "reference"):
                pairs = [
                    (r.paper[fig], getattr(r, versus)[fig])
                    for r in rows
                    if not r.user_run and fig in r.paper and fig in getattr(r, versus)
                ]
                tau = kendall_tau([p for p, _ in pairs], [q for _, q in pairs])
                out.append(Tau(module, fig, versus, tau, len(pairs)))
    return out


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _header(fig: str) -> str:
    return fig.replace("_planner_success", " planner SR").replace("_", " ")


def _table(rows: Sequence[Row], group: Sequence[str]) -> Markup:
    head = "".join(f'<th colspan="3">{escape(_header(f))}</th>' for f in group)
    sub = "".join("<th>paper</th><th>ref.</th><th>planproof</th>" for _ in group)
    body: list[str] = []
    for r in rows:
        cells: list[str] = []
        for f in group:
            p, ref, pp = r.paper.get(f), r.reference.get(f), r.planproof.get(f)
            same = ref is not None and pp is not None and abs(ref - pp) < 0.05
            cls = ' class="same"' if same else ""
            cells.append(f"<td>{_fmt(p)}</td><td>{_fmt(ref)}</td><td{cls}>{_fmt(pp)}</td>")
        who = escape(r.label) + (Markup(" <em>(your run)</em>") if r.user_run else "")
        body.append(f"<tr><th>{who}</th>{''.join(cells)}</tr>")
    return Markup(  # every value above is a number or escaped
        f'<table class="lb"><thead><tr><th rowspan="2">model</th>{head}</tr>'
        f"<tr>{sub}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _chart(module: str, rows: Sequence[Row], fig: str) -> Markup:
    ranked = sorted(rows, key=lambda r: -(r.planproof.get(fig) or -1.0))
    labels = [r.label for r in ranked]
    series = [
        Series("paper", "#9aa5b1", tuple(r.paper.get(fig) for r in ranked)),
        Series("reference code", "#e3a008", tuple(r.reference.get(fig) for r in ranked)),
        Series("planproof", "#1c64f2", tuple(r.planproof.get(fig) for r in ranked)),
    ]
    chart = bar_chart(f"{TITLES[module]}: {_header(fig)}", labels, series, max_value=100.0)
    legend = "".join(
        f'<span style="color:{escape(s.color)}">&#9632;</span> {escape(s.name)} ' for s in series
    )
    return Markup(f"<p><b>{escape(_header(fig))}</b>, ranked by planproof: {legend}</p>") + chart


def _taxonomy(module: str, rows: Sequence[Row]) -> Markup:
    series = [
        Series(
            r.label,
            "#c81e1e" if not r.user_run else "#0e9f6e",
            tuple(r.planproof.get(e) for e in ERRORS),
        )
        for r in rows
    ]
    return bar_chart(
        f"{TITLES[module]}: error taxonomy (planproof, % of tasks)",
        [e.replace("_", " ") for e in ERRORS],
        series,
    )


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:1200px}
table.lb{border-collapse:collapse;font-size:.85rem;margin:.5rem 0 1.2rem}
table.lb th,table.lb td{border:1px solid #ddd;padding:.15rem .4rem;text-align:right}
table.lb tbody th{text-align:left;white-space:nowrap}
td.same{background:#def7ec}
svg.chart text{font-size:10px}svg.chart .grid{stroke:#eee}svg.chart .cat{text-anchor:end}
svg.chart .tick{text-anchor:middle;fill:#666}svg.chart .na{fill:#999}
.taus td,.taus th{padding:.1rem .5rem}
"""


def render_html(
    modules: Mapping[str, Sequence[Row]],
    notes: Sequence[str] = (),
    tau_rows: Sequence[Tau] = (),
) -> str:
    """The whole page: per module, its tables (paper | reference | planproof), a
    leaderboard chart of the headline figure and, for trajectory modules, the error
    taxonomy per model; then the rank agreement."""
    parts: list[str] = [
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<title>planproof: EAI paper reproduction (VirtualHome)</title>"
        f"<style>{_CSS}</style></head><body>",
        "<h1>EAI paper, VirtualHome: paper vs reference code vs planproof</h1>",
        "<p>Each figure in three columns: the paper's value, the reference code "
        "(virtualhome-eval 0.1.1) on the same published file, planproof on that file. "
        "Green: planproof equals the reference. Differences are explained in "
        "docs/reference-differences.md and docs/published-answers.md.</p>",
    ]
    if notes:
        parts.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>")
    for module, rows in modules.items():
        if not rows:
            continue
        parts.append(f"<h2>{escape(TITLES[module])}</h2>")
        for group in GROUPS[module]:
            parts.append(str(_table(rows, group)))
        parts.append(str(_chart(module, rows, GROUPS[module][0][0])))
        if module in ("action-sequencing", "subgoal-decomposition"):
            parts.append(str(_taxonomy(module, rows)))
    if tau_rows:
        parts.append("<h2>Ranking agreement with the paper (Kendall's tau)</h2>")
        parts.append(
            "<table class='lb taus'><tr><th>module</th><th>figure</th>"
            "<th>planproof vs paper</th><th>reference vs paper</th><th>models</th></tr>"
        )
        by_key: dict[tuple[str, str], dict[str, Tau]] = {}
        for t in tau_rows:
            by_key.setdefault((t.module, t.figure), {})[t.versus] = t
        for (module, fig), d in by_key.items():
            pp, ref = d.get("planproof"), d.get("reference")
            parts.append(
                f"<tr><td>{escape(module)}</td><td>{escape(_header(fig))}</td>"
                f"<td>{_tau(pp)}</td><td>{_tau(ref)}</td>"
                f"<td>{pp.models if pp else 0}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    return "".join(parts)


def _tau(t: Tau | None) -> str:
    return "—" if t is None or t.tau is None else f"{t.tau:.2f}"


def rows_for(
    section: str,
    models: Sequence[tuple[str, str]],
    planproof: Mapping[str, Mapping[str, float]],
    paper: Callable[[str, str, str], float | None],
    reference: Callable[[str, str, str], float | None],
) -> list[Row]:
    """Rows for the published ``models`` ((file stem, paper name) pairs) of a section of
    :data:`GROUPS`: the paper's and the reference's figures looked up per figure."""
    module = BASE.get(section, section)
    figs = [f for group in GROUPS[section] for f in group]
    out: list[Row] = []
    for stem, name in models:
        p = {f: v for f in figs if (v := paper(name, module, f)) is not None}
        r = {f: v for f in figs if (v := reference(module, stem, f)) is not None}
        out.append(Row(stem, name, p, r, dict(planproof.get(stem, {}))))
    return out


def user_row(module: str, label: str, figures: Mapping[str, float]) -> Row:
    """A user's own run directory, beside the published models (planproof column only)."""
    return Row(model=label, label=label, planproof=dict(figures), user_run=True)


def as_plain(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Rows as JSON-ready dictionaries."""
    return [
        {
            "model": r.model,
            "label": r.label,
            "paper": dict(r.paper),
            "reference": dict(r.reference),
            "planproof": dict(r.planproof),
            "user_run": r.user_run,
        }
        for r in rows
    ]
