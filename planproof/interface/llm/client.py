"""Calling any LLM provider through litellm, with retries, accounting and redaction.

litellm is imported lazily, inside :func:`load_litellm`: the import takes seconds, and
commands that never call a model must not pay it. Before the import, litellm's start-up
downloads (model cost map and other configuration files fetched from GitHub) are turned
off: they would hang on machines that only reach package registries, and the bundled
copies are enough. Its "Give Feedback" banners are silenced.

Retries are ours, not litellm's (``num_retries=0``, ``max_retries=0``): one place decides
what is transient, counts attempts and waits (exponential backoff with jitter, at least
the provider's ``Retry-After``). Authentication, bad requests and context-window errors
fail at once. Every error message is redacted before it leaves this module, and the
provider's exception is not chained onto :class:`LLMError` (its text may hold the key).
"""

from __future__ import annotations

import asyncio
import email.utils
import importlib
import logging
import math
import os
import random
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from planproof.interface.llm.cache import ResponseCache
from planproof.interface.llm.types import Completion, LLMError, Request, Usage, redact

LOCAL_CONFIG_ENV = (
    "LITELLM_LOCAL_MODEL_COST_MAP",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS",
    "LITELLM_LOCAL_AUTOROUTER_PRESETS",
    "LITELLM_LOCAL_BLOG_POSTS",
    "LITELLM_LOCAL_POLICY_TEMPLATES",
)
"""Environment switches that make litellm use its bundled files instead of fetching them."""

_MAX_MESSAGE = 2000
_MISSING_KEY = re.compile(
    r"(?i)missing credentials|no api[ _]?key|api[ _]?key (?:is )?(?:not (?:set|found)|missing)"
    r"|api_key client option must be set"
)


def load_litellm() -> Any:
    """Import and configure litellm: no start-up downloads, no banners, no callbacks added,
    its loggers at WARNING unless ``LITELLM_LOG`` asks otherwise.

    Typed ``Any`` on purpose: litellm's own annotations are vast and loose, and the few
    attributes read here are checked at run time instead."""
    for name in LOCAL_CONFIG_ENV:
        os.environ.setdefault(name, "True")
    litellm: Any = importlib.import_module("litellm")
    litellm.suppress_debug_info = True
    litellm.telemetry = False  # absent in recent versions; harmless there
    if "LITELLM_LOG" not in os.environ:
        # litellm's loggers inherit the root level: an application turning on DEBUG for
        # itself would get every request body (prompts) from litellm too.
        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
            logger = logging.getLogger(name)
            if logger.level == logging.NOTSET:
                logger.setLevel(logging.WARNING)
    return litellm


def _classify(litellm: Any, exc: BaseException) -> tuple[str, bool]:
    """(LLMError kind, whether a retry may help) for an exception from ``acompletion``."""
    checks: tuple[tuple[str, str, bool], ...] = (
        # order matters: subclasses before their bases
        ("ContextWindowExceededError", "context-window", False),
        ("ContentPolicyViolationError", "content-filter", False),
        ("AuthenticationError", "auth", False),
        ("PermissionDeniedError", "auth", False),
        ("RateLimitError", "rate-limit", True),
        ("Timeout", "timeout", True),
        ("APIConnectionError", "connection", True),
        ("ServiceUnavailableError", "provider", True),
        ("BadGatewayError", "provider", True),
        ("InternalServerError", "provider", True),
        ("BadRequestError", "bad-request", False),
        ("NotFoundError", "bad-request", False),
        ("UnprocessableEntityError", "bad-request", False),
    )
    for name, kind, retry in checks:
        cls = getattr(litellm, name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            if kind == "provider":  # litellm maps some local failures to 500s
                if _MISSING_KEY.search(str(exc)):
                    return "auth", False
                if "connection error" in str(exc).lower():
                    return "connection", True
            return kind, retry
    if isinstance(exc, TimeoutError):
        return "timeout", True
    if isinstance(exc, ConnectionError):
        return "connection", True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if status == 429:
            return "rate-limit", True
        if status == 408:
            return "timeout", True
        if status in (401, 403):
            return "auth", False
        if status >= 500:
            return "provider", True
        if status >= 400:
            return "bad-request", False
    return "provider", False


def _retry_after(exc: BaseException) -> float | None:
    """The provider's wait hint in seconds (``retry-after-ms`` or ``Retry-After``), if any."""
    sources = (
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    )
    for headers in sources:
        if not isinstance(headers, Mapping):
            continue
        lower = {str(k).lower(): str(v) for k, v in headers.items()}
        try:
            if "retry-after-ms" in lower:
                return max(0.0, float(lower["retry-after-ms"]) / 1000.0)
            if "retry-after" in lower:
                return max(0.0, float(lower["retry-after"]))
        except ValueError:
            pass
        if "retry-after" in lower:  # the other form: an HTTP date
            try:
                when = email.utils.parsedate_to_datetime(lower["retry-after"])
            except (TypeError, ValueError):
                continue
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            return max(0.0, (when - datetime.now(UTC)).total_seconds())
    return None


def _text_of(response: Any) -> tuple[str, str | None]:
    """(content of the first choice or "", its finish_reason)."""
    choices = getattr(response, "choices", None) or []
    if not choices:
        return "", None
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    finish = getattr(choice, "finish_reason", None)
    return (content if isinstance(content, str) else ""), (None if finish is None else str(finish))


def _usage_of(response: Any) -> Usage:
    usage = getattr(response, "usage", None)

    def count(name: str) -> int:
        value = getattr(usage, name, None)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    return Usage(count("prompt_tokens"), count("completion_tokens"))


def _cost_of(litellm: Any, response: Any) -> float | None:
    """litellm's price of the call, or None when it does not know the model."""
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:
        return None
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost):
        return None
    return float(cost)


