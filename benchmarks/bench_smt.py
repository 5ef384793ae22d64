"""Timing of the Z3 state-fragment decisions on BEHAVIOR-sized goals.

Run ``python benchmarks/bench_smt.py``. The headline goal has the shape of a BEHAVIOR-100
``tl_goal`` after BDDL conversion: a ``forpairs`` over 4 jars × 4 apples, a ``forall``
over 10 plates, a ``forn`` and some literals, decided under the VirtualHome-style state
axioms. Shown: satisfiable, entails (one proved, one refuted with a counterexample),
equivalent, then how a ``forpairs`` and a ``forall`` scale with the universe, in both
polarities (the matching and the vertex-cover side of the encoding). Each figure is the
median of several calls and includes the checks, the grounding and the Z3 encoding (each
call builds a fresh solver). The axioms (open/closed exclusive for every object, one object
per hand) are a large part of the headline goal's cost.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial

from planproof.ltl.ast import Formula, size
from planproof.ltl.axioms import at_most_one_held, mutually_exclusive
from planproof.ltl.parser import parse
from planproof.ltl.simplify import conj
from planproof.ltl.smt import EntailResult, SatResult, entails, equivalent, ground_size, satisfiable
from planproof.ltl.trace import Universe

REPEAT = 7


def behavior_universe(jars: int = 4, apples: int = 4, plates: int = 10) -> Universe:
    objs: dict[str, set[str]] = {"table.1": {"table"}, "table.2": {"table"}, "agent.1": {"agent"}}
    objs.update({f"jar.{i}": {"jar"} for i in range(jars)})
    objs.update({f"apple.{i}": {"apple"} for i in range(apples)})
    objs.update({f"plate.{i}": {"plate"} for i in range(plates)})
    objs["cabinet.1"] = {"cabinet"}
    return Universe.of(objs)


GOAL = parse(
    "(forpairs x - jar, y - apple. inside(y, x))"
    " and (forall p - plate. (ontop(p, table.1) or ontop(p, table.2)) and not dusty(p))"
    " and (forall x - jar. not open(x) and (ontop(x, table.1) or inside(x, cabinet.1)))"
    " and (forn 2 p - plate. ontop(p, table.2))"
    " and closed(cabinet.1) and not holds_rh(agent.1, apple.0)"
)
PROVED = parse("forall y - apple. exists x - jar. inside(y, x)")
REFUTED = parse("inside(apple.0, jar.0)")
OPTION = parse(
    "inside(apple.0, jar.1) and inside(apple.1, jar.0) and inside(apple.2, jar.3)"
    " and inside(apple.3, jar.2)"
)
PAIRS = parse("forpairs x - jar, y - apple. inside(y, x)")
EMPTY_JAR = parse(
    "(forpairs x - jar, y - apple. inside(y, x)) and (forall y - apple. not inside(y, jar.0))"
)
NOT_PAIRS = parse(
    "not (forpairs x - jar, y - apple. inside(y, x))"
    " and (forall x - jar. exists y - apple. inside(y, x))"
)
PLATES = parse("forall p - plate. (ontop(p, table.1) or ontop(p, table.2)) and not dusty(p)")


def pairs_universe(n: int) -> Universe:
    return behavior_universe(jars=n, apples=n, plates=0)


def timed(call: Callable[[], SatResult | EntailResult]) -> tuple[float, str]:
    """Median wall time in ms over REPEAT calls, and the verdict of the last one."""
    times: list[float] = []
    result: SatResult | EntailResult | None = None
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, verdict(result)


def verdict(result: SatResult | EntailResult | None) -> str:
    if result is None or result.unknown:
        return f"{result.status if result else 'unknown'} (resource limit)"
    if isinstance(result, SatResult):
        return "sat" if result.sat else "unsat"
    return "holds" if result.holds else "refuted, with counterexample"


def row(label: str, call: Callable[[], SatResult | EntailResult]) -> None:
    ms, text = timed(call)
    print(f"  {label:<52} {ms:9.2f} ms   {text}", flush=True)


def main() -> None:
    t0 = time.perf_counter()
    u = behavior_universe()
    satisfiable(parse("p()"), u)  # first call pays for importing z3
    print(f"first call (imports z3): {(time.perf_counter() - t0) * 1000:.1f} ms")

    axioms: tuple[Formula, ...] = (
        mutually_exclusive(("open", "closed"), u),
        at_most_one_held("holds_rh", holders=["agent.1"]),
    )
    print(
        f"\nBEHAVIOR-sized goal: {len(u)} objects, {size(GOAL)} AST nodes, "
        f"ground size {ground_size([GOAL, *axioms], u)} (with axioms)"
    )
    row("satisfiable(goal), no axioms", lambda: satisfiable(GOAL, u))
    row("satisfiable(goal)", lambda: satisfiable(GOAL, u, axioms))
    row("entails(goal, every apple in some jar)", lambda: entails(GOAL, PROVED, u, axioms))
    row("entails(goal, inside(apple.0, jar.0))", lambda: entails(GOAL, REFUTED, u, axioms))
    row("entails(one pairing option, forpairs)", lambda: entails(OPTION, PAIRS, u))
    row("equivalent(goal, goal)", lambda: equivalent(GOAL, GOAL, u, axioms))

    print("\nscaling: forpairs x - jar, y - apple. inside(y, x) over n jars x n apples")
    for n in (4, 8, 16, 32):
        row(f"n={n:<3} satisfiable(forpairs)", partial(satisfiable, PAIRS, pairs_universe(n)))
        row(
            f"n={n:<3} satisfiable(forpairs and jar.0 empty)",
            partial(satisfiable, EMPTY_JAR, pairs_universe(n)),
        )
        row(
            f"n={n:<3} entails(forpairs, every apple in a jar)",
            partial(entails, PAIRS, PROVED, pairs_universe(n)),
        )
        row(
            f"n={n:<3} satisfiable(not forpairs and no jar empty)",
            partial(satisfiable, NOT_PAIRS, pairs_universe(n)),
        )
    print("\n  (the König vertex-cover side: forpairs in the conclusion; budget 2 M units)")
    for n in (4, 8, 16, 32):
        option = conj(*(parse(f"inside(apple.{i}, jar.{i})") for i in range(n)))
        call = partial(entails, option, PAIRS, pairs_universe(n), rlimit=2_000_000)
        row(f"n={n:<3} entails(diagonal pairing option, forpairs)", call)

    print("\nscaling: forall p - plate. (ontop(p, table.1) or ontop(p, table.2)) and not dusty(p)")
    for n in (10, 100, 1000):
        un = behavior_universe(jars=0, apples=0, plates=n)
        half = parse(f"forn {n // 2} p - plate. ontop(p, table.1)")
        row(f"n={n:<5} satisfiable(forall)", partial(satisfiable, PLATES, un))
        row(f"n={n:<5} entails(forall, forn n/2 on table.1)", partial(entails, PLATES, half, un))


if __name__ == "__main__":
    main()
