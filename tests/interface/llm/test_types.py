"""Request keys, data round-trips, LLMError and redaction."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from planproof.interface.llm import (
    CACHE_FORMAT,
    ERROR_KINDS,
    Completion,
    LLMError,
    Request,
    Usage,
    describe_error,
)
from planproof.interface.llm.types import REDACTED, redact, secrets_from_env

requests = st.builds(
    Request,
    model=st.sampled_from(["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku", "openai/stub"]),
    prompt=st.text(max_size=200),
    temperature=st.sampled_from([0.0, 0.2, 0.7, 1.0]),
    max_tokens=st.none() | st.integers(1, 4096),
    top_p=st.none() | st.sampled_from([0.5, 0.9, 1.0]),
    seed=st.none() | st.integers(-(2**31), 2**31),
)


@settings(max_examples=100, deadline=None)
@given(requests)
def test_key_is_a_stable_function_of_the_fields(request: Request) -> None:
    twin = Request.from_dict(json.loads(json.dumps(request.to_dict())))
    assert twin == request
    assert twin.key() == request.key()
    assert len(request.key()) == 64
    int(request.key(), 16)


@settings(max_examples=150, deadline=None)
@given(requests, requests)
def test_distinct_requests_have_distinct_keys(a: Request, b: Request) -> None:
    assume(a != b)
    assert a.key() != b.key()


def test_key_follows_the_documented_recipe() -> None:
    request = Request("openai/gpt-4o-mini", "Put the cup on the table.", max_tokens=256)
    canonical = json.dumps(
        {"cache_format": CACHE_FORMAT, **request.to_dict()},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert request.key() == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    ("changed", "value"),
    [
        ("model", "openai/gpt-4o"),
        ("prompt", "Put the cup on the table"),
        ("temperature", 0.5),
        ("max_tokens", 100),
        ("top_p", 0.9),
        ("seed", 7),
    ],
)
def test_every_field_takes_part_in_the_key(changed: str, value: Any) -> None:
    base = Request("openai/gpt-4o-mini", "Put the cup on the table.")
    assert Request(**{**base.to_dict(), changed: value}).key() != base.key()


def test_equal_numbers_make_equal_keys() -> None:
    a = Request("m/x", "p", temperature=0)
    b = Request("m/x", "p", temperature=-0.0)
    c = Request("m/x", "p", temperature=0.0, top_p=1)
    d = Request("m/x", "p", top_p=1.0)
    assert a.key() == b.key() == Request("m/x", "p").key()
    assert c.key() == d.key()


def test_lone_surrogate_prompt_has_a_key() -> None:
    assert Request("m/x", "bad \ud800 text").key() != Request("m/x", "bad  text").key()


@pytest.mark.parametrize(
    "fields",
    [
        {"model": ""},
        {"model": 3},
        {"prompt": None},
        {"temperature": -0.1},
        {"temperature": float("nan")},
        {"temperature": "0"},
        {"max_tokens": 0},
        {"max_tokens": True},
        {"top_p": 0.0},
        {"top_p": 1.5},
        {"seed": 1.5},
        {"seed": True},
    ],
)
def test_malformed_requests_are_rejected(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        Request(**{"model": "m/x", "prompt": "p", **fields})


@pytest.mark.parametrize(
    "data", [[], {"prompt": "p"}, {"model": "m", "prompt": "p", "api_key": "x"}]
)
def test_request_from_bad_dict_is_a_value_error(data: Any) -> None:
    with pytest.raises(ValueError):
        Request.from_dict(data)


completions = st.builds(
    Completion,
    text=st.text(),
    usage=st.builds(Usage, st.integers(0, 10**9), st.integers(0, 10**9)),
    cost_usd=st.none() | st.floats(0, 1e6, allow_nan=False),
    attempts=st.integers(1, 20),
    seconds=st.floats(0, 1e5, allow_nan=False),
    cached=st.booleans(),
    finish_reason=st.none() | st.sampled_from(["stop", "length", "content_filter"]),
)


@settings(max_examples=100, deadline=None)
@given(completions)
def test_completion_dict_round_trip(completion: Completion) -> None:
    assert Completion.from_dict(json.loads(json.dumps(completion.to_dict()))) == completion


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {"text": 3},
        {"text": "x", "usage": {"prompt_tokens": -1}},
        {"text": "", "usage": 5},
    ],
)
def test_completion_from_bad_dict_is_a_value_error(data: Any) -> None:
    with pytest.raises(ValueError):
        Completion.from_dict(data)


def test_llm_error_is_typed_and_redacted() -> None:
    error = LLMError("auth", "Incorrect API key provided: sk-proj-abcdefghijklmnop1234", 1)
    assert error.kind == "auth"
    assert error.attempts == 1
    assert "sk-proj" not in error.message
    assert "sk-proj" not in str(error)
    assert "sk-proj" not in repr(error)
    assert error.to_dict() == {"kind": "auth", "message": error.message, "attempts": 1}
    with pytest.raises(ValueError, match="unknown LLM error kind"):
        LLMError("oops", "x")
    assert set(ERROR_KINDS) >= {"auth", "rate-limit", "timeout", "empty", "provider"}


# --- redaction ---------------------------------------------------------------------------

SHAPED_KEYS = [
    "sk-abcdefghijklmnopqrstuvwxyz012345",
    "sk-proj-AbCdEf0123456789_-xyzXYZ",
    "sk-ant-api03-AbCdEfGhIjKlMnOp-QrStUv",
    "AIzaSyA1234567890abcdefghijklmnopqrs",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz",
    "gsk_0123456789abcdefghijABCD",
    "AKIAABCDEFGHIJKLMNOP",
]


@pytest.mark.parametrize("key", SHAPED_KEYS)
def test_key_shaped_strings_are_redacted(key: str) -> None:
    out = redact(f"Error code: 401 - Incorrect API key provided: {key}. See docs.")
    assert key not in out
    assert REDACTED in out
    assert out.startswith("Error code: 401 - Incorrect API key provided: ")


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("headers={'Authorization': 'Bearer abc.def-123456'}", "abc.def-123456"),
        ("request failed: api_key=hunter2hunter2 rejected", "hunter2hunter2"),
        ('{"x-api-key": "plainsecretvalue"}', "plainsecretvalue"),
        ("password: correcthorsebattery", "correcthorsebattery"),
    ],
)
def test_named_secrets_are_redacted(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert REDACTED in out


def test_values_of_credential_variables_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROVIDER_API_KEY", "no-recognisable-shape-42")
    monkeypatch.setenv("HOME_DIRECTORY_LABEL", "no-recognisable-shape-43")
    assert "no-recognisable-shape-42" in secrets_from_env()
    out = redact("denied for no-recognisable-shape-42 (and no-recognisable-shape-43)")
    assert "no-recognisable-shape-42" not in out
    assert "no-recognisable-shape-43" in out  # not a credential variable: kept


def test_ordinary_text_is_left_alone() -> None:
    text = "walk_to(kitchen.1); grab(cup.2) -- task sk-1 failed, see keyboard.3 and token list"
    assert redact(text) == text


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=60),
    st.sampled_from(SHAPED_KEYS),
    st.text(alphabet=" \n\t.,;:'\"()[]{}", max_size=3),
    st.text(max_size=60),
)
def test_a_key_anywhere_in_a_message_is_redacted(
    before: str, key: str, sep: str, after: str
) -> None:
    out = redact(before + " " + key + sep + after)
    assert key not in out


def test_describe_error_redacts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-1234567890")
    text = describe_error(RuntimeError("failed with tok-1234567890 and sk-abcdefghijklmnop"))
    assert text.startswith("RuntimeError: failed with ")
    assert "tok-1234567890" not in text
    assert "sk-abcdefghijklmnop" not in text
