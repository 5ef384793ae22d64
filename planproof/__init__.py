"""planproof: verify and diagnose plans written by LLMs for household robots."""

__version__ = "0.1.0"
