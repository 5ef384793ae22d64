"""The BEHAVIOR world of the EAI benchmark as operator schemas, written once.

The 30 actions and 15 states of EAI Tables 27/28 (the EAI paper, App. N.1): two hands,
auto-navigation (an action needs its target *interactable* — not enclosed in a closed
object, and not a whole object that has been sliced — but no prior NAVIGATE_TO), slicing
that hands the object's place to its two parts, cleaning by tool, detergent or a running
sink / dishwasher. The semantics follow the reference symbolic simulator (EAI's
``EvolvingGraph``) where the paper is silent; every deliberate difference is in
``docs/behavior.md``.

States hold the fluents (relations, object states, what each hand holds); object
properties — the abilities iGibson gives each object (openable, toggleable, slicer, ...) —
are static atoms, so the generic classifier reports an action an object cannot afford as
an affordance error. :func:`object_properties` derives them from an object's BDDL category
and its iGibson instance name.
"""

from __future__ import annotations

from functools import cache

from planproof.pddl.schema import Domain, Operator
from planproof.pddl.sexpr_io import operator

UNARY_FLUENTS: tuple[str, ...] = (
    "cooked",
    "dusty",
    "frozen",
    "open",
    "sliced",
    "soaked",
    "stained",
    "toggled_on",
)
"""The object states of Table 28 that actions change (Slicer and CleaningTool, the other
two unary states of the table, never change: they are properties)."""

RELATIONS: tuple[str, ...] = ("inside", "ontop", "nextto", "under", "onfloor")
"""The binary states of Table 28."""

PROPERTIES: tuple[str, ...] = (
    "floor",
    "graspable",
    "openable",
    "toggleable",
    "sliceable",
    "slicer",
    "cleaning_tool",
    "soakable",
    "freezable",
    "cookable",
    "dustyable",
    "stainable",
    "soaker",
    "dust_cleaner",
    "stain_cleaner",
    "detergent",
    "cooker",
    "freezer",
    "dishwasher",
    "part",
)
"""Static unary properties (affordances and the special roles the reference simulator
recognises by instance name: sinks soak and clean, dishwashers clean what is inside when
switched on, saucepans cook, fridges freeze)."""

HANDS: dict[str, str] = {"left": "holds_lh", "right": "holds_rh"}


# --- condition fragments (PDDL text), each a function of the object it is about ----------


def _enclosed(o: str) -> str:
    """``o`` is inside a closed openable object, directly or through what it stands in/on."""
    return (
        f"(or (exists (?zc - object) (and (inside {o} ?zc) (openable ?zc) (not (open ?zc))))"
        f" (exists (?zb - object) (and (or (inside {o} ?zb) (ontop {o} ?zb))"
        f" (exists (?zd - object) (and (inside ?zb ?zd) (openable ?zd) (not (open ?zd)))))))"
    )


def _interactable(o: str) -> str:
    """Table 27's *interactable*: not enclosed; a sliced whole is replaced by its parts,
    and a part exists only once its whole is sliced."""
    return (
        f"(and (not {_enclosed(o)}) (or (part {o}) (not (sliced {o})))"
        f" (forall (?zw - object) (or (not (part_of {o} ?zw)) (sliced ?zw))))"
    )


def _free(hand: str) -> str:
    return f"(not (exists (?zf - object) ({HANDS[hand]} ?a ?zf)))"


_ONE_HAND_FREE = f"(or {_free('left')} {_free('right')})"


def _holding_with(prop: str) -> str:
    """The agent holds, in either hand, an object with property ``prop``."""
    return f"(exists (?zt - object) (and (or (holds_lh ?a ?zt) (holds_rh ?a ?zt)) ({prop} ?zt)))"


def _held_by_pre(hand: str, target: str) -> str:
    """PLACE precondition: the hand holds an object other than ``target``, and ``target``
    is not in or on the held object."""
    h = HANDS[hand]
    return (
        f"(exists (?zh - object) (and ({h} ?a ?zh) (not (= ?zh {target}))"
        f" (not (inside {target} ?zh)) (not (ontop {target} ?zh))))"
    )


