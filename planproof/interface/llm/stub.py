"""A loopback OpenAI-compatible chat server for tests and benchmarks.

Why not only litellm's ``mock_response``: the stub exercises the real provider path
(litellm → openai SDK → HTTP → JSON parsing), lets a test count the requests that
actually reached a server (the kill-and-resume test needs that), inject failures that
succeed after N attempts (``mock_response`` fails every time), delay answers to observe
concurrency, and check which API key was sent. Standard library only; one thread per
request (``ThreadingHTTPServer``); binds 127.0.0.1 on a free port by default.

Use ``model="openai/stub"``, ``api_base=stub.url`` and any ``OPENAI_API_KEY``.
``python -m planproof.interface.llm.stub --port P --answer-file F`` serves until killed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

_PATH = "/v1/chat/completions"
_MAX_BODY = 64 * 1024 * 1024


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 drops bursts of connections (1 s SYN retry)


def _prompt_of(body: Any) -> str:
    """The text of the last user message of a chat request (content string or parts)."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise ValueError("the request has no 'messages' list")
    for message in reversed(body["messages"]):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(
                    str(part.get("text", ""))
                    for part in content
                    if isinstance(part, dict) and part.get("type") == "text"
                )
    raise ValueError("the request has no user message")


def _tokens(text: str) -> int:
    return len(text.split())


class StubServer:
    """Answers ``POST /v1/chat/completions`` with ``answer(prompt)``.

    - ``delay``: seconds each answer waits (cut short by :meth:`stop`);
    - ``fail_first``: the first N requests get HTTP ``status`` (429 by default, with a
      ``Retry-After`` hint when ``retry_after`` is given, seconds, may be fractional);
    - ``api_key``: when set, requests whose bearer token differs get a 401 whose message
      quotes the token received, as careless providers do (to test redaction).

    Counters (thread-safe): :attr:`requests` (all chat requests received, failed ones too),
    :attr:`answered`, :attr:`max_in_flight` (most requests served at the same time), and
    :attr:`prompts` (the prompts answered, in arrival order).
    """

    def __init__(
        self,
        answer: Callable[[str], str],
        *,
        delay: float = 0.0,
        fail_first: int = 0,
        status: int = 429,
        retry_after: float | None = None,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.answer = answer
        self.delay = delay
        self.fail_first = fail_first
        self.status = status
        self.retry_after = retry_after
        self.api_key = api_key
        self._address = (host, port)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._requests = 0
        self._answered = 0
        self._in_flight = 0
        self._max_in_flight = 0
        self._prompts: list[str] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- counters --------------------------------------------------------------------------

    @property
    def requests(self) -> int:
        with self._lock:
            return self._requests

    @property
    def answered(self) -> int:
        with self._lock:
            return self._answered

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    @property
    def prompts(self) -> list[str]:
        with self._lock:
            return list(self._prompts)

    @property
    def url(self) -> str:
        """The ``api_base`` to give litellm: ``http://127.0.0.1:PORT/v1``."""
        if self._server is None:
            raise RuntimeError("the stub server is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # --- lifetime --------------------------------------------------------------------------

    def start(self) -> StubServer:
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server(self._address, self._handler_class())
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()  # wakes handlers sleeping in `delay`
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- serving ---------------------------------------------------------------------------

    def _enter(self) -> int:
        with self._lock:
            self._requests += 1
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            return self._requests

    def _leave(self, prompt: str | None) -> None:
        with self._lock:
            self._in_flight -= 1
            if prompt is not None:
                self._answered += 1
                self._prompts.append(prompt)

    def _respond(self, number: int, body: Any, auth: str | None) -> tuple[int, dict[str, Any]]:
        """(status, JSON body) for the ``number``-th request; the delay is slept here."""
        if self.api_key is not None and auth != f"Bearer {self.api_key}":
            given = (auth or "").removeprefix("Bearer ")
            return 401, _error(f"Incorrect API key provided: {given}.", "invalid_api_key")
        if number <= self.fail_first:
            return self.status, _error(f"stub failure {number}/{self.fail_first}", "stub_error")
        prompt = _prompt_of(body)
        if self.delay > 0:
            self._stopping.wait(self.delay)
        text = self.answer(prompt)
        model = body.get("model", "stub") if isinstance(body, dict) else "stub"
        return 200, {
            "id": f"chatcmpl-stub-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(model),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": _tokens(prompt),
                "completion_tokens": _tokens(text),
                "total_tokens": _tokens(prompt) + _tokens(text),
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real providers

            def log_message(self, format: str, *args: Any) -> None:
                """Silent: tests read counters, not logs."""

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == HTTPStatus.TOO_MANY_REQUESTS and stub.retry_after is not None:
                    self.send_header("Retry-After", f"{stub.retry_after:g}")
                    self.send_header("retry-after-ms", str(round(stub.retry_after * 1000)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (e.g. its timeout)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": "stub"}]})
                else:
                    self._send(404, _error(f"no route {self.path}", "not_found"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > _MAX_BODY:
                    self._send(413, _error("request too large", "too_large"))
                    self.close_connection = True
                    return
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != _PATH:
                    self._send(404, _error(f"no route {self.path}", "not_found"))
                    return
                number = stub._enter()
                prompt: str | None = None
                try:
                    try:
                        body = json.loads(raw or b"null")
                        status, payload = stub._respond(
                            number, body, self.headers.get("Authorization")
                        )
                    except ValueError as exc:
                        status, payload = 400, _error(str(exc), "invalid_request_error")
                    except Exception as exc:  # the test's answer() failed: a server error
                        status, payload = 500, _error(f"answer failed: {exc}", "server_error")
                    if status == 200:
                        prompt = _prompt_of(body)
                finally:
                    stub._leave(prompt)
                self._send(status, payload)

        return Handler


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "param": None, "code": code}}


# --- command line ---------------------------------------------------------------------------


def _answers_from_file(path: Path, default: str) -> Callable[[str], str]:
    """A JSON object ``{prompt: answer}``; prompts not in it get ``default``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"{path}: expected a JSON object mapping prompts to answer strings")
    table: dict[str, str] = data
    return lambda prompt: table.get(prompt, default)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m planproof.interface.llm.stub",
        description="Serve an OpenAI-compatible /v1/chat/completions on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--answer", default="stub answer", help="the answer to every prompt")
    parser.add_argument("--answer-file", type=Path, help="JSON object {prompt: answer}")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--status", type=int, default=429)
    args = parser.parse_args(argv)
    try:
        answer = (
            _answers_from_file(args.answer_file, args.answer)
            if args.answer_file
            else (lambda _prompt: str(args.answer))
        )
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stub = StubServer(
        answer, delay=args.delay, fail_first=args.fail_first, status=args.status, port=args.port
    )
    done = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with stub:
        print(stub.url, flush=True)
        done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
