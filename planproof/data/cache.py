"""The local data cache: where fetched and converted data live, and how they are written.

Everything planproof derives from third-party data is computed once and kept here, so a
second run is a cheap file read. Writes are atomic (temporary file, then ``os.replace``)
so an interrupted run or two concurrent test workers never leave a half-written file,
and converted files carry a *stamp* (format name, converter version, source hash) so a
stale file is detected and rebuilt instead of silently trusted.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

ENV_CACHE_DIR = "PLANPROOF_CACHE_DIR"
"""Environment variable that moves the cache (e.g. to a shared or temporary directory)."""


class DataUnavailableError(RuntimeError):
    """External data could not be fetched or is not what was expected. The message says
    what failed and what a person can do about it (network, proxy, manual download)."""


def cache_dir() -> Path:
    """The cache root: ``$PLANPROOF_CACHE_DIR`` if set, else the user cache directory
    (``~/.cache/planproof`` on Linux). Created on first use."""
    override = os.environ.get(ENV_CACHE_DIR, "").strip()
    root = Path(override).expanduser() if override else Path(user_cache_dir("planproof"))
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataUnavailableError(
            f"cannot create the planproof cache directory {root}: {exc}; "
            f"set {ENV_CACHE_DIR} to a writable directory"
        ) from exc
    return root


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see either the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; cached data is not secret
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def read_stamped_json(path: Path, stamp: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON object in ``path`` if its ``"stamp"`` equals ``stamp``, else None
    (missing, unreadable, corrupt or stale files are all simply rebuilt)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("stamp") != dict(stamp):
        return None
    return data


def write_stamped_json(path: Path, stamp: Mapping[str, Any], payload: Mapping[str, Any]) -> str:
    """Atomically write ``{"stamp": stamp, **payload}`` as JSON; returns the text written."""
    doc = {"stamp": dict(stamp), **payload}
    text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    atomic_write_text(path, text)
    return text


def cached_json(
    path: Path, stamp: Mapping[str, Any], build: Callable[[], Mapping[str, Any]]
) -> dict[str, Any]:
    """Return the stamped JSON in ``path``, running ``build`` and writing its result only
    when the file is missing or its stamp differs: a re-run is a no-op."""
    found = read_stamped_json(path, stamp)
    if found is not None:
        return found
    text = write_stamped_json(path, stamp, build())
    result: dict[str, Any] = json.loads(text)  # exactly what a later run will read
    return result
