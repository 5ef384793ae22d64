"""The ability modules on the whole EAI datasets: prompt generation for all four modules,
goal interpretation of every gold goal (with and without Z3), and the BFS refinement of
the subgoals derived from every gold plan (with each failure and its reason).

`python benchmarks/bench_modules.py` (about two to three minutes on two cores).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_ms

from planproof.interface.prompts import MODULES, build_prompts
from planproof.metrics import goal_interpretation as gi
from planproof.metrics import subgoal_decomposition as sd
from planproof.simulators.behavior.tasks import load_behavior_tasks
from planproof.simulators.virtualhome import load_virtualhome_tasks


def main() -> int:
    datasets = {"virtualhome": load_virtualhome_tasks(), "behavior": load_behavior_tasks()}

    def all_prompts() -> None:
        for tasks in datasets.values():
            for m in MODULES:
                build_prompts(tasks, m)

    print(f"all prompts, 4 modules x 2 datasets (442 tasks): {median_ms(all_prompts, 3):.0f} ms")
    vh = datasets["virtualhome"]
    one = median_ms(lambda: build_prompts(vh, "action-sequencing"), 3)
    print(f"342 VirtualHome action-sequencing prompts: {one:.0f} ms (reference: about 51 s)")

    for name, tasks in datasets.items():
        for logic in (False, True):
            t0 = time.perf_counter()
            rs = [gi.evaluate_goal_response(t, gi.gold_response(t), logic=logic) for t in tasks]
            dt = time.perf_counter() - t0
            s = gi.summarize(rs)
            f1 = s["goal_evaluation"]["overall"]["f1"]
            extra = f", Z3 {s['logic']}" if logic else ""
            print(f"GI gold {name}: F1 {f1:.1f}% over {len(tasks)} tasks in {dt:.2f} s{extra}")

    for name, tasks in datasets.items():
        t0 = time.perf_counter()
        results = [sd.evaluate_subgoal_response(t, sd.gold_response(t)) for t in tasks]
        dt = time.perf_counter() - t0
        s = sd.summarize(results)
        ok = sum(r.trajectory.success for r in results)
        ex = sum(r.trajectory.executable for r in results)
        print(
            f"SD gold {name}: {ok}/{len(tasks)} reach the goal, {ex} executable, "
            f"in {dt:.1f} s; subgoals {s['subgoals']}"
        )
        for r in results:
            if not r.trajectory.success:
                f = r.failed
                why = (
                    f"subgoal {f.index + 1} {f.status}: {f.message}"
                    if f
                    else f"grammar: {r.grammar_error.message}"
                    if r.grammar_error
                    else "all subgoals reached"
                )
                print(f"  {r.identifier}: {why}; unmet {list(r.trajectory.unmet_goals)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
