"""TEACh episodes: a task, an initial symbolic state, the Follower's actions; and their run.

An episode file (format in docs/teach.md) is one JSON object, a list of them, or JSON
Lines. Running an episode replays the actions TEACh's way (a failed action changes nothing
and the episode goes on, up to 1000 steps or 30 failures, or ``Stop``), records each
failure with the generic classifier's kind, and also replays the interactions through
:func:`planproof.simulators.core.replay` for the first blocking error (which tells a
wrong order from a missing step). The checker scores the initial and the final state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planproof.boundary import InputError, json_documents, read_text
from planproof.simulators.core import Action, ErrorKind, StepError, replay
from planproof.simulators.teach.checker import TaskStatus, check
from planproof.simulators.teach.errors import EpisodeError, TeachError
from planproof.simulators.teach.state import SymbolicState
from planproof.simulators.teach.tdl import Task, TaskRegistry, default_registry
from planproof.simulators.teach.world import STOP, TeachWorld, is_navigation, parse_action

MAX_STEPS = 1000
MAX_FAILURES = 30
MAX_ACTIONS = 100_000


@dataclass(frozen=True)
class Episode:
    """One evaluation instance."""

    episode_id: str
    task: Task
    initial: SymbolicState
    actions: tuple[str, ...]
    slices: Mapping[str, str]
    reference_length: int | None = None
    final: SymbolicState | None = None


def _slices(raw_state: object) -> dict[str, str]:
    objs = raw_state.get("objects") if isinstance(raw_state, dict) else raw_state
    out: dict[str, str] = {}
    if isinstance(objs, list):
        for o in objs:
            if isinstance(o, dict) and isinstance(o.get("sliceOf"), str):
                out[str(o.get("objectId"))] = o["sliceOf"]
    return out


def parse_episode(raw: object, *, registry: TaskRegistry | None = None, index: int = 0) -> Episode:
    """Validate one episode object."""
    if not isinstance(raw, dict):
        raise EpisodeError(f"episode #{index}: must be a JSON object")
    eid = str(raw.get("id", f"episode-{index}"))
    where = f"episode {eid!r}"
    task_name = raw.get("task")
    if not isinstance(task_name, str | int) or isinstance(task_name, bool):
        raise EpisodeError(f"{where}: 'task' must be a task name or id")
    params = raw.get("params", [])
    if not isinstance(params, list):
        raise EpisodeError(f"{where}: 'params' must be a list")
    reg = registry or default_registry()
    try:
        task = reg.instantiate(task_name, [str(p) for p in params])
        if "initial_state" not in raw:
            raise EpisodeError(f"{where}: missing 'initial_state'")
        initial = SymbolicState.from_json(raw["initial_state"])
        final = SymbolicState.from_json(raw["final_state"]) if raw.get("final_state") else None
    except TeachError as exc:
        raise EpisodeError(f"{where}: {exc}") from exc
    actions = raw.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise EpisodeError(f"{where}: 'actions' must be a list of strings")
    if len(actions) > MAX_ACTIONS:
        raise EpisodeError(f"{where}: more than {MAX_ACTIONS} actions")
    ref = raw.get("reference_length")
    if ref is None and isinstance(raw.get("reference_actions"), list):
        ref = len(raw["reference_actions"])
    if ref is not None and (isinstance(ref, bool) or not isinstance(ref, int) or ref < 0):
        raise EpisodeError(f"{where}: reference_length must be a non-negative integer")
    slices = _slices(raw["initial_state"])
    for s, whole in slices.items():
        if whole not in initial or s not in initial:
            raise EpisodeError(f"{where}: sliceOf of {s!r} names an unknown object {whole!r}")
    return Episode(eid, task, initial, tuple(actions), slices, ref, final)


def load_episodes(path: Path, *, registry: TaskRegistry | None = None) -> list[Episode]:
    """Episodes from a JSON file (object or list), a JSON Lines file, or a directory of
    ``*.json`` files (sorted by name)."""
    if path.is_dir():
        out: list[Episode] = []
        for f in sorted(path.glob("*.json")):
            out.extend(load_episodes(f, registry=registry))
        return out
    try:
        text = read_text(path)
    except InputError as exc:
        raise EpisodeError(str(exc)) from exc
    return parse_episodes(text, registry=registry, source=str(path))


def parse_episodes(
    text: str, *, registry: TaskRegistry | None = None, source: str = "<text>"
) -> list[Episode]:
    try:
        items = json_documents(text, source=source)
    except InputError as exc:
        raise EpisodeError(str(exc)) from exc
    return [parse_episode(x, registry=registry, index=i) for i, x in enumerate(items)]


@dataclass(frozen=True)
class EpisodeRun:
    """What happened: the statuses before and after, every failed action, the lengths."""

    episode: Episode
    initial_status: TaskStatus
    final_status: TaskStatus
    final_state: SymbolicState
    steps: int
    interactions: int
    failures: tuple[StepError, ...]
    warnings: tuple[StepError, ...]
    first_error: StepError | None
    stopped_by: str
    final_source: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.episode.episode_id,
            "task": self.episode.task.name,
            "params": list(self.episode.task.params),
            "steps": self.steps,
            "interactions": self.interactions,
            "stopped_by": self.stopped_by,
            "final_source": self.final_source,
            "failures": [f.to_dict() for f in self.failures],
            "warnings": [w.to_dict() for w in self.warnings],
            "first_error": self.first_error.to_dict() if self.first_error else None,
            "initial": self.initial_status.to_json(),
            "final": self.final_status.to_json(),
        }


def run_episode(
    ep: Episode, *, max_steps: int = MAX_STEPS, max_failures: int = MAX_FAILURES
) -> EpisodeRun:
    tw = TeachWorld.build(ep.initial, ep.slices)
    state = tw.initial
    failures: list[StepError] = []
    warnings: list[StepError] = []
    interactions: list[Action] = []
    steps = 0
    stopped_by = "end"
    for i, text in enumerate(ep.actions):
        if steps >= max_steps:
            stopped_by = "max_steps"
            break
        action = parse_action(text)
        steps += 1  # Stop included: TEACh's trajectory length counts it
        if action.name.lower() == STOP:
            stopped_by = "stop"
            break
        if is_navigation(action):
            continue
        if not action.name:
            failures.append(StepError(i, None, ErrorKind.PARSING, f"cannot read {text!r}"))
        else:
            interactions.append(action)
            res = tw.world.step(state, action, i)
            if res.error is None:
                state = res.state
            elif res.error.kind is ErrorKind.ADDITIONAL_STEP:
                warnings.append(res.error)
            else:
                failures.append(res.error)
        if len(failures) >= max_failures:
            stopped_by = "max_failures"
            break
    core = replay(tw.world, tw.initial, interactions, check_grammar_first=False)
    replayed = tw.symbolic(state)
    final = ep.final if ep.final is not None else replayed
    return EpisodeRun(
        episode=ep,
        initial_status=check(ep.task, tw.symbolic(tw.initial)),
        final_status=check(ep.task, final),
        final_state=final,
        steps=steps,
        interactions=len(interactions),
        failures=tuple(failures),
        warnings=tuple(warnings),
        first_error=core.first_error,
        stopped_by=stopped_by,
        final_source="given" if ep.final is not None else "replayed",
    )


def run_episodes(episodes: Sequence[Episode], **kw: int) -> list[EpisodeRun]:
    return [run_episode(e, **kw) for e in episodes]
