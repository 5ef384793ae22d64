"""The data of one LLM call: what was asked (:class:`Request`), what came back
(:class:`Completion`), and why a call failed (:class:`LLMError`).

These types import nothing heavy: the cache and the runner use them without loading
litellm (whose import takes seconds). :func:`redact` lives here so that every message
built from a provider's error text passes through it before anyone can print or store it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

CACHE_FORMAT = 1
"""Version of the request key and of the cache rows; bumping it invalidates old entries."""

LLMErrorKind = Literal[
    "auth",
    "rate-limit",
    "timeout",
    "connection",
    "bad-request",
    "context-window",
    "content-filter",
    "provider",
    "empty",
]
ERROR_KINDS: tuple[str, ...] = get_args(LLMErrorKind)


def _canonical_json(data: Mapping[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _check_int(name: str, value: object, *, minimum: int | None = None) -> None:
    # bool is an int subclass; True as a seed would silently collide with 1.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")


def _check_float(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    number = float(value) or 0.0  # -0.0 and 0 become 0.0: equal requests, equal keys
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


@dataclass(frozen=True, slots=True)
class Request:
    """One single-turn call: ``prompt`` is sent as ONE user message (the paper's setup).

    Every field takes part in :meth:`key`; where the call goes (``api_base``) and the
    credentials do not, so a cached answer is found again whichever endpoint served it.
    Numbers are normalised on construction (``temperature=0`` and ``0.0`` are one request).
    """

    model: str
    prompt: str
    temperature: float = 0.0
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"model must be a non-empty string, got {self.model!r}")
        if not isinstance(self.prompt, str):
            raise ValueError(f"prompt must be a string, got {type(self.prompt).__name__}")
        temperature = _check_float("temperature", self.temperature)
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        object.__setattr__(self, "temperature", temperature)
        if self.max_tokens is not None:
            _check_int("max_tokens", self.max_tokens, minimum=1)
        if self.top_p is not None:
            top_p = _check_float("top_p", self.top_p)
            if not 0 < top_p <= 1:
                raise ValueError(f"top_p must be in (0, 1], got {top_p}")
            object.__setattr__(self, "top_p", top_p)
        if self.seed is not None:
            _check_int("seed", self.seed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "prompt": self.prompt,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Request:
        """The inverse of :meth:`to_dict`; ``ValueError`` on a malformed mapping."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a request must be a JSON object, got {type(data).__name__}")
        unknown = set(data) - {"model", "prompt", "temperature", "max_tokens", "top_p", "seed"}
        if unknown:
            raise ValueError(f"unknown request fields: {sorted(unknown)}")
        try:
            return cls(
                model=data["model"],
                prompt=data["prompt"],
                temperature=data.get("temperature", 0.0),
                max_tokens=data.get("max_tokens"),
                top_p=data.get("top_p"),
                seed=data.get("seed"),
            )
        except KeyError as exc:
            raise ValueError(f"a request needs the field {exc.args[0]!r}") from None

    def key(self) -> str:
        """sha256 (hex) of the canonical JSON of every field plus :data:`CACHE_FORMAT`."""
        doc = {"cache_format": CACHE_FORMAT, **self.to_dict()}
        # surrogatepass: a prompt holding a lone surrogate still has a (stable) key.
        data = _canonical_json(doc).encode("utf-8", "surrogatepass")
        return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the provider reports it read and wrote (0 when it reports nothing)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __post_init__(self) -> None:
        _check_int("prompt_tokens", self.prompt_tokens, minimum=0)
        _check_int("completion_tokens", self.completion_tokens, minimum=0)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        if not isinstance(data, Mapping):
            raise ValueError(f"usage must be a JSON object, got {type(data).__name__}")
        return cls(int(data.get("prompt_tokens", 0)), int(data.get("completion_tokens", 0)))


