"""PARTNR evaluation at the dataset's scale: 100 000 episode traces.

Run ``python benchmarks/bench_partnr.py`` (``--traces N`` to change the count). The
traces are the replays of the bundled corpus (33 episodes, 75 gold and wrong two-agent
plans), so each trace is a real multi-agent state sequence (one state per action of
either agent); trace ``i`` is pool entry ``i mod len(pool)``, evaluated by a
fresh :class:`Evaluator` (no proposition result is reused across traces; the compiled
per-proposition checkers are, as for one episode's repeated evaluation). Shown: one core,
all cores (``concurrent.futures.ProcessPoolExecutor``, one chunk of traces per worker,
each worker replaying the corpus once), the LTL view on a sample, and the replay itself.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_ms

from planproof.ltl.trace import State
from planproof.simulators.partnr.engine import Evaluator
from planproof.simulators.partnr.ltl import compile_evaluation
from planproof.simulators.partnr.model import EvaluationFunction
from planproof.simulators.partnr.world import load_episodes, run_plan

Pool = list[tuple[EvaluationFunction, tuple[State, ...]]]


def _json(name: str) -> object:
    text = resources.files("planproof.examples").joinpath("partnr", name).read_text("utf-8")
    return json.loads(text)


@cache
def pool() -> Pool:
    """(evaluation function, trace) for every corpus plan."""
    episodes = {e.episode_id: e for e in load_episodes(_json("episodes.json"))}
    out: Pool = []
    plans = _json("plans.json")
    assert isinstance(plans, dict)
    for p in plans["plans"]:
        ep = episodes[p["episode_id"]]
        states = run_plan(ep, {k: v for k, v in p.items() if k.startswith("agent_")}).states
        out.append((ep.evaluation, states))
    return out


def evaluate_range(bounds: tuple[int, int]) -> tuple[int, float, int]:
    """Evaluate traces ``start .. stop-1``: (count, sum of percent complete, successes)."""
    start, stop = bounds
    items = pool()
    total = 0.0
    wins = 0
    for i in range(start, stop):
        ev, states = items[i % len(items)]
        r = Evaluator(ev).run(states, explain=False)
        total += r.percent_complete
        wins += r.success
    return stop - start, total, wins


def serial(n: int) -> tuple[float, float, tuple[int, float, int]]:
    """Wall and CPU seconds of evaluating ``n`` traces in this process."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = evaluate_range((0, n))
    return time.perf_counter() - t0, time.process_time() - c0, out


def parallel(n: int, workers: int) -> tuple[float, tuple[int, float, int]]:
    chunks = [(n * k // workers, n * (k + 1) // workers) for k in range(workers)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as ex:
        parts = list(ex.map(evaluate_range, chunks))
    dt = time.perf_counter() - t0
    return dt, (sum(p[0] for p in parts), sum(p[1] for p in parts), sum(p[2] for p in parts))


def children_cpu() -> float:
    """CPU seconds used by finished child processes (the pool's workers)."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--traces", type=int, default=100_000)
    args = ap.parse_args()
    n = args.traces
    items = pool()
    steps = sum(len(s) for _, s in items) / len(items)
    print(f"trace pool: {len(items)} traces (mean {steps:.1f} states), {n} evaluations")

    t1, cpu, (count, pc, wins) = serial(n)
    print(f"one core:  {t1:7.2f} s wall, {cpu:.2f} s CPU  ({t1 / count * 1e6:6.1f} us/trace)  "
          f"mean PC {pc / count:.3f}, success {wins / count:.3f}")  # fmt: skip
    workers = os.cpu_count() or 1
    c0 = children_cpu()
    tp, (count_p, pc_p, wins_p) = parallel(n, workers)
    cpu_p = children_cpu() - c0
    assert (count_p, wins_p) == (count, wins) and abs(pc_p - pc) < 1e-6 * max(1.0, pc)
    print(f"{workers} cores:  {tp:7.2f} s wall, {cpu_p:.2f} s CPU in the workers  "
          f"({tp / count * 1e6:6.1f} us/trace, "
          f"speed-up {t1 / tp:.2f}x, including worker start-up and corpus replay; "
          f"load average {os.getloadavg()[0]:.1f})")  # fmt: skip

    sample = [(ev, s) for ev, s in items if _compilable(ev)][::7][:100]
    compiled = [(compile_evaluation(ev), s) for ev, s in sample]
    ms = median_ms(lambda: [c.evaluate(s) for c, s in compiled], 3) / len(compiled)
    print(f"LTL view:  {ms:7.2f} ms/trace (compiled formulas on the trace evaluator, "
          f"{len(compiled)} traces)")  # fmt: skip
    episodes = load_episodes(_json("episodes.json"))
    plans = _json("plans.json")
    assert isinstance(plans, dict)
    first = {e.episode_id: e for e in episodes}
    jobs = [(first[p["episode_id"]], {k: v for k, v in p.items() if k.startswith("agent_")})
            for p in plans["plans"]]  # fmt: skip
    ms = median_ms(lambda: [run_plan(e, pl) for e, pl in jobs], 3) / len(jobs)
    print(f"replay:    {ms:7.2f} ms/plan (two-agent plan through the generic core)")
    return 0


@cache
def _compilable(ev: EvaluationFunction) -> bool:
    try:
        compile_evaluation(ev)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
