"""What ``planproof run`` costs per task besides the model call: prompt building, cache
lookups and writes, the provider round trip to a zero-latency loopback server, scoring,
and writing the run directory. `python benchmarks/bench_run.py`

Three figures on the VirtualHome action-sequencing tasks:
- cold: every call goes to the loopback stub (answers instantly), so the time is all
  pipeline (litellm + HTTP + SQLite commit per call + scoring);
- warm: the same run again, every answer from the cache (a resumed run);
- built-in agent ``gold`` (no litellm, no HTTP): the pipeline floor.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-real-key")


def _answer(prompt: str) -> str:
    return '{"WALK": ["bathroom", "11"], "FIND": ["toilet", "1000"]}'


def main() -> int:
    from planproof.interface.llm.stub import StubServer
    from planproof.runs.modules import module_tasks
    from planproof.runs.runner import RunConfig, execute

    tasks = len(module_tasks("action-sequencing", "virtualhome"))
    rows: list[tuple[str, float, float, float]] = []
    tmp = Path(tempfile.mkdtemp(prefix="planproof-bench-run-"))
    try:
        with StubServer(_answer) as stub:
            colds, warms = [], []
            for i in range(3):
                cache = tmp / f"cache-{i}.sqlite3"
                cfg = RunConfig(
                    model="openai/stub",
                    module="action-sequencing",
                    dataset="virtualhome",
                    out_dir=tmp / f"run-{i}",
                    concurrency=8,
                    api_base=stub.url,
                    max_retries=0,
                    cache_path=cache,
                )
                t0 = time.perf_counter()
                cold = execute(cfg)
                colds.append((time.perf_counter() - t0, cold.info["seconds"]))
                t0 = time.perf_counter()
                warm = execute(cfg)
                warms.append((time.perf_counter() - t0, warm.info["seconds"]))
                assert warm.info["calls"]["made"] == 0
            for label, runs in (("stub provider, cold cache", colds), ("cache hit", warms)):
                total = statistics.median(r[0] for r in runs)
                calls = statistics.median(r[1]["calls"] for r in runs)
                evaluation = statistics.median(r[1]["evaluation"] for r in runs)
                rows.append((label, total, calls, evaluation))
        golds = []
        for i in range(3):
            cfg = RunConfig(
                model="gold",
                module="action-sequencing",
                dataset="virtualhome",
                out_dir=tmp / f"gold-{i}",
                concurrency=1,
                cache_path=tmp / f"gold-{i}.sqlite3",
            )
            t0 = time.perf_counter()
            g = execute(cfg)
            golds.append((time.perf_counter() - t0, g.info["seconds"]))
        rows.append(
            (
                "built-in gold agent, cold cache",
                statistics.median(r[0] for r in golds),
                statistics.median(r[1]["calls"] for r in golds),
                statistics.median(r[1]["evaluation"] for r in golds),
            )
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"planproof run, VirtualHome action sequencing, {tasks} tasks (median of 3)")
    print(
        f"{'path':34} {'total s':>8} {'ms/task':>8} {'calls+prompts ms/task':>22} "
        f"{'scoring ms/task':>16}"
    )
    for label, total, calls, evaluation in rows:
        print(
            f"{label:34} {total:8.2f} {1e3 * total / tasks:8.2f} "
            f"{1e3 * calls / tasks:22.2f} {1e3 * evaluation / tasks:16.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
