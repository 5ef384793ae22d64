"""Bidirectional overrides and control characters in answers, model names and prompts are
shown as visible ``\\u202e`` escapes in the rendered report (issue 30: 721 right-to-left
overrides appeared raw in one report), never passed to the browser to reorder the page."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from planproof.report import build_report
from planproof.report.escaping import BIDI_CONTROLS, neutralise
from planproof.simulators.virtualhome import load_virtualhome_tasks
from tests.report.rundirs import gold_answer, write_run

RLO_ANSWER_TAIL = "\u202e)puc barg(\u202c \u2066isolated\u2069 \u200fmark\x07bell\x1b[31m"


def test_a_report_shows_overrides_escaped(eai_wheel: Path, tmp_path: Path) -> None:
    tasks = list(load_virtualhome_tasks())[:3]
    gold = gold_answer("action-sequencing")

    def answer(task: object, i: int) -> str:
        return f"{gold(task, i)}\n{RLO_ANSWER_TAIL}"  # type: ignore[arg-type]

    write_run(
        tmp_path / "run",
        model="evil\u202emodel",
        module="action-sequencing",
        tasks=tasks,
        answer=answer,
    )
    page = build_report([tmp_path / "run"])
    assert not any(c in page for c in BIDI_CONTROLS)
    assert "\x07" not in page and "\x1b" not in page
    assert page.count("\\u202e)puc barg(\\u202c") >= 3  # each answer, shown escaped
    assert "evil\\u202emodel" in page
    assert "\\u2066isolated\\u2069" in page and "\\u0007bell\\u001b[31m" in page


@given(st.text())
def test_neutralise_leaves_no_control_and_keeps_the_rest(text: str) -> None:
    out = neutralise(text)
    assert not any(c in out for c in BIDI_CONTROLS)
    assert all(c in "\t\n\r" or not (ord(c) < 32 or 0x7F <= ord(c) <= 0x9F) for c in out)
    kept = [c for c in text if c not in BIDI_CONTROLS and (c in "\t\n\r" or c.isprintable())]
    assert all(c in out for c in kept)
    if text == neutralise(text):
        assert not any(c in text for c in BIDI_CONTROLS)
