"""Reading run directories: what the runner wrote comes back typed; a directory that is
not a run is a ReportError naming the file; damaged optional files are notes; and no
content of any file can make the report crash."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.report import ReportError, build_report, find_run_dirs, load_run, load_runs
from planproof.report.load import _redact_url
from tests.report.conftest import Built, read_jsonl
from tests.report.dom import parse

pytestmark = pytest.mark.data


def _copy(built: Built, tmp_path: Path, key: tuple[str, str, str]) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(built.dirs[key], dst)
    return dst


def test_load_run_returns_what_was_written(built: Built) -> None:
    for (module, dataset, model), path in built.dirs.items():
        run = load_run(path)
        doc = json.loads((path / "run.json").read_text(encoding="utf-8"))
        assert (run.info.model, run.info.module, run.info.dataset) == (model, module, dataset)
        assert run.info.calls.made == doc["calls"]["made"]
        assert run.info.calls.failed == doc["calls"]["failed"]
        assert run.info.prompt_tokens == doc["tokens"]["prompt"]
        assert run.info.cost_usd == doc["cost_usd"]
        responses = read_jsonl(path / "responses.jsonl")
        assert [r.identifier for r in run.responses] == [r["identifier"] for r in responses]
        assert [r.llm_output for r in run.responses] == [r["llm_output"] for r in responses]
        failed = [r for r in run.responses if r.error is not None]
        assert len(failed) == doc["calls"]["failed"]
        assert all(r.llm_output is None for r in failed)
        assert len(run.results) == len(read_jsonl(path / "results.jsonl"))
        assert run.evaluated
        assert run.summary == json.loads((path / "summary.json").read_text(encoding="utf-8"))


def test_missing_summary_names_it(built: Built, tmp_path: Path) -> None:
    run = _copy(built, tmp_path, ("action-sequencing", "virtualhome", "gold"))
    (run / "summary.json").unlink()
    with pytest.raises(ReportError, match=r"summary.json: file not found"):
        build_report([run])


def test_without_run_json_it_is_an_evaluate_directory(built: Built, tmp_path: Path) -> None:
    """``planproof evaluate`` writes summary.json and results.jsonl, no run.json: the
    answers' source stands for the model and the module is read from the summary."""
    run = _copy(built, tmp_path, ("action-sequencing", "virtualhome", "gold"))
    (run / "run.json").unlink()
    loaded = load_run(run)
    assert loaded.info.module == "action-sequencing" and loaded.info.dataset == "virtualhome"
    assert loaded.results and loaded.info.model
    (run / "summary.json").unlink()
    with pytest.raises(
        ReportError, match=r"not a results directory; expected run\.json .* summary\.json"
    ):
        build_report([run])


@pytest.mark.parametrize(
    ("content", "why"),
    [("{", "not valid JSON"), ("[1, 2]", "expected a JSON object"), ("\udcff", "cannot read")],
)
def test_corrupt_required_file_names_it(
    built: Built, tmp_path: Path, content: str, why: str
) -> None:
    run = _copy(built, tmp_path, ("goal-interpretation", "virtualhome", "gold"))
    (run / "run.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    with pytest.raises(ReportError, match=rf"run\.json: {why}"):
        load_run(run)


def test_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="not a results directory"):
        load_run(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(ReportError, match="not a results directory"):
        build_report([tmp_path / "file"])
    with pytest.raises(ReportError, match="no run directories"):
        build_report([])
    with pytest.raises(
        ReportError, match=r"not a results directory; expected run\.json .* summary\.json"
    ):
        build_report([tmp_path])  # a directory with no run in it


def test_a_parent_directory_stands_for_its_runs(built: Built) -> None:
    dirs = find_run_dirs([built.root])
    assert set(dirs) == {*built.dirs.values(), built.partial}
    assert len(load_runs([built.root, built.partial])) == len(dirs)  # no duplicates


def test_partial_run_loads_with_notes(built: Built) -> None:
    run = load_run(built.partial)
    assert not run.evaluated and run.results == ()
    assert len(run.responses) == 3  # the fourth line was cut in half
    assert any("responses.jsonl line 4: invalid JSON" in n for n in run.notes)
    assert any("results.jsonl is missing" in n for n in run.notes)
    assert any("3 of 4 tasks" in n for n in run.notes)


def test_missing_responses_file_is_a_note(built: Built, tmp_path: Path) -> None:
    run = _copy(built, tmp_path, ("action-sequencing", "behavior", "mutant"))
    (run / "responses.jsonl").unlink()
    page = build_report([run])
    assert "responses.jsonl is missing" in page
    rows = parse(page).find_all("details", "task")
    assert len(rows) == len(read_jsonl(run / "results.jsonl"))


def test_api_base_credentials_are_not_shown() -> None:
    assert _redact_url("https://user:secret@host.example/v1") == "https://***@host.example/v1"
    assert _redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert _redact_url(None) is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _damage(doc: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """``doc`` with some of its fields replaced by arbitrary JSON values."""
    out = dict(doc)
    keys = sorted(out)
    for key in data.draw(st.lists(st.sampled_from(keys), max_size=4)) if keys else []:
        out[key] = data.draw(JSON)
    return out


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_file_content_crashes_the_report(
    built: Built, tmp_path: Path, data: st.DataObject
) -> None:
    """Real run files with arbitrary fields replaced (and arbitrary lines added): the page
    is built, or a ReportError says which file is unusable — never another exception."""
    keys = sorted(built.dirs)
    key = data.draw(st.sampled_from(keys))
    src = built.dirs[key]
    dst = Path(tempfile.mkdtemp(dir=tmp_path))
    for name in ("run.json", "summary.json"):
        doc = json.loads((src / name).read_text(encoding="utf-8"))
        value: Any = _damage(doc, data) if data.draw(st.booleans()) else data.draw(JSON)
        (dst / name).write_text(json.dumps(value), encoding="utf-8")
    for name in ("responses.jsonl", "results.jsonl"):
        lines = [_damage(r, data) for r in read_jsonl(src / name)[:3]]
        extra = data.draw(st.lists(st.text(max_size=30) | JSON.map(json.dumps), max_size=3))
        text = "\n".join([*(json.dumps(x) for x in lines), *extra])
        (dst / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        page = build_report([dst])
    except ReportError as exc:
        assert "run.json" in str(exc) or "summary.json" in str(exc)
    else:
        assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
