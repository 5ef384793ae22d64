"""BEHAVIOR world: task loading and gold-plan evaluation in absolute terms (the reference
evaluator cannot run without iGibson, so there is no ratio to report)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_ms

from planproof.simulators.behavior.tasks import _load, goal_reached, load_behavior_tasks
from planproof.simulators.core import replay


def main() -> None:
    tasks = load_behavior_tasks()
    load_ms = median_ms(lambda: (_load.cache_clear(), load_behavior_tasks()), 3)
    print(f"load the 100 BEHAVIOR tasks from the cache: {load_ms:.1f} ms")

    def evaluate_all() -> int:
        ok = 0
        for t in tasks:
            r = replay(t.world, t.initial, t.gold)
            ok += r.executable and goal_reached(t, r.trace)
        return ok

    all_ms = median_ms(evaluate_all, 3)
    steps = sum(len(t.gold) for t in tasks)
    print(
        f"replay + goal check of all 100 gold plans ({steps} steps): {all_ms:.0f} ms "
        f"({all_ms / len(tasks):.1f} ms per task, {all_ms / steps * 1e3:.0f} µs per step)"
    )


if __name__ == "__main__":
    main()
