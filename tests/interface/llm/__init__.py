"""Tests of planproof.interface.llm: request keys, the SQLite cache, the litellm client."""
