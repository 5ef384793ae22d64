"""planproof's LTL against the reference implementation (eai-eval 1.0.5), in the same run.

Run ``python benchmarks/bench_reference.py``. The first run builds the reference's virtual
environment in the planproof cache (a few seconds; see ``reference_env.py``); the reference
runs in its own process and its times are measured inside it, so neither side pays for the
other's process or imports. Rows:

* parsing the 338 VirtualHome goal strings and the 100 BEHAVIOR goals in the reference's
  own string format (totals, median of ``REPEAT`` rounds);
* evaluating the VirtualHome "Watch TV" goal and a typical ``then``-chain goal (written in
  the grammar both accept) on VirtualHome-like traces of 10/50/100/500 steps over a
  350-object scene. Reference: ``eval_simple_tl`` on a prebuilt trajectory (building it is
  shown apart); planproof: ``evaluate`` with a fresh evaluator each call. Both verdicts
  are printed and must agree.

Each reference measurement is capped at ``CAP_S`` seconds and reported as "> cap" if it
runs over.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from reference_env import (
    Fact,
    ReferenceRun,
    TraceData,
    reference_case,
    run_reference,
    virtualhome_vocabulary,
)
from timing import median_ms

from planproof.data import load_eai_goals
from planproof.ltl.evaluate import TraceEvaluator, evaluate
from planproof.ltl.parser import parse
from planproof.ltl.trace import Universe

REPEAT = 5
CAP_S = 30.0
STEPS = (10, 50, 100, 500)

CHAR, TV, COUCH, FRIDGE, SINK = (
    "character.65",
    "television.410",
    "couch.352",
    "fridge.306",
    "sink.247",
)
TABLE, OFFICE = "kitchen_table.231", "home_office.319"
CUPS = [f"cup.{i}" for i in range(1005, 1010)]
ROOMS = [OFFICE, "kitchen.207", "bedroom.73", "bathroom.1"]
ITEMS = [f"item.{i}" for i in range(2000, 2060)]
PLACES = [TABLE, SINK, COUCH, FRIDGE]
SCENE = [CHAR, TV, COUCH, FRIDGE, SINK, TABLE, *CUPS, *ROOMS, *ITEMS]
SCENE += [f"object.{i}" for i in range(3000, 3000 + 350 - len(SCENE))]

TYPICAL = (
    "(exists x0. ((WALK(x0) or FIND(x0)) and not HOLDS_RH(character.65, x0)))"
    " then (GRAB(cup.1005) or GRAB(cup.1006) or (HOLDS_RH(character.65, cup.1007)"
    " and not OPEN(fridge.306)))"
    " then (OPEN(fridge.306) and not CLOSED(fridge.306))"
    " then (forall x1. (not INSIDE(x1, fridge.306) or CLEAN(x1)))"
    " then (PUTBACK(cup.1005, sink.247) or ONTOP(cup.1006, sink.247))"
    " then (SWITCHON(television.410) or (ON(television.410) and PLUGGED_IN(television.410)))"
    " then (exists x2. (GRAB(x2) and not INSIDE(x2, fridge.306)))"
    " then (WALK(couch.352) or FIND(couch.352) or SIT(couch.352))"
    " then (ON(television.410) and PLUGGED_IN(television.410)"
    " and FACING(character.65, television.410) and SITTING(character.65))"
)
NOISE = ["GRAB", "PUTBACK", "OPEN_DOOR", "CLOSE_DOOR"]
STATES = [
    "ON",
    "OFF",
    "PLUGGED_IN",
    "FACING",
    "SITTING",
    "HOLDS_RH",
    "INSIDE",
    "ONTOP",
    "CLEAN",
    "OPEN",
    "CLOSED",
    "NEXT_TO",
]
WATCH_SCRIPT: tuple[Fact, ...] = (
    ("WALK", (COUCH,)),
    ("SIT", (COUCH,)),
    ("SWITCHON", (TV,)),
    ("TURNTO", (TV,)),
    ("WATCH", (TV,)),
)
TYPICAL_SCRIPT: tuple[Fact, ...] = (
    ("FIND", ("cup.1005",)),
    ("GRAB", ("cup.1005",)),
    ("OPEN_DOOR", (FRIDGE,)),
    ("PUTBACK", ("cup.1005", SINK)),
    ("SWITCHON", (TV,)),
    ("GRAB", ("cup.1006",)),
    ("WALK", (COUCH,)),
    ("SIT", (COUCH,)),
    ("TURNTO", (TV,)),
)


def _apply(cur: set[Fact], act: Fact) -> None:
    """The effect of one action on the state (a tiny symbolic VirtualHome)."""
    kind, args = act
    cur -= {f for f in cur if f[0] == "FACING"}
    if kind in {"WALK", "FIND"}:
        cur -= {f for f in cur if f[0] in {"NEXT_TO", "SITTING"}}
        cur.add(("NEXT_TO", (CHAR, args[0])))
    if kind in {"WALK", "FIND", "TURNTO", "WATCH", "LOOKAT"}:
        cur.add(("FACING", (CHAR, args[0])))
    elif kind == "GRAB":
        cur -= {f for f in cur if f[0] in {"ONTOP", "INSIDE"} and f[1][0] == args[0]}
        cur.add(("HOLDS_RH", (CHAR, args[0])))
    elif kind == "PUTBACK":
        cur.discard(("HOLDS_RH", (CHAR, args[0])))
        cur.add(("INSIDE" if args[1] == FRIDGE else "ONTOP", args))
    elif kind in {"OPEN_DOOR", "CLOSE_DOOR"}:
        opened = kind == "OPEN_DOOR"
        cur.discard(("CLOSED" if opened else "OPEN", args))
        cur.add(("OPEN" if opened else "CLOSED", args))
    elif kind == "SWITCHON":
        cur.discard(("OFF", args))
        cur.add(("ON", args))
    elif kind == "SIT":
        cur |= {("SITTING", (CHAR,)), ("ONTOP", (CHAR, args[0]))}


def vh_trace(steps: int, script: Sequence[Fact], seed: int = 0) -> TraceData:
    """A plan-like VirtualHome trace: ~200 state atoms; the ``script`` actions spread
    evenly, the last one as the final step (a plan that reaches its goal at the end), and
    random household actions around them that do not touch the goal's objects."""
    rng = random.Random(seed)
    cur: set[Fact] = {
        ("PLUGGED_IN", (TV,)),
        ("OFF", (TV,)),
        ("CLOSED", (FRIDGE,)),
        ("INSIDE", (CHAR, OFFICE)),
    }
    for c in CUPS:
        cur |= {("ONTOP", (c, TABLE)), ("CLEAN", (c,))}
    for i in ITEMS:
        cur |= {("INSIDE", (i, rng.choice(ROOMS))), ("CLEAN", (i,)), ("ONTOP", (i, TABLE))}
    at = {steps - 1 - round(k * steps / len(script)): a for k, a in enumerate(reversed(script))}
    states, actions = [frozenset(cur)], []
    for step in range(steps):
        act = at.get(step)
        if act is None:
            kind, item = rng.choice(NOISE), rng.choice(ITEMS)
            args = (item, rng.choice([TABLE, SINK])) if kind == "PUTBACK" else (item,)
            act = (kind, (FRIDGE,) if kind.endswith("_DOOR") else args)
        _apply(cur, act)
        actions.append(act)
        states.append(frozenset(cur))
    return TraceData(tuple(states), tuple(actions))


