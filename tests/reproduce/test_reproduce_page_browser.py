"""The ``reproduce eai`` page in a real headless browser (the chromium of
``tests/report/test_browser.py``): as a reader sees it, a sampled reference figure shows
its ``*`` and the legend, and no sampled cell is painted the "equals the reference" green;
a failed cell is visibly failed. Skipped without chromium / playwright, as there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planproof.report.leaderboard import SAMPLE_LEGEND, Row, render_html, taus
from tests.report.test_browser import browser  # noqa: F401 - the shared browser fixture

GREEN = "rgb(222, 247, 236)"


def test_sampled_cells_are_starred_and_never_green_on_screen(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    fig = {"task_success": 40.0, "execution_success": 50.0}
    rows = [
        Row("a", "Sampled", fig, fig, fig, reading=fig, sampled=frozenset(fig)),
        Row("b", "Whole", fig, fig, fig, reading=fig),
        Row("c", "Broken", fig, fig, {}, failed="c.json: not JSON"),
    ]
    path = tmp_path / "report.html"
    tau_rows = taus("action-sequencing", rows)
    path.write_text(render_html({"action-sequencing": rows}, tau_rows=tau_rows), "utf-8")
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    table = page.locator("table.lb").first
    cells = table.locator("tbody tr").evaluate_all(
        """rows => rows.map(r => [r.querySelector('th').innerText,
            [...r.querySelectorAll('td')].map(td => [td.innerText,
                getComputedStyle(td).backgroundColor])])"""
    )
    by = dict(cells)
    # paper | ref. | ref. reading | planproof per figure
    assert [t for t, _ in by["Sampled"]] == [
        *["40.0", "40.0*", "40.0", "40.0"],
        *["50.0", "50.0*", "50.0", "50.0"],
    ]
    assert GREEN not in {bg for _, bg in by["Sampled"]}  # equal, but to a sample's figure
    assert [bg == GREEN for _, bg in by["Whole"]] == [False, False, True, True] * 2
    assert [t for t, _ in by["Broken"]][2:4] == ["failed", "failed"]
    assert SAMPLE_LEGEND in table.inner_text()  # the legend under the table
    taus_text = page.locator("table.taus").inner_text()
    assert "1 of 3" in taus_text  # the tau table counts the sampled reference figures
    assert problems == []
    page.close()
