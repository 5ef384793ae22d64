"""The Housekeep human-preference store (Kant et al. 2022, §2 of the spec).

For every (object category, room type, receptacle category) the annotators put the
receptacle into one of three bins — *correct* (found here in a tidy house), *misplaced*
(found here in a messy house) or *implausible* — and ranked the receptacles inside the
correct and misplaced bins, best first. A :class:`Judgement` keeps, for one triple, the rank
each annotator gave in each bin (so the bin sizes are the vote counts) and the number of
implausible votes; everything else (fractions, verdicts, mean reciprocal rank, consensus
rankings) is derived from it, so the numbers can never disagree with the raw votes.

Two file formats carry the same content (see ``docs/housekeep.md``)::

    {"format": "planproof-housekeep-preferences/1", "annotators": 10,
     "judgements": [{"object": "cup", "room": "kitchen", "receptacle": "cabinet",
                     "correct": [1, 1, 2, 1, 1, 1], "misplaced": [2, 1], "implausible": 2}]}

    object,room,receptacle,correct,misplaced,implausible
    cup,kitchen,cabinet,1 1 2 1 1 1,2 1,2

A JSON entry may instead give ``"annotations"``: one signed number per annotator (rank in
the correct bin, minus the rank in the misplaced bin, 0 for implausible), the layout of the
released data as the reference code reads it.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from planproof import boundary
from planproof.simulators.housekeep.errors import PreferenceFormatError

FORMAT = "planproof-housekeep-preferences/1"
MAX_ANNOTATORS = 1000
MAX_RANK = 10_000

_SPACES = re.compile(r"[\s\-]+")


@lru_cache(maxsize=8192)
def normalise(name: str) -> str:
    """Category keys compare case-insensitively, with spaces and hyphens read as ``_``
    (``"Butter dish"`` and ``butter_dish`` are one category)."""
    return _SPACES.sub("_", name.strip().lower())


class Verdict(StrEnum):
    """The majority bin of a triple; ``undecided`` when no bin has more than half the votes
    (split votes), ``unjudged`` when the store has no data for the triple."""

    CORRECT = "correct"
    MISPLACED = "misplaced"
    IMPLAUSIBLE = "implausible"
    UNDECIDED = "undecided"
    UNJUDGED = "unjudged"


@dataclass(frozen=True, slots=True)
class Judgement:
    """The votes for one (object, room, receptacle) triple.

    ``correct_ranks`` holds one entry per annotator who put the receptacle in the correct
    bin: the rank (1 = best) that annotator gave it there; likewise ``misplaced_ranks``.
    """

    correct_ranks: tuple[int, ...] = ()
    misplaced_ranks: tuple[int, ...] = ()
    implausible: int = 0

    def __post_init__(self) -> None:
        for r in (*self.correct_ranks, *self.misplaced_ranks):
            if not 1 <= r <= MAX_RANK:
                raise ValueError(f"ranks must be in 1..{MAX_RANK}, got {r}")
        if self.implausible < 0:
            raise ValueError("implausible votes must be >= 0")

    @property
    def annotators(self) -> int:
        return len(self.correct_ranks) + len(self.misplaced_ranks) + self.implausible

    def _fraction(self, votes: int) -> float:
        return votes / self.annotators if self.annotators else 0.0

    @property
    def c(self) -> float:
        """``c_or``: the fraction of annotators who put the receptacle in the correct bin."""
        return self._fraction(len(self.correct_ranks))

    @property
    def m(self) -> float:
        """``m_or``: the fraction who put it in the misplaced bin."""
        return self._fraction(len(self.misplaced_ranks))

    @property
    def i(self) -> float:
        """The fraction who judged it implausible."""
        return self._fraction(self.implausible)

    @property
    def verdict(self) -> Verdict:
        """Strict majority (``c > 0.5``), decided on integers so 5 of 10 is never correct."""
        n = self.annotators
        if n == 0:
            return Verdict.UNJUDGED
        if 2 * len(self.correct_ranks) > n:
            return Verdict.CORRECT
        if 2 * len(self.misplaced_ranks) > n:
            return Verdict.MISPLACED
        if 2 * self.implausible > n:
            return Verdict.IMPLAUSIBLE
        return Verdict.UNDECIDED

    @property
    def is_correct(self) -> bool:
        return self.verdict is Verdict.CORRECT

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank over the annotators who put the receptacle in the correct
        bin (0 when none did): the per-receptacle score of rearrangement quality, as the
        Housekeep reference code computes it."""
        if not self.correct_ranks:
            return 0.0
        return math.fsum(1 / r for r in self.correct_ranks) / len(self.correct_ranks)

    @property
    def mrr_all(self) -> float:
        """Reciprocal rank averaged over *all* annotators (0 for those who did not put the
        receptacle in the correct bin); never above ``c``. The stricter RQ variant."""
        if self.annotators == 0:
            return 0.0
        return math.fsum(1 / r for r in self.correct_ranks) / self.annotators

    def to_annotations(self) -> tuple[int, ...]:
        """The signed per-annotator layout (correct ranks, minus misplaced ranks, zeros)."""
        return (
            *self.correct_ranks,
            *(-r for r in self.misplaced_ranks),
            *(0 for _ in range(self.implausible)),
        )


