"""What the browser tests of report pages share: opening a page while recording console
messages, page errors and requests, and the two layout checks (every table inside the
page width, every chart with a bar longer than zero)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

WIDTH = 1280


def open_page(browser: Any, page_file: Path) -> tuple[Any, list[str], list[str]]:
    """The page at ``WIDTH`` pixels, its console errors / warnings and page errors, and
    the URLs it requested (filled in as the test goes on)."""
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    problems: list[str] = []
    requests: list[str] = []
    page.on(
        "console",
        lambda m: problems.append(m.text) if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_file.as_uri(), wait_until="load")
    return page, problems, requests


def assert_fits(page: Any) -> None:
    """No horizontal scrolling: neither the page nor any table's scroll box."""
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " ...[...document.querySelectorAll('.scroll')].map(e => e.scrollWidth - e.clientWidth)]"
    )
    assert widths[0] <= widths[1], widths
    assert all(extra <= 0 for extra in widths[2:]), widths


def assert_charts_drawn(scope: Any) -> int:
    """Every chart under ``scope`` draws at least one bar longer than zero; their count."""
    charts = scope.locator("svg.chart")
    for i in range(charts.count()):
        bars = charts.nth(i).locator("rect")
        assert any(float(bars.nth(j).get_attribute("width") or 0) > 0 for j in range(bars.count()))
    return int(charts.count())


def assert_filter_hides_solved(section: Any) -> None:
    """Ticking "only tasks some model failed" hides exactly the rows every model solved."""
    rows = section.locator("details.task")
    before = sum(rows.nth(i).is_visible() for i in range(rows.count()))
    section.locator("input.only-fail").check()
    after = sum(rows.nth(i).is_visible() for i in range(rows.count()))
    assert after == section.locator("details.task:not(.allok)").count() < before
