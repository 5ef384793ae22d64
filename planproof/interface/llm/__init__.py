"""Calling LLMs: requests and completions as data, a SQLite response cache, and a client
that reaches any provider through litellm (imported only when a call is made).

``planproof.interface.llm.stub`` holds a loopback OpenAI-compatible server for tests.
See ``docs/llm-client.md``.
"""

from planproof.interface.llm.cache import CacheError, ResponseCache, default_cache_path
from planproof.interface.llm.client import (
    LLMClient,
    describe_error,
    load_litellm,
    missing_environment,
)
from planproof.interface.llm.types import (
    CACHE_FORMAT,
    ERROR_KINDS,
    Completion,
    LLMError,
    LLMErrorKind,
    Request,
    Usage,
    redact,
)

__all__ = [
    "CACHE_FORMAT",
    "ERROR_KINDS",
    "CacheError",
    "Completion",
    "LLMClient",
    "LLMError",
    "LLMErrorKind",
    "Request",
    "ResponseCache",
    "Usage",
    "default_cache_path",
    "describe_error",
    "load_litellm",
    "missing_environment",
    "redact",
]
