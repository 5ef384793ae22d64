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

Two more flavours, ``published`` and ``published-transition-modeling``
(``reference-published-venv``, ``reference-published-tm-venv``), hold the *other* wheel,
``virtualhome-eval==0.1.1``: the evaluator that produced the paper's VirtualHome tables and
ships the published LLM outputs (:mod:`planproof.data.published`). ``reference_published_
driver.py`` runs its four ``evaluate_results`` (goal interpretation, action sequencing,
subgoal decomposition, transition modeling). Their requirements were found by trying, PyPI
only, installing each ``--no-deps`` until the evaluator modules import: numpy (the
simulator's ``utils``), fire and termcolor (subgoal decomposition) and lark (the LTL
parser) for the first three; transition modeling adds scipy (``logic_score``'s bipartite
matching) and pddlgym, whose
``__init__`` pulls in gym, imageio, matplotlib (with pyparsing, cycler, python-dateutil,
kiwisolver, fonttools, packaging, pillow) and scikit-image (with lazy-loader), although
the planner wrapper only uses its PDDL parser. The reference's ``FD`` planner class
``git clone``s and compiles Fast Downward on first use; instead the flavour installs the
prebuilt ``up-fast-downward`` wheel and links its ``downward`` directory where the
reference looks (``pddlgym_planners/FD``), so ``fast-downward.py --alias lama-first`` is
the same planner the reference would build, without a compiler or network access. The
heavy transition-modeling environment is a separate venv so that goal interpretation's
differential test builds only the light one (seconds).
The wheel's transition-modeling evaluator also scores BEHAVIOR answers
(``dataset="behavior"``, ``run_reference_published(..., dataset="behavior")``): its
``resources/behavior`` holds the BEHAVIOR domain, the 100 problems, the gold operators and
the predicate categories. Its summary then raises ``KeyError`` (BEHAVIOR has three of the
six categories it indexes); the driver reads the per-category scores it computed before.
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

from planproof.boundary import replace_text
from planproof.data import DataUnavailableError, cache_dir, open_wheel
from planproof.data.eai_wheel import EAI_EVAL_VERSION, EAI_WHEEL, WHEEL_SHA256
from planproof.data.published import VHE_WHEEL
from planproof.data.wheels import PinnedWheel, ensure
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
PUBLISHED_ENV_FORMAT = 1
"""The same, for the ``published`` (virtualhome-eval 0.1.1) flavour."""
PUBLISHED_REQUIREMENTS = (
    NUMPY_REQUIREMENT,
    "fire==0.7.1",
    "termcolor==3.3.0",
    LARK_REQUIREMENT,
)
"""What the published goal-interpretation, action-sequencing and subgoal-decomposition
evaluators import (see the module docstring), pinned."""
PUBLISHED_TM_REQUIREMENTS = (
    *PUBLISHED_REQUIREMENTS,
    "scipy==1.17.1",
    "pddlgym==0.0.7",
    "gym==0.26.2",
    "imageio==2.38.1",
    "matplotlib==3.11.2",
    "pyparsing==3.3.3",
    "cycler==0.12.1",
    "python-dateutil==4.0.0",
    "kiwisolver==1.5.1",
    "fonttools==4.68.0",
    "packaging==26.3",
    "pillow==13.0.0",
    "scikit-image==0.26.0",
    "lazy-loader==0.6",
    "up-fast-downward==1.0.0",
)
"""What its transition-modeling evaluator imports besides (see the module docstring)."""
VENV_NAME = "reference-venv"
AS_VENV_NAME = "reference-as-venv"
PUBLISHED_VENV_NAME = "reference-published-venv"
PUBLISHED_TM_VENV_NAME = "reference-published-tm-venv"
PUBLISHED_TM_FD2306_VENV_NAME = "reference-published-tm-fd2306-venv"
FD2306_REQUIREMENT = "up-fast-downward==0.4.1"
"""Fast Downward 23.06, prebuilt (the release the paper's planner-success figures need)."""
FD_LINK = "virtualhome_eval/simulation/evolving_graph/pddlgym_planners/FD"
"""Where the published reference's ``FD`` class looks for Fast Downward."""
STAMP_NAME = "planproof-reference.json"
DRIVER = Path(__file__).resolve().with_name("reference_driver.py")
PROTOCOL = 1
"""The driver's job format (``PROTOCOL`` in reference_driver.py)."""
AS_DRIVER = Path(__file__).resolve().with_name("reference_as_driver.py")
AS_PROTOCOL = 1
"""The action-sequencing driver's job format (``PROTOCOL`` in reference_as_driver.py)."""
PUBLISHED_DRIVER = Path(__file__).resolve().with_name("reference_published_driver.py")
PUBLISHED_PROTOCOL = 1
"""The published evaluator driver's job format (``PROTOCOL`` in that file)."""
PUBLISHED_MODULES = {
    "goal-interpretation": "goal_interpretation",
    "action-sequencing": "action_sequence",
    "subgoal-decomposition": "subgoal_decomposition",
    "transition-modeling": "transition_modeling",
}
"""planproof's module name → the published evaluator's (VirtualHome only)."""
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
    wheel: PinnedWheel = EAI_WHEEL
    link_fast_downward: bool = False
    """Link up-fast-downward's ``downward`` directory to :data:`FD_LINK` after install."""


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
PUBLISHED = Flavour(
    PUBLISHED_VENV_NAME,
    PUBLISHED_REQUIREMENTS,
    "virtualhome_eval.evaluation.subgoal_decomposition.scripts.evaluate_results, "
    "virtualhome_eval.evaluation.goal_interpretation.scripts.evaluate_results, "
    "virtualhome_eval.evaluation.action_sequence.scripts.evaluate_results",
    (("format", PUBLISHED_ENV_FORMAT), ("flavour", "published")),
    "the published (virtualhome-eval 0.1.1) evaluators",
    VHE_WHEEL,
)
PUBLISHED_TM = Flavour(
    PUBLISHED_TM_VENV_NAME,
    PUBLISHED_TM_REQUIREMENTS,
    "virtualhome_eval.evaluation.transition_modeling.scripts.evaluate_results",
    (("format", PUBLISHED_ENV_FORMAT), ("flavour", "published-transition-modeling")),
    "the published (virtualhome-eval 0.1.1) transition-modeling evaluator",
    VHE_WHEEL,
    link_fast_downward=True,
)