def ours_ms(fn: Callable[[], object]) -> float:
    return median_ms(fn, REPEAT)


def names_in(text: str) -> set[str]:
    return set(re.findall(r"([A-Za-z_]\w*)\(", text))


def parse_all(texts: Sequence[str]) -> None:
    for t in texts:
        parse(t)


def parse_rows(run: ReferenceRun, ids: Sequence[str]) -> tuple[float, int]:
    """Total reference parse ms over the cases that parsed, and how many failed."""
    outcomes = [run.results[i]["parse"] for i in ids]
    return sum(o.get("ms", 0.0) for o in outcomes), sum("ms" not in o for o in outcomes)


def fmt_ms(outcome: dict[str, Any]) -> str:
    if outcome.get("timeout"):
        return f"> {CAP_S * 1e3:.0f}"
    if "error" in outcome:
        return str(outcome["error"])
    return f"{outcome['ms']:.3f}"


def ratio(outcome: dict[str, Any], ours: float) -> str:
    if outcome.get("timeout"):
        return f"> {CAP_S * 1e3 / ours:.0f}x"
    return f"{outcome['ms'] / ours:.1f}x" if "ms" in outcome else "-"


def main() -> int:
    goals = load_eai_goals()
    vh = goals.virtualhome_tl_goals()
    preds, acts = virtualhome_vocabulary()
    own_vocab = [
        reference_case(f"own:{k}", v, predicates=preds, actions=acts, objects=[])
        for k, v in vh.items()
    ]
    vh_cases = [  # POUR is missing from the reference's vocabulary; added so all parse
        reference_case(f"vh:{k}", v, predicates=preds, actions=[*acts, "POUR"], objects=[])
        for k, v in vh.items()
    ]
    behavior = {g.task_id: g.tl_goal_reference for g in goals.behavior}
    b_cases = [
        reference_case(f"b:{k}", v, predicates=names_in(v), actions=[], objects=[])
        for k, v in behavior.items()
    ]
    watch = vh["1057_1"]
    traces = {
        (label, n): vh_trace(n, script, seed=n)
        for label, script in (("watch", WATCH_SCRIPT), ("typical", TYPICAL_SCRIPT))
        for n in STEPS
    }
    eval_cases = []
    for label, goal in (("watch", watch), ("typical", TYPICAL)):
        names = names_in(goal)
        eval_cases += [
            reference_case(
                f"{label}:{n}",
                goal,
                predicates=names & set(STATES),
                actions=names - set(STATES),
                objects=SCENE,
                traces=[traces[label, n]],
            )
            for n in STEPS
        ]
    t0 = time.perf_counter()
    run = run_reference(
        own_vocab + vh_cases + b_cases + eval_cases, cap_s=CAP_S, repeat=REPEAT, timeout=3600
    )
    wall = time.perf_counter() - t0
    v = run.versions
    print(
        f"reference: eai-eval {v['eai-eval']} (lark {v['lark']}, Python {v['python']}), "
        f"own venv, one process, {wall:.1f} s wall incl. repeats"
    )
    _, own_failed = parse_rows(run, [f"own:{k}" for k in vh])
    print(
        f"reference parses {len(vh) - own_failed}/{len(vh)} VirtualHome goals with its own "
        "vocabulary (POUR is not in it); the rows below add POUR"
    )
    print()
    print(
        f"{'case':<48} {'steps':>5} {'reference ms':>13} {'planproof ms':>13} {'ratio':>9}"
        f"  {'ref build ms':>12} {'pp warm ms':>10}  verdicts"
    )
    print("-" * 132)
    for label, ids, texts in (
        (f"parse {len(vh)} VirtualHome goals (total)", [f"vh:{k}" for k in vh], list(vh.values())),
        (
            f"parse {len(behavior)} BEHAVIOR goals, reference format",
            [f"b:{k}" for k in behavior],
            list(behavior.values()),
        ),
    ):
        ref_ms, failed = parse_rows(run, ids)
        ours = ours_ms(partial(parse_all, texts))
        note = f"{failed} failed in the reference" if failed else ""
        print(
            f"{label:<48} {'-':>5} {ref_ms:>13.1f} {ours:>13.1f} {ref_ms / ours:>8.1f}x"
            f"  {'':>12} {'':>10}  {note}"
        )
    universe = Universe.from_names(SCENE)
    disagree = 0
    for label, goal, name in (
        ("watch", watch, "Watch TV goal (1057_1)"),
        ("typical", TYPICAL, "typical then-chain goal (9 parts)"),
    ):
        f = parse(goal)
        actions = {a.lower() for a in names_in(goal) - set(STATES)}
        for n in STEPS:
            outcome = run.results[f"{label}:{n}"]["traces"][0]
            trace = traces[label, n].to_trace()
            verdict = evaluate(f, trace, universe, actions)
            ours = ours_ms(partial(evaluate, f, trace, universe, actions))
            warm = ours_ms(partial(TraceEvaluator(trace, universe, actions).holds, f))
            ref_verdict = outcome.get("value")
            disagree += ref_verdict is not None and ref_verdict != verdict
            build = f"{outcome['build_ms']:.1f}" if "build_ms" in outcome else "-"
            print(
                f"{name + f', {len(SCENE)} objects':<48} {n:>5} {fmt_ms(outcome):>13} "
                f"{ours:>13.3f} {ratio(outcome, ours):>9}  {build:>12} {warm:>10.3f}  "
                f"ref={ref_verdict} ours={verdict}"
            )
    if disagree:
        print(f"ERROR: {disagree} verdicts differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
