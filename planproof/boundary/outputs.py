"""Where results go: output paths checked before the work, not after it.

An ``--out`` that is a directory, or a path under a regular file, fails at ``open`` with
``IsADirectoryError`` / ``NotADirectoryError`` after minutes of work; these checks refuse
it up front with a typed error, and :func:`write_text` turns a late ``OSError`` into one.
"""

from __future__ import annotations

from pathlib import Path

from planproof.boundary.errors import InputError

__all__ = ["output_dir", "output_file", "write_text"]


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
    """Write UTF-8 text (parents created); every failure is a typed error."""
    p = output_file(path, source=source)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    except (OSError, UnicodeEncodeError) as exc:
        raise InputError(
            f"cannot write {p} ({getattr(exc, 'strerror', None) or exc})",
            source=source,
            kind="bad-output",
            hint="check the path and its permissions",
        ) from None
    return p
