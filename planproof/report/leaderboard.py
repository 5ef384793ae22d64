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
from dataclasses import dataclass, field, replace
from typing import Any

from markupsafe import Markup, escape

from planproof.data.paper_eai import TRAJECTORY_METRICS
from planproof.report.charts import Series, bar_chart
from planproof.report.escaping import neutralise

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

LONG_TAIL: dict[str, int] = {"goal-interpretation": 1}
"""Section → the index of its first group shown only with ``--all-figures`` (the long
tail: goal interpretation's per-kind F1). Every other group is shown by default, so the
error taxonomy and planner success are never hidden (issue 29)."""


PLANNER_TABLE = "/planner success"
"""Suffix of a section's second corrections table (BEHAVIOR's planner success)."""


def shown_groups(section: str, every: bool = False) -> tuple[tuple[str, ...], ...]:
    """The figure groups of ``section`` printed by default, or all of them (``every``)."""
    groups = GROUPS.get(section, ())
    return groups if every else groups[: LONG_TAIL.get(section, len(groups))]


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
    on the same file), ``reading`` (planproof scoring the file by the reference's rules,
    where the module has that reading) and ``planproof``; ``sampled``: the figures whose
    reference value is on a sample of the file's tasks (marked ``*``, never shown as
    equal to a whole-file figure)."""

    model: str
    label: str
    paper: Mapping[str, float] = field(default_factory=dict)
    reference: Mapping[str, float] = field(default_factory=dict)
    planproof: Mapping[str, float] = field(default_factory=dict)
    user_run: bool = False
    reading: Mapping[str, float] = field(default_factory=dict)
    sampled: frozenset[str] = frozenset()
    failed: str = ""
    """Why planproof could not score the model's file (a corrupt or truncated published
    file): its planproof and reference-reading cells read ``failed``, never blank."""


FAILED = "failed"
"""The text of a cell planproof could not score (its row's ``failed`` says why)."""
SAMPLE_LEGEND = "* the reference code on a sample of the file's tasks, not the whole file"
"""The legend of the ``*`` every sampled reference figure carries (terminal and page)."""


def cell_text(row: Row, source: str, fig: str) -> str:
    """A table cell's text, the same in the terminal and on the page: the figure to one
    decimal, ``*`` after a sampled reference figure, ``failed`` for planproof's columns
    of a file it could not score, ``—`` where there is no figure."""
    value = getattr(row, source).get(fig)
    if value is None:
        return FAILED if row.failed and source in ("planproof", "reading") else "—"
    star = "*" if source == "reference" and fig in row.sampled else ""
    return f"{value:.1f}{star}"


def sampled_text(t: Tau | None) -> str:
    """How many of a tau's reference figures are a sample's: ``13 of 15`` (``0 of 15``)."""
    return "—" if t is None else f"{t.samples} of {t.models}"


@dataclass(frozen=True)
class Tau:
    """Kendall's tau between the paper's ranking of the models and another column's."""

    module: str
    figure: str
    versus: str
    tau: float | None
    models: int
    sampled: bool = False
    """Whether some of the column's figures are a sample's (the reference's stored ones)."""
    samples: int = 0
    """How many of the ``models`` figures are a sample's (the reference column only)."""


@dataclass(frozen=True)
class CorrectionRow:
    """One model's corrections table for one module: per class of
    ``docs/reference-differences.md``, the tasks it moves and the counts it moves
    (``deltas``: planproof's reading minus the reference reading), which sum to the whole
    gap between the two readings (``total``); ``unexplained`` counts what no class
    explains."""

    model: str
    label: str
    figure: str
    reading: float | None
    planproof: float | None
    classes: Mapping[str, Mapping[str, int]]
    total: Mapping[str, int]
    unexplained: int
    deltas: tuple[str, ...]


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def correction_cell(row: Mapping[str, int], deltas: Sequence[str]) -> str:
    """``5 tasks: tp -3, fp +2`` (only the counts a class moves)."""
    moved = ", ".join(f"{d} {_signed(row.get(d, 0))}" for d in deltas if row.get(d, 0))
    n = row.get("tasks", 0)
    return f"{n} task{'s' if n != 1 else ''}" + (f": {moved}" if moved else "")


def corrections_html(rows: Sequence[CorrectionRow]) -> Markup:
    """The corrections table of one module: a row per model, a column per class."""
    classes = list(dict.fromkeys(c for r in rows for c in r.classes))
    head = "".join(f"<th>{escape(c)}</th>" for c in classes)
    body: list[str] = []
    for r in rows:
        cells = "".join(
            f"<td>{escape(correction_cell(r.classes[c], r.deltas)) if c in r.classes else ''}</td>"
            for c in classes
        )
        body.append(
            f"<tr><th>{escape(r.label)}</th><td>{_fmt(r.reading)} \u2192 {_fmt(r.planproof)}</td>"
            f"{cells}<td>{escape(correction_cell(r.total, r.deltas))}</td>"
            f"<td>{r.unexplained}</td></tr>"
        )
    fig = escape(_header(rows[0].figure)) if rows else ""
    return Markup(  # every value above is a number or escaped
        "<p><b>Corrections</b>: what moves the reference reading's figure to planproof's, "
        "per class of docs/reference-differences.md (counts: planproof minus the reference "
        "reading; they sum to the whole gap).</p>"
        f"<table class='lb corr'><thead><tr><th>model</th><th>{fig}: reference reading "
        f"\u2192 planproof</th>{head}<th>total</th><th>unexplained</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def corrections_plain(rows: Sequence[CorrectionRow]) -> list[dict[str, Any]]:
    """Corrections rows as JSON-ready dictionaries."""
    return [
        {
            "model": r.model,
            "label": r.label,
            "figure": r.figure,
            "reference_reading": r.reading,
            "planproof": r.planproof,
            "classes": {k: dict(v) for k, v in r.classes.items()},
            "total": dict(r.total),
            "unexplained": r.unexplained,
        }
        for r in rows
    ]


def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Kendall's tau-b of two paired sequences (scipy), None with fewer than 3 pairs or a
    constant column."""
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    from scipy.stats import kendalltau

    value = float(kendalltau(xs, ys).statistic)
    return None if math.isnan(value) else round(value, 3)


def taus(module: str, rows: Sequence[Row]) -> list[Tau]:
    """Per figure of the module: tau of planproof's, the reference reading's (where the
    module has one) and the reference's column against the paper's, over the published
    models holding both figures."""
    out: list[Tau] = []
    versuses = ("planproof", *(("reading",) if any(r.reading for r in rows) else ()), "reference")
    for group in GROUPS[module]:
        for fig in group:
            for versus in versuses:
                used = [
                    r
                    for r in rows
                    if not r.user_run and fig in r.paper and fig in getattr(r, versus)
                ]
                pairs = [(r.paper[fig], getattr(r, versus)[fig]) for r in used]
                tau = kendall_tau([p for p, _ in pairs], [q for _, q in pairs])
                k = sum(fig in r.sampled for r in used) if versus == "reference" else 0
                out.append(Tau(module, fig, versus, tau, len(pairs), k > 0, k))
    return out


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _header(fig: str) -> str:
    return fig.replace("_planner_success", " planner SR").replace("_", " ")


def _same(ref: float | None, value: float | None, sampled: bool) -> str:
    """The class of a cell equal to the reference's whole-file figure (never a sampled one:
    a sample's figure is not the file's)."""
    same = not sampled and ref is not None and value is not None and abs(ref - value) < 0.05
    return ' class="same"' if same else ""


def _table(rows: Sequence[Row], group: Sequence[str]) -> Markup:
    reading = any(r.reading for r in rows)
    sources = ("paper", "reference", *(("reading",) if reading else ()), "planproof")
    names = {"paper": "paper", "reference": "ref.", "reading": "ref. reading"}
    head = "".join(f'<th colspan="{len(sources)}">{escape(_header(f))}</th>' for f in group)
    sub = "".join("".join(f"<th>{names.get(c, c)}</th>" for c in sources) for _ in group)
    body: list[str] = []
    for r in rows:
        cells: list[str] = []
        for f in group:
            ref = r.reference.get(f)
            star = f in r.sampled and ref is not None
            for source in sources:
                text = cell_text(r, source, f)
                if source == "reference" and star:
                    attr = ' class="sample" title="the reference code on a sample of the file"'
                elif text == FAILED:
                    attr = f' class="failed" title="{escape(r.failed)}"'
                elif source in ("reading", "planproof"):
                    attr = _same(ref, getattr(r, source).get(f), star)
                else:
                    attr = ""
                cells.append(f"<td{attr}>{escape(text)}</td>")
        who = escape(r.label) + (Markup(" <em>(your run)</em>") if r.user_run else "")
        body.append(f"<tr><th>{who}</th>{''.join(cells)}</tr>")
    legend = ""
    if any(f in r.sampled for r in rows for f in group):
        legend = f"<caption>{escape(SAMPLE_LEGEND)}</caption>"
    return Markup(  # every value above is a number or escaped
        f'<table class="lb">{legend}<thead><tr><th rowspan="2">model</th>{head}</tr>'
        f"<tr>{sub}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _chart(module: str, rows: Sequence[Row], fig: str) -> Markup:
    ranked = sorted(rows, key=lambda r: -(r.planproof.get(fig) or -1.0))
    labels = [r.label for r in ranked]
    series = [
        Series("paper", "#9aa5b1", tuple(r.paper.get(fig) for r in ranked)),
        Series(
            "reference code",
            "#e3a008",
            tuple(r.reference.get(fig) for r in ranked),
            tuple("*" if fig in r.sampled else "" for r in ranked),
        ),
        *(
            [
                Series(
                    "planproof, reference reading",
                    "#7e3af2",
                    tuple(r.reading.get(fig) for r in ranked),
                )
            ]
            if any(r.reading for r in rows)
            else []
        ),
        Series("planproof", "#1c64f2", tuple(r.planproof.get(fig) for r in ranked)),
    ]
    chart = bar_chart(f"{TITLES[module]}: {_header(fig)}", labels, series, max_value=100.0)
    legend = "".join(
        f'<span style="color:{escape(s.color)}">&#9632;</span> {escape(s.name)} ' for s in series
    )
    if any(fig in r.sampled for r in rows):
        legend += f"(pale bars, {escape(SAMPLE_LEGEND)})"
    return Markup(f"<p><b>{escape(_header(fig))}</b>, ranked by planproof: {legend}</p>") + chart


def _taxonomy(module: str, rows: Sequence[Row], reading: bool = False) -> Markup:
    """The error taxonomy per model, in planproof's reading or (``reading``) the reference
    reading's."""
    source, name = ("reading", "reference reading") if reading else ("planproof", "planproof")
    series = [
        Series(
            r.label,
            "#c81e1e" if not r.user_run else "#0e9f6e",
            tuple(getattr(r, source).get(e) for e in ERRORS),
        )
        for r in rows
        if not reading or r.reading
    ]
    return bar_chart(
        f"{TITLES[module]}: error taxonomy ({name}, % of tasks)",
        [e.replace("_", " ") for e in ERRORS],
        series,
    )


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:1200px}
table.lb{border-collapse:collapse;font-size:.85rem;margin:.5rem 0 1.2rem}
table.lb th,table.lb td{border:1px solid #ddd;padding:.15rem .4rem;text-align:right}
table.lb tbody th{text-align:left;white-space:nowrap}
td.same{background:#def7ec}td.sample{font-style:italic}
td.failed{background:#fde8e8;color:#9b1c1c}
table.lb caption{caption-side:bottom;text-align:left;font-size:.8rem;color:#555}
svg.chart text{font-size:10px}svg.chart .grid{stroke:#eee}svg.chart .cat{text-anchor:end}
svg.chart .tick{text-anchor:middle;fill:#666}svg.chart .na{fill:#999}
.taus td,.taus th{padding:.1rem .5rem}
"""


def render_html(
    modules: Mapping[str, Sequence[Row]],
    notes: Sequence[str] = (),
    tau_rows: Sequence[Tau] = (),
    *,
    corrections: Mapping[str, Sequence[CorrectionRow]] | None = None,
    compared: Sequence[Any] = (),
    task_dirs: Any = None,
) -> str:
    """The whole page: per module, its tables (paper | reference | planproof), a
    leaderboard chart of the headline figure and, for trajectory modules, the error
    taxonomy per model; then the rank agreement."""
    corrections = corrections or {}
    parts: list[str] = [
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<title>planproof: EAI paper reproduction (VirtualHome)</title>"
        f"<style>{_CSS}</style></head><body>",
        "<h1>EAI paper, VirtualHome: paper vs reference code vs planproof</h1>",
        "<p>Each figure in three or four columns: the paper's value, the reference code "
        "(virtualhome-eval 0.1.1) on the same published file, planproof scoring that file "
        "by the reference's rules (\u201cref. reading\u201d, where the module has it) and "
        "planproof's own reading. Green: equal to the reference code's figure on the whole "
        "file; a reference figure marked * (in italics, paler in the charts) is on a sample of "
        "the file's tasks and is never shaded; \u201cfailed\u201d: planproof could not score "
        "that published file (the notes say why). Differences are explained in "
        "docs/reference-differences.md and docs/published-answers.md; the corrections "
        "tables count them.</p>",
    ]
    if notes:
        parts.append(
            "<h2>Notes</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"
        )
    if task_dirs is not None:
        parts.append(
            "<p>Task by task, per published model (both readings, the answer, the replayed "
            f"trace): <code>planproof report {escape(str(task_dirs))}</code>, or one "
            "model's directory under it.</p>"
        )
    if compared:
        from planproof.report.task_compare import comparisons_html

        parts.append(str(comparisons_html(compared)))
    for module, rows in modules.items():
        if not rows:
            continue
        parts.append(f"<h2>{escape(TITLES[module])}</h2>")
        for group in GROUPS[module]:
            parts.append(str(_table(rows, group)))
        for key in (module, f"{module}{PLANNER_TABLE}"):  # BEHAVIOR has a second table
            if corrections.get(key):
                parts.append(str(corrections_html(corrections[key])))
        parts.append(str(_chart(module, rows, GROUPS[module][0][0])))
        if module in ("action-sequencing", "subgoal-decomposition"):
            kinds = ", ".join(e.replace("_", " ") for e in ERRORS)
            order = ", ".join(str(escape(r.label)) for r in rows)
            parts.append(
                f"<p><b>Error taxonomy</b> ({kinds}), per model; in each group the bars are, "
                f"top to bottom: {order}</p>"
            )
            parts.append(str(_taxonomy(module, rows)))
            if any(r.reading for r in rows):
                parts.append(str(_taxonomy(module, rows, reading=True)))
    if tau_rows:
        parts.append("<h2>Ranking agreement with the paper (Kendall's tau)</h2>")
        parts.append(
            "<table class='lb taus'><tr><th>module</th><th>figure</th>"
            "<th>planproof vs paper</th><th>reference reading vs paper</th>"
            "<th>reference vs paper</th><th>reference figures on a sample</th>"
            "<th>models</th></tr>"
        )
        by_key: dict[tuple[str, str], dict[str, Tau]] = {}
        for t in tau_rows:
            by_key.setdefault((t.module, t.figure), {})[t.versus] = t
        for (module, fig), d in by_key.items():
            pp, rd, ref = d.get("planproof"), d.get("reading"), d.get("reference")
            mixed = ref is not None and ref.sampled
            parts.append(
                f"<tr><td>{escape(module)}</td><td>{escape(_header(fig))}</td>"
                f"<td>{_tau(pp)}</td><td>{_tau(rd)}</td><td>{_tau(ref)}{'*' if mixed else ''}"
                f"</td><td>{sampled_text(ref)}</td><td>{pp.models if pp else 0}</td></tr>"
            )
        parts.append("</table>")
        if any(t.samples for t in tau_rows):
            parts.append(
                "<p>* the reference column's tau mixes figures on a sample of the file's tasks "
                "with whole-file figures (how many: the column beside it).</p>"
            )
    parts.append("</body></html>")
    return neutralise("".join(parts))


def _tau(t: Tau | None) -> str:
    return "—" if t is None or t.tau is None else f"{t.tau:.2f}"


def rows_for(
    section: str,
    models: Sequence[tuple[str, str]],
    planproof: Mapping[str, Mapping[str, float]],
    paper: Callable[[str, str, str], float | None],
    reference: Callable[[str, str, str], float | None],
    *,
    reading: Mapping[str, Mapping[str, float]] | None = None,
    sampled: Callable[[str, str, str], bool] | None = None,
    failed: Mapping[str, str] | None = None,
) -> list[Row]:
    """Rows for the published ``models`` ((file stem, paper name) pairs) of a section of
    :data:`GROUPS`: the paper's and the reference's figures looked up per figure,
    ``reading`` the reference reading's figures per model, ``sampled(module, model,
    figure)`` whether the stored reference figure is a sample's, ``failed`` why planproof
    could not score a model's file (file stem → message)."""
    module = BASE.get(section, section)
    figs = [f for group in GROUPS[section] for f in group]
    out: list[Row] = []
    for stem, name in models:
        p = {f: v for f in figs if (v := paper(name, module, f)) is not None}
        r = {f: v for f in figs if (v := reference(module, stem, f)) is not None}
        star = frozenset(f for f in r if sampled is not None and sampled(module, stem, f))
        rd = dict((reading or {}).get(stem, {}))
        bad = "" if stem in planproof else (failed or {}).get(stem, "")
        row = Row(stem, name, p, r, dict(planproof.get(stem, {})), reading=rd, sampled=star)
        out.append(replace(row, failed=bad) if bad else row)
    return out


def user_row(
    module: str,
    label: str,
    figures: Mapping[str, float],
    reading: Mapping[str, float] | None = None,
) -> Row:
    """A user's own run directory, beside the published models: planproof's figures and,
    when the run was scored in both readings, the reference reading's."""
    return Row(
        model=label,
        label=label,
        planproof=dict(figures),
        user_run=True,
        reading=dict(reading or {}),
    )


def as_plain(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Rows as JSON-ready dictionaries."""
    return [
        {
            "model": r.model,
            "label": r.label,
            "paper": dict(r.paper),
            "reference": dict(r.reference),
            "planproof": dict(r.planproof),
            "reference_reading": dict(r.reading),
            "reference_sampled": sorted(r.sampled),
            "user_run": r.user_run,
            **({"failed": r.failed} if r.failed else {}),
        }
        for r in rows
    ]
