"""Symbolic Housekeep episodes: rooms, receptacles, objects with their initial placements,
and the agent's action list, read from JSON (format in ``docs/housekeep.md``)::

    {"format": "planproof-housekeep-episode/1", "id": "demo_oracle",
     "rooms": {"kitchen_0": "kitchen", "bedroom_0": "bedroom"},
     "receptacles": {"sink_0": {"category": "sink", "room": "kitchen_0"},
                     "cabinet_0": {"category": "cabinet", "room": "kitchen_0", "capacity": 2}},
     "objects": {"cup_0": {"category": "cup", "on": "sink_0"}},
     "agent": {"id": "robot", "at": "sink_0"},
     "actions": ["pick(cup_0)", "navigate(cabinet_0)", "place(cup_0, cabinet_0)"],
     "expected": {"episode_success": 1.0}}

Ids name objects of the goal logic, so they follow its name syntax (``cup_0``, ``cup.1``).
An action that is not even of the shape ``name(arg, ...)`` is a *parsing* error of the
plan, reported by the replay, not a format error of the episode.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from planproof import boundary
from planproof.ltl.printer import KEYWORDS
from planproof.simulators.housekeep.errors import EpisodeFormatError
from planproof.simulators.housekeep.preferences import Judgement, PreferenceStore

FORMAT = "planproof-housekeep-episode/1"
MAX_ENTITIES = 10_000
MAX_ACTIONS = 100_000
MAX_CAPACITY = 64
MAX_ACTION_CHARS = 1_000

COUNTER_PREFIX = "slots"
"""Reserved id prefix: ``slots.0``, ``slots.1``... are the free-space counters of the
capacity encoding (``world.py``)."""

_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[0-9]+)?$")
_ACTION = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_ARG = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*(\.[0-9]+)?$")

METRIC_NAMES = (
    "episode_success",
    "object_success",
    "soft_object_success",
    "rearrangement_quality",
    "pick_place_efficiency",
    "misplaced_found",
    "map_coverage",
)


@dataclass(frozen=True, slots=True)
class Receptacle:
    id: str
    category: str
    room: str
    capacity: int | None = None


@dataclass(frozen=True, slots=True)
class Item:
    """A movable object and the receptacle it starts on."""

    id: str
    category: str
    on: str


@dataclass(frozen=True)
class Episode:
    """One symbolic episode. ``rooms`` maps room id → room type."""

    id: str
    rooms: Mapping[str, str]
    receptacles: tuple[Receptacle, ...]
    objects: tuple[Item, ...]
    agent: str = "robot"
    agent_at: str | None = None
    actions: tuple[str, ...] = ()
    expected: Mapping[str, float] = field(default_factory=dict)
    description: str = ""
    reference_correct: Mapping[str, frozenset[str]] | None = None
    """The reference's own verdicts, when the episode came from its files: object → the
    receptacles its ``end_matrix`` marks correct (``reference_format.py``). None for
    episodes written in planproof's format without them."""

    @cached_property
    def receptacle_by_id(self) -> dict[str, Receptacle]:
        return {r.id: r for r in self.receptacles}

    @cached_property
    def item_by_id(self) -> dict[str, Item]:
        return {o.id: o for o in self.objects}

    @property
    def initial_placement(self) -> dict[str, str]:
        return {o.id: o.on for o in self.objects}

    def room_type(self, receptacle: str) -> str:
        return self.rooms[self.receptacle_by_id[receptacle].room]

    def judgement(self, store: PreferenceStore, item: str, receptacle: str | None) -> Judgement:
        """The votes for ``item`` on ``receptacle`` (None = held: no votes, ``c = 0``)."""
        if receptacle is None:
            return Judgement()
        rec = self.receptacle_by_id[receptacle]
        return store.judgement(self.item_by_id[item].category, self.rooms[rec.room], rec.category)

    def correct_receptacles(self, store: PreferenceStore, item: str) -> tuple[str, ...]:
        """The receptacles of this scene on which ``item`` is correctly placed, best first
        (mean reciprocal rank, then fraction of correct votes, then id)."""
        scored = [(self.judgement(store, item, r.id), r.id) for r in self.receptacles]
        good = [(j, r) for j, r in scored if j.is_correct]
        good.sort(key=lambda t: (-t[0].mrr, -t[0].c, t[1]))
        return tuple(r for _, r in good)

    def to_json(self) -> dict[str, Any]:
        recs: dict[str, Any] = {}
        for r in self.receptacles:
            entry: dict[str, Any] = {"category": r.category, "room": r.room}
            if r.capacity is not None:
                entry["capacity"] = r.capacity
            recs[r.id] = entry
        agent: dict[str, Any] = {"id": self.agent}
        if self.agent_at is not None:
            agent["at"] = self.agent_at
        doc: dict[str, Any] = {
            "format": FORMAT,
            "id": self.id,
            "rooms": dict(self.rooms),
            "receptacles": recs,
            "objects": {o.id: {"category": o.category, "on": o.on} for o in self.objects},
            "agent": agent,
            "actions": list(self.actions),
        }
        if self.description:
            doc["description"] = self.description
        if self.expected:
            doc["expected"] = dict(self.expected)
        if self.reference_correct is not None:
            doc["reference_correct"] = {
                o: sorted(rs) for o, rs in sorted(self.reference_correct.items())
            }
        return doc

    def with_actions(self, actions: tuple[str, ...]) -> Episode:
        return Episode(
            self.id,
            self.rooms,
            self.receptacles,
            self.objects,
            self.agent,
            self.agent_at,
            actions,
            {},
            self.description,
            self.reference_correct,
        )


