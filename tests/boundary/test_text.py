"""The decoding half of the input boundary: every byte string is text or a typed error."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.boundary import InputError, check_text, decode, read_text


@settings(deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_decode_to_text_or_a_typed_error(data: bytes) -> None:
    try:
        text = decode(data, source="f")
    except InputError as err:
        assert err.kind in {"binary", "not-utf8", "wrong-encoding"}
        assert err.source == "f" and err.where and err.where.startswith("byte ")
    else:
        text.encode("utf-8")  # never holds a lone surrogate


@settings(deadline=None)
@given(st.text(max_size=500))
def test_utf8_text_round_trips(text: str) -> None:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return
    if "\0" in text:
        with pytest.raises(InputError):
            decode(data, source="f")
    else:
        assert decode(data, source="f") == text.removeprefix("\ufeff")


def test_utf8_bom_is_dropped_and_wide_encodings_are_named() -> None:
    assert decode(codecs.BOM_UTF8 + b'{"a": 1}', source="f") == '{"a": 1}'
    for enc, name in (("utf-16", "UTF-16"), ("utf-32", "UTF-32"), ("utf-16-le", "UTF-16")):
        with pytest.raises(InputError, match=name) as info:
            decode('{"a": 1}'.encode(enc), source="f")
        assert info.value.kind == "wrong-encoding"


def test_invalid_utf8_names_the_byte_and_line() -> None:
    with pytest.raises(InputError) as info:
        decode(b"ok\nfine \xc3( here", source="f.json")
    assert info.value.kind == "not-utf8"
    assert info.value.where == "byte 8, line 2, column 6"
    assert "f.json (byte 8, line 2, column 6): not UTF-8" in str(info.value)


def test_check_text_refuses_surrogates_and_long_text() -> None:
    with pytest.raises(InputError, match="lone surrogate U\\+D800") as info:
        check_text("ab\ncd\ud800", source="answer")
    assert info.value.where == "line 2, column 3"
    with pytest.raises(InputError, match="11 characters long, over the limit of 10"):
        check_text("x" * 11, source="answer", max_chars=10)
    with pytest.raises(InputError, match="expected text"):
        check_text(b"x", source="answer")
    assert check_text("fine", source="answer") == "fine"


def test_read_text_refuses_what_is_not_a_readable_file(tmp_path: Path) -> None:
    plain = tmp_path / "a.txt"
    plain.write_text("hello", encoding="utf-8")
    assert read_text(plain) == "hello"
    cases = {
        tmp_path: "not-a-file",
        tmp_path / "missing": "not-found",
        plain / "inside": "not-a-file",
    }
    for path, kind in cases.items():
        with pytest.raises(InputError) as info:
            read_text(path)
        assert info.value.kind == kind and info.value.source == str(path)
    with pytest.raises(InputError, match="5 bytes, over the limit of 4 bytes"):
        read_text(plain, max_bytes=4)
    for device in ("/dev/null", "/dev/zero"):
        with pytest.raises(InputError, match="is a character device, not a regular file"):
            read_text(device, max_bytes=1000)
