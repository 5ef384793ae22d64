"""Run virtualhome-eval 0.1.1's executor and temporal-order checker on action scripts, step
by step, as its action-sequencing evaluator does (``evaluate_results``'s loop: a failing
step is checked against the states so far; an "already satisfied" step is an additional
step and the run goes on; any other error stops it).

Executed by the interpreter of the reference's ``published`` venv
(``benchmarks/reference_env.py``); it never imports planproof and planproof never imports
it. Usage: ``python reference_executor_driver.py JOBS.json OUT.json`` where JOBS is a list
of ``{"tid": "<task id>", "plan": ["[WALK] <sink> (42)", ...]}``; OUT gets one
``{"tid", "error", "additional", "done"}`` per job (``error``: ``wrong_order``,
``missing_step``, ``affordance``, None, ``code<N>`` for an error code the evaluator would
stop on with an assertion, ``crash:<Exception>`` when the executor raises).
"""

from __future__ import annotations

import copy
import importlib
import json
import logging
import os.path as osp
import sys
from typing import Any

logging.disable(logging.CRITICAL)
CODES = {0: "wrong_order", 1: "missing_step", 2: "affordance"}


def main(argv: list[str]) -> int:
    vhe = importlib.import_module("virtualhome_eval")
    utils = importlib.import_module("virtualhome_eval.simulation.evolving_graph.utils")
    ev = importlib.import_module("virtualhome_eval.simulation.evolving_graph.eval_utils")
    checker = importlib.import_module("virtualhome_eval.simulation.evolving_graph.checker")
    data_dir = osp.join(
        osp.dirname(vhe.__file__), "dataset", "programs_processed_precond_nograb_morepreconds"
    )
    tables = (
        utils.load_name_equivalence(),
        utils.load_properties_data(),
        utils.load_object_placing(),
    )
    planners: dict[str, Any] = {}
    out = []
    with open(argv[0], encoding="utf-8") as fh:
        jobs = json.load(fh)
    for job in jobs:
        tid = job["tid"]
        if tid not in planners:
            planners[tid] = ev.construct_planner(
                *tables, scenegraph_id=1, script_id=tid, dataset_root=data_dir
            )[0]
        mp = planners[tid]
        mp.reset()
        history = [copy.deepcopy(mp.env_state.to_dict())]
        error, additional, done = None, 0, 0
        try:
            for line in job["plan"]:
                ok, info = mp.my_execute_primitive_action_eval(line)
                if ok:
                    history.append(copy.deepcopy(mp.env_state.to_dict()))
                    done += 1
                    continue
                found = checker.TemporalOrderChecker(info, copy.deepcopy(history))
                code = found.run_checker().get_error_type()
                if code == 4:
                    additional += 1
                    continue
                error = CODES.get(code, f"code{code}")
                break
        except Exception as exc:  # the executor's own failure, reported per job
            error = "crash:" + type(exc).__name__
        out.append({"tid": tid, "error": error, "additional": additional, "done": done})
    with open(argv[1], "w", encoding="utf-8") as fh:
        json.dump(out, fh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
