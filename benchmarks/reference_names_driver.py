"""Observe virtualhome-eval 0.1.1's object-name → id map (``relevant_name_to_id``) per task.

Runs in a venv holding the ``virtualhome-eval==0.1.1`` wheel (``--no-deps``) and numpy,
never in planproof's interpreter. Writes ``{task id: {class name: node id}}`` for every
VirtualHome task (or the ids given) to OUT::

    PYTHONHASHSEED=0 <venv>/bin/python benchmarks/reference_names_driver.py OUT [ID ...]

``tests/simulators/reference_names_vhe011.json`` holds its output for hash seeds 0, 1 and
2 (the map depends on the seed for 2 of the 342 tasks); ``planproof.simulators.virtualhome.
reference_names`` is tested against it.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    logging.disable(logging.CRITICAL)
    eu: Any = importlib.import_module("virtualhome_eval.simulation.evolving_graph.eval_utils")
    utils: Any = importlib.import_module("virtualhome_eval.simulation.evolving_graph.utils")
    pkg = Path(eu.__file__).resolve().parents[2]
    data_dir = pkg / "dataset" / "programs_processed_precond_nograb_morepreconds"
    res = pkg / "resources" / "virtualhome"
    id2task = json.loads((res / "id2task.json").read_text(encoding="utf-8"))
    goals_doc = json.loads((res / "task_state_LTL_formula_accurate.json").read_text("utf-8"))
    task_dicts = goals_doc["scene_1"]
    ne = utils.load_name_equivalence()
    pd = utils.load_properties_data()
    op = utils.load_object_placing()
    out: dict[str, Any] = {}
    for fid in argv[2:] or list(id2task):
        planner = eu.construct_planner(
            ne, pd, op, scenegraph_id=1, script_id=fid, dataset_root=str(data_dir)
        )[0]
        goal = task_dicts[id2task[fid]][fid]["vh_goal"] or {}
        nodes = [g for g in goal.get("goal", []) if "state" in g]
        edges = [g for g in goal.get("goal", []) if "relation_type" in g]
        out[fid] = planner.get_symbolic_goal_nl(nodes, edges, goal.get("actions", []))[5]
    Path(argv[1]).write_text(json.dumps(out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
