"""The reference implementation (``eai-eval`` on PyPI, MIT) in a virtual environment of its
own, for ratios measured in the same run and for differential tests.

planproof never imports eai-eval. The reference's LTL code (``virtualhome_eval/tl_formula``)
needs only lark and the standard library, so the environment is a venv in the planproof
cache with the pinned wheel (the same verified file ``planproof.data`` reads its data from,
installed ``--no-deps``) and lark: a few seconds to build, once. A stamp file written last
records what was installed; a missing or different stamp means "rebuild". Builds are
serialised with a file lock, so parallel test workers share one environment.

The reference is driven by ``reference_driver.py`` in one subprocess per batch (JSON in,
JSON out, see that file), so process start-up is paid once per batch, not per case.

A second flavour, ``action-sequencing`` (its own venv, ``reference-as-venv``), runs the
reference's VirtualHome action-sequencing evaluator (``evaluate_results``) through
``reference_as_driver.py``. Importing and running that evaluator needs numpy besides the
wheel (found by trying: its ``utils`` imports numpy at module level; scipy, networkx,
pyquaternion, pddlgym and the wheel's other declared dependencies are never imported on
that path, which the 342 gold and the mutated response files exercise), so the flavour
adds a pinned numpy, from PyPI only. Keeping it in a venv of its own leaves the LTL
environment, its stamp and its tests untouched.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planproof.data import DataUnavailableError, cache_dir, ensure_wheel, open_wheel
from planproof.data.cache import atomic_write_text
from planproof.data.eai_wheel import EAI_EVAL_VERSION, WHEEL_SHA256
from planproof.ltl.ast import Atom
from planproof.ltl.trace import Trace, ground_atom

LARK_REQUIREMENT = "lark==1.3.1"
"""Pinned so that the reference's (Earley) parser is the same on every machine."""
NUMPY_REQUIREMENT = "numpy==2.4.6"
"""The one extra package the action-sequencing evaluator imports (pinned: same arithmetic
everywhere; this release has wheels for CPython 3.11-3.14)."""
ENV_FORMAT = 1
"""Bump when the LTL environment's recipe changes: existing environments are rebuilt."""
AS_ENV_FORMAT = 1
"""The same, for the action-sequencing flavour."""
VENV_NAME = "reference-venv"
AS_VENV_NAME = "reference-as-venv"
STAMP_NAME = "planproof-reference.json"
DRIVER = Path(__file__).resolve().with_name("reference_driver.py")
PROTOCOL = 1
"""The driver's job format (``PROTOCOL`` in reference_driver.py)."""
AS_DRIVER = Path(__file__).resolve().with_name("reference_as_driver.py")
AS_PROTOCOL = 1
"""The action-sequencing driver's job format (``PROTOCOL`` in reference_as_driver.py)."""
BUILD_TIMEOUT = 600.0
VOCABULARY_MEMBER = "virtualhome_eval/resources/vocabulary.json"

Fact = tuple[str, tuple[str, ...]]
"""A ground atom as the goal text spells it: ``("ON", ("television.410",))``."""


class ReferenceUnavailableError(RuntimeError):
    """The reference environment could not be built or run; the message says why."""


@dataclass(frozen=True)
class TraceData:
    """A state-action trace in plain data, with predicates spelled as in the goal text.

    The reference compares names case-sensitively (``WATCH`` ≠ ``watch``) while planproof
    lower-cases them, so the same trace is sent to the reference as is and to planproof
    through :meth:`to_trace`. Position ``i`` pairs ``states[i]`` with ``actions[i]`` in
    both: the reference zips the state list with the action list the same way.
    """

    states: tuple[frozenset[Fact], ...]
    actions: tuple[Fact, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "states": [[[p, list(args)] for p, args in sorted(s)] for s in self.states],
            "actions": [[p, list(args)] for p, args in self.actions],
        }

    def to_trace(self) -> Trace:
        def atom(fact: Fact) -> Atom:
            return ground_atom(fact[0].lower(), *fact[1])

        return Trace(
            tuple(frozenset(atom(f) for f in s) for s in self.states),
            tuple(atom(a) for a in self.actions),
        )


