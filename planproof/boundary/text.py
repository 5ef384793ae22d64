"""Bytes and files to text: the decoding half of the input boundary.

Input files are UTF-8 (a UTF-8 byte-order mark is dropped). Binary data, invalid UTF-8,
UTF-16/UTF-32 and lone surrogates are refused with the byte offset or line and column,
never passed on to fail later as a ``UnicodeDecodeError`` or ``UnicodeEncodeError``.
Reads are bounded by size before any work is done.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

from planproof.boundary.errors import InputError
from planproof.boundary.limits import MAX_FILE_BYTES, MAX_TEXT_CHARS

__all__ = [
    "check_text",
    "decode",
    "line_column",
    "open_regular",
    "read_bytes",
    "read_limited",
    "read_text",
    "surrogate_at",
]

_SURROGATE = re.compile("[\ud800-\udfff]")
_SAVE_AS_UTF8 = "save it as UTF-8 text"
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def line_column(text: str, position: int) -> str:
    """``line L, column C`` (1-based) of a character offset."""
    position = max(0, min(position, len(text)))
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return f"line {line}, column {column}"


def surrogate_at(text: str) -> int | None:
    """Offset of the first lone surrogate in ``text`` (a half of a UTF-16 pair, which no
    UTF-8 output can hold), or None."""
    m = _SURROGATE.search(text)
    return m.start() if m else None


def check_text(text: object, *, source: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Untrusted text already in memory (an LLM response, a formula, an argument): a
    ``str`` of at most ``max_chars`` characters without lone surrogates."""
    if not isinstance(text, str):
        raise InputError(
            f"expected text, got {type(text).__name__}",
            source=source,
            kind="bad-shape",
            hint="give a string",
        )
    if len(text) > max_chars:
        raise InputError(
            f"{len(text)} characters long, over the limit of {max_chars}",
            source=source,
            kind="too-large",
            hint="shorten it (limits are listed in docs/limits.md)",
        )
    at = surrogate_at(text)
    if at is not None:
        raise InputError(
            f"lone surrogate U+{ord(text[at]):04X} (half of a UTF-16 pair)",
            source=source,
            kind="surrogate",
            where=line_column(text, at),
            hint="remove it or write the whole character",
        )
    return text


def decode(data: bytes, *, source: str) -> str:
    """UTF-8 bytes as text (a leading UTF-8 byte-order mark dropped); a typed error for
    anything else, with the byte offset where it goes wrong."""
    for bom, name in _WIDE_BOMS:
        if data.startswith(bom):
            raise InputError(
                f"{name} text (byte-order mark {bom.hex(' ').upper()}), not UTF-8",
                source=source,
                kind="wrong-encoding",
                where="byte 0",
                hint=_SAVE_AS_UTF8,
            )
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    nul = data.find(b"\0")
    if nul >= 0:
        head = data[:64]
        wide = len(head) >= 4 and (head[1::2].count(0) >= len(head) // 4)
        raise InputError(
            "UTF-16 text without a byte-order mark, not UTF-8"
            if wide
            else "binary data (a NUL byte), not text",
            source=source,
            kind="wrong-encoding" if wide else "binary",
            where=f"byte {nul}",
            hint=_SAVE_AS_UTF8 if wide else "give a text file",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        raise InputError(
            f"not UTF-8: {exc.reason} (byte 0x{data[exc.start]:02X})",
            source=source,
            kind="not-utf8",
            where=f"byte {exc.start}, {line_column(good, len(good))}",
            hint=_SAVE_AS_UTF8,
        ) from None


def _unreadable(source: str, exc: OSError) -> InputError:
    return InputError(
        f"cannot read it ({exc.strerror or exc})",
        source=source,
        kind="unreadable",
        hint="check the path and its permissions",
    )


def _stat(path: Path, source: str) -> os.stat_result:
    try:
        return path.stat()
    except FileNotFoundError:
        raise InputError(
            "cannot read it: no such file", source=source, kind="not-found", hint="check the path"
        ) from None
    except NotADirectoryError:
        raise InputError(
            "a parent of this path is a file, not a directory",
            source=source,
            kind="not-a-file",
            hint="check the path",
        ) from None
    except OSError as exc:
        raise _unreadable(source, exc) from None


def _too_large(source: str, size: str, max_bytes: int) -> InputError:
    return InputError(
        f"{size}, over the limit of {max_bytes} bytes",
        source=source,
        kind="too-large",
        hint="split the input (limits are listed in docs/limits.md)",
    )


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(source: str, mode: int) -> InputError:
    what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return InputError(
        f"is {what}, not a regular file",
        source=source,
        kind="not-a-file",
        hint="give a regular file (special files are never read: they can block or never end)",
    )


def open_regular(path: str | Path, *, max_bytes: int | None = MAX_FILE_BYTES) -> BinaryIO:
    """An input file opened for reading, refused at once (naming the path) unless it is a
    regular file of at most ``max_bytes`` bytes (None: the reader bounds each line): a FIFO
    would block the reader forever and a device (``/dev/zero``, ``/dev/urandom``) never
    ends. The file is opened without blocking and checked again on the open descriptor, so
    a FIFO swapped in after the first check cannot block either."""
    p = Path(path)
    source = str(p)
    st = _stat(p, source)
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(source, st.st_mode)
    if max_bytes is not None and st.st_size > max_bytes:
        raise _too_large(source, f"{st.st_size} bytes", max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(p, flags)
    except OSError as exc:
        raise _unreadable(source, exc) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _not_regular(source, mode)
    return os.fdopen(fd, "rb")


def read_limited(fh: BinaryIO, *, source: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """At most ``max_bytes`` bytes of an open stream (standard input, say), or a typed
    error when there are more."""
    try:
        data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise _unreadable(source, exc) from None
    if len(data) > max_bytes:
        raise _too_large(source, "more bytes", max_bytes)
    return data


def read_bytes(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular input file of at most ``max_bytes`` bytes (anything else —
    a directory, a FIFO, a device, a missing or larger file — is a typed error)."""
    with open_regular(path, max_bytes=max_bytes) as fh:
        return read_limited(fh, source=str(path), max_bytes=max_bytes)


def read_text(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """An input file as text: :func:`read_bytes` then :func:`decode`."""
    return decode(read_bytes(path, max_bytes=max_bytes), source=str(path))
