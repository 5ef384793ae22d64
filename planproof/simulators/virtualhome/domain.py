"""The symbolic VirtualHome world: vocabulary and transition model, written once.

Every action of the EAI VirtualHome action space (the EAI paper, App. N.2; the 42 script
actions of the reference's ``valid_actions``) is one operator below, following the
preconditions and effects of VirtualHome's EvolvingGraph executors as modified by EAI
(``docs/virtualhome.md`` lists every simplification). The acting character is an implicit
parameter, so ``GRAB(cup.1)`` has one explicit argument as in the paper.

Predicates use the names of the dataset's ``tl_goal`` formulas: node states are unary
(``on``, ``closed``, ``plugged_in`` ...), graph edges binary (``ontop`` for the ON edge,
``inside``, ``next_to`` for CLOSE, ``facing``, ``holds_rh``, ``holds_lh``). Object
properties (``grabbable``, ``can_open`` ...) are static and make affordance errors.
"""

from __future__ import annotations

from functools import cache

from planproof.pddl.schema import Domain, Operator
from planproof.pddl.sexpr_io import operator

STATES = ("on", "off", "open", "closed", "plugged_in", "plugged_out", "clean", "dirty")
CHARACTER_STATES = ("sitting", "lying")
RELATIONS = (
    "ontop",
    "inside",
    "next_to",
    "obj_next_to",
    "facing",
    "obj_facing",
    "holds_rh",
    "holds_lh",
    "between",
)
PROPERTIES = (
    "grabbable",
    "can_open",
    "has_switch",
    "has_plug",
    "sittable",
    "lieable",
    "lookable",
    "readable",
    "drinkable",
    "recipient",
    "pourable",
    "movable",
    "clothes",
    "cuttable",
    "eatable",
    "person",
    "body_part",
    "surfaces",
    "containers",
    "cover_object",
    "hangable",
    "has_paper",
    "cream",
    "knife",
    "keyboard",
    "room",
    "water",
    "squeezable",
)
"""Static properties: VirtualHome's node properties, plus ``knife`` / ``keyboard``
``water``, ``squeezable`` (class-name tests in the executors) and ``room`` (the Rooms
category)."""

_HELD = "(or (holds_rh ?c ?o) (holds_lh ?c ?o))"
_FREE_HAND = (
    "(not (and (exists (?h - object) (holds_rh ?c ?h)) (exists (?h - object) (holds_lh ?c ?h))))"
)
_HAS_HELD = "(or (exists (?h - object) (holds_rh ?c ?h)) (exists (?h - object) (holds_lh ?c ?h)))"
_STANDING = "(and (not (sitting ?c)) (not (lying ?c)))"
_REACHABLE = "(not (exists (?x - object) (and (inside ?o ?x) (closed ?x))))"


def _near(o: str = "?o") -> str:
    """The executors' "close to" test, loose rule included: close to ``o``, or close to
    something that is close to ``o`` or that ``o`` is on."""
    return (
        f"(or (next_to ?c {o}) (exists (?n - object) (and (next_to ?c ?n) "
        f"(or (obj_next_to ?n {o}) (ontop {o} ?n)))))"
    )


_FACING = "(or (facing ?c ?o) (exists (?n - object) (and (facing ?c ?n) (obj_facing ?n ?o))))"
"""The executors' "facing" test, loose rule included."""

_MOVE = f"""
    (forall (?x - object)
        (when (and (not (= ?x ?o)) (not (holds_rh ?c ?x)) (not (holds_lh ?c ?x)))
              (not (next_to ?c ?x))))
    (forall (?x - object) (not (facing ?c ?x)))
    (when (not (room ?o)) (next_to ?c ?o))
    (forall (?r - room)
        (when (or (= ?r ?o) (inside ?o ?r)) (inside ?c ?r)))
    (forall (?r - room)
        (when (and (not (= ?r ?o)) (not (inside ?o ?r))) (not (inside ?c ?r))))
    (forall (?x - object) (when {_HELD.replace("?o", "?x")} (forall (?r - room)
        (and (when (or (= ?r ?o) (inside ?o ?r)) (inside ?x ?r))
             (when (and (not (= ?r ?o)) (not (inside ?o ?r))) (not (inside ?x ?r)))))))
    (forall (?x - object) (when (and (can_open ?o) (inside ?x ?o)) (next_to ?c ?x)))
    (forall (?x - object) (when (ontop ?o ?x) (next_to ?c ?x)))
"""
"""Walking to ``?o``: leave everything not in hand, enter ``?o``'s room, get close to
``?o``, to what it is on and (for openable containers) to what is inside it."""


def _c(name: str, pre: str = "()", eff: str = "()", description: str = "") -> Operator:
    return operator(
        name,
        "(?c - character ?o - object)",
        pre=pre,
        eff=eff,
        implicit=("c",),
        description=description,
    )


def _c0(name: str, pre: str = "()", eff: str = "()", description: str = "") -> Operator:
    return operator(
        name, "(?c - character)", pre=pre, eff=eff, implicit=("c",), description=description
    )