def reference_case(
    case_id: str,
    goal: str,
    *,
    predicates: Iterable[str],
    actions: Iterable[str],
    objects: Iterable[str],
    traces: Iterable[TraceData] = (),
) -> dict[str, Any]:
    """One case of a driver job: a goal text, the vocabularies its parser needs (every
    predicate name must be one or the other), the objects quantifiers range over, and the
    traces to evaluate it on (none: parse only)."""
    return {
        "id": case_id,
        "goal": goal,
        "predicates": sorted(set(predicates)),
        "actions": sorted(set(actions)),
        "objects": list(objects),
        "traces": [t.to_json() for t in traces],
    }


def virtualhome_vocabulary() -> tuple[list[str], list[str]]:
    """The reference's own VirtualHome vocabulary, read from the wheel as data: the state
    predicates (``tl_predicates``) and action names (``subgoal_actions``) its evaluator
    passes to its goal parser. A name in both is a state predicate there (checked first)."""
    with open_wheel() as wheel:
        vocab = wheel.read_json(VOCABULARY_MEMBER)
    return list(vocab["tl_predicates"]), list(vocab["subgoal_actions"])


@dataclass(frozen=True, slots=True)
class Flavour:
    """One reference environment: its venv's name, what is installed next to the wheel,
    the import that proves it works, and the stamp's extra keys (recipe version)."""

    venv: str
    requirements: tuple[str, ...]
    smoke_import: str
    stamp_extra: tuple[tuple[str, Any], ...]
    what: str


LTL = Flavour(
    VENV_NAME,
    (LARK_REQUIREMENT,),
    "virtualhome_eval.tl_formula.simple_tl_parser",
    (("format", ENV_FORMAT),),
    "the reference's LTL parser",
)
ACTION_SEQUENCING = Flavour(
    AS_VENV_NAME,
    (NUMPY_REQUIREMENT,),
    "virtualhome_eval.evaluation.action_sequencing.scripts.evaluate_results",
    (("format", AS_ENV_FORMAT), ("flavour", "action-sequencing")),
    "the reference's action-sequencing evaluator",
)


def venv_dir(flavour: Flavour = LTL) -> Path:
    return cache_dir() / flavour.venv


def _python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _stamp(flavour: Flavour = LTL) -> dict[str, Any]:
    stamp: dict[str, Any] = dict(flavour.stamp_extra)
    stamp |= {"eai_eval": EAI_EVAL_VERSION, "wheel_sha256": WHEEL_SHA256}
    if flavour is LTL:
        stamp["lark"] = LARK_REQUIREMENT  # the LTL stamp's original keys, unchanged
    else:
        stamp["requirements"] = list(flavour.requirements)
    stamp |= {
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "base_python": sys.base_prefix,
    }
    return stamp


