"""Run the reference implementation's VirtualHome action-sequencing evaluator on response files.

Executed by the interpreter of the reference's action-sequencing environment
(``benchmarks/reference_env.py``, flavour ``action-sequencing``: eai-eval and numpy);
planproof never imports eai-eval and this script never imports planproof. It reads one
JSON job on stdin (or from the file named by its first argument) and writes one JSON result
on stdout (the reference's own log and prints go to stderr).

Job::

    {"protocol": 1, "workdir": "/tmp/...", "instrument": true,
     "responses": {"<model>": "/path/to/responses.json", ...}}

Each responses file (the reference's format: a JSON list of ``{identifier, llm_output}``)
is evaluated by one unmodified call of the reference's ``evaluate_results`` (the layout it
expects, ``<dir>/virtualhome/action_sequencing/<model>_outputs.json``, is made under
``workdir``). The result::

    {"protocol": 1, "versions": {...},
     "models": {"<model>": {"seconds": float, "summary": {...}, "error_info": {...},
                             "tasks": {"<identifier>": {...}},
                             "crashes": {"<identifier>": {"error", "message"}}}}}

``summary`` and ``error_info`` are what the reference writes to ``summary.json`` and
``error_info.json``. ``error_info`` has no entry for a task whose plan the reference did
not simulate (equal to the gold script, or gold test failed), and the summary has no
per-task success, so with ``instrument`` the driver also *observes* the reference's own
calls (it wraps the functions the evaluator module looks up, calls the originals and
records arguments and results; the reference's behaviour is unchanged) and reports, per
task: whether the gold test passed, the parsed steps, whether the converted plan equals
the gold script, each simulated step with the error code the reference assigned, and the
goal counts and verdict of the final goal check. ``instrument: false`` runs the evaluator
bare, for timing.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
import time
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

PROTOCOL = 1
SUBDIR = ("virtualhome", "action_sequencing")

er = importlib.import_module(
    "virtualhome_eval.evaluation.action_sequencing.scripts.evaluate_results"
)
eval_utils = importlib.import_module("virtualhome_eval.simulation.evolving_graph.eval_utils")


class Recorder:
    """What the reference did on each task, observed through wrapped module attributes."""

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self.current: dict[str, Any] = {}
        self.relevant: dict[str, Any] = {}

    def install(self) -> None:
        originals = {
            name: getattr(er, name)
            for name in (
                "construct_planner",
                "scene_evaluate_wID",
                "load_json_preserving_order",
                "check_no_hallucination_in_action",
                "check_no_hallucination_in_arg",
                "json_to_action",
                "TemporalOrderChecker",
            )
        }
        rec = self

        def construct_planner(*args: Any, **kwargs: Any) -> Any:
            out = originals["construct_planner"](*args, **kwargs)
            planner, _relevant_id, gd_actions, _name, _desc = out
            rec.current = {"gold_script": list(gd_actions), "steps": []}
            rec.tasks[str(kwargs["script_id"])] = rec.current
            execute = planner.my_execute_primitive_action_eval

            def my_execute_primitive_action_eval(action: str, *a: Any, **k: Any) -> Any:
                ok, info = execute(action, *a, **k)
                rec.current["steps"].append(
                    {
                        "action": action,
                        "ok": bool(ok),
                        "raw_code": info.get_error_type(),
                        "message": info.get_error_string()[:300],
                    }
                )
                return ok, info

            planner.my_execute_primitive_action_eval = my_execute_primitive_action_eval
            get_goal = planner.get_symbolic_goal_nl

            def get_symbolic_goal_nl(*a: Any, **k: Any) -> Any:
                res = get_goal(*a, **k)
                rec.relevant = res[5]
                return res

            planner.get_symbolic_goal_nl = get_symbolic_goal_nl
            return out

        def scene_evaluate_wID(*args: Any, **kwargs: Any) -> Any:
            res = originals["scene_evaluate_wID"](*args, **kwargs)
            node, edge, action, success = res[:4]
            goals = kwargs.get("action_goals", [])
            rec.current.setdefault("scene_checks", []).append(
                {
                    "node": [node, len(args[1])],
                    "edge": [edge, len(args[2])],
                    "action": [action, len(goals)],
                    "all_success": bool(success),
                    "unmet_node": res[4],
                    "unmet_edge": res[5],
                    "unmet_action": res[6],
                }
            )
            return res

        def load_json_preserving_order(text: str) -> Any:
            res = originals["load_json_preserving_order"](text)
            rec.current["parsed"] = res
            return res

        def check_no_hallucination_in_action(actions: Any) -> Any:
            res = originals["check_no_hallucination_in_action"](actions)
            unknown = [k for d in actions for k in d if k.upper() not in eval_utils.valid_actions]
            rec.current["unknown_actions"] = unknown
            return res

        def check_no_hallucination_in_arg(actions: Any, relevant: Any) -> Any:
            res = originals["check_no_hallucination_in_arg"](actions, relevant)
            rec.current["unknown_objects"] = [
                f"{v[i]}_{v[i + 1]}"
                for d in actions
                for v in d.values()
                for i in range(0, len(v) - 1, 2)
                if f"{v[i]}_{v[i + 1]}" not in relevant
            ]
            rec.current["relevant_objects"] = sorted(relevant)
            return res

        def json_to_action(actions: Any, relevant_name_to_id: Any) -> Any:
            res = originals["json_to_action"](actions, relevant_name_to_id=relevant_name_to_id)
            rec.current["script"] = list(res)
            rec.current["equals_gold_script"] = res == rec.current["gold_script"]
            return res

        base = originals["TemporalOrderChecker"]

        class TemporalOrderChecker(base):  # type: ignore[misc, valid-type]
            def run_checker(self) -> Any:
                info = super().run_checker()
                rec.current["steps"][-1]["code"] = info.get_error_type()
                return info

        wrappers: dict[str, Any] = {
            "construct_planner": construct_planner,
            "scene_evaluate_wID": scene_evaluate_wID,
            "load_json_preserving_order": load_json_preserving_order,
            "check_no_hallucination_in_action": check_no_hallucination_in_action,
            "check_no_hallucination_in_arg": check_no_hallucination_in_arg,
            "json_to_action": json_to_action,
            "TemporalOrderChecker": TemporalOrderChecker,
        }
        for name, wrapper in wrappers.items():
            setattr(er, name, wrapper)  # evaluate_results looks them up at call time


MAX_CRASHES = 25


def _evaluate(rows: list[Any], model: str, workdir: Path, attempt: int) -> Any:
    llm_dir = workdir / model / f"llm{attempt}"
    target = llm_dir.joinpath(*SUBDIR)
    target.mkdir(parents=True, exist_ok=True)
    (target / f"{model}_outputs.json").write_text(json.dumps(rows), encoding="utf-8")
    package = Path(str(er.__file__)).resolve().parents[3]  # .../virtualhome_eval
    args = SimpleNamespace(
        dataset="virtualhome",
        llm_response_path=str(llm_dir),
        resource_dir=str(package / "resources"),
        dataset_dir=str(package / "dataset"),
        output_dir=str(workdir / model / f"out{attempt}"),
    )
    with contextlib.redirect_stdout(sys.stderr):
        return er.evaluate_results(args)[model]


def run_model(model: str, source: Path, workdir: Path, recorder: Recorder | None) -> dict[str, Any]:
    """One responses file. The reference evaluates a file in one loop with no per-task
    error handling, so an exception on one task loses the whole file: the task it was
    on is then recorded as a crash (with the exception) and the file is evaluated again
    without it (the summary is over the remaining tasks)."""
    rows = json.loads(source.read_text(encoding="utf-8"))
    crashes: dict[str, dict[str, str]] = {}
    t0 = time.perf_counter()
    for attempt in range(MAX_CRASHES + 1):
        if recorder is not None:
            recorder.tasks = {}
            recorder.current = {}
        try:
            summary, error_info = _evaluate(rows, model, workdir, attempt)
            break
        except Exception as exc:  # the reference's own crash is a result
            ident = _crashed_on(recorder, rows)
            if ident is None or ident in crashes or attempt == MAX_CRASHES:
                raise
            crashes[ident] = {"error": type(exc).__name__, "message": str(exc)[:300]}
            rows = [r for r in rows if r.get("identifier") != ident]
    return {
        "seconds": time.perf_counter() - t0,
        "summary": summary,
        "error_info": error_info,
        "tasks": recorder.tasks if recorder is not None else {},
        "crashes": crashes,
    }


def _crashed_on(recorder: Recorder | None, rows: list[Any]) -> str | None:
    """The task the reference was evaluating when it raised (the last one it built a
    planner for; known only with the recorder installed)."""
    if recorder is None or not recorder.tasks:
        return None
    return list(recorder.tasks)[-1]


def main(argv: list[str]) -> int:
    raw = Path(argv[1]).read_text(encoding="utf-8") if len(argv) > 1 else sys.stdin.read()
    job = json.loads(raw)
    if job.get("protocol") != PROTOCOL:
        print(
            f"reference_as_driver: protocol {job.get('protocol')!r}, expected {PROTOCOL}",
            file=sys.stderr,
        )
        return 2
    recorder = Recorder() if job.get("instrument", True) else None
    if recorder is not None:
        recorder.install()
    workdir = Path(job["workdir"])
    models = {
        model: run_model(model, Path(path), workdir, recorder)
        for model, path in job["responses"].items()
    }
    versions = {name: metadata.version(name) for name in ("eai-eval", "numpy")}
    versions["python"] = sys.version.split()[0]
    json.dump(
        {"protocol": PROTOCOL, "versions": versions, "models": models}, sys.stdout, default=str
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
