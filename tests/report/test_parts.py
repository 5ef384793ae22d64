"""The page's building blocks on their own: SVG bar charts, prompt deduplication, the
metric tables' best-value marking, and the per-task readers on odd records."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.report.charts import BAR_H, LABEL_W, VALUE_W, WIDTH, Series, bar_chart, nice_max
from planproof.report.outcome import FAIL, OK, task_outcome
from planproof.report.prompts import SEPARATOR, PromptPool
from planproof.report.tables import metric_table

PLOT_W = WIDTH - LABEL_W - VALUE_W
# XML 1.0 characters (the SVG is parsed as XML here); no surrogates or C0 controls
TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(
    cats=st.lists(TEXT, min_size=1, max_size=5),
    names=st.lists(TEXT, min_size=1, max_size=3),
    data=st.data(),
)
def test_bars_are_proportional_and_labels_are_text(
    cats: list[str], names: list[str], data: st.DataObject
) -> None:
    values = [tuple(data.draw(st.none() | st.floats(0, 100)) for _ in cats) for _ in names]
    series = [Series(n, "#123456", v) for n, v in zip(names, values, strict=True)]
    svg = bar_chart("t<i>", cats, series, max_value=100.0)
    root = ET.fromstring(svg)  # well-formed: every label was escaped
    rects = root.findall("rect")
    measured = [v for vs in values for v in vs if v is not None]
    assert len(rects) == len(measured)
    # bars are drawn category by category, model by model
    order = [values[s][c] for c in range(len(cats)) for s in range(len(names))]
    widths = [float(r.get("width", "nan")) for r in rects]
    for w, v in zip(widths, [v for v in order if v is not None], strict=True):
        assert w == pytest.approx(PLOT_W * v / 100, abs=0.01)
        assert float(rects[0].get("height", "0")) == BAR_H
    texts = [t.text or "" for t in root.iter("text")]
    for c in cats:
        assert c in texts
    titles = [t.text or "" for r in rects for t in r.iter("title")]
    assert all(any(f"{n} — " in t for n in names) for t in titles)
    title = root.find("title")
    assert title is not None and title.text == "t<i>"


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0, max_value=1e9, allow_nan=False))
def test_nice_max_covers_the_value_within_a_factor_of_two(v: float) -> None:
    top = nice_max(v)
    assert top >= v and top >= 1
    assert v <= 1 or top <= 2 * v


def test_values_above_the_axis_are_clipped_to_it() -> None:
    svg = bar_chart("x", ["a"], [Series("m", "#000", (250.0,))], max_value=100.0)
    rect = ET.fromstring(svg).find("rect")
    assert rect is not None and float(rect.get("width", "0")) == pytest.approx(PLOT_W)
    auto = bar_chart("x", ["a"], [Series("m", "#000", (30.0,))])
    assert ">50%<" in auto  # the automatic axis ends at the next nice number


PARAGRAPHS = st.lists(
    st.text(st.characters(codec="utf-8"), min_size=0, max_size=120).filter(
        lambda s: SEPARATOR not in s
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(PARAGRAPHS, min_size=1, max_size=6), st.integers(0, 100))
def test_prompt_segments_join_back_to_the_prompt(prompts: list[list[str]], min_length: int) -> None:
    texts = [SEPARATOR.join(p) for p in prompts]
    pool = PromptPool(texts, min_length=min_length)
    for t in texts:
        segs = pool.segments(t)
        assert "".join(s.text for s in segs) == t
        for s in segs:
            if s.ref is not None:
                assert len(s.text) >= min_length
                # a paragraph, or a run of paragraphs, found in two distinct prompts
                assert sum(s.text in t2 for t2 in set(texts)) >= 2
    used = pool.used()
    assert len({r for r, _ in used}) == len(used) == len({t for _, t in used})


def test_prompt_reference_label_is_short() -> None:
    para = "Objects:\n" + "\n".join(f"- thing.{i}" for i in range(50))
    pool = PromptPool([f"a{SEPARATOR}{para}", f"b{SEPARATOR}{para}"])
    ref = [s for s in pool.segments(f"a{SEPARATOR}{para}") if s.ref]
    assert len(ref) == 1 and ref[0].label == "[Objects: · 51 lines]"


def test_a_recurring_run_of_paragraphs_is_one_reference() -> None:
    a, b, c = ("A" * 90, "B" * 90, "C" * 90)
    prompts = [
        SEPARATOR.join(["x", a, b, "y", c]),
        SEPARATOR.join(["w", a, b, "v", c]),
        SEPARATOR.join(["z", a, b, c]),
    ]
    pool = PromptPool(prompts)
    first = pool.segments(prompts[0])
    assert [(s.text, s.ref is not None) for s in first] == [
        ("x" + SEPARATOR, False),
        (a + SEPARATOR + b, True),  # recurs as a whole in the first two prompts
        (SEPARATOR + "y" + SEPARATOR, False),
        (c, True),
    ]
    second = pool.segments(prompts[2])
    # here a, b, c are one maximal run, which does not recur: one reference per paragraph
    assert [s.text for s in second if s.ref] == [a, b, c]
    assert "".join(s.text for s in second) == prompts[2]


def _as_summary(task_sr: float, parsing: float, action_total: int) -> dict[str, object]:
    return {
        "goal_evaluation": {"task_success_rate": task_sr, "action_goal": 0.0},
        "trajectory_evaluation": {"grammar_error": {"parsing": parsing}},
        "counts": {"goals": {"action": {"met": 0, "total": action_total}}},
    }


def test_best_value_per_column_respects_direction_and_ties() -> None:
    t = metric_table(
        "action-sequencing",
        "x",
        [
            ("a", "#000", _as_summary(50.0, 10.0, 0)),
            ("b", "#111", _as_summary(70.04, 10.0, 0)),
            ("c", "#222", _as_summary(70.0, 2.0, 0)),
        ],
    )
    col = {c.label: i for i, c in enumerate(t.columns)}
    sr = [r.cells[col["Task SR"]] for r in t.rows]
    assert [c.text for c in sr] == ["50.0", "70.0", "70.0"]
    assert [c.best for c in sr] == [False, True, True]  # equal as shown: both bold
    parsing = [r.cells[col["Parsing"]].best for r in t.rows]
    assert parsing == [False, False, True]  # lower is better
    action = [r.cells[col["Action"]].text for r in t.rows]
    assert action == ["—", "—", "—"]  # no action goals: the rate is undefined, not 0
    missing = [r.cells[col["Wrong order"]].text for r in t.rows]
    assert missing == ["—", "—", "—"]
    groups = [g for g, _ in t.groups]
    assert groups[:2] == ["Tasks", "Goal evaluation (%)"] and sum(n for _, n in t.groups) == len(
        t.columns
    )


def test_single_model_has_no_bold() -> None:
    t = metric_table("action-sequencing", "x", [("a", "#000", _as_summary(50.0, 1.0, 2))])
    assert not any(c.best for c in t.rows[0].cells)
    assert t.rows[0].cells[4].text == "0.0"  # action goals exist: 0 % is a measurement


def test_unknown_module_shows_numeric_summary_leaves() -> None:
    t = metric_table("housekeeping", "x", [("a", "#000", {"score": 0.5, "sub": {"n": 3}})])
    assert [c.path for c in t.columns] == [("score",), ("sub", "n")]
    out = task_outcome("housekeeping", {"identifier": "t", "success": True, "x": [1]}, None)
    assert out.status == OK and ("success", "true") in out.facts


def test_readers_survive_odd_records() -> None:
    odd: dict[str, object] = {
        "identifier": "t",
        "error": {"step": "3", "action": 5, "error_type": None},
        "actions": "not a list",
        "subgoals": [None, {"status": 3}],
        "scores": [{"tp": True}],
        "counts": {"state": None},
    }
    as_ = task_outcome("action-sequencing", odd, None)
    assert as_.status == FAIL and as_.first_error is not None
    assert (as_.first_error.kind, as_.first_error.step, as_.first_error.action) == (
        "error",
        None,
        None,
    )
    assert as_.step_lists[0].steps == ()
    sd = task_outcome("subgoal-decomposition", odd, None)
    assert [(s.number, s.status) for s in sd.step_lists[0].steps] == [(1, "fail"), (2, "fail")]
    gi = task_outcome("goal-interpretation", odd, None)
    assert gi.status == FAIL and gi.badge == "F1 —"
    tm = task_outcome("transition-modeling", odd, None)
    assert tm.status == OK and tm.facts[0] == ("logic form", "F1 100.0 (tp 0, fp 0, fn 0)")