PUBLISHED_TM_FD2306 = Flavour(
    PUBLISHED_TM_FD2306_VENV_NAME,
    (
        *(r for r in PUBLISHED_TM_REQUIREMENTS if not r.startswith("up-fast-downward")),
        FD2306_REQUIREMENT,
    ),
    PUBLISHED_TM.smoke_import,
    (("format", PUBLISHED_ENV_FORMAT), ("flavour", "published-transition-modeling-fd2306")),
    "the published transition-modeling evaluator with Fast Downward 23.06",
    VHE_WHEEL,
    link_fast_downward=True,
)
"""As :data:`PUBLISHED_TM`, with the Fast Downward release the paper's run used: with it the
reference's own scorer reproduces Table 15's GPT-4o row (26.6 rejects operators naming
undeclared constants)."""

ENVS_VARIABLE = "PLANPROOF_REFERENCE_ENVS"
"""Where the reference venvs are built when set. The test suite sets it to
``.pytest_cache/d/planproof-reference-envs`` (test artefacts, about 950 MB with every
flavour, removed with the rest of ``.pytest_cache``); benchmarks run by hand default to
the planproof cache."""


def envs_root() -> Path:
    """The directory new reference venvs are built in (see :data:`ENVS_VARIABLE`)."""
    configured = os.environ.get(ENVS_VARIABLE)
    return Path(configured) if configured else cache_dir()


def venv_dir(flavour: Flavour = LTL) -> Path:
    """The flavour's venv: under :func:`envs_root`, except that a current one already in
    the planproof cache (built by a benchmark or an earlier version) is reused rather than
    built a second time."""
    venv = envs_root() / flavour.venv
    in_cache = cache_dir() / flavour.venv
    if venv != in_cache and not _is_current(venv, flavour) and _is_current(in_cache, flavour):
        return in_cache
    return venv


