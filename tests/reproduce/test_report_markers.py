"""Issue 29's complaints about the ``reproduce eai`` report, one test each, in the terminal,
the JSON and the HTML page alike: a sampled reference figure carries its ``*`` (and the
legend says what it means) and is never shaded as "equals the reference"; the tau table
says per figure how many reference figures are a sample's; the error taxonomy and planner
success are shown by default, both readings beside each other; a file planproof could not
score reads ``failed``, never a silent gap."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape

from planproof.commands.reproduce import _print
from planproof.report.leaderboard import (
    FAILED,
    GROUPS,
    SAMPLE_LEGEND,
    TM_BEHAVIOR,
    Row,
    as_plain,
    render_html,
    shown_groups,
    taus,
)

AS = "action-sequencing"
AS_FIGS = [f for group in GROUPS[AS] for f in group]
TM_FIGS = [f for group in GROUPS["transition-modeling"] for f in group]
_value = st.floats(0, 100, allow_nan=False).map(lambda v: round(v, 1))


@st.composite
def _rows(draw: st.DrawFn, figs: list[str]) -> list[Row]:
    """3-6 published models whose planproof / reading figures often equal the reference's
    (the case a page would shade), each reference figure sampled or not."""
    rows = []
    for i in range(draw(st.integers(3, 6))):
        ref = {f: draw(_value) for f in figs if draw(st.booleans())}
        same = {f: v for f, v in ref.items() if draw(st.booleans())}
        pp = {f: same.get(f, draw(_value)) for f in figs}
        reading = {f: same.get(f, draw(_value)) for f in figs}
        sampled = frozenset(f for f in ref if draw(st.booleans()))
        paper = {f: draw(_value) for f in figs}
        rows.append(Row(f"m{i}", f"Model {i}", paper, ref, pp, reading=reading, sampled=sampled))
    return rows


def _cells(page: str) -> list[tuple[str, str]]:
    """(attributes, text) of every <td> of the page's figure tables."""
    return re.findall(r"<td([^>]*)>([^<]*)</td>", page)


@settings(max_examples=40)
@given(_rows(AS_FIGS))
def test_page_stars_every_sampled_reference_figure_and_never_shades_it(rows: list[Row]) -> None:
    page = render_html({AS: rows})
    starred = [text for _, text in _cells(page) if text.endswith("*")]
    wanted = sum(1 for r in rows for f in AS_FIGS if f in r.sampled)
    assert len(starred) == wanted  # one * per sampled reference figure, on no other cell
    # shaded "equal" cells: exactly the reading / planproof cells equal to a whole-file figure
    same = sum(
        1
        for r in rows
        for f in AS_FIGS
        if f in r.reference and f not in r.sampled
        for v in (r.reading[f], r.planproof[f])
        if abs(v - r.reference[f]) < 0.05
    )
    assert page.count('class="same"') == same
    legends = page.count(f"<caption>{escape(SAMPLE_LEGEND)}</caption>")
    groups = [g for g in GROUPS[AS] if any(f in r.sampled for r in rows for f in g)]
    assert legends == len(groups)  # under every table with a sampled figure, no other
    chart = any("task_success" in r.sampled for r in rows)  # the chart's figure
    assert ("pale bars" in page) == chart


@settings(max_examples=40)
@given(_rows(AS_FIGS))
def test_tau_counts_the_sampled_reference_figures(rows: list[Row]) -> None:
    for t in taus(AS, rows):
        used = [r for r in rows if t.figure in r.paper and t.figure in getattr(r, t.versus)]
        k = sum(t.figure in r.sampled for r in used) if t.versus == "reference" else 0
        assert (t.samples, t.models, t.sampled) == (k, len(used), k > 0)
    page = render_html({AS: rows}, tau_rows=taus(AS, rows))
    for t in taus(AS, rows):
        if t.versus == "reference":
            assert f"<td>{t.samples} of {t.models}</td>" in page


def _terminal(
    capsys: pytest.CaptureFixture[str], sections: dict[str, list[Row]], every: bool
) -> str:
    rows = [r for rs in sections.values() for r in rs]
    module = next(iter(sections))
    _print(sections, taus(module, rows), every)
    return capsys.readouterr().out


def _row(label: str, figs: list[str], sampled: bool = True, failed: str = "") -> Row:
    values = {f: 10.0 + i for i, f in enumerate(figs)}
    return Row(
        label.lower(),
        label,
        paper=values,
        reference=values,
        planproof={} if failed else values,
        reading={} if failed else {f: v + 1 for f, v in values.items()},
        sampled=frozenset(figs) if sampled else frozenset(),
        failed=failed,
    )


def test_terminal_shows_taxonomy_with_both_readings_and_samples_by_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [_row("Alpha", AS_FIGS), _row("Beta", AS_FIGS, sampled=False), _row("Gamma", AS_FIGS)]
    out = _terminal(capsys, {AS: rows}, every=False)
    for name in ("parsing", "hallucination", "argument count", "affordance", "missing step"):
        assert name in out
    assert "additional step" in out and "wrong order" in out
    assert "ref. reading" in out and SAMPLE_LEGEND in out
    assert re.search(r"10\.0\*", out)  # Alpha's sampled task success
    assert "ref. sampled" in out and "2 of 3" in out  # the tau table counts the samples


def test_terminal_shows_planner_success_by_default_and_the_long_tail_on_demand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [_row(m, TM_FIGS, sampled=False) for m in ("A", "B", "C")]
    out = _terminal(capsys, {"transition-modeling": rows}, every=False)
    assert "planner SR" in out and "object states f1" in out
    gi = [f for group in GROUPS["goal-interpretation"] for f in group]
    rows = [_row(m, gi, sampled=False) for m in ("A", "B", "C")]
    short = _terminal(capsys, {"goal-interpretation": rows}, every=False)
    full = _terminal(capsys, {"goal-interpretation": rows}, every=True)
    assert "overall f1" in short and "state f1" not in short
    assert "state f1" in full
    assert len(shown_groups(TM_BEHAVIOR)) == len(GROUPS[TM_BEHAVIOR])  # planner success too


def test_a_failed_cell_reads_failed_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    why = "action-sequencing m: /x/m.json: not valid JSON <truncated>"
    rows = [_row("Good", AS_FIGS), _row("Broken", AS_FIGS, sampled=False, failed=why)]
    rows.append(_row("Other", AS_FIGS))
    out = _terminal(capsys, {AS: rows}, every=False)
    broken = next(line for line in out.splitlines() if "Broken" in line)
    assert broken.count(FAILED) == 2 * 2  # ref. reading and planproof, per shown figure
    page = render_html({AS: rows})
    assert page.count('class="failed"') == 2 * len(AS_FIGS)
    assert "&lt;truncated&gt;" in page and "<truncated>" not in page  # the why, escaped
    plain = as_plain(rows)
    assert plain[1]["failed"] == why and "failed" not in plain[0]
