"""Run the published reference evaluator (virtualhome-eval 0.1.1) on responses files.

Executed by the interpreter of the reference's ``published`` environment
(``benchmarks/reference_env.py``); planproof never imports virtualhome-eval and this script
never imports planproof. It reads one JSON job on stdin (or from the file named by its
first argument) and writes one JSON result on stdout (the reference's prints go to stderr).

Job::

    {"protocol": 1, "module": "goal_interpretation" | "action_sequence" |
                              "subgoal_decomposition" | "transition_modeling",
     "workdir": "/tmp/...", "workers": 2, "dataset": "virtualhome" | "behavior",
     "responses": {"<model>": "/path/to/<responses>.json", ...}}

Each file is evaluated by one unmodified call of that module's ``evaluate_results`` on a
directory holding only that file (the layout the reference expects,
``<dir>/<module>/<model>_outputs.json``, is made under ``workdir``). Result::

    {"protocol": 1, "versions": {...},
     "models": {"<model>": {"seconds": float, "summary": {...},
                            "tasks": {"<identifier>": {...}}}}}

``summary`` is what the reference returns (and writes to ``summary.json``). Its per-task
verdicts are not returned by the reference, so the driver *observes* them without changing
what the reference does: goal interpretation and transition modeling from the records of
the evaluator's own logger (the per-task TP/FP/FN lines, hallucination and format
messages, the planner's "Holistic test" / "Action test" lines), action sequencing from the
``error_info`` it returns, subgoal decomposition from the ``error_info.json`` it writes.
``workers`` is the number of processes subgoal decomposition starts (the reference's
default is 5; this machine has 2 cores). ``"planner": false`` (transition modeling only)
makes the reference's Fast Downward call fail at once instead of running: the evaluator's
logic-form counts (precision / recall / F1 per predicate category) do not depend on it and
come out as in a full run, in seconds instead of ~15 minutes per file; its planner-success
figures are then meaningless and the caller drops them. ``dataset`` (default
``virtualhome``): transition modeling's evaluator also scores BEHAVIOR answers
(``dataset="behavior"``: the wheel's ``resources/behavior`` holds its domain, problems and
categories; 200 s per plan).

Two job keys observe or trim transition modeling's planner calls (both off by default, so a
job without them runs the reference exactly as before): ``"planner_calls": true`` records
every Fast Downward call the evaluator makes (:class:`PlannerCalls`: which test it was,
its wall seconds, whether the reference's own wall-clock check failed it, Fast Downward's
reported search / total time and expansions) and puts each task's holistic call
(``holistic``) and a tally of its single-variate calls (``single_variate``) in its
per-task record; ``"single_variate": false`` makes each *single-variate* call (the gold
domain with one predicted operator swapped in, ``complete_pddl_domain(...,
action_name_key=...)``) fail at once without running Fast Downward. Those calls feed only
``task_variate_control_*`` and ``action_variate_control``, which the evaluator logs but
never puts in its summary; the holistic call (all predicted operators), whose verdict is
``success_by_task_type_dict`` = the published planner success, runs unchanged, and its
domain file is a different one (``<file_id>.pddl``), so every summary figure and per-task
holistic verdict is the unmodified reference's. The per-task ``actions`` verdicts are then
not recorded (the log still says "failed" for them).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import json
import logging
import re
import sys
import time
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

PROTOCOL = 1
MODULES = (
    "goal_interpretation",
    "action_sequence",
    "subgoal_decomposition",
    "transition_modeling",
)
COUNT = re.compile(r"(TP|FP|FN)_(node|edge|action)_goals: (-?\d+)")
MATCHED = re.compile(
    r"Predicted: node_match_num=(-?\d+), edge_match_num=(-?\d+), action_match_num=(-?\d+)"
)
GOLD_COUNTS = re.compile(
    r"Gold: len\(gold_node_goals\)=(\d+), len\(gold_edge_goals\)=(\d+), "
    r"len\(gold_action_goals\)=(\d+)"
)
TASK_START = re.compile(r"Task is .*, file_id is (.+)$")
HOLISTIC = re.compile(r"Holistic test: task (.+) (succeeded|failed)$")
ACTION_TEST = re.compile(r"Action test: task (.+)'s (.+) (succeeded|failed)$")
NOT_SUCCESS = re.compile(r"(.+) not in success file id!$")
GOLD_FAILED = re.compile(r"Program (.+) did not pass gold test$")
AS_COUNTED = (
    (" prediction has format error", "parsing"),
    (" prediction has no prediction", "parsing"),
    (" has hallucination error", "hallucination"),
    (" has arguments number error", "parameter"),
)
"""The end of the action-sequencing evaluator's per-task error lines → its counter."""


