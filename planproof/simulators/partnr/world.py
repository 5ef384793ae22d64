"""The symbolic PARTNR world graph: rooms → furniture → objects, object states, and two
agents of different abilities, with the skills of the paper (A.9.1) as operator schemas.

Every skill is written once, in PDDL, with the acting agent as its first parameter; the
generic core (``planproof.simulators.core``) executes them and classifies failures. The
robot's missing abilities are static facts (``can_clean(agent_1)`` but not
``can_clean(agent_0)``), so asking the robot to clean is an *affordance* error that names
the agent. A multi-agent plan is one action list per agent; round ``k`` runs agent 0's
``k``-th action, then agent 1's (docs/partnr.md §6).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from planproof.ltl.ast import Atom
from planproof.ltl.trace import State, Trace
from planproof.pddl.schema import Domain, Operator
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core import Action, ErrorKind, Replay, StepError, World, replay
from planproof.simulators.partnr.errors import EpisodeFormatError, PlanFormatError
from planproof.simulators.partnr.model import EVALUATION_KEYS, EvaluationFunction, parse_evaluation
from planproof.simulators.partnr.predicates import atom

ROBOT, HUMAN = "robot", "human"
ABILITIES = {
    ROBOT: (),
    HUMAN: ("can_clean", "can_fill", "can_pour", "can_power"),
}
TASK_TYPES = ("constraint_free", "spatial", "temporal", "heterogeneous")

_REACH = (
    "(or (at ?a ?o) (holding ?a ?o) (exists (?f - furniture) (and (at ?a ?f) "
    "(or (on_top ?o ?f) (inside ?o ?f)))))"
)
_FREE_TO_TAKE = (
    "(and (free ?a) (not (held ?o)) (forall (?f - furniture) (imply (inside ?o ?f) "
    "(or (is_open ?f) (not (openable ?f))))))"
)
_LEAVE = (
    "(forall (?f - furniture) (and (not (on_top ?o ?f)) (not (inside ?o ?f)))) "
    "(not (on_floor ?o)) "
    "(forall (?e - entity) (and (not (next_to ?o ?e)) (not (next_to ?e ?o))))"
)
_MOVE_AGENT = (
    "(at ?a ?x) "
    "(forall (?y - thing) (when (and (at ?a ?y) (not (= ?y ?x))) (not (at ?a ?y)))) "
    "(forall (?r - room) (and "
    "(when (or (= ?x ?r) (in_room ?x ?r)) (agent_in ?a ?r)) "
    "(when (and (not (= ?x ?r)) (not (in_room ?x ?r))) (not (agent_in ?a ?r))) "
    "(forall (?h - object) (and "
    "(when (and (holding ?a ?h) (or (= ?x ?r) (in_room ?x ?r))) (in_room ?h ?r)) "
    "(when (and (holding ?a ?h) (not (= ?x ?r)) (not (in_room ?x ?r))) "
    "(not (in_room ?h ?r)))))))"
)
_LAND = (
    "(when (floor ?f) (on_floor ?o)) "
    "(forall (?r - room) (and (when (in_room ?f ?r) (in_room ?o ?r)) "
    "(when (not (in_room ?f ?r)) (not (in_room ?o ?r)))))"
)


def _place_ops() -> list[Operator]:
    ops: list[Operator] = []
    for rel, fact, extra in (
        ("on", "on_top", ""),
        ("within", "inside", "(container ?f) (or (is_open ?f) (not (openable ?f)))"),
    ):
        for nxt in (False, True):
            suffix = "_next_to" if nxt else ""
            params = "(?a - agent ?o - object ?f - furniture" + (" ?n - object)" if nxt else ")")
            ref_pre = f"({fact} ?n ?f) (not (= ?n ?o))" if nxt else ""
            ref_eff = "(next_to ?o ?n)" if nxt else ""
            ops.append(
                operator(
                    f"place_{rel}{suffix}",
                    params,
                    pre=f"(and (holding ?a ?o) (at ?a ?f) {extra} {ref_pre})",
                    eff=f"(and ({fact} ?o ?f) (not (holding ?a ?o)) (not (held ?o)) (free ?a) "
                    f"{_LAND} {ref_eff})",
                    description=f"Place[obj, {rel}, furniture"
                    + (", next_to, ref]" if nxt else ", None, None]"),
                )
            )
            move = _MOVE_AGENT.replace("?x", "?f")
            ops.append(
                operator(
                    f"rearrange_{rel}{suffix}",
                    params,
                    pre=f"(and {_FREE_TO_TAKE} {extra} {ref_pre})",
                    eff=f"(and {_LEAVE} {move} ({fact} ?o ?f) {_LAND} {ref_eff})",
                    description="pick the object wherever it is and place it",
                )
            )
    return ops


@cache
def domain() -> Domain:
    """The PARTNR skills as operator schemas (one source of truth)."""
    state_skill = {  # name: (ability, affordance, effect, the state it must not be in)
        "clean": ("can_clean", "cleanable", "(clean ?o)", "(not (clean ?o))"),
        "fill": ("can_fill", "fillable", "(filled ?o)", "(not (filled ?o))"),
        "power_on": ("can_power", "powerable", "(powered_on ?o)", "(not (powered_on ?o))"),
        "power_off": ("can_power", "powerable", "(not (powered_on ?o))", "(powered_on ?o)"),
    }
    ops: list[Operator] = [
        operator("navigate", "(?a - agent ?x - thing)", eff=f"(and {_MOVE_AGENT})"),
        operator("explore", "(?a - agent ?x - room)", eff=f"(and {_MOVE_AGENT})"),
        operator(
            "pick",
            "(?a - agent ?o - object)",
            pre=f"(and {_FREE_TO_TAKE} {_REACH})",
            eff=f"(and (holding ?a ?o) (held ?o) (not (free ?a)) {_LEAVE})",
        ),
        *_place_ops(),
        operator(
            "open",
            "(?a - agent ?f - furniture)",
            pre="(and (openable ?f) (at ?a ?f) (free ?a) (not (is_open ?f)))",
            eff="(is_open ?f)",
        ),
        operator(
            "close",
            "(?a - agent ?f - furniture)",
            pre="(and (openable ?f) (at ?a ?f) (free ?a) (is_open ?f))",
            eff="(not (is_open ?f))",
        ),
        *(
            operator(
                name,
                "(?a - agent ?o - entity)",
                pre=f"(and ({ability} ?a) ({affordance} ?o) {_REACH} {before})",
                eff=effect,
            )
            for name, (ability, affordance, effect, before) in state_skill.items()
        ),
        operator(
            "pour",
            "(?a - agent ?o - entity)",
            pre=f"(and (can_pour ?a) (fillable ?o) {_REACH} (exists (?s - object) "
            "(and (holding ?a ?s) (filled ?s) (not (= ?s ?o)))))",
            eff="(and (filled ?o) (forall (?s - object) (when (holding ?a ?s) (not (filled ?s)))))",
        ),
        operator("wait", "(?a - agent)"),
        operator("done", "(?a - agent)"),
    ]
    e, ag, fu, ob, ro, th = "entity", "agent", "furniture", "object", "room", "thing"
    preds: dict[str, tuple[str, ...]] = {
        "on_top": (ob, fu), "inside": (ob, fu), "in_room": (e, ro), "on_floor": (ob,),
        "next_to": (e, e), "clean": (e,), "filled": (e,), "powered_on": (e,),
        "holding": (ag, ob), "held": (ob,), "free": (ag,), "at": (ag, th),
        "agent_in": (ag, ro), "is_open": (fu,),
        "openable": (fu,), "container": (fu,), "floor": (fu,), "cleanable": (e,),
        "fillable": (e,), "powerable": (e,), "can_clean": (ag,), "can_fill": (ag,),
        "can_pour": (ag,), "can_power": (ag,),
    }  # fmt: skip
    return Domain(
        "partnr",
        {th: None, ro: th, e: th, fu: e, ob: e, ag: None},
        preds,
        {op.name: op for op in ops},
    )


# --- episodes --------------------------------------------------------------------------


@dataclass(frozen=True)
class Episode:
    """One PARTNR episode: a house, the objects and agents in it, an instruction and its
    evaluation function."""

    episode_id: str
    instruction: str
    task_types: tuple[str, ...]
    rooms: tuple[str, ...]
    furniture: Mapping[str, Mapping[str, Any]]
    objects: Mapping[str, Mapping[str, Any]]
    agents: Mapping[str, str]  # agent -> robot | human, in acting order
    initial: State
    static: frozenset[Atom]
    evaluation: EvaluationFunction

    def world(self) -> World:
        objects: dict[str, frozenset[str]] = {r: frozenset({"room"}) for r in self.rooms}
        for f, spec in self.furniture.items():
            objects[f] = frozenset({"furniture", str(spec.get("type", f.rsplit("_", 1)[0]))})
        for o, spec in self.objects.items():
            objects[o] = frozenset({"object", str(spec.get("type", o.rsplit("_", 1)[0]))})
        for a in self.agents:
            objects[a] = frozenset({"agent"})
        return World(domain(), objects, self.static)

    def entity_type(self, name: str) -> str | None:
        if name in self.rooms:
            return "room"
        if name in self.furniture:
            return "furniture"
        if name in self.objects:
            return "object"
        return "agent" if name in self.agents else None


def _names(data: Any, what: str) -> list[str]:
    if not isinstance(data, list) or not all(isinstance(x, str) and x for x in data):
        raise EpisodeFormatError(f"{what} must be a list of names")
    return list(data)


def _mapping(data: Any, what: str, keys: frozenset[str] | None = None) -> Mapping[str, Any]:
    """``data`` as an object; with ``keys``, any other key is an error (issue 18: an
    episode whose keys planproof does not read must not be scored as if they were absent)."""
    if not isinstance(data, Mapping):
        raise EpisodeFormatError(f"{what} must be an object")
    if keys is not None:
        unknown = sorted(str(k) for k in data if k not in keys)
        if unknown:
            raise EpisodeFormatError(
                f"{what}: unknown key(s) {', '.join(unknown)}; expected {', '.join(sorted(keys))}"
            )
    return data


EPISODE_KEYS = frozenset(
    {"episode_id", "scene", "instruction", "task_types", "rooms", "furniture", "objects",
     "next_to", "agents", "start", "evaluation"}
)  # fmt: skip
_SCENE_KEYS = frozenset({"rooms", "furniture"})
_FURNITURE_KEYS = frozenset({"room", "type", "openable", "container", "floor", "open", "states"})
_OBJECT_KEYS = frozenset({"on_top", "inside", "type", "states"})


def load_episode(data: Any, scenes: Mapping[str, Any] | None = None) -> Episode:
    """An episode from JSON (docs/partnr.md §2); ``scene`` names an entry of ``scenes``
    holding the rooms and furniture shared by several episodes."""
    d = _mapping(data, "episode")
    eid = d.get("episode_id")
    if not isinstance(eid, str) or not eid:
        raise EpisodeFormatError("episode: 'episode_id' must be a non-empty string")
    where = f"episode {eid}"
    # the evaluation sits under "evaluation" or, as in the dataset, beside the episode keys
    inline = "evaluation" not in d
    _mapping(d, where, EPISODE_KEYS | EVALUATION_KEYS if inline else EPISODE_KEYS)
    house: dict[str, Any] = {}
    if "scene" in d:
        if scenes is None or d["scene"] not in scenes:
            raise EpisodeFormatError(f"{where}: unknown scene {d['scene']!r}")
        house.update(_mapping(scenes[d["scene"]], f"scene {d['scene']}", _SCENE_KEYS))
    house.update({k: d[k] for k in ("rooms", "furniture") if k in d})
    rooms = _names(house.get("rooms"), f"{where}: rooms")
    furniture = dict(_mapping(house.get("furniture", {}), f"{where}: furniture"))
    objects = dict(_mapping(d.get("objects", {}), f"{where}: objects"))
    raw_agents = d.get("agents", {"agent_0": ROBOT, "agent_1": HUMAN})
    agents: dict[str, str] = {}
    for a, spec in _mapping(raw_agents, f"{where}: agents").items():
        if isinstance(spec, Mapping):
            kind = _mapping(spec, f"{where}: agent {a}", frozenset({"kind"})).get("kind")
        else:
            kind = spec
        if kind not in ABILITIES:
            raise EpisodeFormatError(f"{where}: agent {a} must be 'robot' or 'human'")
        agents[a] = kind
    seen: set[str] = set()
    for n in (*rooms, *furniture, *objects, *agents):
        if n in seen:
            raise EpisodeFormatError(f"{where}: {n!r} is declared twice")
        seen.add(n)
    state: set[Atom] = set()
    static: set[Atom] = set()
    for f, raw_f in furniture.items():
        spec = _mapping(raw_f, f"{where}: furniture {f}", _FURNITURE_KEYS)
        room = spec.get("room")
        if room not in rooms:
            raise EpisodeFormatError(f"{where}: furniture {f} is in unknown room {room!r}")
        state.add(atom("in_room", f, room))
        for prop in ("openable", "container", "floor"):
            if spec.get(prop, spec.get("type") == "floor" if prop == "floor" else False):
                static.add(atom(prop, f))
        if spec.get("open"):
            state.add(atom("is_open", f))
        _states(spec, f, state, static, where)
    for o, raw_o in objects.items():
        spec = _mapping(raw_o, f"{where}: object {o}", _OBJECT_KEYS)
        places = [k for k in ("on_top", "inside") if k in spec]
        if len(places) != 1:
            raise EpisodeFormatError(f"{where}: object {o} needs exactly one of on_top / inside")
        rel = places[0]
        f = spec[rel]
        if f not in furniture:
            raise EpisodeFormatError(f"{where}: object {o} is {rel} unknown furniture {f!r}")
        state.add(atom(rel, o, f))
        state.add(atom("in_room", o, furniture[f]["room"]))
        if atom("floor", f) in static:
            state.add(atom("on_floor", o))
        _states(spec, o, state, static, where)
    for pair in d.get("next_to", []):
        if not (isinstance(pair, list) and len(pair) == 2 and pair[0] != pair[1]):
            raise EpisodeFormatError(f"{where}: next_to entries are pairs of distinct names")
        for n in pair:
            if n not in furniture and n not in objects:
                raise EpisodeFormatError(f"{where}: next_to names unknown entity {n!r}")
        state.add(atom("next_to", pair[0], pair[1]))
    starts = _mapping(d.get("start", {}), f"{where}: start")
    for a, kind in agents.items():
        state.add(atom("free", a))
        static.update(atom(ab, a) for ab in ABILITIES[kind])
        room = starts.get(a, rooms[0] if rooms else None)
        if room not in rooms:
            raise EpisodeFormatError(f"{where}: agent {a} starts in unknown room {room!r}")
        state.add(atom("agent_in", a, room))
        state.add(atom("at", a, room))
    types = d.get("task_types", [])
    if not isinstance(types, list) or any(t not in TASK_TYPES for t in types):
        raise EpisodeFormatError(f"{where}: task_types must be a subset of {TASK_TYPES}")
    evaluation = parse_evaluation(
        {k: v for k, v in d.items() if k in EVALUATION_KEYS} if inline else d["evaluation"]
    )
    ep = Episode(
        eid, str(d.get("instruction", "")), tuple(types), tuple(rooms), furniture, objects,
        agents, frozenset(state), frozenset(static), evaluation,
    )  # fmt: skip
    _check_entities(ep)
    return ep


def _states(
    spec: Mapping[str, Any], name: str, state: set[Atom], static: set[Atom], where: str
) -> None:
    """Object states: ``"states": {"clean": false, ...}`` gives the affordance and the
    initial value; the reference defaults are clean = filled = powered_on = False."""
    raw = _mapping(spec.get("states", {}), f"{where}: {name} states")
    for key, value in raw.items():
        aff = {"clean": "cleanable", "filled": "fillable", "powered_on": "powerable"}.get(key)
        if aff is None or not isinstance(value, bool):
            raise EpisodeFormatError(
                f"{where}: {name} states take clean / filled / powered_on as true or false"
            )
        static.add(atom(aff, name))
        if value:
            state.add(atom(key, name))


def _check_entities(ep: Episode) -> None:
    """The paper's "pack & verify in sim": every entity named by the evaluation exists,
    rooms are rooms, and state predicates name entities that have the state."""
    need = {"cleanable": ("is_clean", "is_dirty"), "fillable": ("is_filled", "is_empty"),
            "powerable": ("is_powered_on", "is_powered_off")}  # fmt: skip
    for i, p in enumerate(ep.evaluation.propositions):
        for k, group in enumerate(p.groups):
            for e in group:
                kind = ep.entity_type(e)
                if kind is None or kind == "agent":
                    raise EpisodeFormatError(
                        f"episode {ep.episode_id}: proposition {i} names unknown entity {e!r}"
                    )
                if (p.function == "is_in_room" and k == 1) != (kind == "room"):
                    raise EpisodeFormatError(
                        f"episode {ep.episode_id}: proposition {i} uses {kind} {e!r} where "
                        + ("a room" if k == 1 and p.function == "is_in_room" else "an entity")
                        + " is expected"
                    )
        for aff, fns in need.items():
            if p.function in fns:
                for e in p.groups[0]:
                    if atom(aff, e) not in ep.static:
                        raise EpisodeFormatError(
                            f"episode {ep.episode_id}: {p.function} on {e}, which has no "
                            f"{aff.removesuffix('able')} state"
                        )


def load_episodes(data: Any) -> list[Episode]:
    """``{"scenes": {...}, "episodes": [...]}`` or a bare list of episodes."""
    if isinstance(data, list):
        return [load_episode(e) for e in data]
    d = _mapping(data, "episodes file", frozenset({"scenes", "episodes"}))
    eps = d.get("episodes")
    if not isinstance(eps, list):
        raise EpisodeFormatError("episodes file: 'episodes' must be a list")
    scenes = _mapping(d.get("scenes", {}), "scenes")
    out = [load_episode(e, scenes) for e in eps]
    ids = [e.episode_id for e in out]
    if len(set(ids)) != len(ids):
        raise EpisodeFormatError("episodes file: duplicate episode_id")
    return out


# --- plans -----------------------------------------------------------------------------

_SKILL = re.compile(r"^\s*([A-Za-z_]+)\s*\[(.*)\]\s*$", re.DOTALL)
_SKILL_NAMES = {
    "navigate": "navigate", "explore": "explore", "pick": "pick", "open": "open",
    "close": "close", "clean": "clean", "fill": "fill", "pour": "pour",
    "poweron": "power_on", "poweroff": "power_off", "wait": "wait", "done": "done",
    "place": "place", "rearrange": "rearrange",
}  # fmt: skip


def parse_skill(text: str, agent: str) -> Action:
    """``Place[cup_1, on, table_1, next_to, plate_1]`` said by ``agent`` → the action
    ``place_on_next_to(agent, cup_1, table_1, plate_1)``; raises :class:`PlanFormatError`
    if the text is not a skill call."""
    if not isinstance(text, str) or len(text) > 1000:
        raise PlanFormatError(f"an action must be a short string like Pick[cup_1], got {text!r}")
    m = _SKILL.match(text)
    if m is None:
        raise PlanFormatError(f"{text!r} is not a skill call like Navigate[table_1]")
    raw_name, body = m.group(1), m.group(2)
    args = [a.strip() for a in body.split(",")] if body.strip() else []
    name = _SKILL_NAMES.get(raw_name.lower().replace("_", ""), raw_name.lower())
    if name in ("place", "rearrange"):
        if len(args) == 5 and args[3].lower() in ("none", "") and args[4].lower() in ("none", ""):
            args = args[:3]
        if len(args) == 5 and args[3].lower() == "next_to":
            return Action(f"{name}_{args[1].lower()}_next_to", (agent, args[0], args[2], args[4]))
        if len(args) == 3:
            return Action(f"{name}_{args[1].lower()}", (agent, args[0], args[2]))
        raise PlanFormatError(
            f"{text!r}: {raw_name} takes [object, on|within, furniture, next_to|None, ref|None]"
        )
    return Action(name, (agent, *args))


@dataclass(frozen=True)
class MultiReplay:
    """A two-agent plan replayed: the core's replay of the interleaved actions, plus who
    did each action and in which round."""

    replay: Replay
    actions: tuple[Action, ...]
    agents: tuple[str, ...]
    rounds: tuple[int, ...]

    @property
    def states(self) -> tuple[State, ...]:
        return self.replay.trace.states


def interleave(
    plans: Mapping[str, Sequence[str]], order: Sequence[str]
) -> list[tuple[int, str, str]]:
    """(round, agent, skill text) in execution order: round ``k`` runs every agent's
    ``k``-th action, agents in ``order``."""
    for a, acts in plans.items():
        if not isinstance(acts, list | tuple) or not all(isinstance(x, str) for x in acts):
            raise PlanFormatError(f"plan of {a} must be a list of skill strings")
    longest = max((len(v) for v in plans.values()), default=0)
    out: list[tuple[int, str, str]] = []
    for k in range(longest):
        for a in (*order, *sorted(set(plans) - set(order))):
            acts = plans.get(a, ())
            if k < len(acts):
                out.append((k, a, acts[k]))
    return out


def run_plan(episode: Episode, plans: Mapping[str, Sequence[str]]) -> MultiReplay:
    """Replay a multi-agent plan through the generic core. A skill text that is not a
    call is a parsing error at its index, and nothing runs (as for grammar errors)."""
    world = episode.world()
    steps = interleave(plans, list(episode.agents))
    actions: list[Action] = []
    for i, (_, agent, text) in enumerate(steps):
        try:
            actions.append(parse_skill(text, agent))
        except PlanFormatError as err:
            parse_error = StepError(i, None, ErrorKind.PARSING, str(err))
            empty = Replay(Trace((episode.initial,)), (), parse_error, (), len(steps))
            return MultiReplay(empty, (), (), ())
    rep = replay(world, episode.initial, actions)
    return MultiReplay(
        rep, tuple(actions), tuple(a for _, a, _ in steps), tuple(k for k, _, _ in steps)
    )
