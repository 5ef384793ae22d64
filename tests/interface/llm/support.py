"""Helpers shared by the LLM tests."""

from __future__ import annotations

from typing import Any

from planproof.interface.llm import LLMClient

FAKE_KEY = "sk-test-planproof-0123456789abcdefXYZ"
"""Shaped like an OpenAI key, so both redaction routes (env value, key pattern) apply."""


def fast_client(**options: Any) -> LLMClient:
    """A client whose retries wait about a millisecond."""
    options.setdefault("backoff", 0.001)
    options.setdefault("max_backoff", 0.01)
    options.setdefault("timeout", 10.0)
    return LLMClient(**options)
