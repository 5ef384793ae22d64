"""``planproof report`` on the output of ``evaluate teach``, ``evaluate housekeep`` and
``evaluate partnr``, run through the real command line on bundled real data (the TEACh
task definitions and demo episodes, real Housekeep episodes with the real preference
store, the PARTNR corpus): one section per benchmark with its metrics, the episodes with
their names and goals (failing first), warnings when compared runs scored different
episodes, and a clear exit 2 for a directory that holds no result."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.cli import main
from planproof.report import build_report
from tests.cli.browser_page import (
    assert_charts_drawn,
    assert_filter_hides_solved,
    assert_fits,
    open_page,
)
from tests.cli.helpers import planproof
from tests.report.dom import Element, parse
from tests.report.test_browser import browser  # noqa: F401 -- the chromium fixture

BAD_EPISODE = {"id": "broken", "rooms": 5}


@dataclass(frozen=True)
class Dirs:
    root: Path
    teach: Path
    teach_some: Path
    housekeep: Path
    partnr: Path
    partnr_some: Path


def _run(*argv: str, expect: int = 0) -> None:
    assert main([*argv, "--json"]) == expect, argv


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> Dirs:
    root = tmp_path_factory.mktemp("benchmarks")
    d = Dirs(
        root,
        root / "teach-all",
        root / "teach-two",
        root / "housekeep",
        root / "partnr-all",
        root / "partnr-two",
    )
    teach_demo = Path(str(resources.files("planproof.examples").joinpath("teach")))
    _run("evaluate", "teach", "--output", str(d.teach))
    _run(
        "evaluate",
        "teach",
        str(teach_demo / "coffee.json"),
        str(teach_demo / "water_plant.json"),
        "--output",
        str(d.teach_some),
    )
    real = resources.files("planproof.examples").joinpath("housekeep", "real_episodes.jsonl")
    lines = real.read_text(encoding="utf-8").splitlines()[:5]
    episodes = root / "five-and-a-broken-one.jsonl"
    episodes.write_text("\n".join([*lines, json.dumps(BAD_EPISODE)]) + "\n", encoding="utf-8")
    # a bad episode is exit 2, but every record is still written
    _run("evaluate", "housekeep", str(episodes), "--output", str(d.housekeep), expect=2)
    _run("evaluate", "partnr", "--output", str(d.partnr))
    _run(
        "evaluate",
        "partnr",
        "--episode",
        "cf_01",
        "--episode",
        "cf_02",
        "--output",
        str(d.partnr_some),
    )
    return d


@pytest.fixture(scope="module")
def page(dirs: Dirs) -> Element:
    out = dirs.root / "report"
    assert main(["report", str(dirs.root), "--output", str(out)]) == 0
    return parse((out / "report.html").read_text(encoding="utf-8"))


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _section(doc: Element, module: str) -> Element:
    (section,) = [s for s in doc.find_all("section") if s.attrs.get("data-module") == module]
    return section


def _table(section: Element) -> dict[str, dict[str, str]]:
    """The metrics table as {row label: {column label: cell text}}."""
    table = section.find("table", "metrics")
    head = [th.text() for th in table.find("thead").find_all("tr")[1].find_all("th")]
    out = {}
    for tr in table.find("tbody").find_all("tr"):
        cells = [td.text() for td in tr.find_all("td")]
        out[cells[0]] = dict(zip(head, cells[1:], strict=True))
    return out


def _bold(section: Element) -> set[str]:
    """The columns with a value in bold (the best of the compared runs)."""
    table = section.find("table", "metrics")
    head = [th.text() for th in table.find("thead").find_all("tr")[1].find_all("th")]
    return {
        head[j - 1]
        for tr in table.find("tbody").find_all("tr")
        for j, td in enumerate(tr.find_all("td"))
        if "best" in td.classes
    }


def _rows(section: Element) -> list[Element]:
    return section.find_all("details", "task")


def _ids(section: Element) -> list[str]:
    return [r.find("span", "tid").text() for r in _rows(section)]


def _failing_first(section: Element) -> None:
    solved = ["allok" in r.classes for r in _rows(section)]
    assert solved == sorted(solved)  # every failing row comes before every solved one
    assert solved.count(False) > 0


def test_teach_section(page: Element, dirs: Dirs) -> None:
    section = _section(page, "teach")
    summary = json.loads((dirs.teach / "summary.json").read_text(encoding="utf-8"))
    table = _table(section)
    row = table["teach-all"]
    overall = summary["overall"]
    assert row["Scored"] == str(overall["episodes"])
    sr = summary["intervals"]["overall.success_rate"]  # with its 95 % interval
    assert row["SR"] == (
        f"{overall['success_rate'] * 100:.1f} [{sr['low'] * 100:.1f}, {sr['high'] * 100:.1f}]"
    )
    assert row["GC"] == f"{overall['gc_macro'] * 100:.1f}"
    assert row["TLW-SR"] == f"{overall['tlw_success_weighted'] * 100:.1f}"
    assert row["TLW-GC"] == f"{overall['tlw_gc_weighted'] * 100:.1f}"
    # the union of the episodes; the two-episode run scored a subset: a warning says so
    ids = {str(r["id"]) for r in _jsonl(dirs.teach / "results.jsonl")}
    assert set(_ids(section)) == ids
    warning = section.find("div", "coverage").text()
    assert "2 tasks are common to all" in warning and "teach-all: 4 tasks, 2 not" in warning
    _failing_first(section)
    coffee = next(r for r in _rows(section) if r.find("span", "tid").text() == "demo-coffee")
    assert coffee.find("span", "tname").text() == "Coffee"
    assert "goal conditions" in coffee.find("div", "goal").text()
    failed = next(r for r in _rows(section) if "water-plant" in r.find("span", "tid").text())
    err = failed.find("div", "err").text()
    assert "missing_step" in err and "Pour(HousePlant|1)" in err
    model = failed.find("div", "model")  # teach-all's; teach-two replayed the same episode
    assert [li.text().split(" — ")[0] for li in model.find_all("li", "fail")] == [
        "Pour HousePlant|1",
        "Pickup HousePlant|1",
    ]
    titles = [f.text() for f in section.find_all("figcaption")]
    assert "Success rate by task (%)" in titles
    assert section.find_all("details", "response") == []  # scored plans: no model response


def test_housekeep_section(page: Element, dirs: Dirs) -> None:
    section = _section(page, "housekeep")
    summary = json.loads((dirs.housekeep / "summary.json").read_text(encoding="utf-8"))
    row = _table(section)["housekeep"]
    rq = summary["metrics"]["rearrangement_quality"]
    assert row["RQ"] == f"{rq['mean'] * 100:.1f} ± {rq['stderr'] * 100:.1f}"
    assert row["Scored"] == "5" and row["Bad input"] == "1"
    records = _jsonl(dirs.housekeep / "episodes.jsonl")
    assert set(_ids(section)) == {str(r["id"]) for r in records}
    _failing_first(section)
    broken = next(r for r in _rows(section) if r.find("span", "tid").text() == "broken")
    assert broken.find("span", "badge").text().endswith("bad input")
    assert "expected an object" in broken.find("div", "err").text()
    assert "bad input" in section.find("div", "notes").text()
    good = next(r for r in _rows(section) if r.find("span", "tid").text() == records[0]["id"])
    assert good.find("div", "goal").find("code").text().startswith("(on(")
    assert good.find_all("ol", "trace")  # the episode's actions, replayed
    assert section.find_all("div", "coverage") == []  # one run: nothing to compare


def test_partnr_section(page: Element, dirs: Dirs) -> None:
    section = _section(page, "partnr")
    summary = json.loads((dirs.partnr / "summary.json").read_text(encoding="utf-8"))
    table = _table(section)
    row = table["partnr-all"]
    ok = summary["intervals"]["success_rate"]  # with its 95 % interval
    assert row["Success"] == (
        f"{summary['success_rate'] * 100:.1f} [{ok['low'] * 100:.1f}, {ok['high'] * 100:.1f}]"
    )
    assert row["PC"] == f"{summary['percent_complete'] * 100:.1f}"
    assert row["missing"] == str(summary["failures"]["missing"])
    # a failure kind the two-episode run never met is 0 there, not a dash
    assert table["partnr-two"]["out of order"] == "0"
    # counts over 75 and over 6 plans are not compared: only rates can be bold
    assert _bold(section) and _bold(section) <= {"Success", "PC", "Executable", "Extraneous"}
    records = _jsonl(dirs.partnr / "results.jsonl")
    assert set(_ids(section)) == {f"{r['episode_id']}/{r['plan']}" for r in records}
    assert "different task sets" in section.find("div", "coverage").text()
    _failing_first(section)
    first = _rows(section)[0]
    rec = next(r for r in records if f"{r['episode_id']}/{r['plan']}" == _ids(section)[0])
    assert first.find("span", "tname").text() == rec["instruction"]
    assert not rec["success"] and first.find_all("div", "err")
    titles = [f.text() for f in section.find_all("figcaption")]
    assert "Evaluation failures (plans)" in titles
    ticks = [t.text() for t in section.find_all("text", "tick")]
    assert ticks and not any(t.endswith("%") for t in ticks[-10:])  # counts, not percent


def test_a_directory_without_results_is_exit_2(dirs: Dirs, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    r = planproof("report", str(empty), "--output", str(tmp_path / "r"))
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("planproof: error: ") and "expected run.json" in r.err
    assert "episodes.jsonl (evaluate housekeep)" in r.err
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "summary.json").write_text('{"score": 1}', encoding="utf-8")
    r = planproof("report", str(odd), str(dirs.teach), "--output", str(tmp_path / "r"))
    assert r.code == 2 and "names no module or benchmark" in r.err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())
    reproduced = tmp_path / "reproduced"  # what planproof reproduce eai writes, emptied
    reproduced.mkdir()
    (reproduced / "reproduce.json").write_text('{"sections": {}}', encoding="utf-8")
    r = planproof("report", str(reproduced), "--output", str(tmp_path / "r"))
    assert r.code == 2 and "reproduce.json: no sections" in r.err


def test_damaged_benchmark_directories_are_notes(dirs: Dirs, tmp_path: Path) -> None:
    """A missing results file, a truncated line, a repeated identifier: the page is built
    and says so."""
    run = tmp_path / "partnr"
    shutil.copytree(dirs.partnr_some, run)
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    lines = [*lines, lines[0], lines[1][:40]]
    (run / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    gone = tmp_path / "teach"
    shutil.copytree(dirs.teach_some, gone)
    (gone / "results.jsonl").unlink()
    out = tmp_path / "page.html"
    assert main(["report", str(run), str(gone), "--output", str(out)]) == 0
    doc = parse(out.read_text(encoding="utf-8"))
    notes = doc.find("div", "notes").text()
    assert "repeats" in notes and "line" in notes and "results.jsonl is missing" in notes
    ids = _ids(_section(doc, "partnr"))
    assert len(ids) == len(lines) - 1 and any(i.endswith(" #2") for i in ids)


# --- hostile text --------------------------------------------------------------------------

MARKUP = (
    "<script>alert(1)</script></textarea></pre><img src=x onerror=alert(2)>\"'&amp;",
    "<svg onload=alert(3)>",
    "</code></div><iframe src=javascript:alert(4)>",
    "]]><!-- -->&lt;b&gt;",
)
HOSTILE = st.one_of(
    st.sampled_from(MARKUP),
    st.text(
        st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="#/"),
        min_size=1,
        max_size=24,
    ).map(lambda s: f"<{s}>"),
)
TAGS = {
    "html", "head", "meta", "title", "link", "style", "body", "header", "h1", "h2", "h3", "h4",
    "p", "nav", "ul", "li", "a", "main", "section", "div", "table", "thead", "tbody", "tfoot",
    "tr", "th", "td", "i", "span", "details", "summary", "code", "strong", "br", "pre", "ol",
    "dl", "dt", "dd", "label", "input", "figure", "figcaption", "svg", "line", "text", "rect",
    "script",
}  # fmt: skip
"""Every element the page's template and charts write."""