# --- actions -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParsedAction:
    name: str
    args: tuple[str, ...]


def parse_action(text: str) -> ParsedAction | None:
    """``pick(cup_0)`` → ``ParsedAction("pick", ("cup_0",))``; None when the text is not of
    the shape ``name`` or ``name(arg, ...)`` (a parsing error of the plan). Never evaluates
    the text."""
    if len(text) > MAX_ACTION_CHARS:
        return None
    m = _ACTION.match(text)
    if m is None:
        return None
    inner = m.group(2)
    if inner is None or not inner.strip():
        return ParsedAction(m.group(1), ())
    args = tuple(a.strip() for a in inner.split(","))
    if not all(_ARG.match(a) for a in args):
        return None
    return ParsedAction(m.group(1), args)


# --- reading -----------------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise EpisodeFormatError(f"key {k!r} appears twice in one JSON object")
        out[k] = v
    return out


def loads(text: str) -> Any:
    """``json.loads`` that rejects repeated keys (two objects with one id would otherwise
    silently collapse into one)."""
    try:
        return boundary.loads(text, source="episode", object_pairs_hook=_no_duplicates)
    except boundary.InputError as err:
        raise EpisodeFormatError(f"{err.message} ({err.where}); {err.hint}") from None


def _check_id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _ID.match(value) or value.lower() in KEYWORDS:
        raise EpisodeFormatError(
            f"{where}: {value!r} is not a valid id (letters, digits and _, optionally "
            "followed by .N; not a keyword of the goal logic)"
        )
    if value.split(".")[0] == COUNTER_PREFIX and "." in value:
        raise EpisodeFormatError(f"{where}: ids {COUNTER_PREFIX}.N are reserved")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EpisodeFormatError(f"{where}: expected a non-empty string, got {value!r}")
    return value.strip()


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise EpisodeFormatError(f"{where}: expected an object, got {type(value).__name__}")
    if len(value) > MAX_ENTITIES:
        raise EpisodeFormatError(f"{where}: more than {MAX_ENTITIES} entries")
    return value


def _fields(value: Mapping[str, Any], where: str, allowed: set[str]) -> None:
    extra = sorted(set(value) - allowed)
    if extra:
        raise EpisodeFormatError(f"{where}: unknown fields {extra}")


