"""The Housekeep tidy-house metrics (Kant et al. 2022, appendix C.3), as pure functions of
the start placement, the end placement, the interaction log and the preference votes.

Notation: ``O`` the objects; ``O_m`` those *not correctly placed at the start*; ``O_i``
those the agent picked up (a successful pick); ``O_mi = O_m ∪ O_i``; ``Φ(o)`` the end
receptacle (none while held); ``c(o, r)`` the fraction of correct votes, and "correct"
means ``c > 0.5`` (strictly; 5 of 10 is not correct). ``N(o)`` counts the successful picks
and places of ``o``; ``N_min(o)`` is 2 for ``o ∈ O_m``, else 0.

===========================  ==============================================================
episode success (ES)         1 iff every object of ``O`` ends correct
object success (OS)          ``Σ_{O_mi} 1[correct Φ(o)] / |O_mi|``
soft object success (SOS)    ``Σ_{O_mi} c(o, Φ(o)) / |O_mi|``
rearrangement quality (RQ)   ``Σ_{O_mi} 1[correct Φ(o)]·mrr(o, Φ(o)) / |O_mi|``
pick-place efficiency (PPE)  ``Σ_{O_i} 1[correct Φ(o)]·N_min(o)/N(o) / |O_i|``
misplaced found (MOC)        ``|O_m ∩ discovered| / |O_m|``
map coverage (MC, proxy)     fraction of the scene's rooms the agent visited or explored
===========================  ==============================================================

Where the printed formulas are wrong (``docs/housekeep.md`` §Metrics): RQ is divided by
``|O_mi|`` (the text says "averaged", range [0, 1]; ``rq_normalization="sum"`` gives the
printed sum); PPE uses ``N_min/N`` (the prose and the reference code; the printed ``N/N_min``
divides by zero for ``o ∉ O_m``). ``mrr`` is the mean reciprocal rank over the annotators
who put the receptacle in the correct bin (the reference code); ``mrr="all"`` averages over
all annotators instead. Averages over an empty set take their best value (nothing needed
tidying and nothing was touched), except PPE with ``O_i`` empty, which is 1 only when
``O_m`` is empty too (no work needed, none done) and 0 otherwise (work needed, none done).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Literal

from planproof.simulators.housekeep.episode import METRIC_NAMES, Episode
from planproof.simulators.housekeep.preferences import Judgement, PreferenceStore, Verdict
from planproof.simulators.housekeep.world import Outcome

Judge = Callable[[str, str | None], Judgement]
"""``judge(object, receptacle)``: the votes for an object on a receptacle (None = held)."""

METRICS = METRIC_NAMES
"""The seven metrics, named (and ordered) once with the episode format that stores them."""


@dataclass(frozen=True, slots=True)
class Variants:
    """Switches for the formulas the paper leaves ambiguous (defaults: see module doc)."""

    rq_normalization: Literal["mean", "sum"] = "mean"
    mrr: Literal["correct", "all"] = "correct"


class ObjectStatus(StrEnum):
    """What happened to one object — the per-object diagnosis behind the numbers."""

    TIDY = "tidy"  # correct at the start, never picked
    FIXED = "fixed"  # misplaced at the start, correct at the end
    MOVED_NEEDLESSLY = "moved_needlessly"  # correct at the start, picked, correct at the end
    DISPLACED = "displaced"  # correct at the start, not correct at the end
    WRONG_RECEPTACLE = "wrong_receptacle"  # misplaced, moved, ends on a receptacle not correct
    IMPLAUSIBLE_RECEPTACLE = "implausible_receptacle"  # ... one judged implausible
    HELD = "held"  # still in the hand at the end
    MISSED = "missed"  # misplaced, discovered, never picked
    UNDISCOVERED = "undiscovered"  # misplaced, never discovered


@dataclass(frozen=True, slots=True)
class ObjectScore:
    id: str
    initial: str
    final: str | None
    initially_correct: bool
    finally_correct: bool
    c_final: float
    rank_score: float
    interactions: int
    picked: bool
    discovered: bool
    status: ObjectStatus


@dataclass(frozen=True, slots=True)
class HousekeepScores:
    """One episode's metrics, the counts they are made of, and the per-object diagnosis."""

    episode_success: float
    object_success: float
    soft_object_success: float
    rearrangement_quality: float
    pick_place_efficiency: float
    misplaced_found: float
    map_coverage: float
    objects: int
    misplaced: int
    interacted: int
    considered: int
    picks_places: int
    min_picks_places: int
    per_object: tuple[ObjectScore, ...]

    def metrics(self) -> dict[str, float]:
        return {m: getattr(self, m) for m in METRICS}

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["per_object"] = [{**asdict(o), "status": o.status.value} for o in self.per_object]
        return out


