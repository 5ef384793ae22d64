"""JSON ↔ traces and universes, with typed errors for malformed files.

A trace file is plain data a person can write by hand::

    {"objects": {"cup.1": ["cup"], "table.2": ["table"]},      # optional
     "actions": ["grab(cup.1)", "put(cup.1, table.2)"],
     "states":  [["on(cup.1, table.2)"], ["holds(cup.1)"], ["on(cup.1, table.2)"]]}

Atoms are written in the goal syntax and must be ground. ``objects`` defaults to the
objects the trace mentions, typed by their ``name.id`` prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planproof.boundary import read_json
from planproof.ltl.ast import Atom, Const
from planproof.ltl.errors import LTLError, LTLSyntaxError
from planproof.ltl.parser import parse
from planproof.ltl.printer import to_text
from planproof.ltl.trace import Trace, Universe


class TraceFormatError(LTLError):
    """A trace or universe document is not of the expected shape."""


def parse_ground_atom(text: str, where: str) -> Atom:
    """One ground atom written in the goal syntax, e.g. ``on(cup.1, table.2)``."""
    if not isinstance(text, str):
        raise TraceFormatError(f"{where}: expected an atom as a string, got {type(text).__name__}")
    try:
        f = parse(text)
    except LTLSyntaxError as err:
        raise TraceFormatError(f"{where}: {err}") from None
    if not isinstance(f, Atom) or not all(isinstance(a, Const) for a in f.args):
        raise TraceFormatError(f"{where}: {text!r} is not a single ground atom")
    return f


def universe_from_json(data: Any, where: str = "objects") -> Universe:
    """``{"name": ["type", ...]}`` or ``["name", ...]`` (types from ``name.id``)."""
    if isinstance(data, list):
        if not all(isinstance(n, str) for n in data):
            raise TraceFormatError(f"{where}: a list of object names must hold only strings")
        return Universe.from_names(data)
    if isinstance(data, Mapping):
        out: dict[str, list[str]] = {}
        for name, raw in data.items():
            types = [raw] if isinstance(raw, str) else raw
            if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
                raise TraceFormatError(f"{where}.{name}: types must be a list of strings")
            out[str(name)] = types
        return Universe.of(out)
    raise TraceFormatError(f"{where}: expected an object or a list, got {type(data).__name__}")


def trace_from_json(data: Any) -> tuple[Trace, Universe]:
    """Build a trace (and its universe) from decoded JSON."""
    if not isinstance(data, Mapping):
        raise TraceFormatError("a trace must be a JSON object with 'states' (and 'actions')")
    states_raw = data.get("states")
    actions_raw = data.get("actions", [])
    if not isinstance(states_raw, list) or not states_raw:
        raise TraceFormatError("'states' must be a non-empty list of lists of atoms")
    if not isinstance(actions_raw, list):
        raise TraceFormatError("'actions' must be a list of atoms")
    if len(states_raw) != len(actions_raw) + 1:
        raise TraceFormatError(
            f"{len(actions_raw)} actions need {len(actions_raw) + 1} states, got {len(states_raw)}"
        )
    # a trace repeats the same atoms from state to state: each text is parsed once
    # (100,000 states of one atom: 2 parses instead of 200,000) and shared
    seen: dict[str, Atom] = {}

    def atom(text: Any, where: str) -> Atom:
        found = seen.get(text) if isinstance(text, str) else None
        if found is None:
            found = seen[text] = parse_ground_atom(text, where)
        return found

    states = []
    for i, s in enumerate(states_raw):
        if not isinstance(s, list):
            raise TraceFormatError(f"states[{i}] must be a list of atoms")
        states.append(frozenset(atom(a, f"states[{i}][{j}]") for j, a in enumerate(s)))
    actions = tuple(atom(a, f"actions[{i}]") for i, a in enumerate(actions_raw))
    trace = Trace(tuple(states), actions)
    universe = universe_from_json(data["objects"]) if "objects" in data else trace.universe()
    return trace, universe


def trace_to_json(trace: Trace, universe: Universe | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "actions": [to_text(a) for a in trace.actions],
        "states": [sorted(to_text(a) for a in s) for s in trace.states],
    }
    if universe is not None:
        out["objects"] = {n: sorted(ts) for n, ts in universe.objects}
    return out


def load_json(path: Path) -> Any:
    """Read a JSON file through the input boundary (UTF-8, bounded size and depth);
    raises :class:`~planproof.boundary.InputError` on a file that cannot be read."""
    return read_json(path)
