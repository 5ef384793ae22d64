"""Timing of the Housekeep pieces on a paper-sized episode.

Run ``python benchmarks/bench_housekeep.py``. The episode has the size of the largest
Housekeep scene (8 rooms, 78 receptacles, a quarter of them with a capacity) and of the
largest episodes (10 objects, 5 misplaced), with a synthetic preference store over its
categories (seeded, so every run measures the same thing). Shown: building the world,
replaying the oracle plan through the generic core, scoring it, the Z3 goal check and the
oracle assignment; then reading the real Housekeep preference store (34,432 triples) and
the whole ``evaluate housekeep`` pipeline on the bundled demo (30 real episode runs).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_ms

from planproof.commands import evaluate_housekeep
from planproof.metrics.housekeep import score_episode
from planproof.simulators.housekeep.episode import Episode, Item, Receptacle
from planproof.simulators.housekeep.goal import (
    check_goal,
    oracle_actions,
    oracle_assignment,
)
from planproof.simulators.housekeep.preferences import Judgement, PreferenceStore
from planproof.simulators.housekeep.world import build_world, run

REPEAT = 15
ROOMS = ("kitchen", "bedroom", "bathroom", "living_room", "office", "garage", "hall", "den")
RECS = ("table", "shelf", "counter", "cabinet", "sofa", "bed", "sink", "dresser", "desk")
OBJECTS = ("cup", "book", "apple", "towel", "pillow", "toy", "pen", "shoe", "plate", "lamp")


def paper_sized(seed: int = 0) -> tuple[Episode, PreferenceStore]:
    rng = random.Random(seed)
    entries = []
    for o in OBJECTS:
        for room in ROOMS:
            for rec in RECS:
                bins = rng.choices("cmi", weights=(2, 1, 1), k=10)
                entries.append(
                    (
                        o,
                        room,
                        rec,
                        Judgement(
                            tuple(rng.randint(1, 4) for b in bins if b == "c"),
                            tuple(rng.randint(1, 4) for b in bins if b == "m"),
                            bins.count("i"),
                        ),
                    )
                )
    store = PreferenceStore.of(entries)
    rooms = {f"room_{i}": t for i, t in enumerate(ROOMS)}
    recs = tuple(
        Receptacle(
            f"rec_{i}",
            rng.choice(RECS),
            f"room_{i % len(ROOMS)}",
            rng.choice((None, None, None, 3)),
        )
        for i in range(78)
    )
    items: list[Item] = []
    for i, cat in enumerate(OBJECTS):

        def fits(r: Receptacle) -> bool:
            return r.capacity is None or sum(1 for it in items if it.on == r.id) < r.capacity

        def ok(r: Receptacle, cat: str = cat) -> bool:
            return store.is_correct(cat, rooms[r.room], r.category)

        want_correct = i >= 5  # 5 misplaced, 5 correct
        pool = [r for r in recs if fits(r) and ok(r) == want_correct]
        items.append(Item(f"obj_{i}", cat, rng.choice(pool).id))
    return Episode("paper_sized", rooms, recs, tuple(items), "robot", recs[0].id), store


def main() -> None:
    ep, store = paper_sized()
    plan = oracle_actions(ep, store)
    assert plan is not None
    ep = ep.with_actions(plan)
    out = run(ep)
    scores = score_episode(ep, out, store)
    assert out.replay.executable and scores.episode_success == 1.0
    print(
        f"episode: {len(ep.rooms)} rooms, {len(ep.receptacles)} receptacles, "
        f"{len(ep.objects)} objects ({scores.misplaced} misplaced), "
        f"oracle plan of {len(plan)} actions"
    )
    print(f"  build world                 {median_ms(lambda: build_world(ep), REPEAT):8.2f} ms")
    print(
        f"  replay oracle plan          {median_ms(lambda: run(ep), REPEAT):8.2f} ms "
        f"({median_ms(lambda: run(ep), REPEAT) / len(plan) * 1e3:.0f} µs/action)"
    )
    print(
        f"  score (all metrics)         "
        f"{median_ms(lambda: score_episode(ep, out, store), REPEAT):8.2f} ms"
    )
    print(f"  Z3 goal check               {median_ms(lambda: check_goal(ep, store), 5):8.2f} ms")
    print(
        f"  oracle assignment (scipy)   "
        f"{median_ms(lambda: oracle_assignment(ep, store), REPEAT):8.2f} ms"
    )

    parser = argparse.ArgumentParser()
    evaluate_housekeep.add_arguments(parser)

    def demo(extra: list[str]) -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            evaluate_housekeep.run(parser.parse_args(["--json", *extra]))

    from planproof.simulators.housekeep.preferences import default_store

    def load() -> None:
        default_store.cache_clear()
        default_store()

    print(f"read the real preference store: {median_ms(load, 3):.0f} ms")
    print(
        f"evaluate housekeep, 30 real demo runs (store already read): "
        f"{median_ms(lambda: demo([]), 3):.0f} ms with the Z3 check, "
        f"{median_ms(lambda: demo(['--no-goal-check']), 3):.0f} ms without"
    )


if __name__ == "__main__":
    main()
