"""The symbolic Housekeep world: navigate / pick / place / explore as operator schemas,
replayed by the generic core (``planproof.simulators.core``), which also classifies every
failure (hallucinated object, affordance, missing step, wrong order, additional step).

The paper's agent has a "magic pointer": it picks an object or places the held one on a
receptacle within reach, and placing fails when the receptacle has no free space. Here
reach is co-location (``at(agent, r)``), an object is *discovered* once the agent has been
at its receptacle (or explored its room, or picked it), and free space is a counter per
receptacle: ``free(r, slots.k)`` says ``k`` more objects fit, moved down by ``place`` and
up by ``pick`` through the static ``succ`` relation — classical PDDL without numbers, so
the same schemas export to any planner. Receptacles without a capacity are ``unbounded``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import State, Trace, ground_atom
from planproof.pddl.schema import Domain
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core import (
    Action,
    ErrorKind,
    Replay,
    StepError,
    World,
    replay,
)
from planproof.simulators.housekeep.episode import COUNTER_PREFIX, Episode, parse_action

TYPES: dict[str, str | None] = {
    "object": None,
    "agent": "object",
    "item": "object",
    "receptacle": "object",
    "room": "object",
    "count": "object",
}
PREDICATES: dict[str, tuple[str, ...]] = {
    "at": ("agent", "receptacle"),
    "on": ("item", "receptacle"),
    "holding": ("agent", "item"),
    "handempty": ("agent",),
    "discovered": ("item",),
    "visited": ("room",),
    "inroom": ("receptacle", "room"),
    "free": ("receptacle", "count"),
    "succ": ("count", "count"),
    "unbounded": ("receptacle",),
}


@cache
def domain() -> Domain:
    """The Housekeep domain (built once)."""
    ops = [
        operator(
            "navigate",
            "(?a - agent ?r - receptacle)",
            pre="()",
            eff="""(and (forall (?l - receptacle) (when (at ?a ?l) (not (at ?a ?l))))
                        (at ?a ?r)
                        (forall (?m - room) (when (inroom ?r ?m) (visited ?m)))
                        (forall (?o - item) (when (on ?o ?r) (discovered ?o))))""",
            implicit=("a",),
            description="go to a receptacle; objects on it become discovered",
        ),
        operator(
            "explore",
            "(?a - agent ?m - room)",
            pre="()",
            eff="""(and (forall (?l - receptacle) (when (at ?a ?l) (not (at ?a ?l))))
                        (visited ?m)
                        (forall (?r - receptacle) (when (inroom ?r ?m)
                          (forall (?o - item) (when (on ?o ?r) (discovered ?o))))))""",
            implicit=("a",),
            description="look around a room: every object on its receptacles is discovered",
        ),
        operator(
            "pick",
            "(?a - agent ?o - item)",
            pre="(and (handempty ?a) (exists (?r - receptacle) (and (on ?o ?r) (at ?a ?r))))",
            eff="""(and (holding ?a ?o) (not (handempty ?a)) (discovered ?o)
                        (forall (?r - receptacle) (when (on ?o ?r) (not (on ?o ?r))))
                        (forall (?r - receptacle) (when (on ?o ?r)
                          (forall (?n - count) (forall (?k - count)
                            (when (and (free ?r ?n) (succ ?n ?k))
                                  (and (not (free ?r ?n)) (free ?r ?k))))))))""",
            implicit=("a",),
            description="pick up an object from the receptacle the agent is at",
        ),
        operator(
            "place",
            "(?a - agent ?o - item ?r - receptacle)",
            pre=f"""(and (holding ?a ?o) (at ?a ?r)
                         (or (not (free ?r {COUNTER_PREFIX}.0)) (unbounded ?r)))""",
            eff="""(and (on ?o ?r) (not (holding ?a ?o)) (handempty ?a)
                        (forall (?n - count) (forall (?k - count)
                          (when (and (free ?r ?k) (succ ?n ?k))
                                (and (not (free ?r ?k)) (free ?r ?n))))))""",
            implicit=("a",),
            description="put the held object on the receptacle the agent is at (needs space)",
        ),
    ]
    return Domain("housekeep", TYPES, PREDICATES, {op.name: op for op in ops})


def _counter(k: int) -> str:
    return f"{COUNTER_PREFIX}.{k}"


@dataclass(frozen=True)
class Setup:
    """An episode as a core world and its initial fluent state."""

    world: World
    initial: State


def build_world(episode: Episode) -> Setup:
    """The core :class:`World` and initial state of ``episode``."""
    objects: dict[str, frozenset[str]] = {episode.agent: frozenset({"agent"})}
    objects.update({r: frozenset({"room"}) for r in episode.rooms})
    objects.update({r.id: frozenset({"receptacle"}) for r in episode.receptacles})
    objects.update({o.id: frozenset({"item"}) for o in episode.objects})
    top = max((r.capacity for r in episode.receptacles if r.capacity is not None), default=-1)
    objects.update({_counter(k): frozenset({"count"}) for k in range(top + 1)})
    static: set[Atom] = {ground_atom("succ", _counter(k), _counter(k + 1)) for k in range(top)}
    state: set[Atom] = {ground_atom("handempty", episode.agent)}
    load: dict[str, int] = {}
    for o in episode.objects:
        state.add(ground_atom("on", o.id, o.on))
        load[o.on] = load.get(o.on, 0) + 1
    for r in episode.receptacles:
        static.add(ground_atom("inroom", r.id, r.room))
        if r.capacity is None:
            static.add(ground_atom("unbounded", r.id))
        else:
            state.add(ground_atom("free", r.id, _counter(r.capacity - load.get(r.id, 0))))
    if episode.agent_at is not None:
        start = episode.receptacle_by_id[episode.agent_at]
        state.add(ground_atom("at", episode.agent, start.id))
        state.add(ground_atom("visited", start.room))
        state.update(ground_atom("discovered", o.id) for o in episode.objects if o.on == start.id)
    world = World(domain(), objects, frozenset(static), episode.agent)
    return Setup(world, frozenset(state))


@dataclass(frozen=True)
class Outcome:
    """What the metrics need from a replay: start and end placements (``None`` = held), the
    successful picks plus places per object, the picked objects, what was discovered and
    which rooms were visited."""

    initial: Mapping[str, str]
    final: Mapping[str, str | None]
    interactions: Mapping[str, int]
    picked: frozenset[str]
    discovered: frozenset[str]
    visited_rooms: frozenset[str]
    replay: Replay

    @property
    def error(self) -> StepError | None:
        return self.replay.first_error


def parse_actions(texts: tuple[str, ...]) -> tuple[list[Action], StepError | None]:
    """Surface actions, or the first parsing error (the whole plan is checked first, as
    the core checks grammar before executing anything)."""
    out: list[Action] = []
    for i, t in enumerate(texts):
        p = parse_action(t)
        if p is None:
            return out, StepError(
                i,
                None,
                ErrorKind.PARSING,
                f"step {i}: {t[:80]!r} is not of the form name(arg, ...)",
            )
        out.append(Action(p.name, p.args))
    return out, None


def run(episode: Episode, actions: tuple[str, ...] | None = None) -> Outcome:
    """Replay the episode's actions (or ``actions``) until the first blocking error, and
    read the placements and the interaction log off the executed prefix."""
    setup = build_world(episode)
    texts = episode.actions if actions is None else actions
    parsed, err = parse_actions(texts)
    if err is not None:
        rep = Replay(Trace((setup.initial,)), (), err, (), len(texts))
    else:
        rep = replay(setup.world, setup.initial, parsed)
    return outcome_of(episode, rep)


def outcome_of(episode: Episode, rep: Replay) -> Outcome:
    final_state = rep.final
    final: dict[str, str | None] = {o.id: None for o in episode.objects}
    discovered: set[str] = set()
    visited: set[str] = set()
    for a in final_state:
        args = [t.name for t in a.args if isinstance(t, Const)]
        if a.pred == "on":
            final[args[0]] = args[1]
        elif a.pred == "discovered":
            discovered.add(args[0])
        elif a.pred == "visited":
            visited.add(args[0])
    interactions: dict[str, int] = {}
    picked: set[str] = set()
    states = rep.trace.states
    for k, act in enumerate(rep.executed):
        if states[k + 1] is states[k] or states[k + 1] == states[k]:
            continue  # an additional step (a warning) changed nothing: no interaction
        if act.name in {"pick", "place"}:
            interactions[act.args[0]] = interactions.get(act.args[0], 0) + 1
            if act.name == "pick":
                picked.add(act.args[0])
    return Outcome(
        episode.initial_placement,
        final,
        interactions,
        frozenset(picked),
        frozenset(discovered),
        frozenset(visited),
        rep,
    )