def _status(
    init_ok: bool, end_ok: bool, final: str | None, *, picked: bool, found: bool, verdict: Verdict
) -> ObjectStatus:
    if final is None:
        return ObjectStatus.HELD
    if init_ok:
        if not picked:
            return ObjectStatus.TIDY
        return ObjectStatus.MOVED_NEEDLESSLY if end_ok else ObjectStatus.DISPLACED
    if end_ok:
        return ObjectStatus.FIXED
    if picked:
        if verdict is Verdict.IMPLAUSIBLE:
            return ObjectStatus.IMPLAUSIBLE_RECEPTACLE
        return ObjectStatus.WRONG_RECEPTACLE
    return ObjectStatus.MISSED if found else ObjectStatus.UNDISCOVERED


def _check_log(o: str, start: str, end: str | None, picked: bool, n: int) -> None:
    """Reject an interaction log no run could produce (so N_min/N ≤ 1 is a theorem, not a
    clamp): an object moves only by a pick then a place."""
    if n < 0:
        raise ValueError(f"{o}: negative interaction count")
    if not picked and (n != 0 or end != start):
        raise ValueError(f"{o}: never picked, yet it moved or has interactions")
    if picked and (n < 1 or (end is not None and n < 2)):
        raise ValueError(f"{o}: picked and back on a receptacle needs a pick and a place")


def _mean(values: Sequence[float], empty: float) -> float:
    return math.fsum(values) / len(values) if values else empty


def score(
    initial: Mapping[str, str],
    final: Mapping[str, str | None],
    judge: Judge,
    *,
    interactions: Mapping[str, int],
    picked: Collection[str],
    discovered: Collection[str],
    rooms: Collection[str] = (),
    visited_rooms: Collection[str] = (),
    variants: Variants = Variants(),
    correct: Callable[[str, str], bool] | None = None,
) -> HousekeepScores:
    """The metrics from plain data (see the module docstring for every formula).
    ``correct(object, receptacle)`` overrides the votes' verdict (``c > 0.5``) on what is
    correctly placed, as the reference does with its ``end_matrix``; ``c`` and ``mrr`` still
    come from the votes."""
    if set(final) != set(initial):
        raise ValueError("initial and final placements must cover the same objects")
    per: list[ObjectScore] = []
    for o in sorted(initial):
        j0 = judge(o, initial[o])
        end = final[o]
        j1 = judge(o, end) if end is not None else Judgement()
        if correct is None:
            init_ok, end_ok = j0.is_correct, end is not None and j1.is_correct
        else:
            init_ok, end_ok = correct(o, initial[o]), end is not None and correct(o, end)
        rr = (j1.mrr_all if variants.mrr == "all" else j1.mrr) if end_ok else 0.0
        was_picked = o in picked
        _check_log(o, initial[o], end, was_picked, interactions.get(o, 0))
        found = o in discovered or was_picked
        per.append(
            ObjectScore(
                o,
                initial[o],
                end,
                init_ok,
                end_ok,
                j1.c if end is not None else 0.0,
                rr,
                interactions.get(o, 0),
                was_picked,
                found,
                _status(init_ok, end_ok, end, picked=was_picked, found=found, verdict=j1.verdict),
            )
        )
    o_m = [s for s in per if not s.initially_correct]
    o_i = [s for s in per if s.picked]
    o_mi = [s for s in per if s.picked or not s.initially_correct]
    es = 1.0 if all(s.finally_correct for s in per) else 0.0
    os_ = _mean([1.0 if s.finally_correct else 0.0 for s in o_mi], 1.0)
    sos = _mean([s.c_final for s in o_mi], 1.0)
    rq_terms = [s.rank_score for s in o_mi]
    if variants.rq_normalization == "sum":
        rq = math.fsum(rq_terms) if o_mi else 1.0
    else:
        rq = _mean(rq_terms, 1.0)
    ppe_terms = []
    for s in o_i:
        n = s.interactions
        n_min = 0 if s.initially_correct else 2
        ppe_terms.append(n_min / n if s.finally_correct else 0.0)
    ppe = _mean(ppe_terms, 1.0 if not o_m else 0.0)
    moc = _mean([1.0 if s.discovered else 0.0 for s in o_m], 1.0)
    room_set = set(rooms)
    mc = len(room_set & set(visited_rooms)) / len(room_set) if room_set else 1.0
    return HousekeepScores(
        episode_success=es,
        object_success=os_,
        soft_object_success=sos,
        rearrangement_quality=rq,
        pick_place_efficiency=ppe,
        misplaced_found=moc,
        map_coverage=mc,
        objects=len(per),
        misplaced=len(o_m),
        interacted=len(o_i),
        considered=len(o_mi),
        picks_places=sum(s.interactions for s in per),
        min_picks_places=2 * len(o_m),
        per_object=tuple(per),
    )


