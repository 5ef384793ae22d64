"""Run the Housekeep reference's OWN metric code (methods lifted verbatim with ast
from env.py / dataset.py / build_utils.py / orm/utils.py @ ff57c79) on real episodes and
symbolic plans, without habitat. Only the simulator is stood in for: picks/places update
the state matrix through the reference's own update_mapping; object_to_goal_distance is
given its two fields the metrics read (recs_keys = get_correct_mapping, current_rec =
get_mapping('current')); 'found' = misplaced objects on a receptacle the agent navigates
to (planproof's symbolic stand-in for visibility).

Usage (outside planproof; numpy only, no habitat):
    python tools/housekeep_reference_metrics.py HOUSEKEEP_CHECKOUT EPISODES.json.gz... > out.json
where HOUSEKEEP_CHECKOUT is a work tree of yashkant/housekeep @ ff57c79 (with
cos_eor/scripts/orm/amt_data/data.npy). It wrote tests/data/housekeep/reference/
expected_reference_metrics.json ("expected"). planproof never imports this script."""

import ast
import gzip
import json
import os
import sys
import textwrap
from collections import OrderedDict, defaultdict
from copy import deepcopy

import numpy as np

SRC = os.path.abspath(sys.argv[1])


def lift(path, names, cls=None):
    with open(os.path.join(SRC, path)) as fh:
        text = fh.read()
    tree = ast.parse(text)
    out = {}
    nodes = tree.body
    if cls:
        nodes = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    for n in nodes:
        if isinstance(n, ast.FunctionDef) and n.name in names:
            out[n.name] = ast.get_source_segment(text, n)
    assert set(out) == set(names), set(names) - set(out)
    return out


ns = {
    "np": np,
    "OrderedDict": OrderedDict,
    "defaultdict": defaultdict,
    "deepcopy": deepcopy,
    "os": os,
}

for src in lift(
    "cos_eor/scripts/orm/utils.py", ["preprocess", "process_ycb", "has_digits"]
).values():
    exec(src, ns)
for src in lift(
    "cos_eor/scripts/build_utils.py", ["get_scene_rec_names", "aggregate_amt_annotations"]
).values():
    exec(src, ns)


def attach(cls, name, src):
    """Compile one lifted method and make it a method of ``cls``."""
    loc = {}
    exec(textwrap.dedent(src), ns, loc)
    setattr(cls, name, loc[name])


class Episode:
    pass


class Env:
    pass


for cls, path, klass, names in (
    (
        Episode,
        "cos_eor/dataset/dataset.py",
        "CosRearrangementEpisode",
        [
            "reset",
            "get_mapping",
            "get_correct_recs",
            "get_rec",
            "get_correct_mapping",
            "get_misplaced_objects",
            "update_mapping",
            "agent_has_object",
        ],
    ),
    (
        Env,
        "cos_eor/env/env.py",
        "CosRearrangementRLEnv",
        [
            "_episode_success",
            "_episode_obj_success_for_given_keys",
            "_episode_obj_success_split",
            "_add_obj_metrics",
            "_add_pick_place_efficiency",
            "add_metrics",
        ],
    ),
):
    for name, src in lift(path, names, cls=klass).items():
        attach(cls, name, src)
Env._add_path_efficiency = lambda self, info, keys: None  # needs the simulator's positions

os.chdir(SRC)
sys.stdout = sys.stderr  # the reference prints a count while loading
AMT = ns["aggregate_amt_annotations"](only_amt=True)


class Task:
    amt_data = AMT

    class _Ids(dict):
        def __missing__(self, k):
            return k

    obj_key_to_sim_obj_id = _Ids()
    sim_obj_id_to_obj_key = _Ids()


class Sim:
    occupancy_info = {"seen_area": float("nan")}  # noqa: RUF012


