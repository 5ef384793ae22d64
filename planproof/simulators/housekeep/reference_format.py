"""The Housekeep reference's own episode files (``data/datasets/cos_eor_v11_pruned/<split>/
<scene>.json.gz`` of yashkant/housekeep): read as planproof episodes, with the reference's
verdicts kept beside them.

A reference episode is a placement *matrix*, not a list of placements: ``recs_keys`` (one
receptacle per row, ``"<room>_<n>-<name>_<i>_<j>.urdf"``), ``objs_keys`` (one object per
column), ``start_matrix`` (a 1 where each object starts) and ``end_matrix`` (a 1 on every
receptacle the reference calls correct for the object). The reference's metrics read
correctness off ``end_matrix`` (``dataset.py: get_correct_recs``), and its generator filled
``end_matrix`` with a substring match of the annotated categories, so a receptacle nobody
annotated (``bottom_cabinet_no_top``) can be "correct"; planproof's own reading looks the
votes up by the receptacle's own category. The episode therefore carries both:
``Episode.reference_correct`` holds the ``end_matrix`` verdicts.

The files carry no plan (the reference runs a policy in its simulator), so a plan is
chosen by name (:data:`PLANS`): the reference's oracle, parts of it, or nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.simulators.housekeep.episode import Episode, Item, Receptacle
from planproof.simulators.housekeep.errors import EpisodeFormatError
from planproof.simulators.housekeep.preferences import PreferenceStore, normalise

REQUIRED = (
    "episode_id",
    "recs_keys",
    "objs_keys",
    "recs_cats",
    "objs_cats",
    "start_matrix",
    "end_matrix",
)
PLANS = ("oracle_first_correct", "half_done", "hold_last_misplaced", "nothing")
"""``oracle_first_correct``: every object the ``end_matrix`` calls misplaced is picked
(objects in file order) and placed on the first receptacle its column marks correct (rows
in file order), as in the bundled demo's ``oracle_first_correct`` runs; ``half_done``: the first
⌊n/2⌋ of those objects; ``hold_last_misplaced``: the oracle without its last navigate and place;
``nothing``: the empty plan."""
NO_ROOM = "no_room"
SPLITS = ("train", "val", "test")
_NOT_ID = re.compile(r"[^A-Za-z0-9_]")


def is_reference_document(doc: Any) -> bool:
    """True for one episode of the reference's files (it has an ``end_matrix``)."""
    return isinstance(doc, Mapping) and "end_matrix" in doc and "recs_keys" in doc


def planproof_id(key: str) -> str:
    """A reference key as a planproof id: every character outside ``[A-Za-z0-9_]`` becomes
    ``_`` (``bathroom_0-bathtub_46_0.urdf`` → ``bathroom_0_bathtub_46_0_urdf``)."""
    ident = _NOT_ID.sub("_", key)
    return ident if ident[:1].isalpha() or ident[:1] == "_" else f"_{ident}"


def room_of(key: str) -> tuple[str, str]:
    """(room id, room type) of a receptacle key, as the reference splits it
    (``build_utils.get_scene_rec_names``): the part before ``-`` is the room, and its type
    drops the trailing ``_<n>``. The reference's room ``None`` (no room) has type
    ``no_room``, which no annotation covers, as in the reference (its lookup key
    ``-<name>`` is not annotated either)."""
    room = key.split("-", 1)[0]
    kind = "_".join(room.split("_")[:-1])
    return planproof_id(room), kind or NO_ROOM


def _strings(doc: Mapping[str, Any], field: str, where: str) -> list[str]:
    value = doc[field]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise EpisodeFormatError(f"{where}: {field} must be a list of non-empty strings")
    return value


