"""``planproof report`` over the episode benchmarks' ``evaluate`` output: the bundled
TEACh demo (4 episodes), the 30 real Housekeep episodes and the PARTNR corpus (75
plans), each written once by the real command; then the page built from all three
(reading + rendering), its size and its gzip size. There is no reference report to
compare with: the figure is absolute (median of 5 builds after one warm-up)."""

from __future__ import annotations

import gzip
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_ms

from planproof.cli import main as cli
from planproof.report import build_report, load_runs, render_runs


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as null:
        root = Path(tmp)
        stdout, sys.stdout = sys.stdout, null
        try:
            t0 = time.perf_counter()
            for name in ("teach", "housekeep", "partnr"):
                cli(["evaluate", name, "--output", str(root / name), "--json"])
            made = time.perf_counter() - t0
        finally:
            sys.stdout = stdout
        dirs = [root / n for n in ("teach", "housekeep", "partnr")]
        runs = load_runs(dirs)
        tasks = sum(len(r.results) for r in runs)
        page = build_report(dirs)
        print(f"evaluate teach + housekeep + partnr --output: {made:.1f} s (once)")
        print(f"{tasks} episode rows; page {len(page) / 1e3:.0f} kB, "
              f"gzip {len(gzip.compress(page.encode())) / 1e3:.0f} kB")  # fmt: skip
        print(f"read the 3 directories: {median_ms(lambda: load_runs(dirs), 5):.1f} ms")
        print(f"render the page: {median_ms(lambda: render_runs(runs), 5):.1f} ms")
        print(f"build_report (both): {median_ms(lambda: build_report(dirs), 5):.1f} ms")
        t0, c0 = time.perf_counter(), time.process_time()
        build_report(dirs)
        print(
            f"one build: wall {time.perf_counter() - t0:.2f} s, CPU {time.process_time() - c0:.2f}"
            f" s, load average {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    main()
