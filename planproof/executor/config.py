"""Choosing an executor: ``local`` (the default, a process pool on this machine) or
``ray``; ``serial`` runs in this process and is what ``local`` becomes with one worker or
one task, where starting processes would only cost time."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planproof.boundary.limits import LOCAL_WORKERS_PER_CPU
from planproof.executor.base import Executor, SerialExecutor

if TYPE_CHECKING:
    import socket

EXECUTORS = ("local", "ray")
"""The choices a person makes on the command line (``--executor``)."""

_KINDS = ("serial", *EXECUTORS)


class ExecutorError(ValueError):
    """An executor that cannot be opened as asked (bad worker count, Ray missing or its
    cluster unreachable); the message says what to do."""


def cpu_count() -> int:
    """CPUs this process may use (its affinity, not the machine's total)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class ExecutorConfig:
    """``workers`` None means every CPU (local) or every CPU of the cluster (ray);
    ``address`` None means ``$RAY_ADDRESS``, and without it a local Ray runtime."""

    kind: str = "local"
    workers: int | None = None
    address: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ExecutorError(f"unknown executor {self.kind!r}; choose {' or '.join(_KINDS)}")
        if self.workers is not None and self.workers < 1:
            raise ExecutorError(f"--workers must be at least 1, not {self.workers}")
        if self.address is not None and self.kind != "ray":
            raise ExecutorError("--ray-address needs --executor ray")

    def ray_address(self) -> str | None:
        return self.address or os.environ.get("RAY_ADDRESS", "").strip() or None


def open_executor(config: ExecutorConfig | None = None, *, tasks: int | None = None) -> Executor:
    """The executor ``config`` asks for, sized for ``tasks`` tasks when that is known.
    Close it (or use it in a ``with`` block) to release its workers."""
    config = config or ExecutorConfig()
    if config.kind == "ray":
        from planproof.executor.ray_executor import RayExecutor, RayUnavailableError

        address = config.ray_address()
        if address is not None:
            check_reachable(address)  # before Ray's own minutes of retrying

        try:
            return RayExecutor(config.workers, config.ray_address())
        except RayUnavailableError as exc:
            raise ExecutorError(str(exc)) from None
        except Exception as exc:  # Ray raises a bare Exception when its node does not
            # come up within its own 30 s (an overloaded machine): still "cannot start"
            raise ExecutorError(
                f"cannot start or reach Ray at {config.ray_address() or 'a local runtime'}: "
                f"{str(exc)[:300]}"
            ) from None
    workers = cpu_count() if config.workers is None else config.workers
    workers = min(workers, LOCAL_WORKERS_PER_CPU * cpu_count())  # a bounded clamp
    if tasks is not None:
        workers = min(workers, tasks)
    if config.kind == "serial" or workers <= 1:
        return SerialExecutor()
    from planproof.executor.local import LocalExecutor

    return LocalExecutor(workers)


CONNECT_SECONDS = 10.0
"""How long a Ray address is given to accept a TCP connection and answer the HTTP/2
greeting before the command fails (``ray.init`` itself retries an absent cluster for many
minutes, and waits without end on a process that accepts but never answers)."""

HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes.fromhex("000000040000000000")
"""What an HTTP/2 client sends first (RFC 9113 section 3.4): the connection preface and an
empty SETTINGS frame. Ray's GCS and its client server (``ray://``) are gRPC servers, and a
gRPC server answers with a SETTINGS frame of its own."""

_SETTINGS = 0x4
"""The frame type of SETTINGS (RFC 9113 section 6.5)."""


def check_reachable(address: str, timeout: float = CONNECT_SECONDS) -> None:
    """Raise :class:`ExecutorError` within ``timeout`` seconds unless a Ray address
    (``HOST:PORT`` or ``ray://HOST:PORT``) accepts a TCP connection and answers the HTTP/2
    greeting as a gRPC server does (a SETTINGS frame on stream 0). ``auto`` and ``local``
    name no socket and are left to Ray; so is the greeting under ``RAY_USE_TLS`` (the
    socket then speaks TLS first). *Why the greeting:* a process that accepts connections
    but is not Ray (silent, or answering garbage) kept ``ray.init`` waiting without
    bound."""
    import socket
    import time
    from urllib.parse import urlsplit

    if address in ("auto", "local"):
        return
    parts = urlsplit(address if "://" in address else f"//{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, or out of range
        host, port = None, None
    if not host or port is None:
        raise ExecutorError(
            f"--ray-address {address!r} is not HOST:PORT or ray://HOST:PORT (or auto)"
        )
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            if os.environ.get("RAY_USE_TLS", "0").strip().lower() in ("", "0", "false"):
                _greet(sock, deadline, address, timeout)
    except OSError as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise ExecutorError(
            f"cannot reach Ray at {address} ({why} within {timeout:g} s); start the "
            "cluster, check the address, or drop --executor ray"
        ) from None


def _greet(sock: socket.socket, deadline: float, address: str, timeout: float) -> None:
    """Send the HTTP/2 preface on a connected socket and read the 9-byte header of the
    first frame back before ``deadline``; anything else is an :class:`ExecutorError`."""
    import time

    head = b""
    try:
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        sock.sendall(HTTP2_PREFACE)
        while len(head) < 9:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = sock.recv(9 - len(head))
            if not chunk:
                break
            head += chunk
    except OSError:  # timed out, or reset by the peer: judged on what came
        pass
    if len(head) == 9 and head[3] == _SETTINGS and int.from_bytes(head[5:9], "big") == 0:
        return
    if not head:
        what = f"nothing within {timeout:g} s"
    else:
        what = f"{len(head)} byte(s) that are not an HTTP/2 SETTINGS frame: {head[:9]!r}"
    raise ExecutorError(
        f"{address} accepts connections but does not answer as Ray's gRPC server does "
        f"({what}); check the address (the GCS port of the head node, 6379 by default, "
        "or ray://HOST:10001), or drop --executor ray"
    )
