"""Reading run directories (``run.json``, ``responses.jsonl``, ``results.jsonl``,
``summary.json``) into typed records.

A run directory is the runner's output, but it may be partial (a run still going, or
killed before the evaluation) or edited by hand, so every field is read defensively: a
wrong type becomes a default and a bad JSON line becomes a note shown on the page. Only a
missing or unreadable ``run.json`` / ``summary.json`` is fatal (:class:`ReportError`,
naming the file), because without them the page cannot say what the run was.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planproof import boundary

RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
RESPONSES_FILE = "responses.jsonl"
RESULTS_FILE = "results.jsonl"
REPRODUCE_FILE = "reproduce.json"
MAX_LINE_NOTES = 5
MAX_RECORDS = 20_000
"""Most lines read from a run's ``responses.jsonl`` or ``results.jsonl`` (the largest EAI
module has 338 tasks); a bigger file is refused with its line count."""


EXPECTED = (
    f"{RUN_FILE} (planproof run / demo) or {SUMMARY_FILE} with {RESULTS_FILE} "
    "(planproof evaluate: the EAI modules, teach, partnr) or with episodes.jsonl "
    "(evaluate housekeep) or reproduce.json (reproduce eai)"
)
"""What a results directory holds, said in every error about one."""


class ReportError(Exception):
    """A run directory the report cannot use; the message names the file."""


# --- defensive accessors over parsed JSON -------------------------------------------------


def as_str(value: object, default: str = "") -> str:
    """``value`` if it is a string, a number written out, else ``default``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    return default


def opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: object, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return default


def opt_int(value: object) -> int | None:
    return None if value is None else as_int(value)


