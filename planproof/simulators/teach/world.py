"""The TEACh Follower's world: the paper's 8 interaction actions as operator schemas.

Navigation (Forward, Turn Left, ...) is abstracted away: every object is reachable, so
those actions count towards trajectory length but change nothing. The effects follow
AI2-THOR conventions the paper does not state (assumptions, listed in docs/teach.md):
slicing needs a held knife and releases pre-declared slice objects; a running faucet
cleans and fills what is in a sink; a toaster, microwave or stove burner cooks what is in
it (or in a pan on it) when switched on (``isCooked`` and ``simbotIsCooked``), and boils
what sits in water on it; an object put in a running microwave or on a running burner
gets TEACh's ``simbotIsCooked`` only (AI2-THOR does not cook it); a coffee
machine fills the mug in it; pouring empties the held vessel into the target.

States are frozensets of fluent atoms (``inside`` is the *direct* parent here); the
checker's :class:`SymbolicState` is rebuilt from them by :meth:`TeachWorld.symbolic`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache

from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import State
from planproof.pddl.schema import Domain, Operator
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core import Action, World
from planproof.simulators.teach.state import INSIDE, ObjectState, SymbolicState

AGENT = "follower"
FLUENT_PROPERTIES = (
    "isopen",
    "istoggled",
    "issliced",
    "isdirty",
    "iscooked",
    "simbotiscooked",
    "isboiled",
    "isfilledwithliquid",
    "isfilledwithcoffee",
)
STATIC_PROPERTIES = (
    "pickupable",
    "receptacle",
    "openable",
    "toggleable",
    "sliceable",
    "canfillwithliquid",
    "knife",
    "sink",
    "watersource",
    "heatsource",
    "coffeemachine",
    "microwave",
    "stoveburner",
)
"""Affordances: AI2-THOR's flags plus type tests (``knife``, ``sink``...) as properties."""

DERIVED_BY_TYPE: Mapping[str, tuple[str, ...]] = {
    "knife": ("Knife", "ButterKnife"),
    "sink": ("SinkBasin", "Sink"),
    "watersource": ("Faucet",),
    "heatsource": ("Toaster", "Microwave", "StoveBurner"),
    "coffeemachine": ("CoffeeMachine",),
    "microwave": ("Microwave",),
    "stoveburner": ("StoveBurner",),
}
INTERACTIONS = ("Pickup", "Place", "Open", "Close", "ToggleOn", "ToggleOff", "Slice", "Pour")
NAVIGATION = frozenset(
    {
        "forward",
        "backward",
        "turnleft",
        "turnright",
        "lookup",
        "lookdown",
        "panleft",
        "panright",
        "strafeleft",
        "straferight",
        "moveto",
        "navigation",
        "goto",
    }
)
STOP = "stop"

_HELD = "(holding ?a ?o)"
_HAND_EMPTY = "(not (exists (?x - object) (holding ?a ?x)))"
_REACHABLE = "(not (exists (?r - object) (and (inside ?o ?r) (openable ?r) (not (isopen ?r)))))"
_RUNNING_HEAT = """(or (and (or (microwave ?o) (stoveburner ?o)) (istoggled ?o))
    (exists (?b - object) (and (stoveburner ?b) (istoggled ?b) (inside ?o ?b))))"""
"""Put in a running microwave, on a running burner or in a pan on one: TEACh's simulator
marks the object ``simbotIsCooked`` (``__update_custom_property_cooked``); AI2-THOR, which
cooks only when the appliance is switched on, leaves ``isCooked`` false."""
_WATER_ON = "(exists (?f - object) (and (watersource ?f) (istoggled ?f)))"


def _op(name: str, pre: str, eff: str, description: str) -> Operator:
    return operator(
        name,
        "(?a - agent ?o - object)",
        pre=pre,
        eff=eff,
        implicit=("a",),
        description=description,
    )


def _wash(target: str) -> str:
    """Water running on ``target``: it gets clean, and filled if it can hold liquid."""
    return (
        f"(not (isdirty {target})) "
        f"(when (canfillwithliquid {target}) (isfilledwithliquid {target}))"
    )


