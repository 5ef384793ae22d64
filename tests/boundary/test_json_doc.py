"""The JSON half of the input boundary: any text is a value or a typed error, and no
nesting depth reaches ``json``'s recursion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.boundary import InputError, json_documents, json_lines, loads, read_json
from planproof.boundary.limits import MAX_JSON_DEPTH

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


@settings(deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_a_value_or_a_typed_error(text: str) -> None:
    try:
        loads(text, source="f")
    except InputError as err:
        assert err.kind in {"not-json", "too-deep", "surrogate"}


@settings(deadline=None)
@given(_json)
def test_json_values_round_trip(value: object) -> None:
    assert loads(json.dumps(value), source="f") == value


@settings(deadline=None)
@given(st.integers(min_value=1, max_value=100_000), st.sampled_from(["[", '{"a":']))
def test_deep_nesting_is_refused_with_its_place(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    text = opener * depth + "1" + closer * depth
    if depth <= MAX_JSON_DEPTH:
        assert loads(text, source="f") is not None
        return
    with pytest.raises(InputError) as info:
        loads(text, source="f")
    assert info.value.kind == "too-deep"
    assert f"more than {MAX_JSON_DEPTH} levels" in info.value.message
    col = (MAX_JSON_DEPTH) * len(opener) + 1
    assert info.value.where == f"line 1, column {col}"


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps(["[" * 5000, {"k": "{" * 5000}])
    assert loads(text, source="f") == ["[" * 5000, {"k": "{" * 5000}]


def test_a_lone_surrogate_escape_is_refused_with_its_path() -> None:
    with pytest.raises(InputError) as info:
        loads('[{"a": 1}, {"llm_output": "x\\ud800"}]', source="f")
    assert info.value.kind == "surrogate" and info.value.where == "$[1].llm_output"
    assert loads('["\\ud83d\\ude00"]', source="f") == ["\U0001f600"]  # a pair is fine
    assert loads('["\\ud800"]', source="f", allow_surrogates=True) == ["\ud800"]


def test_syntax_errors_have_line_and_column() -> None:
    with pytest.raises(InputError) as info:
        loads('{\n  "a": 1,\n}', source="f.json")
    assert info.value.kind == "not-json" and info.value.where == "line 3, column 1"
    with pytest.raises(InputError, match="not JSON"):
        loads("1" * 5000, source="f")  # over Python's integer-digits limit


def test_json_lines_read_each_line_on_its_own() -> None:
    lines = list(json_lines('{"a": 1}\n\n[[[\n' + "[" * 300 + "\n", source="f"))
    assert [ln.line for ln in lines] == [1, 3, 4]
    assert lines[0].value == {"a": 1} and lines[0].error is None
    assert lines[1].error is not None and lines[1].error.kind == "not-json"
    assert lines[2].error is not None and lines[2].error.kind == "too-deep"
    assert lines[2].error.where == f"line 4, line 1, column {MAX_JSON_DEPTH + 1}"
    with pytest.raises(InputError, match="3 lines, over the limit of 2"):
        list(json_lines("1\n2\n3", source="f", max_lines=2))


def test_json_documents_reads_a_value_a_list_or_json_lines() -> None:
    assert json_documents('{"a": 1}', source="f") == [{"a": 1}]
    assert json_documents("[1, 2]", source="f") == [1, 2]
    assert json_documents('{"a": 1}\n{"a": 2}\n', source="f") == [{"a": 1}, {"a": 2}]
    with pytest.raises(InputError, match="line 2"):
        json_documents('{"a": 1}\n{"a": \n', source="f")
    with pytest.raises(InputError, match="not JSON"):
        json_documents("{", source="f")


def test_read_json_on_deep_binary_and_good_files(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(InputError, match="levels deep"):
        read_json(deep)
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\x00\x01\x02")
    with pytest.raises(InputError, match="binary"):
        read_json(binary)
    good = tmp_path / "g.json"
    good.write_text('\ufeff{"a": [1]}', encoding="utf-8")
    assert read_json(good) == {"a": [1]}
