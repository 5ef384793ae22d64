"""TEACh checker throughput: Progress Check and compiled-goal evaluation on one state."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_ms

from planproof.simulators.teach.catalog import EXAMPLE_PARAMS
from planproof.simulators.teach.checker import check
from planproof.simulators.teach.compile import goal_reached, to_ltl
from planproof.simulators.teach.state import ObjectState, SymbolicState
from planproof.simulators.teach.tdl import default_registry, load_task


def scene(n: int) -> SymbolicState:
    """A kitchen of about ``n`` objects: plates, slices, mugs and clutter."""
    objs = [ObjectState.make("CounterTop|0", "CounterTop", ["receptacle"])]
    kinds = ["Plate", "BreadSliced", "Mug", "TomatoSliced", "LettuceSliced", "Apple", "Bowl"]
    for i in range(1, n):
        t = kinds[i % len(kinds)]
        props = ["receptacle"] if t in {"Plate", "Bowl", "Mug"} else ["isCooked"]
        objs.append(ObjectState.make(f"{t}|{i}", t, props, ["CounterTop|0"]))
    objs.append(ObjectState.make("SinkBasin|0", "SinkBasin", ["receptacle"]))
    objs.append(ObjectState.make("DiningTable|0", "DiningTable", ["receptacle"]))
    return SymbolicState.of(objs)


def main() -> None:
    load_ms = median_ms(default_registry.__wrapped__, 5)  # type: ignore[attr-defined]
    print(f"load + validate the 25 definitions: {load_ms:.2f} ms")
    inst_ms = median_ms(
        lambda: [default_registry().instantiate(k, v) for k, v in EXAMPLE_PARAMS.items()], 5
    )
    print(f"instantiate all 25 with parameters: {inst_ms:.2f} ms")
    for n in (20, 200):
        s = scene(n)
        for name in ("Plate Of Toast", "Breakfast"):
            task = load_task(name, EXAMPLE_PARAMS[name])
            f = to_ltl(task)
            c = median_ms(lambda t=task, st=s: check(t, st), 20)
            g = median_ms(lambda t=task, st=s, ff=f: goal_reached(t, st, ff), 5)
            print(f"{name:15s} {n:4d} objects: checker {c:8.3f} ms   compiled goal {g:8.2f} ms")


if __name__ == "__main__":
    main()