class HabitatEnv:
    def __init__(self, ep):
        self._current_episode = ep
        self._task = Task()
        self.task = self._task

    def get_metrics(self):
        ep = self._current_episode
        cur, cor = ep.get_mapping("current"), ep.get_correct_mapping()
        return {
            "object_to_goal_distance": {
                k: {"recs_keys": cor[k], "current_rec": cur[k]} for k in ep.objs_keys
            }
        }


def plan(ep, name):
    S, E = np.array(ep.start_matrix), np.array(ep.end_matrix)
    moves = []
    mis = []
    for j, o in enumerate(ep.objs_keys):
        s = int(np.argwhere(S[:, j] == 1).squeeze(-1)[0])
        if E[s, j] != 1:
            mis.append(o)
            corr = np.argwhere(E[:, j] == 1).squeeze(-1)
            if len(corr):
                moves.append((o, ep.recs_keys[s], ep.recs_keys[int(corr[0])]))
    if name == "half_done":
        moves = moves[: len(mis) // 2]
    if name == "nothing":
        moves = []
    acts = []
    for o, s, t in moves:
        acts += [("nav", s), ("pick", o), ("nav", t), ("place", o, t)]
    if name == "hold_last_misplaced" and acts:
        del acts[-2:]
    return acts


def run(doc, name):
    ep = Episode()
    for k, v in deepcopy(doc).items():
        setattr(ep, k, v)
    ep.reset()
    env = Env()
    env._env = HabitatEnv(ep)
    env._sim = Sim()
    env.steps = 0
    env._misplaced_objs_start = set(ep.get_misplaced_objects("start"))
    env._prev_measure = {
        "misplaced_touched_objs_keys": defaultdict(int),
        "placed_touched_objs_keys": defaultdict(int),
        "misplaced_objs_keys": [],
        "placed_objs_keys": [],
        "pick_place": [],
    }
    task = Task()
    for a in plan(ep, name):
        if a[0] == "nav":
            for o in ep.objs_keys:  # seen: objects on the receptacle reached
                if (
                    ep.get_rec(o, ep.state_matrix) == a[1]
                    and o in env._misplaced_objs_start
                    and o not in env._prev_measure["misplaced_objs_keys"]
                ):
                    env._prev_measure["misplaced_objs_keys"].append(o)
            continue
        ep.update_mapping(
            a[1],
            "pick" if a[0] == "pick" else "place",
            task,
            rec_id=a[2] if a[0] == "place" else -1,
        )
        env._prev_measure["pick_place"].append(True)
        if a[1] in env._misplaced_objs_start:
            env._prev_measure["misplaced_touched_objs_keys"][a[1]] += 1
        else:
            env._prev_measure["placed_touched_objs_keys"][a[1]] += 1
    info = {}
    info["episode_success"], info["object_success_placed"], info["object_success_misplaced"] = (
        env._episode_success(return_obj_success=True)
    )
    env.add_metrics(info)
    # aggregate_metrics.py main(), per episode row
    n = info["misplaced_objects_start"] + info["placed_objects_touched"]
    return {
        "episode_success": float(info["episode_success"]),
        "object_success": (info["object_success_placed"] + info["object_success_misplaced"]) / n,
        "soft_object_success": (info["soft_score_placed"] + info["soft_score_misplaced"]) / n,
        "rearrangement_quality": (
            info["rearrange_quality_placed"] + info["rearrange_quality_misplaced"]
        )
        / n,
        "pick_place_efficiency": float(info["pick_place_efficiency"]),
        "misplaced_found": info["misplaced_objects_found"] / info["misplaced_objects_start"],
    }


if __name__ == "__main__":
    out = {}
    for path in sys.argv[2:]:
        with gzip.open(path) as fh:
            eps = json.load(fh)["episodes"]
        out[os.path.basename(path)] = {
            str(e["episode_id"]): {
                p: run(e, p)
                for p in ("oracle_first_correct", "half_done", "hold_last_misplaced", "nothing")
            }
            for e in eps
        }
    sys.stdout = sys.__stdout__
    print(json.dumps(out, indent=1, sort_keys=True))