def _container_of(o: str, role: str, running: bool) -> str:
    """``o`` is in or on an object with ``role`` (switched on, when ``running``)."""
    on = " (toggled_on ?zs)" if running else ""
    return f"(exists (?zs - object) (and (or (inside {o} ?zs) (ontop {o} ?zs)) ({role} ?zs){on}))"


# --- effect fragments ---------------------------------------------------------------------


def _detach(o: str, x: str) -> str:
    """Every relation ``o`` has with ``x`` ends (it is picked up)."""
    return (
        f"(not (inside {o} {x})) (not (ontop {o} {x})) (not (onfloor {o} {x}))"
        f" (not (under {o} {x})) (not (under {x} {o})) (not (nextto {o} {x}))"
        f" (not (nextto {x} {o}))"
    )


def _whole_follows(held: str, rel: str, target: str, cond: str) -> str:
    """A sliced whole stands where *both* its parts stand (the reference reads a sliced
    object's relations as the intersection of its parts'): when the last part arrives,
    the whole gets the relation too."""
    return (
        f"(forall (?zw - object) (when (and {cond} (part_of {held} ?zw)"
        f" (forall (?zp - object) (or (not (part_of ?zp ?zw)) (= ?zp {held})"
        f" ({rel} ?zp {target}))))"
        f" ({rel} ?zw {target})))"
    )


def _put(hand: str, rel: str) -> str:
    """Effects of a PLACE that puts the held object in relation ``rel`` to ``?t`` and
    frees the hand (on a floor, ``ontop`` becomes ``onfloor``)."""
    h = HANDS[hand]
    held = f"({h} ?a ?zh)"
    parts = [f"(when {held} (not {held}))"]
    if rel == "ontop":
        parts.append(f"(when (and {held} (floor ?t)) (onfloor ?zh ?t))")
        parts.append(f"(when (and {held} (not (floor ?t))) (ontop ?zh ?t))")
        parts.append(_whole_follows("?zh", "ontop", "?t", f"{held} (not (floor ?t))"))
        parts.append(_whole_follows("?zh", "onfloor", "?t", f"{held} (floor ?t)"))
    else:
        parts.append(f"(when {held} ({rel} ?zh ?t))")
        parts.append(_whole_follows("?zh", rel, "?t", held))
    if rel == "nextto":
        parts.append(f"(when {held} (nextto ?t ?zh))")
    if rel in ("nextto", "under"):
        # placed beside / below the target: it rests where the target rests
        parts.append(f"(when (and {held} (floor ?t)) (onfloor ?zh ?t))")
        parts.append(
            f"(forall (?zp - object) (and (when (and {held} (inside ?t ?zp)) (inside ?zh ?zp))"
            f" (when (and {held} (ontop ?t ?zp)) (ontop ?zh ?zp))"
            f" (when (and {held} (onfloor ?t ?zp)) (onfloor ?zh ?zp))))"
        )
    return f"(forall (?zh - object) (and {' '.join(parts)}))"


# --- the operators --------------------------------------------------------------------------