def _as_counter(msg: str) -> str | None:
    """The summary counter one action-sequencing log line adds to, if any."""
    if msg.startswith("Encounter error: "):
        return "error:" + msg.removeprefix("Encounter error: ").lower()
    return next((kind for end, kind in AS_COUNTED if msg.endswith(end)), None)


SEARCH_TIME = re.compile(r"search time: (\d+(?:\.\d+)?)s")
TOTAL_TIME = re.compile(r"total time: (\d+(?:\.\d+)?)s")
EXPANDED = re.compile(r"expanded (\d+) state")
SKIPPED_SINGLE = "single-variate test skipped by reference_published_driver"


def fd_reported(output: str) -> dict[str, float]:
    """What Fast Downward's own output says about one call: the search component's
    ``search_time`` and ``total_time`` (seconds) and ``expanded`` states (the last value
    of each, as a run prints them once; absent when it was stopped first)."""
    out: dict[str, float] = {}
    low = output.lower()
    for key, pattern in (("search_time", SEARCH_TIME), ("total_time", TOTAL_TIME)):
        if found := pattern.findall(low):
            out[key] = float(found[-1])
    if found := EXPANDED.findall(low):
        out["expanded"] = int(found[-1])
    return out


class PlannerCalls:
    """Observes (and with ``skip_single`` trims) the transition-modeling evaluator's Fast
    Downward calls: wraps its module's ``complete_pddl_domain`` (to know which test the
    next call is: the evaluator builds each call's domain file right before planning on
    it, with ``action_name_key`` for a single-variate test only) and the planner class's
    ``plan_from_pddl`` / ``_output_to_plan`` (the wall time of each call and Fast
    Downward's own report). Nothing the reference computes is changed, except that a
    skipped single-variate call raises at once, as a failed plan does."""

    def __init__(self, skip_single: bool) -> None:
        self.skip_single = skip_single
        self.last_domain: tuple[str, bool] | None = None
        self.calls: list[dict[str, Any]] = []
        self._reported: dict[str, float] = {}

    def is_single(self, dom_file: str) -> bool:
        """Whether planning on ``dom_file`` is a single-variate test: the domain the
        evaluator built last is this file, and it was built with an ``action_name_key``."""
        return self.last_domain == (str(dom_file), True)

    def install(self, evaluator: Any, planner_class: Any) -> None:
        build = evaluator.complete_pddl_domain
        plan = planner_class.plan_from_pddl
        parse = planner_class._output_to_plan
        calls = self

        def complete_pddl_domain(*args: Any, action_name_key: Any = None, **kw: Any) -> Any:
            path = build(*args, action_name_key=action_name_key, **kw)
            calls.last_domain = (str(path), action_name_key is not None)
            return path

        def plan_from_pddl(fd: Any, dom_file: Any, prob_file: Any, *a: Any, **kw: Any) -> Any:
            single = calls.is_single(dom_file)
            kind = "single" if single else "holistic"
            if single and calls.skip_single:
                calls.calls.append({"kind": kind, "skipped": True})
                raise RuntimeError(SKIPPED_SINGLE)
            limit = kw.get("timeout", a[1] if len(a) > 1 else 100)
            calls._reported = {}
            t0 = time.time()
            rec: dict[str, Any] = {"kind": kind}
            try:
                result = plan(fd, dom_file, prob_file, *a, **kw)
                rec["solved"] = True
                return result
            except Exception:
                rec["solved"] = False
                raise
            finally:
                wall = time.time() - t0
                # the reference's own test (fd.py): measured around Fast Downward and its
                # cleanup; a call past the limit fails whatever the planner said
                rec["wall"] = round(wall, 2)
                rec["over_limit"] = wall > float(limit)
                rec.update(calls._reported)
                calls.calls.append(rec)

        def _output_to_plan(fd: Any, output: str) -> Any:
            calls._reported = fd_reported(output)
            return parse(fd, output)

        evaluator.complete_pddl_domain = complete_pddl_domain
        planner_class.plan_from_pddl = plan_from_pddl
        planner_class._output_to_plan = _output_to_plan

    def take(self) -> list[dict[str, Any]]:
        """The calls since the last ``take`` (one task's tests: the evaluator logs a
        verdict right after each call)."""
        out, self.calls = self.calls, []
        return out