def _python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _stamp(flavour: Flavour = LTL) -> dict[str, Any]:
    stamp: dict[str, Any] = dict(flavour.stamp_extra)
    if flavour.wheel is EAI_WHEEL:
        stamp |= {"eai_eval": EAI_EVAL_VERSION, "wheel_sha256": WHEEL_SHA256}
    else:
        stamp |= {"wheel": flavour.wheel.filename, "wheel_sha256": flavour.wheel.sha256}
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
        wheel = ensure(flavour.wheel)
    except DataUnavailableError as exc:
        raise ReferenceUnavailableError(
            f"the {flavour.wheel.distribution} wheel is unavailable: {exc}"
        ) from exc
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
        f"installing {flavour.wheel.requirement} and {', '.join(flavour.requirements)} into {venv}",
        timeout,
    )
    if flavour.link_fast_downward:
        _link_fast_downward(py, timeout)
    _run(
        [py, "-I", "-c", f"import {flavour.smoke_import}"],
        f"importing {flavour.what}",
        timeout,
    )
    replace_text(venv / STAMP_NAME, json.dumps(_stamp(flavour), indent=1) + "\n", durable=True)


def _link_fast_downward(py: str, timeout: float) -> None:
    """Point the reference's ``FD`` directory at up-fast-downward's prebuilt planner."""
    code = (
        "import importlib.util, os, pathlib, virtualhome_eval\n"
        "spec = importlib.util.find_spec('up_fast_downward')\n"  # no import: it needs UP
        "src = pathlib.Path(list(spec.submodule_search_locations)[0]) / 'downward'\n"
        f"dst = pathlib.Path(virtualhome_eval.__file__).parents[1] / {FD_LINK!r}\n"
        "dst.is_symlink() or dst.exists() or dst.symlink_to(src, target_is_directory=True)\n"
        "assert os.access(dst / 'fast-downward.py', os.X_OK), dst\n"
    )
    _run([py, "-I", "-c", code], "linking Fast Downward for the reference", timeout)