def _hand_ops(hand: str) -> list[Operator]:
    h = HANDS[hand]
    up = hand.upper()
    return [
        operator(
            f"{hand}_grasp",
            "(?a - agent ?o - object)",
            pre=f"(and (graspable ?o) {_free(hand)} (not (holds_lh ?a ?o)) (not (holds_rh ?a ?o))"
            f" {_interactable('?o')})",
            eff=f"(and ({h} ?a ?o) (forall (?x - object) (and {_detach('?o', '?x')}))"
            f" (forall (?zw - object) (when (part_of ?o ?zw)"
            f" (forall (?x - object) (and {_detach('?zw', '?x')})))))",
            implicit=("a",),
            description=f"{up}_GRASP: grasp with the {hand} hand (it must be empty).",
        ),
        operator(
            f"{hand}_release",
            "(?a - agent ?o - object)",
            pre=f"({h} ?a ?o)",
            eff=f"(and (not ({h} ?a ?o))"
            " (forall (?zf - object) (when (onfloor ?a ?zf) (onfloor ?o ?zf))))",
            implicit=("a",),
            description=f"{up}_RELEASE: drop the object in the {hand} hand to the floor the "
            "agent stands on (Table 27: released to the floor).",
        ),
        operator(
            f"{hand}_place_ontop",
            "(?a - agent ?t - object)",
            pre=f"(and {_held_by_pre(hand, '?t')} {_interactable('?t')})",
            eff=_put(hand, "ontop"),
            implicit=("a",),
            description=f"{up}_PLACE_ONTOP: put the object in the {hand} hand on the target.",
        ),
        operator(
            f"{hand}_place_inside",
            "(?a - agent ?t - object)",
            pre=f"(and (not (floor ?t)) {_held_by_pre(hand, '?t')}"
            f" (or (not (openable ?t)) (open ?t)) {_interactable('?t')})",
            eff=_put(hand, "inside"),
            implicit=("a",),
            description=f"{up}_PLACE_INSIDE: put the held object into the (open) target.",
        ),
        operator(
            f"{hand}_place_nextto",
            "(?a - agent ?t - object)",
            pre=f"(and {_held_by_pre(hand, '?t')} {_interactable('?t')})",
            eff=_put(hand, "nextto"),
            implicit=("a",),
            description=f"{up}_PLACE_NEXTTO: put the held object next to the target.",
        ),
        operator(
            f"{hand}_place_under",
            "(?a - agent ?t - object)",
            pre=f"(and {_held_by_pre(hand, '?t')} {_interactable('?t')})",
            eff=_put(hand, "under"),
            implicit=("a",),
            description=f"{up}_PLACE_UNDER: put the held object under the target.",
        ),
        operator(
            f"{hand}_place_nextto_ontop",
            "(?a - agent ?t - object ?u - object)",
            pre=f"(and {_held_by_pre(hand, '?t')} {_held_by_pre(hand, '?u')}"
            f" {_interactable('?t')} {_interactable('?u')})",
            eff=f"(forall (?zh - object) (and (when ({h} ?a ?zh) (not ({h} ?a ?zh)))"
            f" (when ({h} ?a ?zh) (nextto ?zh ?t)) (when ({h} ?a ?zh) (nextto ?t ?zh))"
            f" (when (and ({h} ?a ?zh) (floor ?u)) (onfloor ?zh ?u))"
            f" (when (and ({h} ?a ?zh) (not (floor ?u))) (ontop ?zh ?u))))",
            implicit=("a",),
            description=f"{up}_PLACE_NEXTTO_ONTOP: put the held object next to the first "
            "target and on the second.",
        ),
        operator(
            f"{hand}_transfer_contents_inside",
            "(?a - agent ?t - object)",
            pre=f"(and (not (floor ?t)) {_held_by_pre(hand, '?t')}"
            f" (or (not (openable ?t)) (open ?t)) {_interactable('?t')})",
            eff=_transfer(hand, "inside"),
            implicit=("a",),
            description=f"{up}_TRANSFER_CONTENTS_INSIDE: pour what is in/on the held "
            "object into the target.",
        ),
        operator(
            f"{hand}_transfer_contents_ontop",
            "(?a - agent ?t - object)",
            pre=f"(and {_held_by_pre(hand, '?t')} (exists (?zh - object) (and ({h} ?a ?zh)"
            f" (exists (?zc - object) (or (inside ?zc ?zh) (ontop ?zc ?zh)))))"
            f" {_interactable('?t')})",
            eff=_transfer(hand, "ontop"),
            implicit=("a",),
            description=f"{up}_TRANSFER_CONTENTS_ONTOP: pour what is in/on the held object "
            "onto the target.",
        ),
    ]


