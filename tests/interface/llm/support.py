"""Helpers shared by the LLM tests."""

from __future__ import annotations

from typing import Any

from planproof.interface.llm import LLMClient

FAKE_KEY = "sk-test-planproof-0123456789abcdefXYZ"
"""Shaped like an OpenAI key, so both redaction routes (env value, key pattern) apply."""


class WaitRecorder(LLMClient):
    """The real client, which also keeps every wait it chose between attempts
    (attempt, the provider's Retry-After hint, seconds): tests check the waits
    themselves, not a wall clock that a loaded machine stretches."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.waits: list[tuple[int, float | None, float]] = []

    def retry_delay(self, attempt: int, hint: float | None = None) -> float:
        delay = super().retry_delay(attempt, hint)
        self.waits.append((attempt, hint, delay))
        return delay


def fast_client(**options: Any) -> LLMClient:
    """A client whose retries wait about a millisecond."""
    options.setdefault("backoff", 0.001)
    options.setdefault("max_backoff", 0.01)
    options.setdefault("timeout", 10.0)
    return LLMClient(**options)