UNJUDGED = Judgement()

Key = tuple[str, str, str]


@dataclass(frozen=True)
class PreferenceStore:
    """Judgements keyed by normalised (object category, room type, receptacle category)."""

    judgements: Mapping[Key, Judgement]
    annotators: int | None = None

    @classmethod
    def of(
        cls, entries: Iterable[tuple[str, str, str, Judgement]], annotators: int | None = None
    ) -> PreferenceStore:
        """Build from ``(object, room, receptacle, judgement)``; names are normalised and a
        repeated triple is an error (two different vote sets cannot both be the data)."""
        table: dict[Key, Judgement] = {}
        for obj, room, rec, j in entries:
            key = (normalise(obj), normalise(room), normalise(rec))
            if key in table:
                raise PreferenceFormatError(f"triple {key} is given twice")
            if annotators is not None and j.annotators != annotators:
                raise PreferenceFormatError(
                    f"triple {key}: {j.annotators} votes, but the store has {annotators} "
                    "annotators per triple"
                )
            table[key] = j
        return cls(table, annotators)

    def __len__(self) -> int:
        return len(self.judgements)

    def judgement(self, obj: str, room: str, rec: str) -> Judgement:
        """The votes for a triple; :data:`UNJUDGED` (no votes, ``c = 0``) when absent, as
        the reference scores unknown pairs 0."""
        return self.judgements.get((normalise(obj), normalise(room), normalise(rec)), UNJUDGED)

    def c(self, obj: str, room: str, rec: str) -> float:
        return self.judgement(obj, room, rec).c

    def is_correct(self, obj: str, room: str, rec: str) -> bool:
        return self.judgement(obj, room, rec).is_correct

    def verdict(self, obj: str, room: str, rec: str) -> Verdict:
        return self.judgement(obj, room, rec).verdict

    @cached_property
    def objects(self) -> frozenset[str]:
        return frozenset(k[0] for k in self.judgements)

    @cached_property
    def _index(self) -> dict[str, tuple[tuple[str, str, Judgement], ...]]:
        out: dict[str, list[tuple[str, str, Judgement]]] = {}
        for (o, room, rec), j in sorted(self.judgements.items()):
            out.setdefault(o, []).append((room, rec, j))
        return {o: tuple(v) for o, v in out.items()}

    def correct_receptacles(self, obj: str) -> tuple[tuple[str, str], ...]:
        """Every (room, receptacle) correct for ``obj``, best first (consensus order:
        mean reciprocal rank, then the fraction of correct votes, then the name)."""
        rows = [
            (room, rec, j) for room, rec, j in self._index.get(normalise(obj), ()) if j.is_correct
        ]
        rows.sort(key=lambda t: (-t[2].mrr, -t[2].c, t[0], t[1]))
        return tuple((room, rec) for room, rec, _ in rows)

    def valid_rooms(self, obj: str) -> frozenset[str]:
        """Rooms holding at least one correct receptacle for ``obj`` (the paper's rule)."""
        return frozenset(room for room, _ in self.correct_receptacles(obj))

    def ranking(self, obj: str, room: str) -> tuple[str, ...]:
        """The receptacles of ``room`` for ``obj`` as the ranker module lists them: correct
        ones first by consensus, then the others by falling fraction of correct votes."""
        rows = [
            (rec, j) for r, rec, j in self._index.get(normalise(obj), ()) if r == normalise(room)
        ]
        rows.sort(key=lambda t: (not t[1].is_correct, -t[1].mrr, -t[1].c, t[0]))
        return tuple(rec for rec, _ in rows)

    # --- serialisation --------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        rows = [
            {
                "object": o,
                "room": room,
                "receptacle": rec,
                "correct": list(j.correct_ranks),
                "misplaced": list(j.misplaced_ranks),
                "implausible": j.implausible,
            }
            for (o, room, rec), j in sorted(self.judgements.items())
        ]
        doc: dict[str, Any] = {"format": FORMAT, "judgements": rows}
        if self.annotators is not None:
            doc["annotators"] = self.annotators
        return doc

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["object", "room", "receptacle", "correct", "misplaced", "implausible"])
        for (o, room, rec), j in sorted(self.judgements.items()):
            w.writerow(
                [
                    o,
                    room,
                    rec,
                    " ".join(map(str, j.correct_ranks)),
                    " ".join(map(str, j.misplaced_ranks)),
                    j.implausible,
                ]
            )
        return buf.getvalue()


