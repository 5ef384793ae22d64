"""Timing of the trace evaluator against its targets and the brute-force reference.

Run ``python benchmarks/bench_evaluate.py``. Target: a ~50-node goal of realistic shape
(a ``then`` chain of and/or/not of atoms with quantifiers) on a 500-step trace in < 5 ms.
Also shown: the non-monotone fallback (segment matrices) and the literal brute force on
short traces, to show the ratio. Traces come from a small random household "simulator"
(new states are old ones minus deletions plus additions, as a symbolic simulator makes them).
"""

from __future__ import annotations

import random
import signal
import sys
import time
from collections.abc import Callable
from functools import partial
from types import FrameType

from timing import median_ms

from planproof.ltl.ast import Atom, Formula, size
from planproof.ltl.bruteforce import brute_evaluate
from planproof.ltl.evaluate import TraceEvaluator, evaluate, evaluate_final
from planproof.ltl.parser import parse
from planproof.ltl.trace import Trace, Universe, ground_atom

# fmt: off
ACTIONS = frozenset({
    "walk", "find", "grab", "put", "open", "close", "switchon", "switchoff", "sit", "turnto",
    "lookat", "watch",
})
# fmt: on
CUPS = [f"cup.{i}" for i in range(5, 10)]
PLATES = [f"plate.{i}" for i in range(10, 15)]
PLACES = ["table.4", "sofa.3", "fridge.15", "sink.16", "counter.17"]
CHAR, TV, FRIDGE = "character.1", "tv.2", "fridge.15"

TYPICAL = (
    "(exists x - cup. ((walk(x) or find(x)) and not holds_rh(character.1, x)))"
    " then (grab(cup.5) or grab(cup.6) or (holds_rh(character.1, cup.7) and not open(fridge.15)))"
    " then (open(fridge.15) and not closed(fridge.15) and close(character.1, fridge.15))"
    " then (forall y - plate. (not inside(y, fridge.15) or ontop(y, table.4)))"
    " then (put(cup.5, sink.16) or put(cup.6, sink.16) or inside(cup.7, sink.16))"
    " then (switchon(tv.2) or (on(tv.2) and plugged_in(tv.2)))"
    " then (exists z - plate. (grab(z) and not inside(z, fridge.15)))"
    " then (walk(sofa.3) or find(sofa.3) or sit(sofa.3))"
    " then (on(tv.2) and plugged_in(tv.2) and facing(character.1, tv.2) and sitting(character.1)"
    " and not holds_rh(character.1, cup.5))"
)
FALLBACK = (  # not/forn/implies over "then": segment matrices, joined in O(N^2)
    "(forall x - cup. (walk(x) then not (grab(x) then put(x, table.4))))"
    " then (forn 2 y - plate. (ontop(y, table.4) then inside(y, fridge.15)))"
    " then (on(tv.2) implies (sitting(character.1) then facing(character.1, tv.2)))"
)
WORST = (  # a matrix part after a matrix part: boolean matrix products, O(N^3) per cup
    "forall x - cup. (not (walk(x) then grab(x)) then not (grab(x) then put(x, table.4)))"
)
PAIRS = "forpairs x - cup, y - plate. (grab(x) then ontop(x, y))"
WATCH_TV = (  # the VirtualHome "Watch TV" goal: an untyped exists over the whole scene
    "(exists x0. ((LOOKAT(x0) or WATCH(x0))) then (ON(tv.2) and PLUGGED_IN(tv.2)"
    " and FACING(character.1, tv.2)))"
)


def household_trace(steps: int, seed: int = 0) -> Trace:
    """A random but plausible trace: about 130 state atoms, a few changing per step."""
    rng = random.Random(seed)
    objs = [*CUPS, *PLATES]
    state: set[Atom] = {
        ground_atom("plugged_in", TV),
        ground_atom("off", TV),
        ground_atom("closed", FRIDGE),
    }
    for o in objs:
        state.add(ground_atom("ontop", o, rng.choice(PLACES)))
        state.add(ground_atom("clean", o))
    for p in PLACES:
        state.add(ground_atom("inside", p, "kitchen.20"))
    for i in range(30, 60):  # furniture and decoration the goal never mentions
        state |= {
            ground_atom("inside", f"item.{i}", "living_room.21"),
            ground_atom("clean", f"item.{i}"),
            ground_atom("movable", f"item.{i}"),
        }
    states = [frozenset(state)]
    actions: list[Atom] = []
    cur = frozenset(state)
    for _ in range(steps):
        kind = rng.choice(
            [
                "walk",
                "grab",
                "put",
                "open",
                "close",
                "switchon",
                "switchoff",
                "sit",
                "turnto",
                "watch",
                "find",
            ]
        )
        adds: set[Atom] = set()
        dels: set[Atom] = {a for a in cur if a.pred in {"facing", "close"}}
        if kind in {"walk", "find", "turnto", "watch"}:
            target = rng.choice([*objs, *PLACES, TV])
            act = ground_atom(kind, target)
            adds |= {ground_atom("close", CHAR, target), ground_atom("facing", CHAR, target)}
            dels.add(ground_atom("sitting", CHAR))
        elif kind == "grab":
            o = rng.choice(objs)
            act = ground_atom("grab", o)
            dels |= {a for a in cur if a.pred in {"ontop", "inside"} and a.args[0].name == o}
            adds.add(ground_atom("holds_rh", CHAR, o))
        elif kind == "put":
            held = [a for a in cur if a.pred == "holds_rh"]
            o = held[0].args[1].name if held else rng.choice(objs)
            p = rng.choice(PLACES)
            act = ground_atom("put", o, p)
            dels.add(ground_atom("holds_rh", CHAR, o))
            adds.add(ground_atom("inside" if p == FRIDGE else "ontop", o, p))
        elif kind in {"open", "close"}:
            act = ground_atom(kind, FRIDGE)
            flip = (ground_atom("open", FRIDGE), ground_atom("closed", FRIDGE))
            adds.add(flip[0] if kind == "open" else flip[1])
            dels.add(flip[1] if kind == "open" else flip[0])
        elif kind in {"switchon", "switchoff"}:
            act = ground_atom(kind, TV)
            adds.add(ground_atom("on" if kind == "switchon" else "off", TV))
            dels.add(ground_atom("off" if kind == "switchon" else "on", TV))
        else:
            act = ground_atom("sit", "sofa.3")
            adds.add(ground_atom("sitting", CHAR))
        cur = (cur - dels) | adds
        actions.append(act)
        states.append(cur)
    return Trace(tuple(states), tuple(actions))


