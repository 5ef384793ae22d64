"""The client through litellm's own offline ``mock_response`` facility: answers, usage,
cost, the retry policy per error kind, and redaction of keys in provider errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.interface.llm import LLMClient, LLMError, Request, load_litellm, missing_environment
from tests.interface.llm.support import FAKE_KEY, WaitRecorder, fast_client

GPT = "openai/gpt-4o-mini"  # priced in litellm's bundled cost map


def _complete(client: LLMClient, request: Request) -> Any:
    return asyncio.run(client.complete(request))


def _fails(client: LLMClient, request: Request) -> LLMError:
    with pytest.raises(LLMError) as info:
        _complete(client, request)
    return info.value


def test_mock_answer_usage_and_cost() -> None:
    client = fast_client(extra={"mock_response": "walk_to(kitchen.1)"})
    completion = _complete(client, Request(GPT, "Plan a breakfast."))
    assert completion.text == "walk_to(kitchen.1)"
    assert completion.attempts == 1
    assert completion.cached is False
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens > 0
    litellm = load_litellm()
    expected = litellm.cost_per_token(
        model="gpt-4o-mini",
        prompt_tokens=completion.usage.prompt_tokens,
        completion_tokens=completion.usage.completion_tokens,
    )
    assert completion.cost_usd == pytest.approx(sum(expected))
    assert completion.cost_usd > 0
    assert completion.seconds >= 0
    assert completion.finish_reason == "stop"


def test_unknown_model_price_is_none_not_zero() -> None:
    client = fast_client(extra={"mock_response": "ok"})
    completion = _complete(client, Request("openai/planproof-no-such-model", "p"))
    assert completion.text == "ok"
    assert completion.cost_usd is None


def test_a_missing_key_is_an_auth_error_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # no mock_response: the openai client refuses before any network access
    client = fast_client(api_base="http://127.0.0.1:9/v1")
    error = _fails(client, Request("openai/stub", "p"))
    assert error.kind == "auth"
    assert error.attempts == 1


@pytest.mark.parametrize(
    ("mock", "kind"),
    [
        ("litellm.RateLimitError", "rate-limit"),
        ("litellm.InternalServerError", "provider"),
    ],
)
def test_transient_errors_are_retried_until_the_budget_is_spent(mock: str, kind: str) -> None:
    client = fast_client(max_retries=3, extra={"mock_response": mock})
    error = _fails(client, Request(GPT, "p"))
    assert error.kind == kind
    assert error.attempts == 4
    assert mock in error.message  # litellm's own exception text is kept, redacted


def test_timeouts_are_retried() -> None:
    client = fast_client(max_retries=2, timeout=0.01, extra={"mock_timeout": True})
    error = _fails(client, Request(GPT, "p"))
    assert error.kind == "timeout"
    assert error.attempts == 3


def test_no_retries_means_one_attempt() -> None:
    client = fast_client(max_retries=0, extra={"mock_response": "litellm.RateLimitError"})
    assert _fails(client, Request(GPT, "p")).attempts == 1


def test_context_window_errors_are_not_retried() -> None:
    client = fast_client(extra={"mock_response": "litellm.ContextWindowExceededError"})
    error = _fails(client, Request(GPT, "p"))
    assert error.kind == "context-window"
    assert error.attempts == 1


def _auth_error() -> Exception:
    litellm = load_litellm()
    return litellm.AuthenticationError(  # type: ignore[no-any-return]
        message=f"Incorrect API key provided: {FAKE_KEY}. Find your key at https://x",
        llm_provider="openai",
        model="gpt-4o-mini",
    )


def test_auth_errors_fail_at_once_and_never_show_the_key(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    client = fast_client(extra={"mock_response": _auth_error()})
    error = _fails(client, Request(GPT, "p"))
    assert error.kind == "auth"
    assert error.attempts == 1
    assert "Incorrect API key provided" in error.message
    for shown in (error.message, str(error), repr(error), str(error.to_dict())):
        assert FAKE_KEY not in shown
        assert FAKE_KEY[:12] not in shown
    assert error.__cause__ is None
    assert error.__suppress_context__ is True  # tracebacks do not print the provider's error
    out, err = capfd.readouterr()
    assert FAKE_KEY not in out + err


def test_a_key_given_in_extra_is_redacted_whatever_its_shape() -> None:
    secret = "plain-looking-credential-123"
    litellm = load_litellm()
    boom = litellm.BadRequestError(
        message=f"invalid request for credential {secret}", model="m", llm_provider="openai"
    )
    client = fast_client(extra={"mock_response": boom, "api_key": secret})
    error = _fails(client, Request(GPT, "p"))
    assert error.kind == "bad-request"
    assert secret not in error.message


def test_a_plain_exception_with_a_key_becomes_a_redacted_provider_error() -> None:
    client = fast_client(
        max_retries=1, extra={"mock_response": ValueError(f"upstream said {FAKE_KEY}")}
    )
    error = _fails(client, Request(GPT, "p"))
    assert error.kind == "provider"  # litellm maps it to a 500: retried once
    assert error.attempts == 2
    assert FAKE_KEY not in error.message


def test_backoff_waits_between_attempts() -> None:
    client = WaitRecorder(
        max_retries=2,
        backoff=0.1,
        max_backoff=1.0,
        extra={"mock_response": "litellm.RateLimitError"},
    )
    error = _fails(client, Request(GPT, "p"))
    assert error.attempts == 3
    # one wait after each failed attempt but the last, within [step/2, step]
    (a1, _, d1), (a2, _, d2) = client.waits
    assert (a1, a2) == (1, 2) and 0.05 <= d1 <= 0.1 and 0.1 <= d2 <= 0.2


@settings(max_examples=150, deadline=None)
@given(
    backoff=st.floats(0, 10),
    max_backoff=st.floats(0, 100),
    attempt=st.integers(1, 40),
    hint=st.none() | st.floats(0, 1000),
)
def test_retry_delay_is_bounded(
    backoff: float, max_backoff: float, attempt: int, hint: float | None
) -> None:
    client = LLMClient(backoff=backoff, max_backoff=max_backoff)
    delay = client.retry_delay(attempt, hint)
    step = min(max_backoff, backoff * 2.0 ** (attempt - 1))
    assert delay <= max(step, min(hint or 0.0, max_backoff)) + 1e-9
    assert delay >= step / 2 - 1e-9
    if hint is not None:
        assert delay >= min(hint, max_backoff) - 1e-9
    assert delay <= max_backoff + 1e-9


def test_arguments_omit_unset_parameters_and_pass_set_ones() -> None:
    client = LLMClient(api_base="http://127.0.0.1:1/v1", timeout=7.0)
    args = client._arguments(Request(GPT, "hello", temperature=0.3, seed=4))
    assert args["messages"] == [{"role": "user", "content": "hello"}]
    assert args["temperature"] == 0.3
    assert args["seed"] == 4
    assert args["api_base"] == "http://127.0.0.1:1/v1"
    assert args["num_retries"] == 0
    assert "max_tokens" not in args
    assert "top_p" not in args


@pytest.mark.parametrize(
    "options",
    [{"timeout": 0}, {"max_retries": -1}, {"backoff": -1.0}, {"max_backoff": -0.5}],
)
def test_bad_client_options_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        LLMClient(**options)


def test_missing_environment_names_the_unset_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    assert missing_environment("openai/gpt-4o-mini") == ["OPENAI_API_KEY"]
    assert missing_environment("anthropic/claude-3-5-haiku-20241022") == ["ANTHROPIC_API_KEY"]
    # a local server: no endpoint variable needed; vLLM's provider needs no key at all
    assert missing_environment("ollama/llama3", "http://127.0.0.1:11434") == []
    assert missing_environment("hosted_vllm/llama-3-8b", "http://127.0.0.1:8000/v1") == []
    # the OpenAI SDK refuses to run without some key, even for a local base
    assert missing_environment("openai/stub", "http://127.0.0.1:1/v1") == ["OPENAI_API_KEY"]
    monkeypatch.setenv("OPENAI_API_KEY", "anything")
    assert missing_environment("openai/gpt-4o-mini") == []
