"""Fixtures: an OpenAI key that is obviously fake, stub servers that stop after the test,
and clients whose backoff is tiny so retry tests take milliseconds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from planproof.interface.llm.stub import StubServer
from tests.interface.llm.support import FAKE_KEY


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """OPENAI_API_KEY set to a fake key (the stub accepts any)."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    return FAKE_KEY


@pytest.fixture
def make_stub() -> Iterator[Callable[..., StubServer]]:
    """``make_stub(answer, **options)`` → a started StubServer, stopped at teardown."""
    started: list[StubServer] = []

    def make(answer: Callable[[str], str] = lambda p: f"echo: {p}", **options: Any) -> StubServer:
        stub = StubServer(answer, **options).start()
        started.append(stub)
        return stub

    yield make
    for stub in started:
        stub.stop()