def _matrix(
    doc: Mapping[str, Any], field: str, shape: tuple[int, int], where: str
) -> list[list[bool]]:
    """A 0/1 matrix of ``shape`` (rows = receptacles, columns = objects) as booleans."""
    m = doc[field]
    rows, cols = shape
    if not isinstance(m, list) or len(m) != rows:
        raise EpisodeFormatError(f"{where}: {field} must have {rows} rows (one per receptacle)")
    out: list[list[bool]] = []
    for i, row in enumerate(m):
        if not isinstance(row, list) or len(row) != cols:
            raise EpisodeFormatError(
                f"{where}: {field} row {i} must have {cols} entries (one per object)"
            )
        if not all(not isinstance(v, bool) and v in (0, 1) for v in row):
            raise EpisodeFormatError(f"{where}: {field} row {i} must hold only 0 and 1")
        out.append([v == 1 for v in row])
    return out


def reference_episode(
    doc: Any, plan: str = "oracle_first_correct", *, source: str = "<input>"
) -> Episode:
    """One reference episode document as a planproof :class:`Episode` with the given plan
    and ``reference_correct`` from its ``end_matrix``. Raises :class:`EpisodeFormatError`
    naming ``source`` and the episode. The id is ``[<split>_]<scene>_<episode>_<plan>``,
    the split (``train``/``val``/``test``) taken from the folder ``source`` lies in, as in
    the bundled demo."""
    if plan not in PLANS:
        raise EpisodeFormatError(f"unknown plan {plan!r}; one of {', '.join(PLANS)}")
    ident = doc.get("episode_id") if isinstance(doc, Mapping) else None
    where = f"{source}, episode {ident if ident is not None else '?'}"
    if not is_reference_document(doc):
        raise EpisodeFormatError(f"{where}: not a Housekeep reference episode (no end_matrix)")
    missing = [f for f in REQUIRED if f not in doc]
    if missing:
        raise EpisodeFormatError(f"{where}: missing fields {missing}")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        raise EpisodeFormatError(f"{where}: episode_id must be an integer or a string")
    rec_keys = _strings(doc, "recs_keys", where)
    obj_keys = _strings(doc, "objs_keys", where)
    rec_cats = _strings(doc, "recs_cats", where)
    obj_cats = _strings(doc, "objs_cats", where)
    if len(rec_cats) != len(rec_keys) or len(obj_cats) != len(obj_keys):
        raise EpisodeFormatError(f"{where}: recs_cats/objs_cats must match recs_keys/objs_keys")
    if "agent" in rec_keys:  # the reference appends this row itself on reset
        raise EpisodeFormatError(f"{where}: recs_keys holds 'agent', a row the reference adds")
    shape = (len(rec_keys), len(obj_keys))
    start = _matrix(doc, "start_matrix", shape, where)
    end = _matrix(doc, "end_matrix", shape, where)
    rec_ids = [planproof_id(k) for k in rec_keys]
    obj_ids = [planproof_id(k) for k in obj_keys]
    for kind, ids in (("receptacle", rec_ids), ("object", obj_ids)):
        if len(set(ids)) != len(ids):
            raise EpisodeFormatError(f"{where}: two {kind} keys map to one id")
    rooms: dict[str, str] = {}
    recs: list[Receptacle] = []
    for key, rid, cat in zip(rec_keys, rec_ids, rec_cats, strict=True):
        room, kind = room_of(key)
        rooms[room] = kind
        recs.append(Receptacle(rid, cat, room))
    items: list[Item] = []
    correct: dict[str, frozenset[str]] = {}
    for j, (oid, cat) in enumerate(zip(obj_ids, obj_cats, strict=True)):
        on = [rec_ids[i] for i in range(shape[0]) if start[i][j]]
        if len(on) != 1:
            raise EpisodeFormatError(
                f"{where}: object {obj_keys[j]} starts on {len(on)} receptacles in "
                "start_matrix (the reference asserts exactly one)"
            )
        items.append(Item(oid, cat, on[0]))
        correct[oid] = frozenset(rec_ids[i] for i in range(shape[0]) if end[i][j])
    misplaced = [o for o in items if o.on not in correct[o.id]]
    count = doc.get("misplaced_count")
    if isinstance(count, int | float) and not isinstance(count, bool) and count != len(misplaced):
        raise EpisodeFormatError(
            f"{where}: misplaced_count is {count} but end_matrix makes {len(misplaced)} "
            "objects misplaced at the start (the reference asserts they agree)"
        )
    scene = doc.get("scene_id", "")
    scene_name = scene.rsplit("/", 1)[-1].split(".")[0] if isinstance(scene, str) else ""
    split = source.replace("\\", "/").rsplit("/", 2)
    prefix = f"{split[-2]}_" if len(split) > 1 and split[-2] in SPLITS else ""
    order = {r: i for i, r in enumerate(rec_ids)}
    return Episode(
        id=planproof_id(f"{prefix}{scene_name or 'episode'}_{ident}_{plan}"),
        rooms=rooms,
        receptacles=tuple(recs),
        objects=tuple(items),
        actions=_plan(plan, misplaced, correct, order),
        description=f"{source} episode {ident}, plan {plan}",
        reference_correct=correct,
    )


