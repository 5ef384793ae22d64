"""Where results go: output paths checked before the work, not after it.

An ``--out`` that is a directory, or a path under a regular file, fails at ``open`` with
``IsADirectoryError`` / ``NotADirectoryError`` after minutes of work; these checks refuse
it up front with a typed error, and :func:`write_text` turns a late ``OSError`` into one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from planproof.boundary.errors import InputError

__all__ = [
    "LOCK_NAME",
    "optional_output_lock",
    "output_dir",
    "output_file",
    "output_lock",
    "replace_bytes",
    "replace_files",
    "replace_json",
    "replace_lines",
    "replace_text",
    "write_text",
]

LOCK_NAME = ".planproof.lock"
"""The lock file :func:`output_lock` keeps in an output directory (holding its writer's
process id)."""


def _refuse_under_a_file(path: Path, source: str) -> None:
    """A path below a regular file cannot be created (``NotADirectoryError`` later)."""
    for parent in path.parents:
        if parent.exists():
            if parent.is_dir():
                return
            raise InputError(
                f"{path} is inside {parent}, which is a file",
                source=source,
                kind="bad-output",
                hint="give a path in a directory",
            )


def output_file(path: str | Path, *, source: str = "--out") -> Path:
    """A path a file can be written to: not a directory, not under a regular file."""
    p = Path(path)
    if p.is_dir():
        raise InputError(
            f"{p} is a directory",
            source=source,
            kind="bad-output",
            hint="give a file path for this output",
        )
    _refuse_under_a_file(p, source)
    return p


def output_dir(path: str | Path, *, source: str = "--output") -> Path:
    """A directory results can be written into, created if missing."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(
            f"{p} is a file, not a directory",
            source=source,
            kind="bad-output",
            hint="give a directory path for this output",
        )
    _refuse_under_a_file(p, source)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"cannot create {p} ({exc.strerror or exc})",
            source=source,
            kind="bad-output",
            hint="check the path and its permissions",
        ) from None
    return p


def write_text(path: str | Path, text: str, *, source: str = "--out") -> Path:
    """Write UTF-8 text (parents created); every failure is a typed error. A new or
    regular file is replaced atomically (:func:`replace_text`: a reader or a kill sees the
    old or the new complete file, never a truncated one); a device such as ``/dev/stdout``
    is written in place. A FIFO is written only when a process already reads it
    (``>(gzip > f)``): one without a reader would block the writer forever, so it is
    refused at once, naming the path."""
    import stat

    p = output_file(path, source=source)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.exists() and stat.S_ISFIFO(p.stat().st_mode):
            fd = _open_fifo_for_writing(p, source)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        elif p.exists() and not p.is_file():
            p.write_text(text, encoding="utf-8")  # a device: nothing to rename over
        else:
            replace_text(p, text)
    except (OSError, UnicodeEncodeError) as exc:
        raise _cannot_write(str(p), exc, source) from None
    return p


def _open_fifo_for_writing(p: Path, source: str) -> int:
    """A descriptor writing into the FIFO ``p`` (blocking once open), or a typed error at
    once when no process reads it (``O_NONBLOCK`` makes that open fail with ``ENXIO``
    instead of waiting for a reader)."""
    import errno

    try:
        fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        raise InputError(
            f"{p} is a FIFO (named pipe) that no process reads",
            source=source,
            kind="bad-output",
            hint="start its reader first, or give a regular file",
        ) from None
    os.set_blocking(fd, True)
    return fd


def _cannot_write(what: str, exc: OSError | UnicodeEncodeError, source: str) -> InputError:
    """The typed error for a write that failed (after the checks: a full disk, a mode)."""
    return InputError(
        f"cannot write {what} ({getattr(exc, 'strerror', None) or exc})",
        source=source,
        kind="bad-output",
        hint="check the path, its permissions and the free space",
    )


@contextlib.contextmanager
def output_lock(path: str | Path, *, source: str = "--output") -> Iterator[Path]:
    """The output directory (checked and created as by :func:`output_dir`), held by this
    process alone until the block ends: a second process given the same directory is
    refused at once, before any work, naming the holder's process id. An advisory
    ``flock`` on :data:`LOCK_NAME`, released by the kernel when the holder ends (``kill
    -9`` included), so a stale lock never blocks a rerun."""
    import fcntl

    d = output_dir(path, source=source)
    lock = d / LOCK_NAME
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise InputError(
            f"cannot create the lock file {lock} ({exc.strerror or exc})",
            source=source,
            kind="bad-output",
            hint="check the directory's permissions",
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise InputError(
                f"another planproof process (pid {holder}) is writing {d}",
                source=source,
                kind="busy",
                hint="wait for it to finish, or give another output directory",
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield d
    finally:
        os.close(fd)  # releases the lock; the file stays (unlinking it would race)


def optional_output_lock(
    path: str | Path | None, *, source: str = "--output"
) -> AbstractContextManager[Path | None]:
    """:func:`output_lock` for an output that may not be asked for (``--output`` left
    out: nothing to lock, ``None`` held)."""
    if path is None:
        return contextlib.nullcontext(None)
    return output_lock(path, source=source)


def replace_files(
    out: Path, files: Mapping[str, Iterable[str]], *, source: str = "--output"
) -> None:
    """Each named file of the result directory ``out`` written from its text chunks and
    replaced whole (:func:`replace_lines`), in order; a failure to write is a typed error
    naming the directory. Meant to run under :func:`output_lock`: the lock keeps a second
    writer out, the replacement keeps a reader (or a kill) from seeing half a file."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, chunks in files.items():
            replace_lines(out / name, chunks)
    except (OSError, UnicodeEncodeError) as exc:
        raise _cannot_write(f"results to {out}", exc, source) from None


def replace_lines(path: Path, rows: Iterable[str], *, durable: bool = False) -> None:
    """Write ``path`` (UTF-8) from text chunks under a temporary name unique to this
    process, then rename it over ``path`` in one step: a reader (or a kill) sees the old
    complete file or the new complete file, never a mix, and two writers never share a
    temporary. The parent directory is created; ``durable`` also syncs the data to disk
    before the rename (the data cache: a crash must not leave an empty file behind)."""
    replace_bytes(path, (row.encode("utf-8") for row in rows), durable=durable)


def replace_text(path: Path, text: str, *, durable: bool = False) -> None:
    """:func:`replace_lines` for one text."""
    replace_bytes(path, (text.encode("utf-8"),), durable=durable)


def replace_bytes(path: Path, chunks: Iterable[bytes], *, durable: bool = False) -> None:
    """:func:`replace_lines` for bytes: the one atomic write of the project."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide results (and data) from the group
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def replace_json(path: Path, data: Any, **dumps: Any) -> None:
    """One JSON document, replaced atomically (``dumps`` as for ``json.dumps``)."""
    replace_text(path, json.dumps(data, **dumps) + "\n")
