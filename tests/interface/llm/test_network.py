"""litellm reaches no host but the provider: its start-up downloads (model cost map and
other configuration fetched from GitHub) are off once :func:`load_litellm` has run.
Checked with an audit hook on every socket connection and DNS lookup of a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

_PROBE = textwrap.dedent(
    """
    import json, sys
    seen = []
    def hook(event, args):
        if event == "socket.getaddrinfo":
            seen.append(["dns", str(args[0])])
        elif event == "socket.connect" and isinstance(args[1], tuple):
            seen.append(["connect", str(args[1][0])])
    sys.addaudithook(hook)
    import asyncio
    from planproof.interface.llm import LLMClient, Request
    from planproof.interface.llm.stub import StubServer
    asyncio.run(LLMClient(extra={"mock_response": "hi"}).complete(
        Request("openai/gpt-4o-mini", "p")))
    with StubServer(lambda p: p) as stub:
        text = asyncio.run(LLMClient(api_base=stub.url).complete(Request("openai/stub", "p")))
    print(json.dumps({"seen": seen, "text": text.text, "requests": stub.requests}))
    """
)


def test_no_connection_leaves_the_machine() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    env["OPENAI_API_KEY"] = "sk-test-network-probe-000000"
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["text"] == "p"
    assert report["requests"] == 1
    hosts = {host for _, host in report["seen"]}
    assert ["connect", "127.0.0.1"] in report["seen"]  # the stub call was observed...
    assert hosts <= {"127.0.0.1", "localhost", "::1"}, report["seen"]  # ...and nothing else
