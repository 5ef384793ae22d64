"""``planproof report`` on ``planproof evaluate`` output, in a real browser: the page
shows task names and goals, keeps every table inside the page width, draws no empty
chart, and warns when the compared runs scored different task sets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planproof.cli import main
from tests.cli.browser_page import assert_charts_drawn, assert_fits, open_page
from tests.report.test_browser import browser  # noqa: F401 -- the chromium fixture

pytestmark = pytest.mark.data

WRONG = json.dumps({"WALK": ["bathroom", 11]})


def _evaluate(out: Path, *argv: str) -> None:
    assert main(["evaluate", "action-sequencing", "--dataset", "virtualhome", *argv,
                 "--output", str(out), "--json"]) == 0  # fmt: skip


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two evaluate directories over different task sets: the gold on the first 6 tasks,
    wrong answers on 4 tasks (2 of them beyond the gold's 6)."""
    from planproof.runs.modules import load_tasks

    root = tmp_path_factory.mktemp("evaluated")
    _evaluate(root / "gold", "--gold", "--limit", "6")
    ids = [t.identifier for t in load_tasks("virtualhome")]
    answers = root / "wrong.json"
    chosen = [*ids[:2], *ids[10:12]]
    answers.write_text(json.dumps([{"identifier": i, "llm_output": WRONG} for i in chosen]))
    _evaluate(root / "wrong", "--responses", str(answers))
    return root


def test_report_of_evaluate_directories_in_a_browser(
    evaluated: Path,
    browser: Any,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = evaluated / "report"
    assert main(["report", str(evaluated), "--output", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == 2
    page, problems, _ = open_page(browser, out / "report.html")
    section = page.locator("section[data-module=action-sequencing][data-dataset=virtualhome]")
    assert section.count() == 1

    warning = section.locator("div.coverage")
    assert warning.count() == 1 and "different task sets" in warning.inner_text()
    assert "2 tasks are common to all" in warning.inner_text()

    rows = section.locator("details.task")
    assert rows.count() == 8
    first = rows.first
    assert first.locator("span.tname").inner_text() == "Wash clothes"
    first.locator("summary").first.click()
    goal = first.locator("div.goal code")
    assert goal.is_visible() and "washing_machine.1001" in goal.inner_text()

    assert_fits(page)  # every table fits the page: no horizontal scrolling anywhere
    assert assert_charts_drawn(section) >= 1  # no empty chart
    assert problems == []
    page.close()


def test_a_gold_only_report_drops_the_all_zero_error_chart(
    evaluated: Path,
    browser: Any,  # noqa: F811
) -> None:
    out = evaluated / "gold-report.html"
    assert main(["report", str(evaluated / "gold"), "--output", str(out)]) == 0
    page, problems, _ = open_page(browser, out)
    titles = page.locator("figcaption").all_inner_texts()
    assert not any("Error taxonomy" in t for t in titles), titles
    assert any("Goal success" in t for t in titles)
    assert page.locator("div.coverage").count() == 0
    assert problems == []
    page.close()


EAI_KINDS = [
    (module, dataset)
    for module in ("goal-interpretation", "subgoal-decomposition", "transition-modeling")
    for dataset in ("virtualhome", "behavior")
]


def test_every_eai_evaluate_directory_gets_its_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other three modules on both datasets (action sequencing is above): one page,
    one section each, the paper's columns filled, two named tasks per section."""
    from tests.report.dom import parse

    for module, dataset in EAI_KINDS:
        out = tmp_path / "results" / f"{module}-{dataset}"
        argv = ["evaluate", module, "--dataset", dataset, "--gold", "--limit", "2"]
        assert main([*argv, "--output", str(out), "--json"]) == 0
    page = tmp_path / "page.html"
    assert main(["report", str(tmp_path / "results"), "--output", str(page)]) == 0
    capsys.readouterr()
    doc = parse(page.read_text(encoding="utf-8"))
    sections = {
        (s.attrs.get("data-module"), s.attrs.get("data-dataset")): s
        for s in doc.find_all("section")
        if "group" in s.classes
    }
    assert set(sections) == set(EAI_KINDS)
    for key, section in sections.items():
        rows = section.find_all("details", "task")
        assert len(rows) == 2, key
        assert all(r.find("span", "tname").text() for r in rows), key
        cells = [td.text() for td in section.find("table", "metrics").find_all("td")]
        assert cells[1] == "2", key  # tasks scored
        assert "100.0" in cells, key  # the gold scores full marks somewhere
        assert section.find_all("svg", "chart"), key
