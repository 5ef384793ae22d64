"""The page in a real headless browser (Debian's chromium driven by playwright; no browser
is ever downloaded): it renders without console errors or warnings, no script runs but
ours, a drill-down opens and shows the hostile response as text, shared prompt paragraphs
are filled in when a prompt opens, and the task rows are those of the runs.

Skipped when /usr/bin/chromium or playwright is missing, except under CI (``CI`` set),
where that is a failure."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planproof.report import write_report
from tests.cli.browser_page import assert_filter_hides_solved
from tests.report.conftest import Built, read_jsonl
from tests.report.rundirs import PAYLOAD

pytestmark = pytest.mark.data

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser test cannot run under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def report_file(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report([built.root], tmp_path_factory.mktemp("page") / "report.html")


def test_page_renders_cleanly_and_drill_down_works(
    browser: Any, report_file: Path, built: Built
) -> None:
    page = browser.new_page()
    problems: list[str] = []
    requests: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))

    def dialog(d: Any) -> None:  # an alert() would mean markup from a run was executed
        problems.append(f"dialog: {d.message}")
        d.dismiss()

    page.on("dialog", dialog)
    page.on("request", lambda r: requests.append(r.url))
    page.goto(report_file.as_uri(), wait_until="load")

    section = page.locator("section[data-module=action-sequencing][data-dataset=virtualhome]")
    rows = section.locator("details.task")
    responses = [
        read_jsonl(built.dirs[("action-sequencing", "virtualhome", m)] / "responses.jsonl")
        for m in ("gold", "mutant")
    ]
    idents = {str(r["identifier"]) for rs in responses for r in rs}
    assert rows.count() == len(idents)  # the partial run's tasks are among these

    # the task whose mutated answer is the payload: open it, read the response as text
    target = next(str(r["identifier"]) for r in responses[1] if r["llm_output"] == PAYLOAD)
    row = rows.filter(has=page.locator("span.tid", has_text=target)).first
    out = row.locator("div.model", has=page.locator("h4", has_text="mutant")).locator("pre.out")
    assert not out.is_visible()
    row.locator("summary").first.click()
    assert out.is_visible()
    assert out.inner_text() == PAYLOAD
    assert page.locator("img").count() == 0 and page.locator("script").count() == 1

    # the prompt: shared paragraphs are copied in when it opens
    prompt = row.locator("details.prompt")
    prompt.locator("summary").click()
    text = prompt.locator("pre").inner_text()
    sent = next(str(r["prompt"]) for r in responses[1] if r["identifier"] == target)
    assert text == sent
    assert prompt.locator("a.r").count() == 0

    assert_filter_hides_solved(section)

    assert problems == []
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
    page.close()