def _transfer(hand: str, rel: str) -> str:
    h = HANDS[hand]
    moved = f"(and ({h} ?a ?zh) (or (inside ?zc ?zh) (ontop ?zc ?zh)))"
    return (
        f"(forall (?zh - object) (forall (?zc - object) (and"
        f" (when {moved} (not (inside ?zc ?zh))) (when {moved} (not (ontop ?zc ?zh)))"
        f" (when {moved} ({rel} ?zc ?t)))))"
    )


def _state_op(
    name: str,
    prop: str,
    extra: str,
    eff: str,
    description: str,
    *,
    free_hand: bool = True,
) -> Operator:
    hands = f" {_ONE_HAND_FREE}" if free_hand else ""
    return operator(
        name,
        "(?a - agent ?o - object)",
        pre=f"(and ({prop} ?o){hands} {_interactable('?o')} {extra})",
        eff=eff,
        implicit=("a",),
        description=description,
    )


_DUST_CAN_GO = f"(or {_holding_with('cleaning_tool')} {_container_of('?o', 'dust_cleaner', True)})"
_STAIN_CAN_GO = (
    "(or (exists (?zt - object) (and (or (holds_lh ?a ?zt) (holds_rh ?a ?zt))"
    " (or (and (cleaning_tool ?zt) (soaked ?zt)) (detergent ?zt))))"
    f" {_container_of('?o', 'stain_cleaner', True)})"
)


def _state_ops() -> list[Operator]:
    copy_states = " ".join(  # the parts inherit the whole's states, except being sliced
        f"(when (and (part_of ?zp ?o) ({s} ?o)) ({s} ?zp))" for s in UNARY_FLUENTS if s != "sliced"
    )
    copy_rel = " ".join(
        f"(when (and (part_of ?zp ?o) ({r} ?o ?x)) ({r} ?zp ?x))"
        for r in ("inside", "ontop", "onfloor", "nextto", "under")
    )
    return [
        _state_op(
            "open",
            "openable",
            "(not (open ?o)) (not (toggled_on ?o))",
            "(open ?o)",
            "OPEN: open a closed, switched-off openable object.",
        ),
        _state_op("close", "openable", "(open ?o)", "(not (open ?o))", "CLOSE: close it."),
        _state_op(
            "toggle_on",
            "toggleable",
            "(not (toggled_on ?o)) (or (not (openable ?o)) (not (open ?o)))",
            "(and (toggled_on ?o) (forall (?zc - object) (when (and (dishwasher ?o)"
            " (inside ?zc ?o)) (and (not (dusty ?zc)) (not (stained ?zc))))))",
            "TOGGLE_ON: switch on (closed first, if openable); a dishwasher cleans its load.",
        ),
        _state_op(
            "toggle_off",
            "toggleable",
            "(toggled_on ?o)",
            "(not (toggled_on ?o))",
            "TOGGLE_OFF: switch off.",
        ),
        _state_op(
            "slice",
            "sliceable",
            f"(not (sliced ?o)) {_holding_with('slicer')}",
            f"(and (sliced ?o) (forall (?zp - object) (and {copy_states}"
            f" (forall (?x - object) (and {copy_rel}"
            f" (when (and (part_of ?zp ?o) (nextto ?x ?o)) (nextto ?x ?zp)))))))",
            "SLICE: cut with a knife held in a hand; the parts take the object's place.",
            free_hand=False,
        ),
        _state_op(
            "clean",
            "cleanable",
            f"(or (and (dusty ?o) {_DUST_CAN_GO}) (and (stained ?o) {_STAIN_CAN_GO}))",
            f"(and (when {_DUST_CAN_GO} (not (dusty ?o)))"
            f" (when {_STAIN_CAN_GO} (not (stained ?o))))",
            "CLEAN: dust goes with any cleaning tool or a running sink / dishwasher; stains "
            "need a soaked tool, detergent or a running sink.",
            free_hand=False,
        ),
        _state_op(
            "soak",
            "soakable",
            "(not (soaked ?o)) (exists (?zs - object) (and (or (inside ?o ?zs) (ontop ?o ?zs))"
            " (soaker ?zs) (or (toggled_on ?zs) (not (toggleable ?zs)))))",
            "(soaked ?o)",
            "SOAK: wet it in a running sink (or a teapot).",
        ),
        _state_op(
            "dry", "soakable", "(soaked ?o)", "(not (soaked ?o))", "DRY: dry it.", free_hand=False
        ),
        _state_op(
            "freeze",
            "freezable",
            f"(not (frozen ?o)) {_container_of('?o', 'freezer', False)}",
            "(frozen ?o)",
            "FREEZE: freeze it in the fridge.",
        ),
        _state_op(
            "unfreeze",
            "freezable",
            "(frozen ?o)",
            "(not (frozen ?o))",
            "UNFREEZE: thaw.",
            free_hand=False,
        ),
        _state_op(
            "cook",
            "cookable",
            f"(not (cooked ?o)) {_container_of('?o', 'cooker', False)}",
            "(cooked ?o)",
            "COOK: cook it in or on a pan.",
        ),
    ]