def _operators() -> list[Operator]:
    # AI2-THOR cooks what is in a heat source switched on (isCooked); TEACh's simulator
    # mirrors every THOR-cooked object into simbotIsCooked
    heat = """
        (forall (?x - object) (when (inside ?x ?o) (and (iscooked ?x) (simbotiscooked ?x))))
        (forall (?x - object) (forall (?p - object)
            (when (and (inside ?x ?p) (inside ?p ?o)) (and (iscooked ?x) (simbotiscooked ?x)))))
        (forall (?x - object) (forall (?p - object)
            (when (and (inside ?x ?p) (inside ?p ?o) (isfilledwithliquid ?p)) (isboiled ?x))))
    """
    return [
        _op(
            "Pickup",
            f"(and (pickupable ?o) (not (latent ?o)) {_HAND_EMPTY} {_REACHABLE})",
            "(and (holding ?a ?o) (forall (?r - object) (not (inside ?o ?r))))",
            "pick up an object (one hand; not from a closed container)",
        ),
        _op(
            "Place",
            "(and (receptacle ?o) (exists (?x - object) (holding ?a ?x)) "
            "(or (not (openable ?o)) (isopen ?o)))",
            f"""(and (forall (?x - object) (when (holding ?a ?x)
                        (and (inside ?x ?o) (not (holding ?a ?x)))))
                     (forall (?x - object) (when (and (holding ?a ?x) (sink ?o) {_WATER_ON})
                        (and {_wash("?x")})))
                     (forall (?x - object) (when (and (holding ?a ?x) {_RUNNING_HEAT})
                        (simbotiscooked ?x))))""",
            "put the held object in/on a receptacle",
        ),
        _op(
            "Open",
            "(and (openable ?o) (not (isopen ?o)))",
            "(isopen ?o)",
            "open an openable object",
        ),
        _op(
            "Close",
            "(and (openable ?o) (isopen ?o))",
            "(not (isopen ?o))",
            "close an openable object",
        ),
        _op(
            "ToggleOn",
            "(and (toggleable ?o) (not (istoggled ?o)) (or (not (openable ?o)) (not (isopen ?o))))",
            f"""(and (istoggled ?o)
                     (when (heatsource ?o) (and {heat}))
                     (when (coffeemachine ?o) (forall (?x - object) (when
                        (and (inside ?x ?o) (canfillwithliquid ?x))
                        (and (isfilledwithcoffee ?x) (isfilledwithliquid ?x)))))
                     (when (watersource ?o) (forall (?x - object) (forall (?s - object) (when
                        (and (sink ?s) (inside ?x ?s)) (and {_wash("?x")}))))))""",
            "switch on (cooks, brews or runs water, by the object's kind)",
        ),
        _op(
            "ToggleOff",
            "(and (toggleable ?o) (istoggled ?o))",
            "(not (istoggled ?o))",
            "switch off",
        ),
        _op(
            "Slice",
            "(and (sliceable ?o) (not (issliced ?o)) "
            "(exists (?k - object) (and (holding ?a ?k) (knife ?k))))",
            """(and (issliced ?o)
                    (forall (?s - object) (when (sliceof ?s ?o) (not (latent ?s))))
                    (forall (?s - object) (forall (?r - object)
                        (when (and (sliceof ?s ?o) (inside ?o ?r)) (inside ?s ?r)))))""",
            "slice (or crack) an object with a held knife",
        ),
        _op(
            "Pour",
            "(exists (?x - object) (and (holding ?a ?x) (isfilledwithliquid ?x)))",
            """(and (forall (?x - object) (when (holding ?a ?x)
                        (and (not (isfilledwithliquid ?x)) (not (isfilledwithcoffee ?x)))))
                    (when (canfillwithliquid ?o) (isfilledwithliquid ?o)))""",
            "pour the held vessel's liquid into the target",
        ),
    ]


@cache
def teach_domain() -> Domain:
    """The Follower's domain (one object type; affordances are static properties)."""
    unary = dict.fromkeys((*FLUENT_PROPERTIES, *STATIC_PROPERTIES, "latent"), ("object",))
    return Domain(
        name="teach",
        types={"object": None, "agent": None},
        predicates={
            **unary,
            "holding": ("agent", "object"),
            INSIDE: ("object", "object"),
            "sliceof": ("object", "object"),
        },
        operators={op.name: op for op in _operators()},
    )


def _const(*names: str) -> tuple[Const, ...]:
    return tuple(Const(n) for n in names)


