"""The ``eai-eval`` wheel from PyPI as a read-only data archive.

The Embodied Agent Interface data (goal formulas, BDDL problems) ship inside the
reference implementation's wheel. planproof fetches that one pinned file with
``pip download --no-deps`` (so pip's proxy, certificate and index settings apply), checks
its SHA-256, and reads data members with :mod:`zipfile` only: the reference code is never
imported, extracted or executed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planproof.data.cache import DataUnavailableError, cache_dir

if TYPE_CHECKING:
    import zipfile

# zipfile, hashlib, subprocess and friends are imported where used: commands that read
# only the converted caches never open the wheel, and import this module for its names.

EAI_EVAL_VERSION = "1.0.5"
WHEEL_NAME = f"eai_eval-{EAI_EVAL_VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "fe09f2a84cfb2451e111d02a2fa57e18797e747b73de23cb036d0d4e6502099f"
"""SHA-256 of the wheel on PyPI; a different file (mirror, tampering) is rejected."""

VH_GOALS_MEMBER = "virtualhome_eval/resources/task_state_LTL_formula_accurate.json"
BEHAVIOR_PDDL_DIR = "behavior_eval/evaluation/transition_modeling/resources/pddl_behavior/"
RECORD_MEMBER = f"eai_eval-{EAI_EVAL_VERSION}.dist-info/RECORD"

DOWNLOAD_TIMEOUT = 600.0
"""Seconds before a hanging ``pip download`` is abandoned."""


def wheel_path() -> Path:
    """Where the wheel lives in the cache (put a manually downloaded copy here)."""
    return cache_dir() / "eai" / WHEEL_NAME


def _manual_hint(dest: Path) -> str:
    return (
        "check the network connection and any proxy settings (HTTPS_PROXY, pip config), "
        f"or download the file by hand with `pip download --no-deps eai-eval=={EAI_EVAL_VERSION}"
        f" -d DIR` and copy {WHEEL_NAME} to {dest}"
    )


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _record(zf: zipfile.ZipFile) -> dict[str, str]:
    """member → ``sha256=<urlsafe b64>`` from the wheel's RECORD."""
    import csv
    import io

    try:
        text = zf.read(RECORD_MEMBER).decode("utf-8")
    except KeyError:
        raise DataUnavailableError(f"the wheel has no {RECORD_MEMBER}") from None
    return {row[0]: row[1] for row in csv.reader(io.StringIO(text)) if len(row) >= 2}


def verify_wheel(path: Path) -> None:
    """Raise :class:`DataUnavailableError` unless ``path`` is the pinned wheel: right
    SHA-256, a readable zip, and a RECORD that lists the data files planproof reads."""
    import zipfile

    if not path.is_file():
        raise DataUnavailableError(f"{path} does not exist; {_manual_hint(path)}")
    digest = _sha256(path)
    if digest != WHEEL_SHA256:
        raise DataUnavailableError(
            f"{path} has SHA-256 {digest}, expected {WHEEL_SHA256} (eai-eval "
            f"{EAI_EVAL_VERSION} from PyPI); delete it and retry, or {_manual_hint(path)}"
        )
    try:
        with zipfile.ZipFile(path) as zf:
            record = _record(zf)
    except zipfile.BadZipFile as exc:
        raise DataUnavailableError(f"{path} is not a zip archive: {exc}") from None
    pddl = [m for m in record if m.startswith(BEHAVIOR_PDDL_DIR) and m.endswith(".pddl")]
    if VH_GOALS_MEMBER not in record or not pddl:
        raise DataUnavailableError(f"{path} does not list the EAI data files in its RECORD")


def download_wheel(dest: Path, *, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
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
        f"eai-eval=={EAI_EVAL_VERSION}",
        "-d",
        str(tmp),
    ]
    try:
        console.print(
            f"planproof: fetching the EAI data (eai-eval {EAI_EVAL_VERSION}, ~27 MB) from "
            f"PyPI into {dest.parent}; this happens once",
            soft_wrap=True,
        )
        with console.status("downloading with pip..."):
            try:
                proc = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=timeout, check=False
                )
            except subprocess.TimeoutExpired:
                raise DataUnavailableError(
                    f"`pip download eai-eval=={EAI_EVAL_VERSION}` did not finish within "
                    f"{timeout:.0f} s; {_manual_hint(dest)}"
                ) from None
            except OSError as exc:
                raise DataUnavailableError(
                    f"cannot run pip ({exc}); {_manual_hint(dest)}"
                ) from None
        if proc.returncode != 0:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
            raise DataUnavailableError(
                f"`pip download eai-eval=={EAI_EVAL_VERSION}` failed (exit {proc.returncode}):"
                f"\n{tail}\n{_manual_hint(dest)}"
            )
        got = tmp / WHEEL_NAME
        if not got.is_file():
            raise DataUnavailableError(
                f"pip did not produce {WHEEL_NAME} (found: "
                f"{sorted(p.name for p in tmp.iterdir())}); {_manual_hint(dest)}"
            )
        verify_wheel(got)
        got.replace(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    console.print(f"planproof: saved {dest}", soft_wrap=True)
    return dest


def ensure_wheel(*, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """The verified wheel in the cache, downloading it on first use only."""
    dest = wheel_path()
    if dest.is_file():
        try:
            verify_wheel(dest)
            return dest
        except DataUnavailableError:
            dest.unlink(missing_ok=True)  # corrupt or foreign file: fetch a good one
    return download_wheel(dest, timeout=timeout)


class EaiWheel:
    """Read access to data members of an open wheel; each read is checked against the
    hash RECORD lists for it."""

    def __init__(self, zf: zipfile.ZipFile) -> None:
        self._zf = zf
        self._record = _record(zf)

    def members(self, prefix: str = "", suffix: str = "") -> list[str]:
        """Sorted member names with the given prefix and suffix."""
        return sorted(n for n in self._zf.namelist() if n.startswith(prefix) and n.endswith(suffix))

    def read_bytes(self, member: str) -> bytes:
        import base64
        import hashlib

        try:
            data = self._zf.read(member)
        except KeyError:
            raise DataUnavailableError(f"the eai-eval wheel has no member {member}") from None
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
def open_wheel(path: Path | None = None) -> Iterator[EaiWheel]:
    """Open the wheel (``ensure_wheel()`` unless a path is given) for reading data."""
    import zipfile

    with zipfile.ZipFile(path if path is not None else ensure_wheel()) as zf:
        yield EaiWheel(zf)
