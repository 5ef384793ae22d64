"""Hypothesis strategies for Housekeep: random preference stores, episodes and plans, for
property-testing metrics and evaluators (needs the ``testing`` extra).

Vocabularies are tiny so that random objects often have correct receptacles in random
scenes, and plans are built from *intended moves* (navigate, pick, navigate, place) with
random noise mixed in, so most plans execute for a while instead of failing at step 0.
"""

from __future__ import annotations

from hypothesis import strategies as st

from planproof.simulators.housekeep.episode import Episode, Item, Receptacle
from planproof.simulators.housekeep.preferences import Judgement, PreferenceStore

OBJECT_CATEGORIES = ("cup", "book", "apple")
ROOM_TYPES = ("kitchen", "bedroom")
RECEPTACLE_CATEGORIES = ("table", "shelf", "sink")

__all__ = [
    "episodes",
    "judgements",
    "plans",
    "preference_stores",
    "scenes",
    "stores_and_episodes",
]


@st.composite
def judgements(draw: st.DrawFn, max_annotators: int = 10, bins: str = "cmi") -> Judgement:
    """Votes of 1..``max_annotators`` annotators, each with a bin drawn from ``bins``
    (``c`` correct, ``m`` misplaced, ``i`` implausible) and a rank 1..4."""
    n = draw(st.integers(1, max_annotators))
    votes = draw(st.lists(st.sampled_from(bins), min_size=n, max_size=n))
    ranks = st.integers(1, 4)
    return Judgement(
        tuple(draw(ranks) for b in votes if b == "c"),
        tuple(draw(ranks) for b in votes if b == "m"),
        votes.count("i"),
    )


@st.composite
def preference_stores(draw: st.DrawFn) -> PreferenceStore:
    """A store over the small vocabulary, with some triples left unjudged. Correct votes
    are biased upwards so that episodes are often solvable."""
    entries = []
    for o in OBJECT_CATEGORIES:
        for room in ROOM_TYPES:
            for rec in RECEPTACLE_CATEGORIES:
                if draw(st.integers(0, 5)) == 0:
                    continue
                entries.append((o, room, rec, draw(judgements(bins="ccmi"))))
    return PreferenceStore.of(entries)


@st.composite
def scenes(draw: st.DrawFn, max_receptacles: int = 4, max_objects: int = 4) -> Episode:
    """An episode without actions: 1-2 rooms, 1..``max_receptacles`` receptacles (some with
    a capacity), 1..``max_objects`` objects placed within capacities."""
    n_rooms = draw(st.integers(1, 2))
    rooms = {f"room_{i}": draw(st.sampled_from(ROOM_TYPES)) for i in range(n_rooms)}
    recs: list[Receptacle] = []
    for i in range(draw(st.integers(1, max_receptacles))):
        cap = draw(st.one_of(st.none(), st.integers(1, 3)))
        recs.append(
            Receptacle(
                f"rec_{i}",
                draw(st.sampled_from(RECEPTACLE_CATEGORIES)),
                f"room_{draw(st.integers(0, n_rooms - 1))}",
                cap,
            )
        )
    load = {r.id: 0 for r in recs}
    items: list[Item] = []
    for i in range(draw(st.integers(1, max_objects))):
        free = [r.id for r in recs if r.capacity is None or load[r.id] < r.capacity]
        if not free:
            break
        on = draw(st.sampled_from(free))
        load[on] += 1
        items.append(Item(f"obj_{i}", draw(st.sampled_from(OBJECT_CATEGORIES)), on))
    at = draw(st.one_of(st.none(), st.sampled_from([r.id for r in recs])))
    return Episode("random", rooms, tuple(recs), tuple(items), "robot", at)


def _tidy_moves(episode: Episode, store: PreferenceStore) -> list[tuple[str, str]]:
    """(object, correct receptacle) for every object not correct at the start."""
    out = []
    for o in episode.objects:
        if episode.judgement(store, o.id, o.on).is_correct:
            continue
        targets = episode.correct_receptacles(store, o.id)
        if targets:
            out.append((o.id, targets[0]))
    return out


@st.composite
def plans(
    draw: st.DrawFn, episode: Episode, max_moves: int = 4, store: PreferenceStore | None = None
) -> tuple[str, ...]:
    """Actions for ``episode``: a few intended moves written out in full, sometimes with a
    step dropped, an action inserted at random, or an object left in the hand. Given a
    ``store``, half the plans start by moving each misplaced object to its best correct
    receptacle, so successful episodes are drawn too."""
    objs = [o.id for o in episode.objects]
    recs = [r.id for r in episode.receptacles]
    where = episode.initial_placement
    actions: list[str] = []
    if store is not None and draw(st.booleans()):
        for o, dst in _tidy_moves(episode, store):
            actions += [
                f"navigate({where[o]})",
                f"pick({o})",
                f"navigate({dst})",
                f"place({o}, {dst})",
            ]
            where = {**where, o: dst}
    noise = st.one_of(
        st.builds(lambda r: f"navigate({r})", st.sampled_from(recs)),
        st.builds(lambda o: f"pick({o})", st.sampled_from(objs)),
        st.builds(lambda o, r: f"place({o}, {r})", st.sampled_from(objs), st.sampled_from(recs)),
        st.builds(lambda m: f"explore({m})", st.sampled_from(sorted(episode.rooms))),
    )
    for _ in range(draw(st.integers(0, 1) if actions else st.integers(0, max_moves))):
        o, dst = draw(st.sampled_from(objs)), draw(st.sampled_from(recs))
        move = [f"navigate({where[o]})", f"pick({o})", f"navigate({dst})", f"place({o}, {dst})"]
        if draw(st.integers(0, 5)) == 0:
            del move[draw(st.integers(0, 3))]
        if draw(st.integers(0, 5)) == 0:
            move.insert(draw(st.integers(0, len(move))), draw(noise))
        actions += move
        where = {**where, o: dst}
    if draw(st.booleans()) and draw(st.integers(0, 4)) == 0:
        actions.append(f"pick({draw(st.sampled_from(objs))})")
    return tuple(actions)


@st.composite
def episodes(
    draw: st.DrawFn,
    max_receptacles: int = 4,
    max_objects: int = 4,
    store: PreferenceStore | None = None,
) -> Episode:
    """A scene with a plan drawn by :func:`plans`."""
    scene = draw(scenes(max_receptacles, max_objects))
    return scene.with_actions(draw(plans(scene, store=store)))


@st.composite
def stores_and_episodes(draw: st.DrawFn) -> tuple[PreferenceStore, Episode]:
    """A preference store and an episode whose plan often tidies by that store."""
    store = draw(preference_stores())
    return store, draw(episodes(store=store))
