"""The page built from real run directories: tables that say what the summaries say, one
task row per task, the failing step marked, every untrusted text escaped, nothing
loaded from anywhere."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from planproof.report import build_report, write_report
from tests.report.conftest import EVIL_MODEL, Built, read_jsonl
from tests.report.dom import Element, parse
from tests.report.rundirs import EVIL_OBJECT, PAYLOAD, RATE_LIMIT

pytestmark = pytest.mark.data


def _section(doc: Element, module: str, dataset: str) -> Element:
    found = [
        s
        for s in doc.find_all("section")
        if s.attrs.get("data-module") == module and s.attrs.get("data-dataset") == dataset
    ]
    assert len(found) == 1, (module, dataset)
    return found[0]


def _summary(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((path / "summary.json").read_text(encoding="utf-8"))
    return doc


def _row(section: Element, label: str) -> list[str]:
    table = section.find("table", "metrics")
    for tr in table.find("tbody").find_all("tr"):
        cells = tr.find_all("td")
        if cells[0].text().strip() == label:
            return [c.text().strip() for c in cells[1:]]
    raise AssertionError(f"no row {label!r}")


def test_one_section_per_module_and_dataset(page: str, built: Built) -> None:
    doc = parse(page)
    groups = {(m, d) for m, d, _ in built.dirs}
    shown = {
        (s.attrs["data-module"], s.attrs["data-dataset"]) for s in doc.find_all("section", "group")
    }
    assert shown == groups
    for m, d in groups:
        body = _section(doc, m, d).find("table", "metrics").find("tbody")
        models = [r.find_all("td")[0].text().strip() for r in body.find_all("tr")]
        assert models[:2] == ["gold", "mutant"]


@pytest.mark.parametrize("model", ["gold", "mutant"])
def test_action_sequencing_table_is_the_summary(page: str, built: Built, model: str) -> None:
    s = _summary(built.dirs[("action-sequencing", "virtualhome", model)])
    row = _row(_section(parse(page), "action-sequencing", "virtualhome"), model)
    goal, traj = s["goal_evaluation"], s["trajectory_evaluation"]
    # Scored; Task SR, State, Relation, Action, Total, Partial; Executable; 3 grammar, 4 runtime
    assert row[0] == str(s["tasks"])
    expected = [
        goal["task_success_rate"],
        goal["state_goal"],
        goal["relation_goal"],
        None if s["counts"]["goals"]["action"]["total"] == 0 else goal["action_goal"],
        goal["total_goal"],
        goal["partial_success"],
        traj["execution_success_rate"],
        *traj["grammar_error"].values(),
        traj["runtime_error"]["wrong_order"],
        traj["runtime_error"]["missing_step"],
        traj["runtime_error"]["affordance_error"],
        traj["runtime_error"]["additional_step"],
    ]
    assert row[1:] == ["—" if v is None else f"{v:.1f}" for v in expected]


def test_goal_interpretation_and_transition_tables(page: str, built: Built) -> None:
    doc = parse(page)
    for model in ("gold", "mutant"):
        gi = _summary(built.dirs[("goal-interpretation", "virtualhome", model)])
        row = _row(_section(doc, "goal-interpretation", "virtualhome"), model)
        overall = gi["goal_evaluation"]["overall"]
        assert row[10:13] == [f"{overall[k]:.1f}" for k in ("precision", "recall", "f1")]
        tm = _summary(built.dirs[("transition-modeling", "virtualhome", model)])
        row = _row(_section(doc, "transition-modeling", "virtualhome"), model)
        assert row[7] == f"{100 * tm['overall']['f1']:.1f}"  # overall logic-form F1
        assert row[13] == f"{100 * tm['plan_valid_under_gold']:.1f}"
    # the gold answers are exact; the mutations are not
    assert _row(_section(doc, "goal-interpretation", "virtualhome"), "gold")[12] == "100.0"
    assert _row(_section(doc, "goal-interpretation", "virtualhome"), "mutant")[12] != "100.0"


def test_best_value_of_a_column_is_bold(page: str) -> None:
    section = _section(parse(page), "action-sequencing", "virtualhome")
    rows = section.find("table", "metrics").find("tbody").find_all("tr")
    first = {r.find_all("td")[0].text().strip(): r.find_all("td")[2] for r in rows}
    assert "best" in first["gold"].classes  # task success: gold 100 beats the mutant
    assert "best" not in first["mutant"].classes


def test_one_task_row_per_task(page: str, built: Built) -> None:
    doc = parse(page)
    for module, dataset in {(m, d) for m, d, _ in built.dirs}:
        dirs = [p for (m, d, _), p in built.dirs.items() if (m, d) == (module, dataset)]
        if (module, dataset) == ("action-sequencing", "virtualhome"):
            dirs.append(built.partial)
        idents = {str(r["identifier"]) for p in dirs for r in read_jsonl(p / "responses.jsonl")}
        rows = _section(doc, module, dataset).find_all("details", "task")
        assert len(rows) == len(idents)
        assert {r.find("span", "tid").text() for r in rows} == idents


def test_failing_step_is_marked_in_the_trace(page: str, built: Built) -> None:
    doc = parse(page)
    section = _section(doc, "action-sequencing", "virtualhome")
    rows = {r.find("span", "tid").text(): r for r in section.find_all("details", "task")}
    results = read_jsonl(
        built.dirs[("action-sequencing", "virtualhome", "mutant")] / "results.jsonl"
    )
    checked = 0
    for res in results:
        err = res["error"]
        if not isinstance(err, dict) or err["action"] is None:
            continue
        model = next(
            m
            for m in rows[str(res["identifier"])].find_all("div", "model")
            if m.find("h4").text().startswith("mutant")
        )
        steps = model.find("ol", "trace").find_all("li")
        # the number shown: the list position, or the value given when it differs
        shown = [int(li.attrs.get("value") or k) for k, li in enumerate(steps, start=1)]
        failed = [n for n, li in zip(shown, steps, strict=True) if "fail" in li.classes]
        assert failed == [int(str(err["step"])) + 1]
        failed_li = [li for li in steps if "fail" in li.classes]
        # the trace shows the action as written, the error its canonical (lower-case) form
        assert failed_li[0].text().lower().startswith(str(err["action"]).lower())
        assert err["message"] in model.find("div", "err").text()
        executed = [
            li for li in model.find("ol", "trace").find_all("li") if "skip" not in li.classes
        ]
        # executed steps and the failing one (a grammar error stops everything up front)
        assert len(executed) == int(str(res["executed"])) + 1
        checked += 1
    assert checked >= 2  # the dropped step and the invented object at least


def test_untrusted_text_is_escaped(page: str) -> None:
    assert PAYLOAD not in page
    assert "<script>alert" not in page and "<img" not in page and "<svg onload" not in page
    doc = parse(page)
    scripts = doc.find_all("script")
    assert len(scripts) == 1 and "alert" not in scripts[0].text()
    outputs = [pre.text() for pre in doc.find_all("pre", "out")]
    assert PAYLOAD in outputs  # shown, as text
    messages = " ".join(e.text() for e in doc.find_all("div", "err"))
    assert EVIL_OBJECT in messages  # a hallucinated object named with markup
    assert RATE_LIMIT.message in messages
    models = {td.text().strip() for td in doc.find_all("td", "l")}
    assert EVIL_MODEL in models
    assert not [e for e in doc.iter() if any(k.startswith("on") for k in e.attrs)]


def test_nothing_is_loaded_from_anywhere(page: str) -> None:
    doc = parse(page)
    for el in doc.iter():
        for name, raw in el.attrs.items():
            value = raw or ""
            assert "http" not in value.lower(), (el.tag, name)
            if name in {"href", "src", "srcset", "action", "formaction", "xlink:href", "poster"}:
                assert value.startswith(("#", "data:")), (el.tag, name, value)
    for style in doc.find_all("style"):
        assert "url(" not in style.text() and "@import" not in style.text()
    assert not doc.find_all("iframe") and not doc.find_all("object")


def test_content_security_policy_names_the_script(page: str) -> None:
    doc = parse(page)
    csp = next(
        m.attrs["content"] or ""
        for m in doc.find_all("meta")
        if m.attrs.get("http-equiv") == "Content-Security-Policy"
    )
    script = doc.find("script").text()
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp and "default-src 'none'" in csp


def test_shared_prompt_paragraphs_are_referenced(page: str, built: Built) -> None:
    doc = parse(page)
    ids = {e.attrs["id"] for e in doc.iter() if e.attrs.get("id")}
    refs = [str(e.attrs["href"])[1:] for e in doc.find_all("a", "r")]
    assert refs and set(refs) <= ids
    # a prompt read back from the page (references replaced by their paragraphs) is the
    # prompt the run sent
    pool = {e.attrs["id"]: e.text() for e in doc.find_all("pre") if e.attrs.get("id")}
    section = _section(doc, "action-sequencing", "behavior")
    sent = read_jsonl(built.dirs[("action-sequencing", "behavior", "gold")] / "responses.jsonl")
    row = next(  # rows are failing tasks first: find the first task's row by its identifier
        r
        for r in section.find_all("details", "task")
        if r.find("span", "tid").text() == sent[0]["identifier"]
    )
    pre = row.find("details", "prompt").find("pre")
    text = "".join(
        c if isinstance(c, str) else pool[str(c.attrs["href"])[1:]] for c in pre.children
    )
    assert text == sent[0]["prompt"]
    # and the prompt text is stored in much less room than the prompts themselves
    distinct = {
        str(r["prompt"]) for p in built.dirs.values() for r in read_jsonl(p / "responses.jsonl")
    }
    stored = sum(len(t) for t in pool.values()) + sum(
        len(c)
        for d in doc.find_all("details", "prompt")
        for c in d.find("pre").children
        if isinstance(c, str)
    )
    assert stored < 0.5 * sum(len(t) for t in distinct)


def test_partial_run_is_shown_with_notes(page: str) -> None:
    doc = parse(page)
    section = _section(doc, "action-sequencing", "virtualhome")
    notes = section.find("div", "notes").text()
    assert "results.jsonl is missing" in notes
    assert "responses.jsonl line 4: invalid JSON" in notes
    badges = [
        b.text() for b in section.find_all("span", "badge") if b.attrs.get("title") == EVIL_MODEL
    ]
    assert badges and set(badges) == {"not evaluated"}


def test_transition_modeling_drill_down(page: str) -> None:
    section = _section(parse(page), "transition-modeling", "virtualhome")
    text = section.text()
    assert "teleport_" in text  # the renamed operator, listed as hallucinated
    assert "Hallucinated operators" in text and "Plan found with the predicted operators" in text


def test_the_page_is_deterministic(built: Built, page: str, tmp_path: Path) -> None:
    out = write_report([built.root], tmp_path / "deep" / "report.html")
    assert out.read_text(encoding="utf-8") == page == build_report([built.root])