def _plan(
    plan: str,
    misplaced: Sequence[Item],
    correct: Mapping[str, frozenset[str]],
    order: Mapping[str, int],
) -> tuple[str, ...]:
    moves = [o for o in misplaced if correct[o.id]]
    if plan == "half_done":
        moves = moves[: len(misplaced) // 2]
    if plan == "nothing":
        moves = []
    actions: list[str] = []
    for o in moves:
        target = min(correct[o.id], key=order.__getitem__)
        actions += [
            f"navigate({o.on})",
            f"pick({o.id})",
            f"navigate({target})",
            f"place({o.id}, {target})",
        ]
    if plan == "hold_last_misplaced" and actions:
        del actions[-2:]  # neither goes to the last target nor places there
    return tuple(actions)


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One (object, receptacle) pair the two readings judge apart. ``via`` is the annotated
    category the reference's generator matched by substring (``bottom_cabinet`` for a
    ``bottom_cabinet_no_top``), or None when no substring rule explains the pair."""

    item: str
    receptacle: str
    reference_correct: bool
    via: str | None

    def to_list(self) -> list[object]:
        return [self.item, self.receptacle, self.reference_correct, self.via]


def substring_match(
    episode: Episode, store: PreferenceStore, item: str, receptacle: str
) -> str | None:
    """The category the reference's generator would have matched for ``receptacle``
    (``build_utils.match_rec_cat_to_instances``: ``rec_cat in name``): another receptacle
    category of the same room type, contained in this one's name, that the votes call
    correct for ``item``. None if there is none."""
    rec = episode.receptacle_by_id[receptacle]
    room, own = normalise(episode.rooms[rec.room]), normalise(rec.category)
    matches = [
        cat
        for r, cat in store.correct_receptacles(episode.item_by_id[item].category)
        if r == room and cat != own and cat in own
    ]
    return matches[0] if matches else None


def verdict_disagreements(episode: Episode, store: PreferenceStore) -> list[Disagreement]:
    """The (object, receptacle) pairs of the scene where the reference's ``end_matrix`` and
    the votes of the receptacle's own category disagree on "correct" (empty when the
    episode carries no reference verdicts), each with the substring match that explains
    it. On the nine scene files of the reference we read (5,000 episodes), all 10,401
    disagreements are of one kind: ``end_matrix`` marks correct a ``bottom_cabinet_no_top``
    (via ``bottom_cabinet``) or a ``sofa_chair`` (via ``sofa``)."""
    table = episode.reference_correct
    if table is None:
        return []
    out = []
    for o in episode.objects:
        for r in episode.receptacles:
            theirs = r.id in table[o.id]
            if theirs != episode.judgement(store, o.id, r.id).is_correct:
                via = substring_match(episode, store, o.id, r.id) if theirs else None
                out.append(Disagreement(o.id, r.id, theirs, via))
    return out