def _c2(name: str, pre: str, eff: str, description: str = "") -> Operator:
    return operator(
        name,
        "(?c - character ?o - object ?d - object)",
        pre=pre,
        eff=eff,
        implicit=("c",),
        description=description,
    )


def _operators() -> list[Operator]:
    walk = {"pre": _STANDING, "eff": f"(and {_MOVE})"}
    only_find = f"(or {_near()} (body_part ?o) (ontop ?o ?c))"
    find = {
        "pre": f"(or {only_find} {_STANDING})",
        "eff": f"""(and (forall (?x - object) (not (facing ?c ?x)))
                     (when {only_find} (next_to ?c ?o))
                     (when (not {only_find}) (and {_MOVE})))""",
    }
    clean = {"pre": _near(), "eff": "(and (clean ?o) (not (dirty ?o)))"}
    move = {"pre": f"(and (movable ?o) {_near()} {_REACHABLE} {_FREE_HAND})"}
    push = {"pre": f"(and {_near()} {_REACHABLE} {_FREE_HAND})"}
    lookat = {"pre": _FACING}
    put_common = (
        "(and (not (holds_rh ?c ?o)) (not (holds_lh ?c ?o)) (next_to ?c ?d) "
        "(obj_next_to ?o ?d) (obj_next_to ?d ?o)"
    )
    return [
        _c("walk", description="walk to sth, get near it", **walk),
        _c("run", description="run to sth, get near it", **walk),
        _c("find", description="find sth and get near it", **find),
        _c(
            "sit",
            f"(and (sittable ?o) {_near()} (not (sitting ?c)))",
            """(and (sitting ?c) (not (lying ?c)) (ontop ?c ?o)
                   (forall (?x - object) (when (obj_facing ?o ?x) (facing ?c ?x))))""",
            "sit on sth, facing what it faces",
        ),
        _c(
            "lie",
            f"(and (lieable ?o) {_near()} (not (lying ?c)))",
            "(and (lying ?c) (not (sitting ?c)) (ontop ?c ?o))",
            "lie on sth",
        ),
        _c0(
            "standup",
            "(or (sitting ?c) (lying ?c))",
            "(and (not (sitting ?c)) (not (lying ?c)))",
            "stand up (the executor keeps the character's ON edge)",
        ),
        _c(
            "grab",
            f"(and (grabbable ?o) {_near()} {_REACHABLE} {_FREE_HAND} (not {_HELD}))",
            f"""(and
               (when (holds_rh ?c ?o) (holds_rh ?c ?o))
               (when (holds_lh ?c ?o) (holds_lh ?c ?o))
               (when (not {_HELD}) (and
               (next_to ?c ?o)
               (when (not (exists (?h - object) (holds_rh ?c ?h))) (holds_rh ?c ?o))
               (when (exists (?h - object) (holds_rh ?c ?h)) (holds_lh ?c ?o))
               (forall (?x - object)
                   (and (not (ontop ?o ?x)) (not (obj_next_to ?o ?x)) (not (obj_next_to ?x ?o))))
               (forall (?x - object) (when (not (room ?x)) (not (inside ?o ?x))))
               (forall (?x - object)
                   (when (and (not (room ?x))
                              (or (ontop ?o ?x) (inside ?o ?x) (obj_next_to ?o ?x)))
                         (next_to ?c ?x))))))""",
            "grab sth (the intended effect of grabbing what is in hand already holds)",
        ),
        _c(
            "open",
            f"(and (can_open ?o) {_near()} {_FREE_HAND} (closed ?o) (not (on ?o)))",
            "(and (open ?o) (not (closed ?o)))",
            "open sth",
        ),
        _c(
            "close",
            f"(and (can_open ?o) {_near()} (open ?o))",
            "(and (closed ?o) (not (open ?o)))",
            "close sth (not: get close)",
        ),
        _c2(
            "putback",
            f"(and {_HELD} {_near('?d')})",
            f"{put_common} (ontop ?o ?d))",
            "put object A on object B",
        ),
        _c2(
            "putin",
            f"(and {_HELD} {_near('?d')} (or (not (can_open ?d)) (open ?d)))",
            f"{put_common} (inside ?o ?d))",
            "put object A into object B",
        ),
        _c(
            "putobjback",
            _HELD,
            "(and (not (holds_rh ?c ?o)) (not (holds_lh ?c ?o)))",
            "put object back to its original place",
        ),
        _c(
            "switchon",
            f"(and (has_switch ?o) {_near()} (off ?o) (not (plugged_out ?o)))",
            "(and (on ?o) (not (off ?o)))",
            "switch sth on",
        ),
        _c(
            "switchoff",
            f"(and (has_switch ?o) {_near()} (on ?o))",
            "(and (off ?o) (not (on ?o)))",
            "switch sth off",
        ),
        _c(
            "plugin",
            f"(and (has_plug ?o) {_near()} {_FREE_HAND} (plugged_out ?o))",
            "(and (plugged_in ?o) (not (plugged_out ?o)))",
            "plug sth in",
        ),
        _c(
            "plugout",
            f"(and (has_plug ?o) {_near()} {_FREE_HAND} (plugged_in ?o) (not (on ?o)))",
            "(and (plugged_out ?o) (not (plugged_in ?o)))",
            "plug sth out",
        ),
        _c("drink", f"(and (or (drinkable ?o) (recipient ?o)) {_HELD})", description="drink"),
        _c(
            "turnto",
            eff="(and (forall (?x - object) (not (facing ?c ?x))) (facing ?c ?o))",
            description="turn and face sth",
        ),
        _c("lookat", description="look at sth", **lookat),
        _c("lookat_short", description="look at sth shortly", **lookat),
        _c("lookat_medium", description="look at sth", **lookat),
        _c("lookat_long", description="look at sth for long", **lookat),
        _c(
            "watch",
            f"(and (lookable ?o) {_FACING} {_REACHABLE} "
            "(exists (?r - room) (and (inside ?c ?r) (inside ?o ?r))))",
            description="watch",
        ),
        _c("pointat", description="point at sth"),
        _c("wipe", f"(and {_near()} {_HAS_HELD})", "(and (clean ?o) (not (dirty ?o)))", "wipe sth"),
        _c("wash", description="wash sth", **clean),
        _c("rinse", description="rinse sth", **clean),
        _c("scrub", description="scrub sth", **clean),
        _c(
            "puton",
            f"(and (clothes ?o) {_HELD})",
            "(and (ontop ?o ?c) (not (holds_rh ?c ?o)) (not (holds_lh ?c ?o)))",
            "put on clothes",
        ),
        _c("putoff", "(and (clothes ?o) (ontop ?o ?c))", "(not (ontop ?o ?c))", "take off clothes"),
        _c(
            "drop",
            _HELD,
            "(and (not (holds_rh ?c ?o)) (not (holds_lh ?c ?o)))",
            "drop sth in the current room",
        ),
        _c(
            "release",
            _HELD,
            "(and (not (holds_rh ?c ?o)) (not (holds_lh ?c ?o)))",
            "release sth in the current room",
        ),
        _c("read", f"(and (readable ?o) {_HELD})", description="read sth held"),
        _c("touch", f"(and {_near()} {_REACHABLE})", description="touch sth"),
        _c2(
            "pour",
            f"(and (or (pourable ?o) (drinkable ?o)) (recipient ?d) {_HELD} {_near('?d')})",
            """(and (inside ?o ?d)
                    (when (water ?o) (and (not (holds_rh ?c ?o)) (not (holds_lh ?c ?o)))))""",
            "pour object A into object B (poured water leaves the hand)",
        ),
        _c(
            "type", f"(and (or (has_switch ?o) (keyboard ?o)) {_near()})", description="type on sth"
        ),
        _c("push", description="push sth (any object, as the executor allows)", **push),
        _c("pull", description="pull sth", **move),
        _c("move", description="move sth", **move),
        _c("squeeze", f"(and (squeezable ?o) {_near()} {_FREE_HAND})", description="squeeze"),
        _c(
            "cut",
            f"(and (eatable ?o) (cuttable ?o) {_near()} {_FREE_HAND} "
            "(exists (?k - object) (and (knife ?k) (or (holds_rh ?c ?k) (holds_lh ?c ?k)))))",
            description="cut food, holding a knife",
        ),
        _c("eat", f"(and (eatable ?o) {_near()})", description="eat sth"),
        _c("greet", "(person ?o)", description="greet sb"),
        _c0("sleep", "(or (lying ?c) (sitting ?c))", description="sleep"),
        _c0("wakeup", "(or (lying ?c) (sitting ?c))", description="wake up"),
    ]


@cache
def virtualhome_domain() -> Domain:
    """The VirtualHome domain: built once per process, or read from the binary cache when
    the code that builds it is unchanged (reading the PDDL text needs the parser)."""
    from planproof.simulators.core.compiled import cached_build

    return cached_build(DOMAIN_CACHE, build_virtualhome_domain, sources=SOURCES)


DOMAIN_CACHE = "virtualhome_domain"
SOURCES = ("simulators/virtualhome",)
"""The sub-package whose code builds the VirtualHome domain and tasks."""


def build_virtualhome_domain() -> Domain:
    """The VirtualHome domain, from the operator schemas above."""
    obj, char = ("object",), ("character",)
    predicates: dict[str, tuple[str, ...]] = dict.fromkeys((*STATES, *PROPERTIES), obj)
    predicates.update(dict.fromkeys(CHARACTER_STATES, char))
    predicates.update(dict.fromkeys(RELATIONS, ("object", "object")))
    predicates["between"] = ("object", "object", "object")
    ops = _operators()
    return Domain(
        name="virtualhome",
        types={"object": None, "character": "object", "room": "object"},
        predicates=predicates,
        operators={op.name: op for op in ops},
        action_predicates=frozenset(op.name for op in ops),
    )
