"""The local data cache: where fetched and converted data live, and how they are written.

Everything planproof derives from third-party data is computed once and kept here, so a
second run is a cheap file read. Writes are atomic (:func:`planproof.boundary.replace_bytes`:
temporary file, synced, then ``os.replace``) so an interrupted run or two concurrent test
workers never leave a half-written file, and converted files carry a *stamp* (format name,
converter version, source hash) so a stale file is detected and rebuilt instead of
silently trusted.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

from platformdirs import user_cache_dir

from planproof.boundary.outputs import replace_bytes, replace_text

T = TypeVar("T")

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
    replace_text(path, text, durable=True)
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


# --- binary caches of built objects ------------------------------------------------------
#
# Building a dataset's typed tasks from the converted JSON (hundreds of thousands of small
# objects, goal formulas read by a parser, a domain read from PDDL text) costs far more
# than the evaluation that uses them. A pickle of the built objects loads in C. It is a
# cache like the JSON above, with two extra guards: its stamp includes the size and
# modification time of the source files that build and define the pickled objects (any
# edit rebuilds it), and it is read by an unpickler that only resolves planproof's data
# classes, so a tampered file cannot name any other callable (``pickle``'s "restricting
# globals").

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent
_PICKLE_HEADER_LIMIT = 64 * 1024


def source_stamp(*subpackages: str) -> str:
    """Path, size and modification time of every file of the given planproof
    sub-packages (``"ltl"``, ``"simulators/core"``; ``__pycache__`` excluded), as one
    string: a stamp entry that changes whenever that code may have changed (the rule
    Python's own bytecode cache follows; only ``stat`` calls, no reading)."""
    root = str(_PACKAGE_ROOT) + os.sep
    out: list[str] = []
    for sub in subpackages:
        stack = [root + sub]
        while stack:
            with os.scandir(stack.pop()) as it:
                for e in sorted(it, key=lambda e: e.name):
                    if e.is_dir(follow_symlinks=False):
                        if e.name != "__pycache__":
                            stack.append(e.path)
                    elif e.is_file():
                        st = e.stat()
                        out.append(f"{e.path.removeprefix(root)}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(out)


DATA_PACKAGES = ("planproof.ltl.", "planproof.pddl.", "planproof.simulators.")
"""Where the classes of cached objects may come from: data classes (formulas, schemas,
worlds, tasks) whose construction has no effect beyond the object itself."""
_RECONSTRUCTORS = frozenset(
    {("planproof.ltl.ast", "_unpickle_atom"), ("planproof.data.cache", "_same")}
)


class _Unpickler(pickle.Unpickler):
    """Resolves the classes of :data:`DATA_PACKAGES` and the two reconstruction functions
    only, so that no other callable can be named by a cache file; shared objects come
    from ``shared``."""

    def __init__(self, file: IO[bytes], shared: Mapping[str, object]) -> None:
        super().__init__(file)
        self._shared = shared

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _RECONSTRUCTORS:
            return super().find_class(module, name)
        if module.startswith(DATA_PACKAGES) and not name.startswith("_"):
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a planproof cache")

    def persistent_load(self, pid: Any) -> object:
        if isinstance(pid, str) and pid in self._shared:
            return self._shared[pid]
        raise pickle.UnpicklingError(f"unknown shared object {pid!r}")


def _same(obj: object) -> object:
    return obj


class _Pickler(pickle.Pickler):
    """Stores ``shared`` objects by name, and one copy of equal objects of the
    ``canonical`` (immutable value) types."""

    def __init__(
        self, file: IO[bytes], shared: Mapping[str, object], canonical: tuple[type, ...]
    ) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._ids = {id(v): k for k, v in shared.items()}
        self._types = frozenset(canonical)
        self._first: dict[object, object] = {}

    def persistent_id(self, obj: Any) -> str | None:
        return self._ids.get(id(obj))

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) in self._types:
            first = self._first.setdefault(obj, obj)
            if first is not obj:
                return _same, (first,)
        return NotImplemented


def _stamp_line(stamp: Mapping[str, Any]) -> bytes:
    return json.dumps(dict(stamp), sort_keys=True).encode() + b"\n"


def read_stamped_pickle(
    path: Path, stamp: Mapping[str, Any], shared: Mapping[str, object] | None = None
) -> Any | None:
    """The object pickled in ``path`` if the file's stamp line equals ``stamp``, else
    None (missing, unreadable, stale or corrupt files are simply rebuilt). ``shared``
    supplies the objects stored by name only (see :func:`write_stamped_pickle`)."""
    import io

    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, sep, _ = data[:_PICKLE_HEADER_LIMIT].partition(b"\n")
    if not sep or head + b"\n" != _stamp_line(stamp):
        return None
    try:
        return _Unpickler(io.BytesIO(data[len(head) + 1 :]), shared or {}).load()
    except Exception:  # any damage to a cache file means "rebuild"
        return None


def write_stamped_pickle(
    path: Path,
    stamp: Mapping[str, Any],
    obj: object,
    shared: Mapping[str, object] | None = None,
    canonical: tuple[type, ...] = (),
) -> None:
    """Atomically write ``obj`` after a stamp line. Objects in ``shared`` (by identity)
    are stored by name and must be supplied again when reading; equal objects of the
    ``canonical`` types (hashable, immutable values) are stored, and loaded, once."""
    import io

    buf = io.BytesIO()
    buf.write(_stamp_line(stamp))
    _Pickler(buf, shared or {}, canonical).dump(obj)
    replace_bytes(path, (buf.getvalue(),), durable=True)


def cached_pickle(
    path: Path,
    stamp: Mapping[str, Any],
    build: Callable[[], T],
    shared: Mapping[str, object] | None = None,
    canonical: tuple[type, ...] = (),
) -> T:
    """``build()``'s result, from ``path`` when its stamp matches, else built and written
    (a cache that cannot be written is skipped: the result is the same, only slower)."""
    found = read_stamped_pickle(path, stamp, shared)
    if found is not None:
        return found  # type: ignore[no-any-return]
    obj = build()
    with contextlib.suppress(
        OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError
    ):
        write_stamped_pickle(path, stamp, obj, shared, canonical)
    return obj