timed = median_ms


class _Timeout(Exception):
    pass


def _alarm(_sig: int, _frame: FrameType | None) -> None:
    raise _Timeout


def timed_capped(fn: Callable[[], bool], cap_s: int) -> tuple[float, bool] | None:
    """One call's wall time in ms and its result, or None if it takes over ``cap_s`` s."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(cap_s)
    try:
        t0 = time.perf_counter()
        value = fn()
        return (time.perf_counter() - t0) * 1e3, value
    except _Timeout:
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def row(name: str, f: Formula, steps: int, ms: float, note: str = "") -> None:
    print(f"{name:<34} {size(f):>5} {steps:>6} {ms:>10.3f}  {note}")


def main() -> int:
    typical, fallback, pairs = parse(TYPICAL), parse(FALLBACK), parse(PAIRS)
    worst = parse(WORST)
    long = household_trace(500)
    print(f"{'case':<34} {'nodes':>5} {'steps':>6} {'ms/call':>10}  note")
    print("-" * 78)
    universe = long.universe()
    t_typ = timed(lambda: evaluate(typical, long, universe, ACTIONS), 50)
    row(
        "typical, eventually reading",
        typical,
        500,
        t_typ,
        "target < 5 ms: " + ("met" if t_typ < 5 else "MISSED"),
    )
    row(
        "typical, final-state reading",
        typical,
        500,
        timed(lambda: evaluate_final(typical, long, universe, ACTIONS), 50),
    )
    row(
        "typical, no action vocabulary",
        typical,
        500,
        timed(lambda: evaluate(typical, long, universe), 50),
    )
    row(
        "typical, default universe, cold",
        typical,
        500,
        timed(lambda: evaluate(typical, Trace(long.states, long.actions), actions=ACTIONS), 20),
        "includes trace.universe()",
    )
    row(
        "typical, default universe, cached",
        typical,
        500,
        timed(lambda: evaluate(typical, long, actions=ACTIONS), 50),
        "same trace object again",
    )
    warm = TraceEvaluator(long, universe, ACTIONS)
    row(
        "typical, warm TraceEvaluator",
        typical,
        500,
        timed(lambda: warm.holds(typical), 50),
        "atom vectors reused",
    )
    watch = parse(WATCH_TV)
    scene = Universe.from_names([*universe.names, *(f"obj.{i}" for i in range(300))])
    row(
        f"EAI watch-TV goal, {len(scene)} objects",
        watch,
        500,
        timed(lambda: evaluate(watch, long, scene, ACTIONS), 50),
        "untyped exists",
    )
    row(
        "non-monotone fallback",
        fallback,
        500,
        timed(lambda: evaluate(fallback, long, universe, ACTIONS), 10),
        "N x N matrices, O(N^2)",
    )
    row(
        "worst case: matrix then matrix",
        worst,
        500,
        timed(lambda: evaluate(worst, long, universe, ACTIONS), 5),
        "5 products, O(N^3)",
    )
    row(
        "forpairs over then",
        pairs,
        500,
        timed(lambda: evaluate(pairs, long, universe, ACTIONS), 5),
        "matching per segment",
    )
    print()
    head = f"{'brute force vs evaluate':<24} {'steps':>6} {'brute ms':>10} {'fast ms':>9}"
    print(f"{head} {'ratio':>9}")
    print("-" * 62)
    cap = 10
    for name, f in (("typical", typical), ("fallback", fallback), ("worst", worst)):
        for steps in (4, 8, 16, 32, 64, 128, 256):
            tr = household_trace(steps, seed=steps)
            fast = timed(partial(evaluate, f, tr, None, ACTIONS), 20)
            slow = timed_capped(partial(brute_evaluate, f, tr, None, ACTIONS), cap)
            if slow is None:
                print(
                    f"{name:<24} {steps:>6} {'> ' + str(cap * 1000):>10} {fast:>9.3f} "
                    f"{'> ' + format(cap * 1000 / fast, '.0f'):>9}"
                )
                break
            assert slow[1] == evaluate(f, tr, None, ACTIONS), "brute force disagrees"
            print(f"{name:<24} {steps:>6} {slow[0]:>10.1f} {fast:>9.3f} {slow[0] / fast:>9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