def _module(name: str) -> Any:
    return importlib.import_module(f"virtualhome_eval.evaluation.{name}.scripts.evaluate_results")


class LogTasks(logging.Handler):
    """Per-task facts read from the reference evaluator's own log records."""

    def __init__(
        self, module: str, rows: list[dict[str, Any]], calls: PlannerCalls | None = None
    ) -> None:
        super().__init__(logging.INFO)
        self.module = module
        self.calls = calls
        self.tasks: dict[str, dict[str, Any]] = {}
        self.current: dict[str, Any] | None = None
        self.order = [str(r.get("identifier")) for r in rows]
        self.position = 0

    def _start(self, ident: str) -> None:
        self.current = self.tasks.setdefault(ident, {"format_wrong": 0, "hallucinated": 0})

    def emit(self, record: logging.LogRecord) -> None:
        try:
            msg = record.getMessage()
        except Exception:  # a record the reference formats badly is not ours to fix
            return
        if self.module == "goal_interpretation":
            self._goal(msg)
        elif self.module == "action_sequence":
            self._action(msg)
        else:
            self._transition(msg, record.created)

    def _action(self, msg: str) -> None:
        """Per task: skipped by the gold test, or success and the goal counts (the
        reference's ``error_info`` has neither; they are only in its log), and what each
        task adds to the summary's counters (``counts``: parsing is counted twice when
        ``json.loads`` fails, an additional step once per extra action)."""
        if m := GOLD_FAILED.match(msg):
            self.tasks[m.group(1)] = {"skipped": "gold plan fails the reference's check"}
            self.current = None
        elif m := TASK_START.match(msg):
            self.current = self.tasks.setdefault(m.group(1), {})
            self.current["success"] = False
            self.current["counts"] = {}
        elif self.current is None:
            return
        elif msg == "EVERYTHING SUCCEED!":
            self.current["success"] = True
        elif msg == "Executable!":
            self.current["executed"] = True
        elif m := MATCHED.match(msg):
            self.current["matched"] = [int(g) for g in m.groups()]
        elif m := GOLD_COUNTS.match(msg):
            self.current["goals"] = [int(g) for g in m.groups()]
        elif kind := _as_counter(msg):
            counts = self.current["counts"]
            counts[kind] = counts.get(kind, 0) + 1

    def _goal(self, msg: str) -> None:
        if m := TASK_START.match(msg):
            self._start(m.group(1))
            return
        if self.current is None:
            return
        if msg.endswith("has format wrong output"):
            self.current["format_wrong"] += 1
        elif msg.endswith("has hallucination output"):
            self.current["hallucinated"] += 1
        for kind, part, value in COUNT.findall(msg):
            self.current.setdefault(part, {})[kind] = int(value)

    def _transition(self, msg: str, when: float = 0.0) -> None:
        """Per task: planner success, each operator's own test and the wall seconds of its
        slowest planner call (``slowest_call``: between the log line before the call and
        the one after it, the reference's limit being 100 s of wall time; how close each
        verdict came to it is recorded, not inferred)."""
        # the evaluator names the file only in some lines; its loop visits rows in order
        last, self.last_line = getattr(self, "last_line", when), when
        if m := NOT_SUCCESS.match(msg):
            self.tasks[m.group(1)] = {"skipped": "not in success_task.json"}
            self.position += 1
        elif msg.startswith("task name is "):
            ident = self.order[self.position] if self.position < len(self.order) else "?"
            self.position += 1
            self._start(ident)
            assert self.current is not None
            self.current["actions"] = {}
        elif self.current is None:
            return
        elif msg.startswith("category names are "):
            self.current["categories"] = ast.literal_eval(msg.removeprefix("category names are "))
        elif msg.startswith("Error in extracting action details"):
            self.current["format_wrong"] += 1
        elif msg.endswith("Hallucination!"):
            self.current["hallucinated"] += 1
        elif m := ACTION_TEST.match(msg):
            self._single(m.group(2), m.group(3) == "succeeded", when - last)
        elif m := HOLISTIC.match(msg):
            self.current["planner_success"] = m.group(2) == "succeeded"
            self._call(when - last)
            if self.calls is not None:
                seen = self.calls.take()  # exactly one: the evaluator logs after each call
                call = seen[-1] if seen else {"unseen": True}
                self.current["holistic"] = {k: v for k, v in call.items() if k != "kind"}

    def _single(self, action: str, succeeded: bool, seconds: float) -> None:
        """One single-variate test's verdict (not recorded when it was skipped) and, with
        :class:`PlannerCalls`, its tally: calls, wall seconds, calls past the limit."""
        assert self.current is not None
        if self.calls is None:
            self.current["actions"][action] = succeeded
            self._call(seconds)
            return
        for call in self.calls.take():
            tally = self.current.setdefault(
                "single_variate", {"calls": 0, "skipped": 0, "wall": 0.0, "over_limit": 0}
            )
            tally["calls"] += 1
            if call.get("skipped"):
                tally["skipped"] += 1
                continue
            self.current["actions"][action] = succeeded
            tally["wall"] = round(tally["wall"] + call["wall"], 2)
            tally["over_limit"] += int(call["over_limit"])
            self._call(seconds)

    def _call(self, seconds: float) -> None:
        assert self.current is not None
        slowest = max(self.current.get("slowest_call", 0.0), round(seconds, 2))
        self.current["slowest_call"] = slowest


