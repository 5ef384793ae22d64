"""Timing of parsing every EAI goal string, and of the BDDL conversion behind them.

Run ``python benchmarks/bench_parse.py`` (fetches the eai-eval wheel into the cache on the
first run). Target: the 438 EAI goals (338 VirtualHome ``tl_goal`` strings + 100 BEHAVIOR
goals in planproof's typed form) parse in < 1 s in total. Also shown: the 100 BEHAVIOR goals
in the reference's untyped format (longer: ``forpairs`` is expanded), the BDDL → formula
conversion of the 100 problems, and loading the converted goals from the cache. Each
figure is the median over ``REPEAT`` rounds; the one-off grammar build is reported apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from timing import median_ms

from planproof.data import load_eai_goals
from planproof.ltl.bddl import bddl_goal_to_ltl, parse_problem
from planproof.ltl.parser import parse

REPEAT = 5


def median_seconds(fn: Callable[[], object]) -> float:
    return median_ms(fn, REPEAT, warmup=False) / 1e3


def parse_all(texts: Sequence[str]) -> None:
    for t in texts:
        parse(t)


def report(label: str, texts: Sequence[str]) -> float:
    total = median_seconds(lambda: parse_all(texts))
    chars = sum(map(len, texts))
    print(
        f"  {label:<44} {len(texts):4d} strings {chars / len(texts):7.0f} chars avg  "
        f"total {total * 1000:8.1f} ms  mean {total / len(texts) * 1e6:7.1f} µs"
    )
    return total


def main() -> None:
    t0 = time.perf_counter()
    goals = load_eai_goals()
    print(f"load_eai_goals() (from cache, first call): {(time.perf_counter() - t0) * 1000:.1f} ms")
    print(f"load_eai_goals() (again): {median_seconds(load_eai_goals) * 1000:.1f} ms")

    vh = list(goals.virtualhome_tl_goals().values())
    typed = [g.tl_goal for g in goals.behavior]
    reference = [g.tl_goal_reference for g in goals.behavior]

    t0 = time.perf_counter()
    parse(vh[0])
    print(f"first parse (builds the LALR parser): {(time.perf_counter() - t0) * 1000:.1f} ms")

    print("parse (median of", REPEAT, "rounds):")
    report("VirtualHome tl_goal", vh)
    report("BEHAVIOR typed form", typed)
    report("BEHAVIOR reference format", reference)
    headline = report("all 438 EAI goals (VirtualHome + BEHAVIOR)", vh + typed)
    report("all 538 strings", vh + typed + reference)
    slowest = max(vh + typed + reference, key=lambda s: median_seconds(lambda: parse(s)))
    ms = median_seconds(lambda: parse(slowest)) * 1e3
    print(f"  slowest string: {len(slowest)} chars, {ms:.2f} ms")

    problems = [g.bddl_problem for g in goals.behavior]

    def convert_all() -> None:
        for text in problems:
            p = parse_problem(text)
            bddl_goal_to_ltl(p.goal, objects=p.objects)

    conv = median_seconds(convert_all)
    print(
        f"BDDL problem → typed formula, 100 problems: {conv * 1000:.1f} ms "
        f"({conv / len(problems) * 1000:.2f} ms each)"
    )
    verdict = "OK" if headline < 1.0 else "OVER TARGET"
    print(f"target: 438 goals parse in < 1 s: {headline * 1000:.1f} ms — {verdict}")


if __name__ == "__main__":
    main()
