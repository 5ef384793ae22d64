"""``planproof report`` on the output of ``planproof reproduce eai`` (real published
answers of three models, goal interpretation): one section per table of
``reproduce.json`` with the paper's, the reference's and planproof's figures side by side
and Kendall's tau, inside the page width, every label escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from planproof.cli import main
from planproof.report import build_report
from tests.cli.browser_page import assert_fits, open_page
from tests.cli.test_report_of_benchmarks import MARKUP, TAGS
from tests.report.dom import Element, parse
from tests.report.test_browser import browser  # noqa: F401 -- the chromium fixture

pytestmark = pytest.mark.data

MODELS = ("GPT-4o", "llama-3-8b-chat", "mistral-large-2402")


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reproduced") / "gi"
    argv = ["reproduce", "eai", "--modules", "goal-interpretation", "--models", *MODELS]
    assert main([*argv, "--output", str(out), "--workers", "1", "--json"]) == 0
    return out


def _section(doc: Element, dataset: str) -> Element:
    (s,) = [
        s
        for s in doc.find_all("section")
        if s.attrs.get("data-module") == "reproduce" and s.attrs.get("data-dataset") == dataset
    ]
    return s


def test_reproduce_output_is_a_section(
    reproduced: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc_json = json.loads((reproduced / "reproduce.json").read_text(encoding="utf-8"))
    teach = tmp_path / "teach"  # kinds mix: each is its own section of the one page
    assert main(["evaluate", "teach", "--output", str(teach), "--json"]) == 0
    page = tmp_path / "page.html"
    assert main(["report", str(reproduced), str(teach), "--output", str(page)]) == 0
    capsys.readouterr()
    doc = parse(page.read_text(encoding="utf-8"))
    groups = [s.attrs.get("data-module") for s in doc.find_all("section") if "group" in s.classes]
    assert groups.count("teach") == 1 and "reproduce" in groups
    section = _section(doc, "goal-interpretation")
    assert "EAI paper reproduced — goal interpretation" in section.find("h2").text()
    assert section.find_all("h3") == []  # no per-task list: reproduce.json keeps none
    tables = section.find_all("table", "metrics")
    cells: dict[tuple[str, str, str], str] = {}  # (model, figure, source) → text
    for table in tables:
        heads = table.find("thead").find_all("tr")
        groups = [
            (g.text(), int(g.attrs.get("colspan") or 1)) for g in heads[0].find_all("th", "g")
        ]
        figures = [g for g, n in groups for _ in range(n)]
        labels = [th.text() for th in heads[1].find_all("th")]
        for tr in table.find("tbody").find_all("tr"):
            tds = [td.text() for td in tr.find_all("td")]
            for fig, label, text in zip(figures, labels, tds[1:], strict=True):
                cells[(tds[0], fig, label)] = text
    rows = {r["label"]: r for r in doc_json["sections"]["goal-interpretation"]}
    assert len(rows) == 3
    for label, r in rows.items():
        assert cells[(label, "overall f1", "planproof")] == f"{r['planproof']['overall_f1']:.1f}"
        assert cells[(label, "overall f1", "paper")] == f"{r['paper']['overall_f1']:.1f}"
    taus = {
        (t["figure"].replace("_", " "), t["versus"]): t["tau"]
        for t in doc_json["kendall_tau"]
        if t["module"] == "goal-interpretation" and t["tau"] is not None
    }
    assert taus
    for (fig, versus), tau in taus.items():
        assert cells[(f"{versus} vs paper", "Kendall's tau", fig)] == f"{tau:.2f}"


def test_reproduce_labels_are_escaped(reproduced: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(reproduced, copy)
    doc: dict[str, Any] = json.loads((copy / "reproduce.json").read_text(encoding="utf-8"))
    rows = doc["sections"]["goal-interpretation"]
    for row, word in zip(rows, MARKUP, strict=False):
        row["label"] = word
        row["planproof"][MARKUP[3]] = 1.0
    doc["notes"] = [MARKUP[1]]
    doc["sections"][MARKUP[2]] = [{"label": MARKUP[0], "planproof": {MARKUP[1]: 2.0}}]
    (copy / "reproduce.json").write_text(json.dumps(doc), encoding="utf-8")
    page = parse(build_report([copy]))
    elements = list(page.iter())[1:]
    assert {e.tag for e in elements} <= TAGS
    assert not [a for e in elements for a in e.attrs if a.lower().startswith("on")]
    texts = {e.text() for e in elements}
    for word in MARKUP[:3]:
        assert any(word in t for t in texts), word


def test_reproduce_section_fits_the_page(
    reproduced: Path,
    tmp_path: Path,
    browser: Any,  # noqa: F811
) -> None:
    page_file = tmp_path / "page.html"
    assert main(["report", str(reproduced), "--output", str(page_file)]) == 0
    page, problems, _ = open_page(browser, page_file)
    assert_fits(page)
    assert page.locator("section[data-module=reproduce] table.metrics").count() >= 4
    assert problems == []
    page.close()
