"""Run the real ``planproof`` command line in a child process, as a user's shell does."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def env() -> dict[str, str]:
    """The environment of a child ``planproof``: this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}


def planproof(*argv: str, cwd: Path | None = None, stdin: str | None = None) -> Result:
    """``planproof ARGV...`` in a child process (stdout and stderr are pipes, not a tty)."""
    proc = subprocess.run(
        [sys.executable, "-m", "planproof.cli", *argv],
        capture_output=True,
        text=True,
        env=env(),
        cwd=cwd,
        input=stdin,
        check=False,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def planproof_into_closed_pipe(*argv: str) -> Result:
    """``planproof ARGV...`` writing into a pipe whose reader is already gone (what
    ``planproof ... | head -n 1`` does once head has its line)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "planproof.cli", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            check=False,
        )
    finally:
        os.close(write_end)
    return Result(proc.returncode, "", proc.stderr)


def planproof_on_a_terminal(*argv: str) -> tuple[Result, str]:
    """``planproof ARGV...`` with stderr on a pseudo-terminal (what a person sees) and
    stdout on a pipe: the result and everything written to the terminal."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "planproof.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**env(), "TERM": "xterm"},
    )
    os.close(follower)
    chunks: list[bytes] = []

    def drain() -> None:
        """Read the terminal while the child runs: a full terminal buffer would block
        the child's progress thread mid-write (and the child with it)."""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                return
            if not chunk:
                return
            chunks.append(chunk)

    import threading

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out = proc.stdout.read() if proc.stdout is not None else b""
    code = proc.wait()
    reader.join()
    os.close(leader)
    terminal = b"".join(chunks).decode("utf-8", "replace")
    return Result(code, out.decode("utf-8", "replace"), terminal), terminal