def _evaluate(
    module: str, model: str, rows: list[dict[str, Any]], workdir: Path, dataset: str
) -> Any:
    er = _module(module)
    llm_dir = workdir / model / "llm"
    target = llm_dir / module
    target.mkdir(parents=True, exist_ok=True)
    (target / f"{model}_outputs.json").write_text(json.dumps(rows), encoding="utf-8")
    package = Path(str(er.__file__)).resolve().parents[3]  # .../virtualhome_eval
    args = SimpleNamespace(
        mode="evaluate_results",
        eval_type=module,
        dataset=dataset,
        scene_id=1,
        llm_response_path=str(llm_dir),
        resource_dir=str(package / "resources"),
        dataset_dir=str(package / "dataset"),
        evaluation_dir=str(package / "evaluation"),
        output_dir=str(workdir / model / "out"),
    )
    with contextlib.redirect_stdout(sys.stderr):
        return er.evaluate_results(args)[model]


def run_model(
    module: str,
    model: str,
    source: Path,
    workdir: Path,
    dataset: str = "virtualhome",
    *,
    calls: PlannerCalls | None = None,
) -> dict[str, Any]:
    rows = json.loads(source.read_text(encoding="utf-8"))
    logger = logging.getLogger(_module(module).__name__)
    handler = LogTasks(module, rows, calls)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    logger.addHandler(handler)
    t0 = time.perf_counter()
    crash = None
    try:
        result = _evaluate(module, model, rows, workdir, dataset)
    except ZeroDivisionError as exc:
        if module != "action_sequence":
            raise
        summary0, error_info0, counters = _after_the_loop(exc)
        result, crash = (summary0, error_info0), f"{type(exc).__name__}: {exc}"
    except KeyError as exc:
        if module != "transition_modeling":
            raise
        counters = _planner_counts(exc)
        result, crash = (None,), f"{type(exc).__name__}: {exc}"
    finally:
        logger.removeHandler(handler)
    seconds = time.perf_counter() - t0
    tasks: dict[str, Any] = handler.tasks
    if module in ("goal_interpretation", "transition_modeling"):
        summary = result[0]
    elif module == "action_sequence":
        summary, error_info = result
        for ident, info in error_info.items():
            tasks.setdefault(ident, {}).update(info)
        _add_gold_counts(tasks)
    else:
        summary = result
        stats = workdir / model / "out" / module / model / "error_info.json"
        tasks = json.loads(stats.read_text(encoding="utf-8"))
    out = {"seconds": seconds, "summary": summary, "tasks": tasks}
    if crash:
        out["crash"] = crash
        out["counters"] = counters
    return out


AS_COUNTERS = (
    "program_num",
    "all_parsing_wrong",
    "all_hallucination",
    "all_parameter_wrong",
    "all_executable_plan",
    "all_correct_plan",
    "all_matched_node",
    "all_matched_edge",
    "all_matched_action",
    "all_node_goals",
    "all_edge_goals",
    "all_action_goals",
    "error_code_to_number",
)
"""The action-sequencing evaluator's counters, the locals its summary is computed from."""


