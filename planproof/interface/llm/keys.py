"""Which API key a model's provider needs, known without importing litellm.

Importing litellm takes seconds (over a minute on a loaded machine), so a run whose key is
missing must be refused before that import. The common providers are listed here by the
prefix of the litellm model string; any other model is checked by litellm itself
(:func:`planproof.interface.llm.client.missing_environment`) once it is imported anyway.
"""

from __future__ import annotations

import os

PROVIDER_KEYS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "xai": "XAI_API_KEY",
}
"""litellm provider prefix → the environment variable holding its key (as litellm reads it)."""

BARE_PREFIXES: dict[str, str] = {
    "gpt-": "openai",
    "o1": "openai",
    "o3": "openai",
    "claude-": "anthropic",
}
"""Model names litellm routes without a provider prefix."""


def provider_of(model: str) -> str | None:
    """The provider of a litellm model string when it is one listed here, else None."""
    head, sep, _ = model.partition("/")
    if sep:
        return head if head in PROVIDER_KEYS else None
    return next((p for prefix, p in BARE_PREFIXES.items() if model.startswith(prefix)), None)


def known_missing_key(model: str) -> list[str]:
    """The key variable the model's provider needs when it is unset or empty (``[]`` when
    it is set, or when the provider is not listed: litellm decides those)."""
    provider = provider_of(model)
    if provider is None:
        return []
    name = PROVIDER_KEYS[provider]
    return [] if os.environ.get(name) else [name]