def _navigate() -> Operator:
    return operator(
        "navigate_to",
        "(?a - agent ?o - object)",
        pre=_interactable("?o"),
        eff="(and (near ?a ?o) (forall (?x - object) (when (not (= ?x ?o)) (not (near ?a ?x)))))",
        implicit=("a",),
        description="NAVIGATE_TO: walk to the target (other actions navigate by themselves).",
    )


@cache
def behavior_domain() -> Domain:
    """The BEHAVIOR domain (built once)."""
    ops: list[Operator] = []
    for hand in ("left", "right"):
        ops.extend(_hand_ops(hand))
    ops.extend(_state_ops())
    ops.append(_navigate())
    preds: dict[str, tuple[str, ...]] = dict.fromkeys(UNARY_FLUENTS, ("object",))
    preds.update(dict.fromkeys(RELATIONS, ("object", "object")))
    preds.update(dict.fromkeys(PROPERTIES, ("object",)))
    preds["cleanable"] = ("object",)
    preds["part_of"] = ("object", "object")
    preds["holds_lh"] = ("agent", "object")
    preds["holds_rh"] = ("agent", "object")
    preds["near"] = ("agent", "object")
    return Domain(
        name="behavior",
        types={"object": None, "agent": "object", "part": "object"},
        predicates=preds,
        operators={op.name: op for op in ops},
        # ``open`` names both an action and a state; BEHAVIOR goals are state goals only,
        # so an ``open(x)`` in a goal is the state
        action_predicates=frozenset(op.name for op in ops) - frozenset(preds),
    )


# --- object properties ------------------------------------------------------------------------