def _rewrite(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        edit(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _edit_json(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    edit(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(HOSTILE, min_size=6, max_size=6, unique=True))
def test_hostile_strings_in_benchmark_results_are_escaped(dirs: Dirs, words: list[str]) -> None:
    """Episode ids, task names, instructions, plan names, actions, messages, failure kinds
    (which become column and chart labels) and goal formulas carrying markup: the page
    holds only the template's own elements, no event-handler attribute, and every string
    reads back as the same text."""
    w = words
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        teach, partnr, hk = root / "teach", root / "partnr", root / "hk"
        shutil.copytree(dirs.teach_some, teach)
        shutil.copytree(dirs.partnr_some, partnr)
        shutil.copytree(dirs.housekeep, hk)

        def teach_row(r: dict[str, Any]) -> None:
            r["id"] = f"{w[0]}{r['id']}"
            r["task"] = w[1]
            r["actions"] = [w[2], *r["actions"]]
            r["final"]["unsatisfied"] = [w[3]]
            for f in r["failures"]:
                f["message"] = w[4]

        def partnr_row(r: dict[str, Any]) -> None:
            r["instruction"] = w[1]
            r["plan"] = f"{w[0]}{r['plan']}"
            r["agents"] = {w[5]: [w[2]]}
            r["explanation"] = f"failed\n - {w[3]}"
            r["failures"] = [{"kind": w[5], "message": w[4]}]
            if r["error"]:
                r["error"]["message"] = w[4]

        def partnr_summary(s: dict[str, Any]) -> None:
            s["failures"] = {w[5]: 1}
            s["errors"] = {w[2]: 2}

        def hk_row(r: dict[str, Any]) -> None:
            r["id"] = f"{w[0]}{r['id']}"
            if r["ok"]:
                r["goal"]["goal"] = w[1]
                r["objects"][0].update(id=w[2], finally_correct=False)
                r["mismatches"] = {w[3]: {"expected": 1, "got": 0}}
                r["actions"] = [w[4], *r["actions"]]
            else:
                r["message"] = w[4]

        _rewrite(teach / "results.jsonl", teach_row)
        _rewrite(partnr / "results.jsonl", partnr_row)
        _edit_json(partnr / "summary.json", partnr_summary)
        _rewrite(hk / "episodes.jsonl", hk_row)
        doc = parse(build_report([teach, partnr, hk]))
    elements = list(doc.iter())[1:]
    assert {e.tag for e in elements} <= TAGS
    assert not [a for e in elements for a in e.attrs if a.lower().startswith("on")]
    assert len(doc.find_all("script")) == 1
    texts = {e.text() for e in elements}
    ids = [
        s.find("span", "tid").text() for s in doc.find_all("summary") if s.find_all("span", "tid")
    ]
    assert any(i.startswith(w[0]) for i in ids)
    for word in w[1:5]:
        assert any(word in t for t in texts), word
    kinds = {th.text() for th in doc.find_all("th")}
    assert w[5].replace("_", " ") in kinds  # a failure kind as a column header


# --- in a browser --------------------------------------------------------------------------


def test_benchmark_report_in_a_browser(dirs: Dirs, browser: Any) -> None:  # noqa: F811
    """The page of the TEACh, Housekeep and PARTNR directories in chromium: no console
    message, nothing loaded but the file, every table inside a 1280-pixel page, every
    chart with a bar, a drill-down that opens on the first failing plan, and the filter
    that hides exactly the episodes every run solved."""
    out = dirs.root / "browser.html"
    argv = [str(d) for d in (dirs.teach, dirs.teach_some, dirs.housekeep, dirs.partnr)]
    assert main(["report", *argv, str(dirs.partnr_some), "--output", str(out)]) == 0
    page, problems, requests = open_page(browser, out)
    assert page.locator("section.group").count() == 3
    assert_fits(page)
    assert assert_charts_drawn(page) >= 6

    section = page.locator("section[data-module=partnr]")
    rows = section.locator("details.task")
    first = rows.first
    err = first.locator("div.err").first
    assert not err.is_visible()
    first.locator("summary").first.click()
    assert err.is_visible() and err.inner_text().strip()
    assert first.locator("ol.trace").first.is_visible()  # an agent's actions

    assert_filter_hides_solved(page.locator("section[data-module=teach]"))

    assert problems == []
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
    page.close()