@dataclass(frozen=True)
class TeachWorld:
    """One scene: the core :class:`World` plus what is needed to read its states back as
    symbolic AI2-THOR states. ``slices`` maps a slice object to the whole it comes from;
    a slice does not exist (``latent``) until its whole is sliced."""

    world: World
    base: SymbolicState
    slices: Mapping[str, str]
    initial: State

    @classmethod
    def build(cls, state: SymbolicState, slices: Mapping[str, str] | None = None) -> TeachWorld:
        slices = dict(slices or {})
        domain = teach_domain()
        static: set[Atom] = set()
        fluent: set[Atom] = set()
        objects: dict[str, frozenset[str]] = {AGENT: frozenset({"agent"})}
        for o in state.objects:
            objects[o.object_id] = o.types | {"object"}
            c = _const(o.object_id)
            for p in STATIC_PROPERTIES:
                by_type = any(t in o.types for t in DERIVED_BY_TYPE.get(p, ()))
                if o.has(p) or by_type:
                    static.add(Atom(p, c))
            for p in FLUENT_PROPERTIES:
                if o.has(p):
                    fluent.add(Atom(p, c))
            if o.has("isPickedUp"):
                fluent.add(Atom("holding", _const(AGENT, o.object_id)))
            else:
                fluent.update(Atom(INSIDE, _const(o.object_id, p)) for p in o.parents)
        for s, whole in slices.items():
            static.add(Atom("sliceof", _const(s, whole)))
            if not state.get(whole).has("issliced"):
                fluent.add(Atom("latent", _const(s)))
        aliases = _unique_type_aliases(state.objects)
        world = World(domain, objects, frozenset(static), AGENT, aliases)
        return cls(world, state, slices, frozenset(fluent))

    def symbolic(self, state: State) -> SymbolicState:
        """The checker's view of a world state: latent slices left out, properties and
        direct parents read from the atoms, other object properties kept."""
        props: dict[str, set[str]] = {o.object_id: set() for o in self.base.objects}
        parents: dict[str, list[str]] = {o.object_id: [] for o in self.base.objects}
        latent: set[str] = set()
        held: set[str] = set()
        for a in state:
            names = [t.name for t in a.args]
            if a.pred == "latent":
                latent.add(names[0])
            elif a.pred == INSIDE and names[0] in parents:
                parents[names[0]].append(names[1])
            elif a.pred == "holding":
                held.add(names[1])
            elif len(names) == 1 and names[0] in props:
                props[names[0]].add(a.pred)
        keep_static = frozenset(STATIC_PROPERTIES) | {"latent"}
        out: list[ObjectState] = []
        for o in self.base.objects:
            if o.object_id in latent:
                continue
            base = {p for p in o.properties if p not in FLUENT_PROPERTIES and p != "ispickedup"}
            new = base | props[o.object_id] | ({"ispickedup"} if o.object_id in held else set())
            new -= keep_static - set(o.properties)
            out.append(
                replace(
                    o,
                    properties=frozenset(new),
                    parents=tuple(p for p in sorted(parents[o.object_id]) if p not in latent),
                )
            )
        return SymbolicState.of(out)


def _unique_type_aliases(objects: Iterable[ObjectState]) -> dict[str, str]:
    """``Mug`` → ``Mug|1`` when the scene has one Mug, so ``Pickup Mug`` (TEACh's rule
    agents name types, not ids) resolves; ambiguous names stay unknown."""
    by_type: dict[str, list[str]] = {}
    for o in objects:
        by_type.setdefault(o.object_type, []).append(o.object_id)
    return {t: ids[0] for t, ids in by_type.items() if len(ids) == 1}


def parse_action(text: str) -> Action:
    """``Pickup Mug|1``, ``Pickup(Mug|1)``, ``Pickup Mug at 0.57 0.25`` or ``Turn Left``."""
    t = text.strip()
    if "(" in t and t.endswith(")"):
        name, _, rest = t[:-1].partition("(")
        args = tuple(a.strip() for a in rest.split(",") if a.strip())
        return Action(name.strip(), args)
    words = t.split()
    if " at " in f" {t} ":
        words = words[: words.index("at")]
    if not words:
        return Action("")
    if len(words) >= 2 and (words[0] + words[1]).lower() in NAVIGATION | {"toggleon"}:
        return Action(words[0] + words[1], tuple(words[2:]))
    return Action(words[0], tuple(words[1:]))


def is_navigation(action: Action) -> bool:
    return action.name.replace(" ", "").replace("_", "").lower() in NAVIGATION