def _is_current(venv: Path, flavour: Flavour = LTL) -> bool:
    try:
        stamp = json.loads((venv / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(stamp == _stamp(flavour) and _python(venv).is_file())


def _run(cmd: Sequence[str], what: str, timeout: float) -> None:
    try:
        proc = subprocess.run(
            list(cmd), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise ReferenceUnavailableError(f"{what} did not finish within {timeout:.0f} s") from None
    except OSError as exc:
        raise ReferenceUnavailableError(f"{what}: cannot run {cmd[0]}: {exc}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
        raise ReferenceUnavailableError(f"{what} failed (exit {proc.returncode}):\n{tail}")


def _build(venv: Path, timeout: float, flavour: Flavour = LTL) -> None:
    try:
        wheel = ensure_wheel()
    except DataUnavailableError as exc:
        raise ReferenceUnavailableError(f"the eai-eval wheel is unavailable: {exc}") from exc
    shutil.rmtree(venv, ignore_errors=True)
    _run([sys.executable, "-m", "venv", str(venv)], "creating the reference venv", timeout)
    py = str(_python(venv))
    _run(
        [
            py,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-input",
            "--disable-pip-version-check",
            str(wheel),
            *flavour.requirements,
        ],
        f"installing eai-eval {EAI_EVAL_VERSION} and {', '.join(flavour.requirements)} into {venv}",
        timeout,
    )
    _run(
        [py, "-I", "-c", f"import {flavour.smoke_import}"],
        f"importing {flavour.what}",
        timeout,
    )
    atomic_write_text(venv / STAMP_NAME, json.dumps(_stamp(flavour), indent=1) + "\n")


def ensure_reference_env(*, timeout: float = BUILD_TIMEOUT, flavour: Flavour = LTL) -> Path:
    """The reference environment's Python, building the environment on first use only."""
    venv = venv_dir(flavour)
    if _is_current(venv, flavour):
        return _python(venv)
    lock = venv.with_name(flavour.venv + ".lock")
    with lock.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # another worker may be building it right now
        if not _is_current(venv, flavour):
            _build(venv, timeout, flavour)
    return _python(venv)


def ensure_action_sequencing_env(*, timeout: float = BUILD_TIMEOUT) -> Path:
    """The Python of the environment that runs the reference's action-sequencing
    evaluator (flavour :data:`ACTION_SEQUENCING`)."""
    return ensure_reference_env(timeout=timeout, flavour=ACTION_SEQUENCING)


@dataclass(frozen=True)
class ReferenceRun:
    versions: dict[str, str]
    results: dict[str, dict[str, Any]]
    """Case id → ``{"parse": outcome, "traces": [outcome, ...]}`` (see the driver)."""


def run_reference(
    cases: Sequence[Mapping[str, Any]],
    *,
    cap_s: float = 10.0,
    repeat: int = 1,
    timeout: float = 600.0,
    python: Path | None = None,
) -> ReferenceRun:
    """Run one batch of cases through the reference in a single subprocess. ``cap_s``
    caps each parse or evaluation inside the driver; ``timeout`` the whole batch."""
    py = python if python is not None else ensure_reference_env()
    job = {"protocol": PROTOCOL, "cap_s": cap_s, "repeat": repeat, "cases": list(cases)}
    try:
        proc = subprocess.run(
            [str(py), "-I", str(DRIVER)],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ReferenceUnavailableError(
            f"the reference driver did not finish {len(cases)} cases within {timeout:.0f} s"
        ) from None
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
        raise ReferenceUnavailableError(
            f"reference driver failed (exit {proc.returncode}):\n{tail}"
        )
    doc = json.loads(proc.stdout)
    if doc.get("protocol") != PROTOCOL:
        raise ReferenceUnavailableError(f"reference driver speaks protocol {doc.get('protocol')}")
    return ReferenceRun(
        versions=dict(doc["versions"]), results={r["id"]: r for r in doc["results"]}
    )


@dataclass(frozen=True)
class ActionSequencingRun:
    versions: dict[str, str]
    models: dict[str, dict[str, Any]]
    """Model name → ``{"seconds", "summary", "error_info", "tasks"}`` (see the driver)."""
    wall_s: float
    """The driver's whole process, start-up included."""


def run_reference_action_sequencing(
    responses: Mapping[str, Path],
    workdir: Path,
    *,
    instrument: bool = True,
    timeout: float = 1800.0,
    python: Path | None = None,
) -> ActionSequencingRun:
    """Evaluate each responses file (model name → path, the reference's JSON list format)
    with the reference's VirtualHome action-sequencing evaluator, in one subprocess."""
    import time

    py = python if python is not None else ensure_action_sequencing_env()
    job = {
        "protocol": AS_PROTOCOL,
        "workdir": str(workdir),
        "instrument": instrument,
        "responses": {k: str(v) for k, v in responses.items()},
    }
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [str(py), "-I", str(AS_DRIVER)],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ReferenceUnavailableError(
            f"the reference's action-sequencing evaluator did not finish within {timeout:.0f} s"
        ) from None
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
        raise ReferenceUnavailableError(
            f"reference action-sequencing driver failed (exit {proc.returncode}):\n{tail}"
        )
    doc = json.loads(proc.stdout)
    if doc.get("protocol") != AS_PROTOCOL:
        raise ReferenceUnavailableError(f"reference driver speaks protocol {doc.get('protocol')}")
    return ActionSequencingRun(dict(doc["versions"]), dict(doc["models"]), wall)