class LLMClient:
    """Sends :class:`Request` objects to their provider.

    ``api_base`` points at another endpoint (vLLM, Ollama, a proxy, the test stub);
    ``timeout`` bounds each attempt; ``max_retries`` transient failures are retried,
    waiting ``backoff * 2**(n-1)`` seconds (capped at ``max_backoff``, with jitter, never
    less than the provider's Retry-After); ``extra`` is passed through to
    ``litellm.acompletion`` (``mock_response=...`` in tests, ``drop_params=True`` for
    models that reject some parameter, ``api_key=...``, which is redacted from errors).
    Concurrency is the caller's: ``complete`` may be awaited many times at once.
    """

    def __init__(
        self,
        *,
        api_base: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 5,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if backoff < 0 or max_backoff < 0:
            raise ValueError("backoff and max_backoff must be >= 0")
        self.api_base = api_base
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.extra: dict[str, Any] = dict(extra or {})
        self._random = random.Random()
        secret = self.extra.get("api_key")
        self._secrets: tuple[str, ...] = (secret,) if isinstance(secret, str) else ()

    def retry_delay(self, attempt: int, hint: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based): half the
        exponential step plus a random half (jitter spreads concurrent retries), raised to
        the provider's hint, all capped at ``max_backoff``."""
        step = min(self.max_backoff, self.backoff * 2.0 ** (attempt - 1))
        delay = step / 2 + self._random.uniform(0, step / 2)
        if hint is not None:
            delay = max(delay, min(hint, self.max_backoff))
        return delay

    def _arguments(self, request: Request) -> dict[str, Any]:
        args: dict[str, Any] = {
            "model": request.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": request.temperature,
            "timeout": self.timeout,
            "num_retries": 0,
            "max_retries": 0,
        }
        optional = {
            "max_tokens": request.max_tokens,
            "top_p": request.top_p,
            "seed": request.seed,
            "api_base": self.api_base,
        }
        args.update({k: v for k, v in optional.items() if v is not None})
        args.update(self.extra)
        return args

    def _error(self, kind: str, exc: BaseException, attempts: int) -> LLMError:
        text = str(exc).strip() or type(exc).__name__
        if len(text) > _MAX_MESSAGE:
            text = text[:_MAX_MESSAGE] + "…"
        return LLMError(kind, text, attempts, secrets=self._secrets)

    async def complete(self, request: Request) -> Completion:
        """The provider's answer to ``request``; :class:`LLMError` when it fails for good.
        An empty answer is returned (``text=""``), not raised."""
        litellm = load_litellm()
        arguments = self._arguments(request)
        # A guard above litellm's own timeout, for providers whose client ignores it.
        guard = self.timeout * 1.5 + 5.0
        attempts = 0
        while True:
            attempts += 1
            started = time.perf_counter()
            try:
                response = await asyncio.wait_for(litellm.acompletion(**arguments), guard)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                kind, retryable = _classify(litellm, exc)
                if not retryable or attempts > self.max_retries:
                    raise self._error(kind, exc, attempts) from None
                await asyncio.sleep(self.retry_delay(attempts, _retry_after(exc)))
                continue
            seconds = time.perf_counter() - started
            text, finish = _text_of(response)
            return Completion(
                text=text,
                usage=_usage_of(response),
                cost_usd=_cost_of(litellm, response),
                attempts=attempts,
                seconds=seconds,
                cached=False,
                finish_reason=finish,
            )

    async def complete_cached(self, request: Request, cache: ResponseCache) -> Completion:
        """The cached answer if there is one, else :meth:`complete` and store it at once.
        A failure raises :class:`LLMError` and stores nothing, so a rerun retries it."""
        found = cache.get(request)
        if found is not None:
            return found
        completion = await self.complete(request)
        cache.put(request, completion)
        return completion


def missing_environment(model: str, api_base: str | None = None) -> list[str]:
    """Environment variables the provider of ``model`` needs and that are unset, as
    litellm's ``validate_environment`` reports them (checked once before a run, so a
    missing key is one clear message rather than one error per task). With ``api_base``,
    endpoint variables (``*_API_BASE``) are not needed. An ``openai/`` model still needs
    ``OPENAI_API_KEY`` (any value) at a local server; ``hosted_vllm/<name>`` needs none.
    Unknown models give ``[]``: the call itself then reports what is wrong."""
    litellm = load_litellm()
    try:
        report = litellm.validate_environment(model=model, api_base=api_base)
    except Exception:
        return []
    names = report.get("missing_keys") if isinstance(report, Mapping) else None
    if not isinstance(names, list):
        return []
    missing = [str(n) for n in names if not os.environ.get(str(n))]
    if api_base:
        missing = [n for n in missing if not n.endswith(("_API_BASE", "_BASE_URL"))]
    return missing


def describe_error(exc: BaseException) -> str:
    """A one-line, redacted description of any exception (for logs of unexpected errors)."""
    return redact(f"{type(exc).__name__}: {exc}")
