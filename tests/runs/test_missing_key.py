"""A missing API key is refused before litellm is imported (that import takes seconds,
over a minute on a loaded machine): checked by the modules the process imported, not by
the clock."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from planproof.interface.llm.keys import known_missing_key, provider_of
from tests.cli.helpers import env

PROBE = """
import json, sys
from planproof.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "litellm": any(m.split(".")[0] == "litellm" for m in sys.modules)}))
"""


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest"])
def test_a_missing_key_is_refused_before_litellm_is_imported(model: str) -> None:
    child = {k: v for k, v in env().items() if not k.endswith("_API_KEY")}
    argv = ["run", "--model", model, "--module", "action-sequencing", "--dataset", "virtualhome"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=child, check=False
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"code": 2, "litellm": False}, done.stderr
    assert "_API_KEY in the environment" in done.stderr


def test_known_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert provider_of("gpt-4o") == "openai" and provider_of("hosted_vllm/x") is None
    assert known_missing_key("openai/gpt-4o-mini") == ["OPENAI_API_KEY"]
    assert known_missing_key("hosted_vllm/llama") == []  # litellm decides
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert known_missing_key("openai/gpt-4o-mini") == []
    assert os.environ["OPENAI_API_KEY"] == "sk-x"
