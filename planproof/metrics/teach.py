"""TEACh metrics: success, goal-condition success and their trajectory-length-weighted forms.

Per episode (paper §5; TEACh's ``compute_metrics.py`` for what the paper leaves open):
goal-condition success is measured from the initial state, ``1 - unsatisfied_final /
unsatisfied_initial`` (clipped to [0, 1]; 1 when nothing was left to do, even if the
agent broke something), and ``TLW-m = m · |A_R| / max(|A_R|, |Â|)``, where ``|Â|``
counts every action taken, the final ``Stop`` included (TEACh's ``traj_len``).
Aggregates come in both readings the paper's tables allow (docs/teach.md): the macro
mean over episodes and TEACh's pooled forms (``Σ completed / Σ needed`` for GC; TLW
weighted by the reference length).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class EpisodeMetrics:
    """Scores of one episode. ``completed`` / ``needed`` are goal conditions the episode
    satisfied / had to satisfy (the pooled GC's numerator and denominator)."""

    episode_id: str
    task: str
    success: bool
    gc: float
    gc_final: float
    completed: int
    needed: int
    reference_length: int
    length: int
    tlw_success: float
    tlw_gc: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def tlw(value: float, reference_length: int, length: int) -> float:
    """Trajectory-length weighting: full value at or under the reference length."""
    if length <= reference_length:
        return value  # exactly, not value * L / L (which rounds)
    return value * reference_length / length


def episode_metrics(
    episode_id: str,
    task: str,
    *,
    success: bool,
    initial: tuple[int, int],
    final: tuple[int, int],
    reference_length: int,
    length: int,
) -> EpisodeMetrics:
    """``initial`` and ``final`` are (satisfied, total) goal-condition counts."""
    i_sat, i_tot = initial
    f_sat, f_tot = final
    needed = max(0, i_tot - min(i_sat, i_tot))
    left = max(0, f_tot - min(f_sat, f_tot))
    # nothing was left to do: 1, whatever the end state (TEACh's evaluate_traj)
    gc = 1.0 if needed == 0 else min(1.0, max(0.0, 1.0 - left / needed))
    completed = max(0, min(needed, needed - left))
    gc_final = f_sat / f_tot if f_tot else 1.0
    return EpisodeMetrics(
        episode_id=episode_id,
        task=task,
        success=success,
        gc=gc,
        gc_final=min(1.0, gc_final),
        completed=completed,
        needed=needed,
        reference_length=reference_length,
        length=length,
        tlw_success=tlw(float(success), reference_length, length),
        tlw_gc=tlw(gc, reference_length, length),
    )


@dataclass(frozen=True, slots=True)
class Summary:
    """Aggregates over episodes, as fractions in [0, 1]."""

    episodes: int
    success_rate: float
    gc_macro: float
    gc_pooled: float
    tlw_success_macro: float
    tlw_gc_macro: float
    tlw_success_weighted: float
    tlw_gc_weighted: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _weighted(xs: Sequence[float], ws: Sequence[int]) -> float:
    total = sum(ws)
    return sum(x * w for x, w in zip(xs, ws, strict=True)) / total if total else 0.0


def summarise(ms: Sequence[EpisodeMetrics]) -> Summary:
    ws = [m.reference_length for m in ms]
    needed = sum(m.needed for m in ms)
    return Summary(
        episodes=len(ms),
        success_rate=_mean([float(m.success) for m in ms]),
        gc_macro=_mean([m.gc for m in ms]),
        gc_pooled=sum(m.completed for m in ms) / needed if needed else _mean([m.gc for m in ms]),
        tlw_success_macro=_mean([m.tlw_success for m in ms]),
        tlw_gc_macro=_mean([m.tlw_gc for m in ms]),
        tlw_success_weighted=_weighted([m.tlw_success for m in ms], ws),
        tlw_gc_weighted=_weighted([m.tlw_gc for m in ms], ws),
    )


def summarise_by_task(ms: Sequence[EpisodeMetrics]) -> dict[str, Summary]:
    groups: dict[str, list[EpisodeMetrics]] = {}
    for m in ms:
        groups.setdefault(m.task, []).append(m)
    return {k: summarise(v) for k, v in sorted(groups.items())}
