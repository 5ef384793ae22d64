"""Goal options of BEHAVIOR-sized goals: count, best option, and full enumeration.

Run ``python benchmarks/bench_options.py`` (``--size 3`` for a quicker run, ``--no-enumerate``
to skip the enumeration). The goal has four ``forpairs`` over k x k objects, an
``exists`` over five rags and a few plain conditions: (k!)^4 * 5 options (1 658 880 for
k = 4). The prediction is one option with a third of its literals dropped and three wrong
ones added. ``best_option`` never enumerates; the enumeration is timed only to compare,
and the best F1 it finds by brute force is checked against ``best_option``'s.
Also timed: a VirtualHome-shaped action goal over a large scene, and a goal whose
conjuncts share atoms (the DP then tracks shared literals in its keys).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

from planproof.ltl.ast import Formula, Literal
from planproof.ltl.options import Element, GoalOptions, score
from planproof.ltl.parser import parse
from planproof.ltl.trace import Universe, ground_atom

T = TypeVar("T")
PAIRS = [
    ("jar", "apple", "inside"),
    ("plate", "cake", "ontop"),
    ("bowl", "egg", "inside"),
    ("basket", "shoe", "inside"),
]


def behavior_goal(k: int) -> tuple[Formula, Universe]:
    parts = [f"forpairs x - {a}, y - {b}. ({rel}(y, x))" for a, b, rel in PAIRS]
    parts += ["exists r - rag. (soaked(r))", "forall x - jar. (not open(x))", "cooked(egg.1)"]
    names = [f"{t}.{i}" for a, b, _ in PAIRS for t in (a, b) for i in range(1, k + 1)]
    names += [f"rag.{i}" for i in range(1, 6)]
    return parse(" and ".join(parts)), Universe.from_names(names)


def prediction(go: GoalOptions, seed: int = 0) -> frozenset[Element]:
    rng = random.Random(seed)
    opt = next(go.options())
    kept = [x for x in sorted(opt.literals, key=repr) if rng.random() > 1 / 3]
    wrong = [
        Literal(ground_atom("ontop", "apple.1", "plate.1")),
        Literal(ground_atom("open", "jar.1")),
        Literal(ground_atom("soaked", "shoe.1")),
    ]
    return frozenset([*kept, *wrong])


def timed(label: str, fn: Callable[[], T], repeat: int = 1) -> T:
    """Run ``fn`` ``repeat`` times; print the first (cold) and the median time."""
    times: list[float] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times[1:]) if repeat > 1 else 0.0
    warm = f"   median of {repeat}: {1000 * med:8.2f} ms" if repeat > 1 else ""
    print(f"  {label:<34} {1000 * times[0]:10.2f} ms{warm}", flush=True)
    return out


def bench_behavior(k: int, enumerate_all: bool) -> None:
    f, u = behavior_goal(k)
    print(f"BEHAVIOR-like goal: 4 forpairs over {k}x{k}, exists over 5 rags ({len(u)} objects)")
    go = timed("ground + normal form", lambda: GoalOptions(f, u, set()))
    n = timed("count_options", go.count)
    print(f"  options counted: {n:,}")
    pred = prediction(go)
    best = timed("best_option (cold: imports scipy)", lambda: go.best(pred), repeat=21)
    assert best is not None
    print(
        f"  best: tp={best.tp} fp={best.fp} fn={best.fn} "
        f"P={best.precision:.3f} R={best.recall:.3f} F1={best.f1:.4f}"
    )
    if not enumerate_all:
        return
    t0 = time.perf_counter()
    seen, top = 0, Fraction(-1)
    for opt in go.options(dedupe=False):
        seen += 1
        top = max(top, score(opt, pred).f1_exact)
    dt = time.perf_counter() - t0
    print(
        f"  enumerate + score every option     {1000 * dt:10.2f} ms  ({seen:,} options, "
        f"{1e6 * dt / max(seen, 1):.1f} us each)"
    )
    same = top == best.f1_exact
    print(f"  brute-force best F1 = {float(top):.4f}: {'agrees' if same else 'DISAGREES'}")
    if not same:
        raise SystemExit(1)


def bench_virtualhome(n_objects: int) -> None:
    f = parse(
        "(exists x0. ((LOOKAT(x0) or WATCH(x0))) then (ON(television.410) and "
        "PLUGGED_IN(television.410) and FACING(character.65, television.410)))"
    )
    u = Universe.from_names(
        [f"thing.{i}" for i in range(n_objects)] + ["television.410", "character.65"]
    )
    print(f"VirtualHome 'Watch TV' goal over {len(u)} objects")
    go = GoalOptions(f, u, {"lookat", "watch"})
    print(f"  options counted: {go.count():,}")
    pred: frozenset[Element] = frozenset(
        {
            (ground_atom("watch", "television.410"),),
            Literal(ground_atom("on", "television.410")),
        }
    )
    best = timed("best_option", lambda: go.best(pred), repeat=21)
    assert best is not None
    print(f"  best F1={best.f1:.4f}")


def bench_shared(k: int) -> None:
    # every forall instance shares its atoms with the exists and the forpairs
    f = parse(
        "forpairs x - jar, y - apple. (inside(y, x)) and exists y - apple. "
        "(forall x - jar. (inside(y, x) or open(x)))"
    )
    u = Universe.from_names([f"jar.{i}" for i in range(k)] + [f"apple.{i}" for i in range(k)])
    print(f"Shared atoms: forpairs {k}x{k} and exists/forall over the same atoms")
    go = GoalOptions(f, u, set())
    print(f"  options counted (upper bound): {go.count():,}")
    pred: frozenset[Element] = frozenset(
        Literal(ground_atom("inside", f"apple.{i}", f"jar.{(i + 1) % k}")) for i in range(k)
    )
    best = timed("best_option", lambda: go.best(pred), repeat=5)
    assert best is not None
    print(f"  best F1={best.f1:.4f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--size", type=int, default=4, help="objects per forpairs side")
    ap.add_argument("--no-enumerate", action="store_true", help="skip the full enumeration")
    args = ap.parse_args(argv)
    bench_behavior(args.size, not args.no_enumerate)
    bench_virtualhome(1000)
    bench_shared(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