def ensure_reference_env(*, timeout: float = BUILD_TIMEOUT, flavour: Flavour = LTL) -> Path:
    """The reference environment's Python, building the environment on first use only."""
    venv = venv_dir(flavour)
    if _is_current(venv, flavour):
        return _python(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
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
    what = f"the reference driver on {len(cases)} cases"
    doc, _wall = _drive(py, DRIVER, job, protocol=PROTOCOL, timeout=timeout, what=what)
    return ReferenceRun(
        versions=dict(doc["versions"]), results={r["id"]: r for r in doc["results"]}
    )


def _drive(
    py: Path,
    driver: Path,
    job: Mapping[str, Any],
    *,
    protocol: int,
    timeout: float,
    what: str,
    hash_seed: str | None = None,
    nice: int = 0,
) -> tuple[dict[str, Any], float]:
    """Run one driver script on one JSON job in the reference's interpreter: its JSON
    result and the wall time of the whole process (start-up included). ``hash_seed``:
    the reference's ``PYTHONHASHSEED`` (its goal-interpretation and action-sequencing
    verdicts depend on set order; ``-I`` would ignore the variable, so the process then
    runs with ``-s -P`` and an environment without the caller's other ``PYTHON*``
    variables instead). ``nice``: the process's niceness increment."""
    import time

    cmd = [str(py), "-I", str(driver)]
    env = None
    if hash_seed is not None:
        cmd = [str(py), "-s", "-P", str(driver)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env["PYTHONHASHSEED"] = hash_seed
    if nice:
        cmd = ["nice", "-n", str(nice), *cmd]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd,
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=env,
        )
    except subprocess.TimeoutExpired:
        raise ReferenceUnavailableError(f"{what} did not finish within {timeout:.0f} s") from None
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
        raise ReferenceUnavailableError(f"{what} failed (exit {proc.returncode}):\n{tail}")
    doc: dict[str, Any] = json.loads(proc.stdout)
    if doc.get("protocol") != protocol:
        raise ReferenceUnavailableError(f"reference driver speaks protocol {doc.get('protocol')}")
    return doc, wall


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
    py = python if python is not None else ensure_action_sequencing_env()
    job = {
        "protocol": AS_PROTOCOL,
        "workdir": str(workdir),
        "instrument": instrument,
        "responses": {k: str(v) for k, v in responses.items()},
    }
    what = "the reference's action-sequencing evaluator"
    doc, wall = _drive(py, AS_DRIVER, job, protocol=AS_PROTOCOL, timeout=timeout, what=what)
    return ActionSequencingRun(dict(doc["versions"]), dict(doc["models"]), wall)


@dataclass(frozen=True)
class PublishedRun:
    """What the published evaluator said about each responses file of one module."""

    module: str
    versions: dict[str, str]
    models: dict[str, dict[str, Any]]
    """Model name → ``{"seconds", "summary", "tasks"}`` (see reference_published_driver.py)."""
    wall_s: float
    """The driver's whole process, start-up included."""


def run_reference_published(
    module: str,
    responses: Mapping[str, Path],
    workdir: Path,
    *,
    workers: int = 2,
    timeout: float = 7200.0,
    python: Path | None = None,
    planner: bool = True,
    hash_seed: str | None = None,
    nice: int = 0,
    flavour: Flavour | None = None,
    dataset: str = "virtualhome",
    single_variate: bool = True,
    planner_calls: bool = False,
) -> PublishedRun:
    """Evaluate each responses file (model name → path) with the published reference's
    evaluator of ``module`` (planproof's name, e.g. ``goal-interpretation``), in one
    subprocess of the ``published`` environment. ``planner=False`` (transition modeling):
    the reference's planner fails at once, so only its logic-form figures are valid.
    ``hash_seed``, ``nice``: see :func:`_drive`; ``flavour``: another environment (e.g.
    :data:`PUBLISHED_TM_FD2306`); ``dataset``: ``behavior`` for BEHAVIOR transition
    modeling (the only module whose published evaluator scores BEHAVIOR answers);
    ``planner_calls``: record each Fast Downward call (wall seconds, Fast Downward's own
    times); ``single_variate=False``: skip the single-variate planner tests, which feed no
    summary figure (both: transition modeling only, ``reference_published_driver.py``)."""
    if module not in PUBLISHED_MODULES:
        raise ReferenceUnavailableError(f"the published reference has no evaluator for {module}")
    if flavour is None:
        flavour = PUBLISHED_TM if module == "transition-modeling" else PUBLISHED
    py = python if python is not None else ensure_reference_env(flavour=flavour)
    job = {
        "protocol": PUBLISHED_PROTOCOL,
        "module": PUBLISHED_MODULES[module],
        "workdir": str(workdir),
        "workers": workers,
        "planner": planner,
        "responses": {k: str(v) for k, v in responses.items()},
    }
    if dataset != "virtualhome":
        job["dataset"] = dataset
    if not single_variate:
        job["single_variate"] = False
    if planner_calls:
        job["planner_calls"] = True
    what = f"the published reference's {module} evaluator"
    doc, wall = _drive(
        py,
        PUBLISHED_DRIVER,
        job,
        protocol=PUBLISHED_PROTOCOL,
        timeout=timeout,
        what=what,
        hash_seed=hash_seed,
        nice=nice,
    )
    return PublishedRun(module, dict(doc["versions"]), dict(doc["models"]), wall)


RUNS_DIR = "reference-published-runs"


NO_PLANNER = "-no-planner"
"""Suffix of the cache folder of transition-modeling runs with the planner disabled."""


def published_run_path(module: str, model: str, responses: Path, *, planner: bool = True) -> Path:
    """Where one reference verdict on one responses file is kept: keyed by the file's
    content, the wheel and the driver protocol, so an edited file is evaluated again."""
    import hashlib

    digest = hashlib.sha256(responses.read_bytes())
    digest.update(f"{VHE_WHEEL.sha256}:{PUBLISHED_PROTOCOL}".encode())
    folder = module if planner else module + NO_PLANNER
    return cache_dir() / RUNS_DIR / folder / f"{model}-{digest.hexdigest()[:16]}.json"


def reference_published_cached(
    module: str,
    model: str,
    responses: Path,
    workdir: Path,
    *,
    refresh: bool = False,
    planner: bool = True,
) -> tuple[dict[str, Any], bool]:
    """The published reference's verdict on one file (``{"seconds", "summary", "tasks",
    "versions"}``) and whether it came from the cache. The reference needs minutes per
    file, so every finished file is kept: an interrupted run loses one file at most.
    ``planner=False``: see :func:`run_reference_published` (cached apart)."""
    target = published_run_path(module, model, responses, planner=planner)
    if target.is_file() and not refresh:
        return json.loads(target.read_text(encoding="utf-8")), True
    run = run_reference_published(
        module, {model: responses}, workdir / module / model, planner=planner
    )
    doc = {**run.models[model], "versions": run.versions, "wall_s": run.wall_s}
    replace_text(target, json.dumps(doc), durable=True)
    return doc, False
