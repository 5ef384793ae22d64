"""The client through the real provider path (litellm → openai SDK → HTTP) against the
loopback stub: retries that succeed, Retry-After, errors per HTTP status, timeouts,
redaction of a key echoed by the server, and concurrency."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from planproof.interface.llm import Completion, LLMClient, LLMError, Request, ResponseCache
from planproof.interface.llm.stub import StubServer
from tests.interface.llm.support import WaitRecorder, fast_client

MakeStub = Callable[..., StubServer]
STUB = "openai/stub"


def _run(client: LLMClient, request: Request) -> Completion:
    return asyncio.run(client.complete(request))


def _fails(client: LLMClient, request: Request) -> LLMError:
    with pytest.raises(LLMError) as info:
        _run(client, request)
    return info.value


def test_answer_usage_and_unknown_cost(openai_key: str, make_stub: MakeStub) -> None:
    stub = make_stub(lambda prompt: prompt.upper())
    completion = _run(fast_client(api_base=stub.url), Request(STUB, "grab the red cup"))
    assert completion.text == "GRAB THE RED CUP"
    assert completion.usage.prompt_tokens == 4  # the stub counts words
    assert completion.usage.completion_tokens == 4
    assert completion.cost_usd is None  # litellm has no price for "stub"
    assert completion.attempts == 1
    assert completion.finish_reason == "stop"
    assert stub.requests == 1
    assert stub.prompts == ["grab the red cup"]


def test_empty_answer_is_returned_not_raised(openai_key: str, make_stub: MakeStub) -> None:
    stub = make_stub(lambda prompt: "")
    completion = _run(fast_client(api_base=stub.url), Request(STUB, "p"))
    assert completion.text == ""
    assert completion.attempts == 1


@pytest.mark.parametrize(
    ("status", "kind"), [(429, "rate-limit"), (500, "provider"), (503, "provider")]
)
def test_transient_failures_then_success(
    openai_key: str, make_stub: MakeStub, status: int, kind: str
) -> None:
    stub = make_stub(fail_first=2, status=status)
    completion = _run(fast_client(api_base=stub.url, max_retries=5), Request(STUB, "hello"))
    assert completion.text == "echo: hello"
    assert completion.attempts == 3
    assert stub.requests == 3  # litellm and the openai SDK did not retry on their own
    stub2 = make_stub(fail_first=10, status=status)
    error = _fails(fast_client(api_base=stub2.url, max_retries=2), Request(STUB, "hello"))
    assert error.kind == kind
    assert error.attempts == 3
    assert stub2.requests == 3


@pytest.mark.parametrize(("status", "kind"), [(400, "bad-request"), (404, "bad-request")])
def test_permanent_failures_are_not_retried(
    openai_key: str, make_stub: MakeStub, status: int, kind: str
) -> None:
    stub = make_stub(fail_first=1, status=status)
    error = _fails(fast_client(api_base=stub.url, max_retries=5), Request(STUB, "p"))
    assert error.kind == kind
    assert error.attempts == 1
    assert stub.requests == 1


def test_retry_after_is_honoured(openai_key: str, make_stub: MakeStub) -> None:
    stub = make_stub(fail_first=2, retry_after=0.2)
    client = WaitRecorder(api_base=stub.url, max_retries=3, backoff=0.001, max_backoff=5.0)
    completion = _run(client, Request(STUB, "p"))
    assert completion.attempts == 3
    # two waits, each raised to the hinted 0.2 s (backoff alone: about a millisecond)
    assert [(a, h) for a, h, _ in client.waits] == [(1, 0.2), (2, 0.2)]
    assert all(d >= 0.2 for _, _, d in client.waits)


def test_timeouts_are_retried_then_reported(openai_key: str, make_stub: MakeStub) -> None:
    stub = make_stub(delay=5.0)
    client = fast_client(api_base=stub.url, max_retries=1, timeout=0.2)
    error = _fails(client, Request(STUB, "p"))
    assert error.kind == "timeout"
    assert error.attempts == 2
    assert stub.requests == 2  # the 5 s answers were not waited for: two attempts, no more


def test_a_refused_connection_is_a_connection_error(openai_key: str) -> None:
    with StubServer(lambda p: p) as stub:
        url = stub.url  # a port that was free a moment ago and is closed now
    error = _fails(fast_client(api_base=url, max_retries=1), Request(STUB, "p"))
    assert error.kind == "connection"
    assert error.attempts == 2


def test_a_key_echoed_by_the_server_is_in_no_error_log_or_cache_row(
    monkeypatch: pytest.MonkeyPatch,
    make_stub: MakeStub,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    wrong = "sk-wrong-key-" + "Q" * 24
    monkeypatch.setenv("OPENAI_API_KEY", wrong)
    stub = make_stub(api_key="the-right-key")
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="LiteLLM")  # litellm logs request details here
    error = _fails(fast_client(api_base=stub.url), Request(STUB, "p"))
    assert error.kind == "auth"
    assert error.attempts == 1
    assert "Incorrect API key provided" in error.message  # the server did quote it...
    for shown in (error.message, str(error), repr(error)):
        assert wrong not in shown  # ...but we do not
        assert "Q" * 8 not in shown
    out, err = capfd.readouterr()
    assert wrong not in out + err
    assert wrong not in caplog.text
    # the right key works, and the cached row holds neither key
    monkeypatch.setenv("OPENAI_API_KEY", "the-right-key")
    request = Request(STUB, "p")
    completion = _run(fast_client(api_base=stub.url), request)
    assert completion.text == "echo: p"
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        cache.put(request, completion)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("c.sqlite3*"))
    assert b"the-right-key" not in raw
    assert stub.url.encode() not in raw


def test_concurrent_calls_overlap(openai_key: str, make_stub: MakeStub) -> None:
    delay, calls = 0.25, 20
    stub = make_stub(delay=delay)
    client = fast_client(api_base=stub.url)

    async def everything() -> list[Completion]:
        return await asyncio.gather(
            *(client.complete(Request(STUB, f"t{i}")) for i in range(calls))
        )

    _run(client, Request(STUB, "warm-up"))
    completions = asyncio.run(everything())
    assert sorted(c.text for c in completions) == sorted(f"echo: t{i}" for i in range(calls))
    assert stub.requests == calls + 1
    assert stub.max_in_flight >= calls // 2  # the requests really were in the air together


def test_a_semaphore_bounds_the_calls_in_flight(openai_key: str, make_stub: MakeStub) -> None:
    delay, calls, limit = 0.1, 20, 5
    stub = make_stub(delay=delay)
    client = fast_client(api_base=stub.url)

    async def bounded() -> list[Completion]:
        gate = asyncio.Semaphore(limit)

        async def one(i: int) -> Completion:
            async with gate:
                return await client.complete(Request(STUB, f"t{i}"))

        return await asyncio.gather(*(one(i) for i in range(calls)))

    completions = asyncio.run(bounded())
    assert len(completions) == calls
    assert 2 <= stub.max_in_flight <= limit


def test_complete_cached_calls_once_and_never_stores_failures(
    openai_key: str, make_stub: MakeStub, tmp_path: Path
) -> None:
    stub = make_stub(fail_first=1, status=503)
    client = fast_client(api_base=stub.url, max_retries=0)
    requests = [Request(STUB, f"task {i}") for i in range(3)]
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        with pytest.raises(LLMError):
            asyncio.run(client.complete_cached(requests[0], cache))
        assert len(cache) == 0  # the failure was not cached
        first = [asyncio.run(client.complete_cached(r, cache)) for r in requests]
        assert stub.requests == 4
        assert [c.cached for c in first] == [False] * 3
    with ResponseCache(tmp_path / "c.sqlite3") as cache:  # a rerun: no call at all
        again = [asyncio.run(client.complete_cached(r, cache)) for r in requests]
    assert stub.requests == 4
    assert [c.cached for c in again] == [True] * 3
    expected = [f"echo: task {i}" for i in range(3)]
    assert [c.text for c in again] == [c.text for c in first] == expected