def score_episode(
    episode: Episode,
    outcome: Outcome,
    store: PreferenceStore,
    variants: Variants = Variants(),
    correct: Callable[[str, str], bool] | None = None,
) -> HousekeepScores:
    """The metrics of a replayed episode (``correct``: as in :func:`score`)."""

    def judge(o: str, r: str | None) -> Judgement:
        return episode.judgement(store, o, r)

    return score(
        outcome.initial,
        outcome.final,
        judge,
        interactions=outcome.interactions,
        picked=outcome.picked,
        discovered=outcome.discovered,
        rooms=tuple(episode.rooms),
        visited_rooms=outcome.visited_rooms,
        variants=variants,
        correct=correct,
    )


def score_reference(
    episode: Episode,
    outcome: Outcome,
    store: PreferenceStore,
    variants: Variants = Variants(),
) -> HousekeepScores | None:
    """The reference's reading of a replayed episode (None when the episode does not carry
    the reference's verdicts): correct means "marked in the episode's ``end_matrix``"
    (``Episode.reference_correct``), so ``O_m``, ES, OS, PPE, MOC and which objects count
    in RQ follow the reference's ``end_matrix``, while ``c`` (SOS) and ``mrr`` (RQ) are the
    votes of the receptacle's own category, as in the reference's ``_add_obj_metrics``."""
    table = episode.reference_correct
    if table is None:
        return None
    return score_episode(episode, outcome, store, variants, correct=lambda o, r: r in table[o])


def reading_differences(
    planproof: HousekeepScores, reference: HousekeepScores
) -> dict[str, object]:
    """Where the two readings part: the objects judged differently at the start or at the
    end (the substring rule's work) and the metrics that differ."""
    objects = [
        a.id
        for a, b in zip(planproof.per_object, reference.per_object, strict=True)
        if (a.initially_correct, a.finally_correct) != (b.initially_correct, b.finally_correct)
    ]
    ours, theirs = planproof.metrics(), reference.metrics()
    return {
        "objects": objects,
        "metrics": [m for m in METRICS if not math.isclose(ours[m], theirs[m], abs_tol=1e-12)],
    }


@dataclass(frozen=True, slots=True)
class Aggregate:
    """Mean ± standard error over episodes, as the paper reports them."""

    mean: float
    stderr: float
    n: int


def aggregate(values: Iterable[float]) -> Aggregate:
    """Mean and standard error of the mean (sample standard deviation / √n; 0 for n < 2)."""
    xs = list(values)
    if not xs:
        return Aggregate(math.nan, math.nan, 0)
    mean = math.fsum(xs) / len(xs)
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return Aggregate(mean, se, len(xs))


def summarize(scores: Sequence[HousekeepScores]) -> dict[str, Aggregate]:
    """Every metric aggregated over the episodes."""
    return {m: aggregate(getattr(s, m) for s in scores) for m in METRICS}