def opt_float(value: object) -> float | None:
    """A finite number, or None (booleans, NaN and infinities are not measurements)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def as_bool(value: object) -> bool:
    return value is True


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def str_list(value: object) -> tuple[str, ...]:
    return tuple(as_str(v) for v in as_list(value) if isinstance(v, str | int | float))


def dig(doc: object, *path: str) -> object:
    """``doc[path[0]][path[1]]...`` or None when any step is missing."""
    for key in path:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(key)
    return doc


# --- records ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Calls:
    """How the run's model calls went (the runner's counters)."""

    made: int = 0
    cached: int = 0
    failed: int = 0


@dataclass(frozen=True, slots=True)
class RunInfo:
    """``run.json``: what was run, with which parameters, and what it cost."""

    model: str
    module: str
    dataset: str
    planproof_version: str = ""
    params: Mapping[str, object] = field(default_factory=dict)
    api_base: str | None = None
    started: str | None = None
    finished: str | None = None
    tasks: int | None = None
    calls: Calls = Calls()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    seconds: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CallError:
    """Why a model call produced no output (after the client's retries)."""

    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class ResponseRecord:
    """One line of ``responses.jsonl``."""

    identifier: str
    prompt: str = ""
    llm_output: str | None = None
    error: CallError | None = None
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    seconds: float | None = None
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class Run:
    """A loaded run directory. ``results`` are the module evaluator's per-task
    ``to_dict()`` records, kept as parsed JSON (:mod:`planproof.report.outcome` reads
    them per module); ``notes`` say what was missing or unreadable."""

    path: Path
    info: RunInfo
    summary: Mapping[str, Any]
    responses: tuple[ResponseRecord, ...]
    results: tuple[Mapping[str, Any], ...]
    notes: tuple[str, ...] = ()
    evaluated: bool = True

    def response_by_id(self) -> dict[str, ResponseRecord]:
        return {r.identifier: r for r in self.responses}

    def result_by_id(self) -> dict[str, Mapping[str, Any]]:
        out: dict[str, Mapping[str, Any]] = {}
        for r in self.results:
            ident = as_str(r.get("identifier"))
            if ident:
                out.setdefault(ident, r)
        return out


# --- reading ------------------------------------------------------------------------------


def read_object(path: Path) -> dict[str, Any]:
    try:
        doc = boundary.read_json(path)
    except boundary.InputError as exc:
        if exc.kind == "not-found":
            raise ReportError(f"{path}: file not found") from None
        what = (
            "not valid JSON" if exc.kind in ("not-json", "too-deep", "surrogate") else "cannot read"
        )
        place = f" at {exc.where}" if exc.where else ""
        raise ReportError(f"{path}: {what} ({exc.message}{place}; {exc.hint})") from None
    if not isinstance(doc, dict):
        raise ReportError(f"{path}: expected a JSON object, got {type(doc).__name__}")
    return doc


def read_jsonl(path: Path, notes: list[str]) -> list[dict[str, Any]] | None:
    """The JSON objects of a JSON Lines file (None when it does not exist); bad lines are
    skipped with a note (a run killed mid-write leaves a truncated last line). More than
    :data:`MAX_RECORDS` lines is refused up front: the page would be unusable."""
    if not path.exists():
        return None
    try:
        data = boundary.read_bytes(path)
    except boundary.InputError as exc:
        if exc.kind == "too-large":
            raise ReportError(str(exc)) from None
        notes.append(f"{path.name}: cannot read ({exc.message})")
        return []
    try:
        text = boundary.decode(data, source=path.name)
    except boundary.InputError as exc:
        notes.append(f"{path.name}: {exc.message} at {exc.where}; undecodable bytes replaced")
        text = data.decode("utf-8", errors="replace")
    out: list[dict[str, Any]] = []
    bad: list[str] = []
    try:
        lines = list(boundary.json_lines(text, source=str(path), max_lines=MAX_RECORDS))
    except boundary.InputError as exc:
        raise ReportError(str(exc)) from None
    for ln in lines:
        if ln.error is not None:
            bad.append(f"{path.name} line {ln.line}: invalid JSON ({ln.error.message})")
        elif not isinstance(ln.value, dict):
            bad.append(f"{path.name} line {ln.line}: not a JSON object")
        else:
            out.append(ln.value)
    notes.extend(bad[:MAX_LINE_NOTES])
    if len(bad) > MAX_LINE_NOTES:
        notes.append(f"{path.name}: {len(bad) - MAX_LINE_NOTES} more unreadable lines")
    return out


def _redact_url(url: str | None) -> str | None:
    """An API base without user:password@ (it is shown on the page)."""
    if url is None or "@" not in url:
        return url
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    host = rest.split("/", 1)
    if "@" in host[0]:
        host[0] = "***@" + host[0].rsplit("@", 1)[1]
    return scheme + sep + "/".join(host)


def _run_info(doc: Mapping[str, Any], summary: Mapping[str, Any]) -> RunInfo:
    calls = as_dict(doc.get("calls"))
    tokens = as_dict(doc.get("tokens"))
    params = {
        k: v for k, v in as_dict(doc.get("params")).items() if isinstance(v, str | int | float)
    }
    seconds = {
        k: f for k, v in as_dict(doc.get("seconds")).items() if (f := opt_float(v)) is not None
    }
    return RunInfo(
        model=as_str(doc.get("model")) or as_str(summary.get("model")) or "(unknown model)",
        module=normalise_module(as_str(doc.get("module")) or as_str(summary.get("module"))),
        dataset=as_str(doc.get("dataset")) or as_str(summary.get("dataset")) or "(unknown)",
        planproof_version=as_str(doc.get("planproof_version")),
        params=params,
        api_base=_redact_url(opt_str(doc.get("api_base"))),
        started=opt_str(doc.get("started")),
        finished=opt_str(doc.get("finished")),
        tasks=opt_int(doc.get("tasks")),
        calls=Calls(
            as_int(calls.get("made")), as_int(calls.get("cached")), as_int(calls.get("failed"))
        ),
        prompt_tokens=as_int(tokens.get("prompt")),
        completion_tokens=as_int(tokens.get("completion")),
        cost_usd=opt_float(doc.get("cost_usd")),
        seconds=seconds,
    )


def normalise_module(name: str) -> str:
    """``action_sequencing`` / ``Action-Sequencing`` → ``action-sequencing``."""
    return name.strip().lower().replace("_", "-") or "(unknown)"


def _response(doc: Mapping[str, Any]) -> ResponseRecord | None:
    ident = as_str(doc.get("identifier"))
    if not ident:
        return None
    err = doc.get("error")
    error = None
    if isinstance(err, dict):
        error = CallError(as_str(err.get("kind"), "error"), as_str(err.get("message")))
    elif isinstance(err, str) and err:
        error = CallError("error", err)
    usage = as_dict(doc.get("usage"))
    return ResponseRecord(
        identifier=ident,
        prompt=as_str(doc.get("prompt")),
        llm_output=opt_str(doc.get("llm_output")),
        error=error,
        cached=as_bool(doc.get("cached")),
        prompt_tokens=as_int(usage.get("prompt_tokens")),
        completion_tokens=as_int(usage.get("completion_tokens")),
        cost_usd=opt_float(doc.get("cost_usd")),
        seconds=opt_float(doc.get("seconds")),
        attempts=as_int(doc.get("attempts")),
    )


def is_reproduce_dir(path: Path) -> bool:
    """A directory written by ``planproof reproduce eai`` (``reproduce.json``)."""
    return (path / REPRODUCE_FILE).is_file() and not (path / SUMMARY_FILE).exists()


def is_results_dir(path: Path) -> bool:
    """A directory written by ``planproof run`` (``run.json``), by an ``evaluate``
    command (``summary.json`` without ``run.json``) or by ``reproduce eai``."""
    return path.is_dir() and (
        (path / RUN_FILE).exists() or (path / SUMMARY_FILE).exists() or is_reproduce_dir(path)
    )


def infer_module(summary: Mapping[str, Any]) -> str:
    """The module of an ``evaluate`` summary written before it recorded its module."""
    if "subgoals" in summary:
        return "subgoal-decomposition"
    if "trajectory_evaluation" in summary:
        return "action-sequencing"
    if "grammar" in summary and "goal_evaluation" in summary:
        return "goal-interpretation"
    if "by_category" in summary:
        return "transition-modeling"
    return ""


def _evaluate_info(summary: Mapping[str, Any]) -> dict[str, Any]:
    """``run.json``'s fields for an ``evaluate`` directory: the answers' source (the
    responses file, or the gold) stands for the model."""
    source = as_str(summary.get("source")) or "evaluate"
    return {
        "model": as_str(summary.get("model")) or Path(source).name or source,
        "module": as_str(summary.get("module")) or infer_module(summary),
        "dataset": summary.get("dataset"),
        "tasks": summary.get("tasks_in_dataset", summary.get("tasks")),
    }


def read_run(path: Path, summary: dict[str, Any]) -> Run:
    """One results directory of planproof's own layout (``run.json``, or ``evaluate``'s
    ``summary.json`` naming its module) whose ``summary`` is read;
    :func:`planproof.report.results_dirs.load_run` picks the reader of a directory."""
    from_run = (path / RUN_FILE).exists()
    if not from_run and not (as_str(summary.get("module")) or infer_module(summary)):
        raise ReportError(
            f"{path / SUMMARY_FILE}: not a summary planproof writes (it names no module "
            f"or benchmark); expected {EXPECTED}"
        )
    run_doc = read_object(path / RUN_FILE) if from_run else _evaluate_info(summary)
    notes: list[str] = []
    raw_responses = read_jsonl(path / RESPONSES_FILE, notes)
    has_responses = raw_responses is not None
    if raw_responses is None:
        if from_run:
            notes.append(f"{RESPONSES_FILE} is missing: prompts and responses are not shown")
        raw_responses = []
    responses: list[ResponseRecord] = []
    seen: set[str] = set()
    for doc in raw_responses:
        rec = _response(doc)
        if rec is None:
            notes.append(f"{RESPONSES_FILE}: a record without an identifier was skipped")
        elif rec.identifier in seen:
            notes.append(f"{RESPONSES_FILE}: duplicate identifier {rec.identifier!r} skipped")
        else:
            seen.add(rec.identifier)
            responses.append(rec)
    raw_results = read_jsonl(path / RESULTS_FILE, notes)
    evaluated = raw_results is not None
    if raw_results is None:
        notes.append(f"{RESULTS_FILE} is missing: the responses have not been evaluated yet")
        raw_results = []
    info = _run_info(run_doc, summary)
    error = summary.get("error")
    if isinstance(error, str) and error:  # e.g. a compare-domains candidate that does not parse
        notes.append(f"error: {error[:2000]}")
    failed = sum(r.error is not None for r in responses)
    if failed:
        notes.append(f"{failed} model call(s) failed: no response for those tasks")
    if has_responses and info.tasks is not None and len(responses) < info.tasks:
        notes.append(f"{len(responses)} of {info.tasks} tasks have a response record")
    return Run(
        path=path,
        info=info,
        summary=summary,
        responses=tuple(responses),
        results=tuple(raw_results),
        notes=tuple(dict.fromkeys(notes)),
        evaluated=evaluated,
    )
