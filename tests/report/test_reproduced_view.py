"""``planproof report`` on a ``reproduce eai`` directory (issue #28, item 7): the notes once,
the ``*`` on every sampled reference figure and on no other, the reference reading's
column, and the contents naming the published models instead of "(1 model, 0 tasks)"."""

from __future__ import annotations

import json
import re
from pathlib import Path

from planproof.report import build_report
from planproof.report.leaderboard import Row, as_plain, render_html


def _dir(tmp_path: Path) -> Path:
    rows = [
        Row(
            "a",
            "Model A",
            {"task_success": 50.0},
            {"task_success": 40.0},
            {"task_success": 45.0},
            reading={"task_success": 40.0},
            sampled=frozenset({"task_success"}),
        ),
        Row(
            "b",
            "Model B",
            {"task_success": 60.0},
            {"task_success": 55.0},
            {"task_success": 55.0},
            reading={"task_success": 55.0},
        ),
    ]
    note = "the reference code's figures marked * are on a SAMPLE of the file"
    doc = {
        "sections": {"action-sequencing": as_plain(rows), "goal-interpretation": as_plain(rows)},
        "kendall_tau": [],
        "notes": [note],
    }
    out = tmp_path / "reproduced"
    out.mkdir()
    (out / "reproduce.json").write_text(json.dumps(doc), encoding="utf-8")
    return out


def test_report_of_a_reproduction_marks_samples_and_shows_notes_once(tmp_path: Path) -> None:
    page = build_report([_dir(tmp_path)])
    text = re.sub(r"<[^>]+>", " ", page)
    assert text.count("SAMPLE of the file") == 2  # the page's notes block and its section's
    assert "(2 published models)" in text and "0 tasks)" not in text
    assert re.search(r"40\.0\*", text) and not re.search(r"55\.0\*", text)
    assert "ref. reading" in text


def test_reproduce_page_stars_samples_and_never_shades_them() -> None:
    rows = [
        Row(
            "a",
            "A",
            {"task_success": 50.0},
            {"task_success": 40.0},
            {"task_success": 40.0},
            sampled=frozenset({"task_success"}),
        ),
        Row("b", "B", {"task_success": 50.0}, {"task_success": 40.0}, {"task_success": 40.0}),
    ]
    html = render_html({"action-sequencing": rows})
    cells = re.findall(r"<td([^>]*)>([^<]*)</td>", html)
    assert [attrs for attrs, text in cells if text == "40.0*"] == [
        ' class="sample" title="the reference code on a sample of the file"'
    ]
    assert html.count('class="same"') == 1  # B's equal whole-file cell only
