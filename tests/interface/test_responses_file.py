"""Reading whole responses files: the EAI JSON list and JSON lines, per-entry errors,
duplicate identifiers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.interface.errors import ResponsesFileError
from planproof.interface.responses import read_responses, read_responses_text
from planproof.simulators.core import Action


def test_reference_json_list(tmp_path: Path) -> None:
    data = [
        {"identifier": "27_2", "llm_output": '```json\n{"WALK": ["kitchen", "205"]}\n```'},
        {"identifier": "27_3", "llm_output": "{}"},
    ]
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    f = read_responses(path)
    assert [e.identifier for e in f.entries] == ["27_2", "27_3"]
    assert f.errors == () and f.duplicates == ()
    first = f.by_identifier()["27_2"].parse("virtualhome")
    assert first.actions == (Action("WALK", ("kitchen.205",)),)
    assert "stripped markdown fence" in first.notes
    assert f.by_identifier()["27_3"].parse("virtualhome").error is not None


def test_jsonl_with_malformed_lines_and_duplicates() -> None:
    text = "\n".join(
        [
            json.dumps({"identifier": "a", "llm_output": '[{"action": "OPEN", "object": "b_1"}]'}),
            "{not json",
            "",
            json.dumps({"identifier": "b"}),
            json.dumps({"identifier": "a", "llm_output": "[]"}),
            json.dumps(["not", "an", "object"]),
            json.dumps({"identifier": 7, "llm_output": None}),
        ]
    )
    f = read_responses_text(text)
    assert [(e.identifier, e.line) for e in f.entries] == [
        ("a", 1),
        (None, 2),
        ("b", 4),
        (None, 6),
        ("7", 7),
    ]
    assert [e.line for e in f.errors] == [2, 4, 6, 7]
    assert "line 2: not a JSON object" in str(f.errors[0].error)
    assert "'llm_output' must be a string" in str(f.errors[1].error)
    assert [d.line for d in f.duplicates] == [5]
    assert f.notes == ("identifier 'a' repeated at line 5; kept the first (entry 1)",)
    assert f.by_identifier()["a"].parse("behavior").actions == (Action("OPEN", ("b_1",)),)
    bad = f.by_identifier()["b"].parse("behavior")
    assert bad.error is not None and bad.error.line == 4


def test_json_list_entries_that_are_not_objects() -> None:
    f = read_responses_text('[1, {"identifier": "x", "llm_output": "{}"}, {"llm_output": "{}"}]')
    assert [e.error is not None for e in f.entries] == [True, False, True]
    assert "entry 3: no string 'identifier'" in str(f.entries[2].error)


@pytest.mark.parametrize("text", ["", "   ", "hello", '[{"identifier": "x",', "[" * 100_000])
def test_unreadable_files_raise_a_typed_error(text: str) -> None:
    with pytest.raises(ResponsesFileError):
        read_responses_text(text)


def test_missing_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(ResponsesFileError, match="no such file"):
        read_responses(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"[\xff\xfe]")
    with pytest.raises(ResponsesFileError, match="not UTF-8"):
        read_responses(bad)