def _action_text(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        name = value.get("action")
        args = value.get("args", [])
        if (
            isinstance(name, str)
            and isinstance(args, list)
            and all(isinstance(a, str) for a in args)
        ):
            return f"{name}({', '.join(args)})"
    raise EpisodeFormatError(
        f"{where}: an action is a string like 'pick(cup_0)' or "
        "{'action': 'pick', 'args': ['cup_0']}"
    )


def episode_from_json(doc: Any) -> Episode:
    """Read and check one episode document; raises :class:`EpisodeFormatError`."""
    doc = _mapping(doc, "episode")
    _fields(
        doc,
        "episode",
        {
            "format",
            "id",
            "description",
            "rooms",
            "receptacles",
            "objects",
            "agent",
            "actions",
            "expected",
            "reference_correct",
        },
    )
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise EpisodeFormatError(f"unsupported format {fmt!r}; expected {FORMAT!r}")
    ident = _text(doc.get("id"), "id")
    where = f"episode {ident}"
    seen: dict[str, str] = {}

    def claim(name: str, kind: str) -> None:
        if name in seen:
            raise EpisodeFormatError(f"{where}: id {name!r} names both a {seen[name]} and a {kind}")
        seen[name] = kind

    rooms: dict[str, str] = {}
    for rid, rtype in _mapping(doc.get("rooms"), f"{where}.rooms").items():
        claim(_check_id(rid, f"{where}.rooms"), "room")
        rooms[rid] = _text(rtype, f"{where}.rooms.{rid}")
    recs: list[Receptacle] = []
    for rid, raw in _mapping(doc.get("receptacles"), f"{where}.receptacles").items():
        w = f"{where}.receptacles.{rid}"
        claim(_check_id(rid, w), "receptacle")
        rdoc = _mapping(raw, w)
        _fields(rdoc, w, {"category", "room", "capacity"})
        room = _text(rdoc.get("room"), f"{w}.room")
        if room not in rooms:
            raise EpisodeFormatError(f"{w}: unknown room {room!r}")
        cap = rdoc.get("capacity")
        if cap is not None and (
            isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= MAX_CAPACITY
        ):
            raise EpisodeFormatError(f"{w}.capacity: expected an integer in 0..{MAX_CAPACITY}")
        recs.append(Receptacle(rid, _text(rdoc.get("category"), f"{w}.category"), room, cap))
    by_rec = {r.id: r for r in recs}
    items: list[Item] = []
    for oid, raw in _mapping(doc.get("objects"), f"{where}.objects").items():
        w = f"{where}.objects.{oid}"
        claim(_check_id(oid, w), "object")
        odoc = _mapping(raw, w)
        _fields(odoc, w, {"category", "on"})
        on = _text(odoc.get("on"), f"{w}.on")
        if on not in by_rec:
            raise EpisodeFormatError(f"{w}: starts on unknown receptacle {on!r}")
        items.append(Item(oid, _text(odoc.get("category"), f"{w}.category"), on))
    load: dict[str, int] = {}
    for o in items:
        load[o.on] = load.get(o.on, 0) + 1
    for r in recs:
        if r.capacity is not None and load.get(r.id, 0) > r.capacity:
            raise EpisodeFormatError(
                f"{where}: receptacle {r.id} holds {load[r.id]} objects at the start but has "
                f"capacity {r.capacity}"
            )
    agent_doc = _mapping(doc.get("agent", {}), f"{where}.agent")
    _fields(agent_doc, f"{where}.agent", {"id", "at"})
    agent = _check_id(agent_doc.get("id", "robot"), f"{where}.agent.id")
    claim(agent, "agent")
    at = agent_doc.get("at")
    if at is not None and at not in by_rec:
        raise EpisodeFormatError(f"{where}.agent.at: unknown receptacle {at!r}")
    raw_actions = doc.get("actions", [])
    if not isinstance(raw_actions, list) or len(raw_actions) > MAX_ACTIONS:
        raise EpisodeFormatError(f"{where}.actions: expected a list of at most {MAX_ACTIONS}")
    actions = tuple(_action_text(a, f"{where}.actions[{i}]") for i, a in enumerate(raw_actions))
    expected: dict[str, float] = {}
    for k, v in _mapping(doc.get("expected", {}), f"{where}.expected").items():
        if k not in METRIC_NAMES:
            raise EpisodeFormatError(f"{where}.expected: unknown metric {k!r}")
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise EpisodeFormatError(f"{where}.expected.{k}: expected a number")
        expected[k] = float(v)
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise EpisodeFormatError(f"{where}.description: expected a string")
    reference = _reference_correct(doc.get("reference_correct"), where, items, by_rec)
    return Episode(
        ident,
        rooms,
        tuple(recs),
        tuple(items),
        agent,
        at,
        actions,
        expected,
        description,
        reference,
    )


def _reference_correct(
    raw: Any, where: str, items: list[Item], recs: Mapping[str, Receptacle]
) -> dict[str, frozenset[str]] | None:
    """The optional ``reference_correct`` field: every object → the receptacles the
    reference's ``end_matrix`` marks correct for it (a list, possibly empty)."""
    if raw is None:
        return None
    w = f"{where}.reference_correct"
    table = _mapping(raw, w)
    ids = {o.id for o in items}
    if set(table) != ids:
        missing, extra = sorted(ids - set(table)), sorted(set(table) - ids)
        raise EpisodeFormatError(
            f"{w}: must list every object once (missing {missing}, unknown {extra})"
        )
    out: dict[str, frozenset[str]] = {}
    for o, rs in table.items():
        if not isinstance(rs, list) or not all(isinstance(r, str) and r in recs for r in rs):
            raise EpisodeFormatError(f"{w}.{o}: expected a list of receptacle ids")
        out[o] = frozenset(rs)
    return out


def episode_documents(text: str, name: str = "<input>") -> Iterator[Any]:
    """The episode documents of a file: one episode, a list of them, ``{"episodes": [...]}``
    or JSON Lines (one episode per line). A whole-file syntax error raises; the documents
    themselves are checked one by one by the caller, so one bad episode does not stop a run."""
    stripped = text.lstrip()
    if not stripped:
        raise EpisodeFormatError(f"{name}: empty file")
    try:
        doc = loads(text)
    except EpisodeFormatError as whole:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        try:
            first = loads(lines[0])
        except EpisodeFormatError:
            first = None
        if len(lines) < 2 or not isinstance(first, Mapping):
            raise EpisodeFormatError(f"{name}: {whole}") from None
        for n, ln in enumerate(lines, start=1):
            try:
                yield loads(ln)
            except EpisodeFormatError as err:
                raise EpisodeFormatError(f"{name}, line {n}: {err}") from None
        return
    if isinstance(doc, Mapping) and "episodes" in doc:
        doc = doc["episodes"]
    if isinstance(doc, list):
        yield from doc
    else:
        yield doc


def read_text(path: Path) -> str:
    """An episode file's text, through the input boundary (UTF-8, bounded size). A gzip
    file (the reference ships its episodes as ``<scene>.json.gz``) is recognised by its
    magic bytes and decompressed, up to the same size bound."""
    try:
        data = boundary.read_bytes(path)
        if data[:2] == _GZIP_MAGIC:
            data = _gunzip(data, str(path))
        return boundary.decode(data, source=str(path))
    except boundary.InputError as err:
        raise EpisodeFormatError(str(err)) from None


_GZIP_MAGIC = b"\x1f\x8b"


def _gunzip(data: bytes, source: str) -> bytes:
    """Decompress at most ``MAX_FILE_BYTES`` (a gzip bomb stops at the bound)."""
    import zlib

    from planproof.boundary.limits import MAX_FILE_BYTES

    inflate = zlib.decompressobj(wbits=31)
    try:
        out = inflate.decompress(data, MAX_FILE_BYTES + 1)
    except zlib.error as err:
        raise EpisodeFormatError(f"{source}: not a readable gzip file ({err})") from None
    if len(out) > MAX_FILE_BYTES:
        raise EpisodeFormatError(
            f"{source}: decompresses to more than {MAX_FILE_BYTES} bytes (docs/limits.md)"
        )
    if not inflate.eof:
        raise EpisodeFormatError(f"{source}: the gzip data is truncated")
    return out


def load_episodes(path: Path) -> list[Episode]:
    """Every episode of a file; the first malformed one raises."""
    return [episode_from_json(d) for d in episode_documents(read_text(path), str(path))]