# --- loaders -----------------------------------------------------------------------------


def _int(value: Any, where: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PreferenceFormatError(f"{where}: expected an integer, got {value!r}")
    if not low <= value <= high:
        raise PreferenceFormatError(f"{where}: {value} is outside {low}..{high}")
    return value


def _ranks(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise PreferenceFormatError(f"{where}: expected a list of ranks, got {value!r}")
    if len(value) > MAX_ANNOTATORS:
        raise PreferenceFormatError(f"{where}: more than {MAX_ANNOTATORS} votes")
    return tuple(_int(v, f"{where}[{i}]", low=1, high=MAX_RANK) for i, v in enumerate(value))


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not normalise(value):
        raise PreferenceFormatError(f"{where}: expected a non-empty name, got {value!r}")
    return value


def _judgement_from_json(row: Any, where: str) -> tuple[str, str, str, Judgement]:
    if not isinstance(row, Mapping):
        raise PreferenceFormatError(f"{where}: expected an object, got {type(row).__name__}")
    allowed = {"object", "room", "receptacle", "correct", "misplaced", "implausible", "annotations"}
    extra = sorted(set(row) - allowed)
    if extra:
        raise PreferenceFormatError(f"{where}: unknown fields {extra}")
    obj, room, rec = (_name(row.get(k), f"{where}.{k}") for k in ("object", "room", "receptacle"))
    if "annotations" in row:
        if {"correct", "misplaced", "implausible"} & set(row):
            raise PreferenceFormatError(
                f"{where}: give either 'annotations' or correct/misplaced/implausible, not both"
            )
        signed = row["annotations"]
        if not isinstance(signed, list) or len(signed) > MAX_ANNOTATORS:
            raise PreferenceFormatError(f"{where}.annotations: expected a list of signed ranks")
        vals = [
            _int(v, f"{where}.annotations[{i}]", low=-MAX_RANK, high=MAX_RANK)
            for i, v in enumerate(signed)
        ]
        j = Judgement(
            tuple(v for v in vals if v > 0),
            tuple(-v for v in vals if v < 0),
            sum(1 for v in vals if v == 0),
        )
    else:
        j = Judgement(
            _ranks(row.get("correct", []), f"{where}.correct"),
            _ranks(row.get("misplaced", []), f"{where}.misplaced"),
            _int(row.get("implausible", 0), f"{where}.implausible", low=0, high=MAX_ANNOTATORS),
        )
    return obj, room, rec, j


def store_from_json(doc: Any) -> PreferenceStore:
    """Read the JSON layout (module docstring); raises :class:`PreferenceFormatError`."""
    if isinstance(doc, list):
        doc = {"judgements": doc}
    if not isinstance(doc, Mapping):
        raise PreferenceFormatError("a preference file must hold an object or a list")
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise PreferenceFormatError(f"unsupported format {fmt!r}; expected {FORMAT!r}")
    annotators = doc.get("annotators")
    if annotators is not None:
        annotators = _int(annotators, "annotators", low=1, high=MAX_ANNOTATORS)
    rows = doc.get("judgements")
    if not isinstance(rows, list):
        raise PreferenceFormatError("'judgements' must be a list")
    return PreferenceStore.of(
        (_judgement_from_json(r, f"judgements[{i}]") for i, r in enumerate(rows)), annotators
    )


def _csv_ranks(text: str, line: int, column: str) -> tuple[int, ...]:
    if not text:
        return ()
    parts = text.replace(",", " ").split()
    if len(parts) > MAX_ANNOTATORS:
        raise PreferenceFormatError(f"line {line}.{column}: more than {MAX_ANNOTATORS} votes")
    for p in parts:  # ASCII digits only: "²".isdigit() holds, but int("²") raises
        if not (p.isascii() and p.isdigit()):
            raise PreferenceFormatError(f"line {line}.{column}: {p!r} is not a positive rank")
    out = tuple(map(int, parts))
    for v in out:
        if not 1 <= v <= MAX_RANK:
            _int(v, f"line {line}.{column}", low=1, high=MAX_RANK)  # raises, naming bounds
    return out


def store_from_csv(text: str, annotators: int | None = None) -> PreferenceStore:
    """Read the CSV layout: header ``object,room,receptacle,correct,misplaced,implausible``,
    ranks separated by spaces."""
    try:
        return _store_from_csv(text, annotators)
    except csv.Error as err:
        raise PreferenceFormatError(f"not CSV: {err}") from None


_CSV_HEADER = ["object", "room", "receptacle", "correct", "misplaced", "implausible"]


def _store_from_csv(text: str, annotators: int | None) -> PreferenceStore:
    # csv.reader, not DictReader, and messages built only on error: the real store has
    # 34,432 lines and is read at every start of ``evaluate housekeep``
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None or [f.strip() for f in header] != _CSV_HEADER:
        raise PreferenceFormatError(f"CSV header must be {','.join(_CSV_HEADER)}")
    entries: list[tuple[str, str, str, Judgement]] = []
    for n, row in enumerate(reader, start=2):
        if len(row) != len(_CSV_HEADER):
            raise PreferenceFormatError(f"line {n}: expected {len(_CSV_HEADER)} columns")
        obj, room, rec, correct, misplaced, implausible = (v.strip() for v in row)
        count = implausible or "0"
        if not (count.isascii() and count.isdigit()):
            raise PreferenceFormatError(f"line {n}: implausible must be a count")
        for name, value in (("object", obj), ("room", room), ("receptacle", rec)):
            if not value:
                _name(value, f"line {n}.{name}")  # raises
        entries.append(
            (
                obj,
                room,
                rec,
                Judgement(
                    _csv_ranks(correct, n, "correct"),
                    _csv_ranks(misplaced, n, "misplaced"),
                    _int(int(count), f"line {n}.implausible", low=0, high=MAX_ANNOTATORS),
                ),
            )
        )
    return PreferenceStore.of(entries, annotators)


def load_store(path: Path) -> PreferenceStore:
    """Load a ``.json`` or ``.csv`` preference file."""
    try:
        text = boundary.read_text(path)
        if path.suffix.lower() == ".csv":
            return store_from_csv(text)
        doc = boundary.loads(text, source=str(path))
    except boundary.InputError as err:
        raise PreferenceFormatError(str(err)) from None
    return store_from_json(doc)


DEFAULT_STORE = "housekeep_real_preferences.csv"
"""The released Housekeep annotations (yashkant/housekeep @ ff57c79,
``cos_eor/scripts/orm/amt_data/data.npy``, MIT, ``LICENSE.housekeep`` beside it): 269
object categories × 128 room-receptacle pairs × 10 annotators, 34,432 triples, converted
to the CSV layout."""
DEFAULT_ANNOTATORS = 10


@cache
def default_store() -> PreferenceStore:
    """The real Housekeep preference store shipped in ``data/`` (read once per process)."""
    text = (
        resources.files("planproof.simulators.housekeep")
        .joinpath("data", DEFAULT_STORE)
        .read_text(encoding="utf-8")
    )
    return store_from_csv(text, DEFAULT_ANNOTATORS)
