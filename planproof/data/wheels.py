"""Pinned wheels from PyPI read as read-only data archives.

Published benchmark data ship inside the reference implementations' wheels. planproof
fetches one pinned file per source with ``pip download --no-deps`` (so pip's proxy,
certificate and index settings apply), checks its SHA-256, and reads data members with
:mod:`zipfile` only: the reference code is never imported, extracted or executed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planproof.data.cache import DataUnavailableError, cache_dir

if TYPE_CHECKING:
    import zipfile

# zipfile, hashlib, subprocess and friends are imported where used: commands that read
# only the converted caches never open a wheel, and import this module for its names.

DOWNLOAD_TIMEOUT = 600.0
"""Seconds before a hanging ``pip download`` is abandoned."""


@dataclass(frozen=True)
class PinnedWheel:
    """One wheel on PyPI, pinned by version and SHA-256, kept in ``<cache>/<folder>``.

    ``required`` are (prefix, suffix) pairs of which the RECORD must list at least one
    member each, so a truncated or foreign file is rejected before anything is read."""

    distribution: str
    version: str
    sha256: str
    folder: str
    what: str
    size_hint: str
    required: tuple[tuple[str, str], ...]

    @property
    def filename(self) -> str:
        return f"{self.distribution.replace('-', '_')}-{self.version}-py3-none-any.whl"

    @property
    def record_member(self) -> str:
        return f"{self.distribution.replace('-', '_')}-{self.version}.dist-info/RECORD"

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"

    def path(self) -> Path:
        """Where the wheel lives in the cache (put a manually downloaded copy here)."""
        return cache_dir() / self.folder / self.filename

    def manual_hint(self, dest: Path) -> str:
        return (
            "check the network connection and any proxy settings (HTTPS_PROXY, pip config), "
            f"or download the file by hand with `pip download --no-deps {self.requirement}"
            f" -d DIR` and copy {self.filename} to {dest}"
        )


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _record(zf: zipfile.ZipFile, member: str) -> dict[str, str]:
    """member → ``sha256=<urlsafe b64>`` from the wheel's RECORD."""
    import csv
    import io

    try:
        text = zf.read(member).decode("utf-8")
    except KeyError:
        raise DataUnavailableError(f"the wheel has no {member}") from None
    return {row[0]: row[1] for row in csv.reader(io.StringIO(text)) if len(row) >= 2}


def verify(wheel: PinnedWheel, path: Path) -> None:
    """Raise :class:`DataUnavailableError` unless ``path`` is the pinned wheel: right
    SHA-256, a readable zip, and a RECORD that lists the data files planproof reads."""
    import zipfile

    if not path.is_file():
        raise DataUnavailableError(f"{path} does not exist; {wheel.manual_hint(path)}")
    digest = _sha256(path)
    if digest != wheel.sha256:
        raise DataUnavailableError(
            f"{path} has SHA-256 {digest}, expected {wheel.sha256} ({wheel.distribution} "
            f"{wheel.version} from PyPI); delete it and retry, or {wheel.manual_hint(path)}"
        )
    try:
        with zipfile.ZipFile(path) as zf:
            record = _record(zf, wheel.record_member)
    except zipfile.BadZipFile as exc:
        raise DataUnavailableError(f"{path} is not a zip archive: {exc}") from None
    for prefix, suffix in wheel.required:
        if not any(m.startswith(prefix) and m.endswith(suffix) for m in record):
            raise DataUnavailableError(
                f"{path} does not list the {wheel.what} in its RECORD ({prefix}*{suffix})"
            )


def download(wheel: PinnedWheel, dest: Path, *, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """Fetch the wheel with pip into ``dest`` (atomically: a temporary directory next to
    it, then ``os.replace``) and verify it."""
    import shutil
    import subprocess
    import tempfile

    from rich.console import Console  # only when there is something to show

    dest.parent.mkdir(parents=True, exist_ok=True)
    console = Console(stderr=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".download-"))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        wheel.requirement,
        "-d",
        str(tmp),
    ]
    hint = wheel.manual_hint(dest)
    try:
        console.print(
            f"planproof: fetching the {wheel.what} ({wheel.distribution} {wheel.version}, "
            f"{wheel.size_hint}) from PyPI into {dest.parent}; this happens once",
            soft_wrap=True,
        )
        with console.status("downloading with pip..."):
            try:
                proc = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=timeout, check=False
                )
            except subprocess.TimeoutExpired:
                raise DataUnavailableError(
                    f"`pip download {wheel.requirement}` did not finish within "
                    f"{timeout:.0f} s; {hint}"
                ) from None
            except OSError as exc:
                raise DataUnavailableError(f"cannot run pip ({exc}); {hint}") from None
        if proc.returncode != 0:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
            raise DataUnavailableError(
                f"`pip download {wheel.requirement}` failed (exit {proc.returncode}):"
                f"\n{tail}\n{hint}"
            )
        got = tmp / wheel.filename
        if not got.is_file():
            raise DataUnavailableError(
                f"pip did not produce {wheel.filename} (found: "
                f"{sorted(p.name for p in tmp.iterdir())}); {hint}"
            )
        verify(wheel, got)
        got.replace(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    console.print(f"planproof: saved {dest}", soft_wrap=True)
    return dest


def ensure(wheel: PinnedWheel, *, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """The verified wheel in the cache, downloading it on first use only."""
    dest = wheel.path()
    if dest.is_file():
        try:
            verify(wheel, dest)
            return dest
        except DataUnavailableError:
            dest.unlink(missing_ok=True)  # corrupt or foreign file: fetch a good one
    return download(wheel, dest, timeout=timeout)


class WheelReader:
    """Read access to data members of an open wheel; each read is checked against the
    hash RECORD lists for it."""

    def __init__(self, zf: zipfile.ZipFile, record_member: str) -> None:
        self._zf = zf
        self._record = _record(zf, record_member)

    def members(self, prefix: str = "", suffix: str = "") -> list[str]:
        """Sorted member names with the given prefix and suffix."""
        return sorted(n for n in self._zf.namelist() if n.startswith(prefix) and n.endswith(suffix))

    def read_bytes(self, member: str) -> bytes:
        import base64
        import hashlib

        try:
            data = self._zf.read(member)
        except KeyError:
            raise DataUnavailableError(f"the wheel has no member {member}") from None
        expected = self._record.get(member, "")
        got = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode()
        if expected.rstrip("=") != got.rstrip("="):
            raise DataUnavailableError(f"{member} does not match its hash in the wheel RECORD")
        return data

    def read_text(self, member: str) -> str:
        return self.read_bytes(member).decode("utf-8")

    def read_json(self, member: str) -> Any:
        return json.loads(self.read_bytes(member))


@contextmanager
def open_pinned(wheel: PinnedWheel, path: Path | None = None) -> Iterator[WheelReader]:
    """Open the wheel (``ensure(wheel)`` unless a path is given) for reading data."""
    import zipfile

    with zipfile.ZipFile(path if path is not None else ensure(wheel)) as zf:
        yield WheelReader(zf, wheel.record_member)