_OPENABLE = frozenset(
    [
        "cabinet",
        "electric_refrigerator",
        "dishwasher",
        "door",
        "window",
        "jar",
        "backpack",
        "car",
        "package",
        "microwave",
        "oven",
        "stove",
        "washer",
        "dryer",
    ]
)
_TOGGLEABLE = frozenset(
    [
        "sink",
        "dishwasher",
        "stove",
        "oven",
        "microwave",
        "alarm",
        "facsimile",
        "modem",
        "printer",
        "scanner",
        "lamp",
        "blender",
        "washer",
        "dryer",
        "vacuum",
    ]
)
_SLICEABLE = frozenset(
    [
        "apple",
        "chestnut",
        "lemon",
        "mushroom",
        "peach",
        "strawberry",
        "tomato",
        "vidalia_onion",
        "melon",
        "orange",
        "carrot",
        "lettuce",
        "radish",
        "bread",
        "cake",
        "pumpkin",
        "banana",
    ]
)
_SLICER = frozenset({"carving_knife", "knife"})
_CLEANING_TOOL = frozenset(
    [
        "rag",
        "dishtowel",
        "hand_towel",
        "towel",
        "piece_of_cloth",
        "scrub_brush",
        "brush",
        "broom",
        "toothbrush",
        "vacuum",
        "sponge",
        "paper_towel",
        "dustpan",
    ]
)
_SOAKABLE = _CLEANING_TOOL | {"tea_bag", "pot_plant"}
_FOOD = frozenset(
    [
        "apple",
        "banana",
        "beef",
        "beer",
        "beverage",
        "bread",
        "broccoli",
        "cake",
        "candy",
        "carrot",
        "catsup",
        "cereal",
        "cheese",
        "chestnut",
        "chicken",
        "chip",
        "cookie",
        "cracker",
        "date",
        "egg",
        "fish",
        "flour",
        "food",
        "grape",
        "hamburger",
        "juice",
        "lemon",
        "lettuce",
        "meat",
        "melon",
        "milk",
        "mushroom",
        "oatmeal",
        "olive",
        "orange",
        "parsley",
        "pasta",
        "peach",
        "pop",
        "pork",
        "pumpkin",
        "radish",
        "raspberry",
        "salad",
        "sandwich",
        "sauce",
        "snack_food",
        "soup",
        "strawberry",
        "sugar",
        "sushi",
        "tomato",
        "vegetable_oil",
        "vidalia_onion",
        "water",
        "yogurt",
    ]
)
_TOO_BIG = frozenset(
    [
        "floor",
        "bed",
        "sofa",
        "table",
        "countertop",
        "cabinet",
        "electric_refrigerator",
        "dishwasher",
        "oven",
        "stove",
        "shelf",
        "bathtub",
        "shower",
        "car",
        "vehicle",
        "pool",
        "washer",
        "dryer",
        "sink",
        "toilet",
    ]
)
"""Categories whose objects are too big to grasp (the reference's bounding-box volume
limit of 1.5 m³, which planproof cannot measure without iGibson)."""


def category_stem(category: str) -> str:
    """``jar.n.01`` / ``jar_n_01`` → ``jar``."""
    c = category.replace(".", "_")
    head, sep, _ = c.rpartition("_n_")
    return head if sep else c


def object_properties(category: str, instance: str) -> frozenset[str]:
    """The static properties of a whole object of BDDL ``category`` whose iGibson instance
    name is ``instance`` (e.g. ``bottom_cabinet_no_top_80``). Special roles the reference
    simulator tests by instance name (``"sink" in name``) are tested the same way."""
    stem = category_stem(category)
    props: set[str] = set()
    if stem == "agent":
        return frozenset()
    if stem == "floor":
        return frozenset({"floor", "dustyable", "stainable", "cleanable"})
    table = (
        ("openable", _OPENABLE),
        ("toggleable", _TOGGLEABLE),
        ("sliceable", _SLICEABLE),
        ("slicer", _SLICER),
        ("cleaning_tool", _CLEANING_TOOL),
        ("soakable", _SOAKABLE),
        ("cookable", _FOOD),
    )
    props.update(p for p, cats in table if stem in cats)
    if stem not in _TOO_BIG:
        props.add("graspable")
    props.add("freezable")
    if stem not in _FOOD:
        props.update({"dustyable", "stainable", "cleanable"})
    name = instance.lower()
    roles = (
        ("soaker", ("sink", "teapot")),
        ("dust_cleaner", ("dishwasher", "sink")),
        ("stain_cleaner", ("sink",)),
        ("detergent", ("detergent",)),
        ("cooker", ("saucepan", "pan")),
        ("dishwasher", ("dishwasher",)),
        ("freezer", ("fridge", "refrigerator")),
    )
    props.update(role for role, keys in roles if any(k in name for k in keys))
    if stem == "electric_refrigerator":
        props.add("freezer")
    return frozenset(props)


PART_PROPERTIES = frozenset({"part", "graspable", "freezable", "cookable"})
"""A slice of a sliced object: graspable, cookable, never itself sliceable."""
