"""The stub server spoken to with plain HTTP, its command line, and the promise that the
llm package does not import litellm until a call is made."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planproof.interface.llm.stub import StubServer

MakeStub = Callable[..., StubServer]


def _post(url: str, body: Any, *, raw: bytes | None = None, key: str | None = None) -> Any:
    data = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, dict(response.headers), json.loads(response.read())


def _status(call: Callable[[], Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
    with pytest.raises(urllib.error.HTTPError) as info:
        call()
    return info.value.code, json.loads(info.value.read()), dict(info.value.headers)


def _chat(prompt: str) -> dict[str, Any]:
    return {"model": "stub", "messages": [{"role": "user", "content": prompt}]}


def test_answers_in_the_openai_format(make_stub: MakeStub) -> None:
    stub = make_stub(lambda p: p[::-1])
    status, _, body = _post(stub.url + "/chat/completions", _chat("abc def"))
    assert status == 200
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "fed cba"}
    assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": 2, "total_tokens": 4}
    multipart = {
        "messages": [
            {"role": "system", "content": "ignored"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
            },
        ]
    }
    assert (
        _post(stub.url + "/chat/completions", multipart)[2]["choices"][0]["message"]["content"]
        == "yx"
    )
    assert stub.requests == 2
    assert stub.answered == 2
    assert stub.prompts == ["abc def", "xy"]


def test_fail_first_with_retry_after(make_stub: MakeStub) -> None:
    stub = make_stub(fail_first=2, retry_after=1.5)
    url = stub.url + "/chat/completions"
    for _ in range(2):
        status, body, headers = _status(lambda: _post(url, _chat("p")))
        assert status == 429
        assert "stub failure" in body["error"]["message"]
        assert headers["Retry-After"] == "1.5"
        assert headers["retry-after-ms"] == "1500"
    assert _post(url, _chat("p"))[0] == 200
    assert (stub.requests, stub.answered) == (3, 1)


def test_bad_requests_and_failing_answers(make_stub: MakeStub) -> None:
    def answer(prompt: str) -> str:
        raise RuntimeError("the test's answer broke")

    stub = make_stub(answer)
    url = stub.url + "/chat/completions"
    assert _status(lambda: _post(url, None, raw=b"{not json"))[0] == 400
    assert _status(lambda: _post(url, {"messages": "x"}))[0] == 400
    assert _status(lambda: _post(url, {"messages": [{"role": "system", "content": "x"}]}))[0] == 400
    code, body, _ = _status(lambda: _post(url, _chat("p")))
    assert code == 500
    assert "the test's answer broke" in body["error"]["message"]
    assert _status(lambda: _post(stub.url + "/completions", _chat("p")))[0] == 404
    assert stub.requests == 4
    assert stub.answered == 0


def test_api_key_check_quotes_the_wrong_key(make_stub: MakeStub) -> None:
    stub = make_stub(api_key="right")
    url = stub.url + "/chat/completions"
    code, body, _ = _status(lambda: _post(url, _chat("p"), key="wrong-one"))
    assert code == 401
    assert "wrong-one" in body["error"]["message"]
    assert _post(url, _chat("p"), key="right")[0] == 200


def test_counters_are_exact_under_concurrent_requests(make_stub: MakeStub) -> None:
    stub = make_stub(delay=0.1)
    url = stub.url + "/chat/completions"
    threads = [threading.Thread(target=_post, args=(url, _chat(f"p{i}"))) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert stub.requests == 16
    assert stub.answered == 16
    assert sorted(stub.prompts) == sorted(f"p{i}" for i in range(16))
    assert 2 <= stub.max_in_flight <= 16


def test_stop_cuts_delays_short() -> None:
    stub = StubServer(lambda p: p, delay=30.0).start()
    url = stub.url + "/chat/completions"
    results: list[object] = []
    thread = threading.Thread(target=lambda: results.append(_post(url, _chat("p"))[0]), daemon=True)
    thread.start()
    while stub.requests == 0:
        time.sleep(0.01)
    stub.stop()
    thread.join(timeout=5)
    assert not thread.is_alive()
    with pytest.raises(RuntimeError, match="not started"):
        _ = stub.url


def test_command_line_serves_answers_from_a_file(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"known prompt": "known answer"}), encoding="utf-8")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "planproof.interface.llm.stub",
            "--answer-file",
            str(answers),
            "--answer",
            "fallback",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/v1")
        message = _post(url + "/chat/completions", _chat("known prompt"))[2]["choices"][0]
        assert message["message"]["content"] == "known answer"
        other = _post(url + "/chat/completions", _chat("other"))[2]["choices"][0]
        assert other["message"]["content"] == "fallback"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.returncode == 0


def test_command_line_rejects_a_bad_answer_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "planproof.interface.llm.stub", "--answer-file", str(bad)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 2
    assert "JSON object" in proc.stderr


def test_importing_the_package_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "import planproof.interface.llm, planproof.interface.llm.cache\n"
        "import planproof.interface.llm.types, planproof.interface.llm.client\n"
        "import planproof.interface.llm.stub\n"
        "assert 'litellm' not in sys.modules, 'litellm imported'\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