def _planner_counts(exc: BaseException) -> dict[str, Any]:
    """The transition-modeling evaluator's per-category planner counts (``[success,
    total, rate]``) and logic-form scores (``[tp, fp, fn, precision, recall, f1]``) of a
    run that raised while building its summary: on a part of a file without tasks of some
    category, and on every BEHAVIOR file (it has three of the six categories), its
    summary indexes a category it never scored. Read from the raising frame's locals, as
    :func:`_after_the_loop`."""
    tb = exc.__traceback__
    while tb is not None:
        local = tb.tb_frame.f_locals
        if (
            tb.tb_frame.f_code.co_name == "evaluate_results"
            and "success_by_task_type_dict" in local
        ):
            seen = {
                "success_by_task_type": local["success_by_task_type_dict"],
                "full_predicate_type": local.get("full_predicate_type_res_dict"),
            }
            return dict(json.loads(json.dumps(seen)))
        tb = tb.tb_next
    raise exc


def _after_the_loop(exc: BaseException) -> tuple[None, dict[str, Any], dict[str, Any]]:
    """(no summary, ``error_info``, the evaluator's counters) of an action-sequencing run
    that raised after its task loop: on a part of a file without goals of some kind the
    evaluator divides by zero when it prints its rates. Its per-task ``error_info`` and
    its counters (:data:`AS_COUNTERS`) are then read from the raising frame's locals (the
    run is not changed, only looked at); the per-task facts are already in the log."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "evaluate_results" and "error_info" in frame.f_locals:
            local = frame.f_locals
            counters = {k: local[k] for k in AS_COUNTERS if k in local}
            return None, dict(local["error_info"]), json.loads(json.dumps(counters))
        tb = tb.tb_next
    raise exc


def _add_gold_counts(tasks: dict[str, Any]) -> None:
    """The goal counts (node, edge, action) the action-sequencing evaluator adds to its
    denominators for every task it does not skip; its log names them only for plans it
    executes, so they are recomputed here the way it computes them (its own
    ``remove_duplicate_dicts``, ``set`` of the action goals), from its own resources."""
    er = _module("action_sequence")
    package = Path(str(er.__file__)).resolve().parents[3]
    root = package / "resources" / "virtualhome"
    task_dicts = json.loads((root / "task_state_LTL_formula_accurate.json").read_text())["scene_1"]
    id2task = json.loads((root / "id2task.json").read_text())
    for ident, rec in tasks.items():
        if "skipped" in rec or "goals" in rec:
            continue
        goals = task_dicts[id2task[ident]][ident]["vh_goal"]
        nodes = [g for g in goals["goal"] if "state" in g and "id" in g and "class_name" in g]
        edges = [g for g in goals["goal"] if "relation_type" in g and "from_id" in g]
        rec["goals"] = [
            len(er.remove_duplicate_dicts(nodes)),
            len(er.remove_duplicate_dicts(edges)),
            len(set(goals["actions"])),
        ]


def main(argv: list[str]) -> int:
    raw = Path(argv[1]).read_text(encoding="utf-8") if len(argv) > 1 else sys.stdin.read()
    job = json.loads(raw)
    if job.get("protocol") != PROTOCOL or job.get("module") not in MODULES:
        print(f"reference_published_driver: bad job {job.get('protocol')!r}", file=sys.stderr)
        return 2
    module = job["module"]
    if module == "subgoal_decomposition":
        sd = _module(module)
        sd.simulate_one_llm.__defaults__ = (int(job.get("workers", 2)), "./results")
    if module == "transition_modeling" and job.get("planner") is False:
        fd = importlib.import_module(
            "virtualhome_eval.simulation.evolving_graph.pddlgym_planners.fd"
        )

        def no_planner(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("planner disabled by reference_published_driver")

        fd.FD.plan_from_pddl = no_planner
    calls = None
    observe = job.get("planner_calls") or job.get("single_variate") is False
    if module == "transition_modeling" and job.get("planner") is not False and observe:
        fd = importlib.import_module(
            "virtualhome_eval.simulation.evolving_graph.pddlgym_planners.fd"
        )
        calls = PlannerCalls(skip_single=job.get("single_variate") is False)
        calls.install(_module(module), fd.FD)
    workdir = Path(job["workdir"])
    dataset = str(job.get("dataset", "virtualhome"))
    models = {
        model: run_model(module, model, Path(path), workdir, dataset, calls=calls)
        for model, path in job["responses"].items()
    }
    versions = {}
    for name in ("virtualhome_eval", "numpy", "scipy", "pddlgym", "up_fast_downward"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    versions["python"] = sys.version.split()[0]
    json.dump(
        {"protocol": PROTOCOL, "versions": versions, "models": models}, sys.stdout, default=str
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
