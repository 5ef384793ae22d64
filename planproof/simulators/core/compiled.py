"""Binary caches of built worlds: a dataset's domain and typed tasks, pickled once.

A command that evaluates a response file spends most of its time *building* the tasks
(objects, atoms, goal formulas read by the parser, a domain read from PDDL text) unless
they come from a cache that loads in C. The cache is derived data like the converted
JSON it is built from: its stamp names the dataset's own stamp, the Python version and the
size and modification time of every file of the code that defines and builds the pickled
objects, so any edit to that code (or a new wheel, or a new converter version) rebuilds
it. It is read with an unpickler that resolves planproof's data classes only
(:func:`planproof.data.cache.cached_pickle`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar

from planproof.data.cache import DataUnavailableError, cache_dir, cached_pickle, source_stamp
from planproof.ltl.ast import Atom, Const

T = TypeVar("T")

FORMAT = 1
"""Bump when the layout of these caches changes (independent of any source edit)."""
SOURCES = ("ltl", "pddl", "simulators/core", "data")
"""Sub-packages every cached world depends on: the logic, the schemas, the world."""
DIRECTORY = "compiled"


@cache
def _source(subpackages: tuple[str, ...]) -> str:
    return source_stamp(*subpackages)


def cached_build(
    name: str,
    build: Callable[[], T],
    *,
    sources: tuple[str, ...] = (),
    stamp: Mapping[str, Any] | None = None,
    shared: Mapping[str, object] | None = None,
) -> T:
    """``build()``'s result, read from ``<cache>/compiled/<name>.pickle`` when that file's
    stamp matches (``sources``: further sub-packages the result depends on; ``stamp``:
    the dataset's own stamp; ``shared``: objects stored by name, supplied again when
    reading). Equal atoms and constants are stored once. Without a usable cache
    directory the object is simply built."""
    try:
        path = cache_dir() / DIRECTORY / f"{name}.pickle"
        full = {
            "format": f"planproof.compiled.{name}",
            "version": FORMAT,
            "python": f"{sys.version_info.major}.{sys.version_info.minor}",
            "source": _source(tuple(dict.fromkeys((*SOURCES, *sources)))),
            "data": dict(stamp or {}),
        }
    except (DataUnavailableError, OSError):
        return build()
    return cached_pickle(path, full, build, shared, canonical=(Atom, Const))