@dataclass(frozen=True, slots=True)
class Completion:
    """A finished call. ``text`` may be empty (the provider answered nothing, e.g. a content
    filter): that is an answer, recorded and cached, which the evaluator scores as a parsing
    error, not a failed call. ``finish_reason`` is the provider's (``"stop"``, ``"length"``,
    ``"content_filter"``...) when it gives one."""

    text: str
    usage: Usage
    cost_usd: float | None
    attempts: int
    seconds: float
    cached: bool = False
    finish_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "usage": self.usage.to_dict(),
            "cost_usd": self.cost_usd,
            "attempts": self.attempts,
            "seconds": self.seconds,
            "cached": self.cached,
            "finish_reason": self.finish_reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Completion:
        """The inverse of :meth:`to_dict`; ``ValueError`` on a malformed mapping."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a completion must be a JSON object, got {type(data).__name__}")
        text = data.get("text")
        if not isinstance(text, str):
            raise ValueError(f"completion text must be a string, got {type(text).__name__}")
        cost = data.get("cost_usd")
        finish = data.get("finish_reason")
        try:
            return cls(
                text=text,
                usage=Usage.from_dict(data.get("usage") or {}),
                cost_usd=None if cost is None else float(cost),
                attempts=int(data.get("attempts", 1)),
                seconds=float(data.get("seconds", 0.0)),
                cached=bool(data.get("cached", False)),
                finish_reason=None if finish is None else str(finish),
            )
        except (TypeError, ValueError) as exc:
            raise ValueError(f"malformed completion: {exc}") from None


class LLMError(Exception):
    """A call that failed for good: not retryable, or still failing after the retries.

    ``kind`` is one of :data:`ERROR_KINDS`; ``message`` is the provider's explanation with
    anything that looks like a credential replaced by ``[REDACTED]`` (done here, so no
    caller can forget it); ``attempts`` counts the calls made (1 + retries).
    """

    kind: str
    message: str
    attempts: int

    def __init__(
        self, kind: str, message: str, attempts: int = 1, *, secrets: Iterable[str] = ()
    ) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown LLM error kind {kind!r}; expected one of {ERROR_KINDS}")
        self.kind = kind
        self.message = redact(message, secrets)
        self.attempts = attempts
        super().__init__(self.kind, self.message, self.attempts)

    def __str__(self) -> str:
        tries = "1 attempt" if self.attempts == 1 else f"{self.attempts} attempts"
        return f"{self.kind}: {self.message} ({tries})"

    def to_dict(self) -> dict[str, Any]:
        """The ``error`` object of a responses.jsonl row."""
        return {"kind": self.kind, "message": self.message, "attempts": self.attempts}


# --- redaction ---------------------------------------------------------------------------

REDACTED = "[REDACTED]"

_KEY_PATTERNS = re.compile(
    "|".join(
        (
            r"\bsk-[A-Za-z0-9_\-*.]{6,}",  # OpenAI / Anthropic (sk-ant-) / DeepSeek keys
            r"\b(?:gsk|hf|xai|pplx|csk|fw|r8|nvapi|glpat|ghp|gho|ghs|github_pat)"
            r"[_\-][A-Za-z0-9_\-]{10,}",
            r"\bAIza[0-9A-Za-z_\-]{20,}",  # Google
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}",  # AWS access key ids
            r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*",  # JWTs
        )
    )
)
# "Authorization: Bearer X", "api_key='X'", "x-api-key: X", "token=X": keep the name.
_NAMED_SECRET = re.compile(
    r"(?i)(\b(?:(?:x-)?api[_\-]?key|access[_\-]?token|secret|password|authorization)\b"
    r"[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?|\bbearer\s+)"
    r"(?!\[REDACTED\])[^\s\"',;}&]{4,}"
)
_SECRET_ENV_NAME = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)")
_MIN_SECRET_LENGTH = 6


def secrets_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of environment variables whose names say they hold a credential
    (``OPENAI_API_KEY``, ``HF_TOKEN``...): redacted verbatim whatever their shape."""
    env = os.environ if environ is None else environ
    values = {
        value.strip()
        for name, value in env.items()
        if _SECRET_ENV_NAME.search(name) and len(value.strip()) >= _MIN_SECRET_LENGTH
    }
    return tuple(sorted(values, key=len, reverse=True))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with credentials replaced by ``[REDACTED]``: the given ``secrets``, the
    values of credential-named environment variables, and anything shaped like a key."""
    known = {s for s in (*secrets, *secrets_from_env()) if len(s) >= _MIN_SECRET_LENGTH}
    for secret in sorted(known, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    text = _KEY_PATTERNS.sub(REDACTED, text)
    return _NAMED_SECRET.sub(lambda m: m.group(1) + REDACTED, text)
