"""The reference executor's tests, in its order, on planproof's VirtualHome states: the
"reference reading" of action sequencing (``docs/action-sequencing.md``, "The reference
executor").

virtualhome-eval 0.1.1's EvolvingGraph executors (``simulation/evolving_graph/
execution.py``, read, not imported) test an action's conditions one at a time and report
the *first* that fails, with its own error code: ``missing`` (with the preconditions it
names, for its temporal-order checker), ``afford`` or ``satisfied`` (an additional step).
planproof's operators test one precondition formula and classify its failure afterwards
(static part false: affordance; effects already hold: additional step; ...), so the two
name different errors where several conditions fail at once (``TYPE`` of a lamp from
afar: not close first, a missing step there, an affordance error in planproof). This module
is the table of those tests, per action, over planproof's atoms (:data:`CHECKS`); the
effects of an action that passes them stay planproof's operator's, with the walk and grab
rules of :data:`EXECUTOR_RULES` (:func:`replay_reference_executor`).

The temporal-order checker (``checker.py``) is re-implemented in :func:`held_before`: a
missing step becomes a wrong order when the named preconditions held in a state of the
run so far, *the current one included*, tested on the graph's own edges (no loose rule)
with its substring test on relation names (``HOLDS`` matches either hand).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from planproof.ltl.ast import Atom, Const

CHARACTER = "character.65"

Precond = tuple[bool, str, str, str | None]
"""A precondition the executor names when it reports a missing step: (negated, relation or
state, subject, object or None), e.g. ``(False, "CLOSE", "character.65", "cup.1")``,
``(True, "HOLDS", "character.65", None)`` (holds nothing), ``(False, "OPEN", "box.2",
None)`` (a node state)."""


@dataclass(frozen=True)
class Failure:
    """The first test of the executor that fails: its code (``missing``, ``afford``,
    ``satisfied``), the preconditions it names and how they combine (``and``, ``or`` or
    None: only the first is read)."""

    code: str
    preconds: tuple[Precond, ...] = ()
    connective: str | None = None


EDGE_PREDICATES: Mapping[str, tuple[str, ...]] = {
    "CLOSE": ("next_to", "obj_next_to"),
    "HOLDS": ("holds_rh", "holds_lh"),
    "FACING": ("facing", "obj_facing"),
    "ON": ("ontop",),
}
"""planproof's predicates for the graph edges the executor names (the checker's relation
test is a substring test: ``HOLDS`` is either hand)."""
NODE_STATES: Mapping[str, str] = {"OPEN": "open", "SITTING": "sitting", "LYING": "lying"}


class Scene:
    """One state of one task, with the executor's node tests (properties are static facts
    of the task's world; a class name is the object's name before its id)."""

    def __init__(self, state: frozenset[Atom], static: frozenset[Atom]) -> None:
        self.state = state
        self.static = static
        self.c = Const(CHARACTER)

    def has(self, pred: str, *args: str) -> bool:
        atom = Atom(pred, tuple(Const(a) for a in args))
        return atom in self.state or atom in self.static

    def own(self, pred: str, o: str) -> bool:
        """``o`` has the property in the scene graph itself, not only by one of the class-name
        exceptions planproof folds into properties (``CLASS_PROPERTIES``: a desk can be
        opened, hands are a recipient): those are one executor's exceptions, and the others
        read the graph's property (``PUTIN`` into a desk needs no opening; a ``DRINK`` from
        the hands is not afforded)."""
        from planproof.simulators.virtualhome.convert import CLASS_PROPERTIES

        return self.has(pred, o) and pred not in CLASS_PROPERTIES.get(class_name(o), ())

    def targets(self, pred: str, subject: str) -> list[str]:
        """Every ``x`` with ``pred(subject, x)``."""
        return [
            a.args[1].name
            for a in self.state
            if a.pred == pred and len(a.args) == 2 and a.args[0].name == subject
        ]

    def close(self, o: str) -> bool:
        """``_is_character_close_to``: a CLOSE edge to ``o``, or to a node that is close to
        ``o`` or that ``o`` is on. Every CLOSE edge of the character has its reverse, so
        the character itself is close once it is close to anything."""
        c = CHARACTER
        if self.has("next_to", c, o) or self.holding(o):
            return True
        near = self.targets("next_to", c)
        if o == c:
            return bool(near)
        return any(self.has("obj_next_to", n, o) or self.has("ontop", o, n) for n in near)

    def facing(self, o: str) -> bool:
        c = CHARACTER
        return self.has("facing", c, o) or any(
            self.has("obj_facing", n, o) for n in self.targets("facing", c)
        )

    def holding(self, o: str) -> bool:
        return self.has("holds_rh", CHARACTER, o) or self.has("holds_lh", CHARACTER, o)

    def held(self) -> list[str]:
        return self.targets("holds_rh", CHARACTER) + self.targets("holds_lh", CHARACTER)

    def free_hand(self) -> bool:
        c = CHARACTER
        return not (self.targets("holds_rh", c) and self.targets("holds_lh", c))

    def inside_closed(self, o: str) -> bool:
        """``_is_inside``: inside a closed node that is not a room."""
        return any(
            self.has("closed", x) and not self.has("room", x) for x in self.targets("inside", o)
        )

    def room(self, o: str) -> str | None:
        if self.has("room", o):
            return o
        seen: set[str] = set()
        while o not in seen:
            seen.add(o)
            inside = self.targets("inside", o)
            rooms = [x for x in inside if self.has("room", x)]
            if rooms:
                return rooms[0]
            if not inside:
                return None
            o = inside[0]
        return None

    def posture(self) -> bool:
        return self.has("sitting", CHARACTER) or self.has("lying", CHARACTER)


def class_name(o: str) -> str:
    return o.rsplit(".", 1)[0]


def _missing(rel: str, o: str | None, *, negate: bool = False, subject: str = CHARACTER) -> Failure:
    return Failure("missing", ((negate, rel, subject, o),))


_AFFORD = Failure("afford")
_SATISFIED = Failure("satisfied")
_NO_FREE_HAND = Failure("missing", ((True, "HOLDS", CHARACTER, None),), "or")


def _near(s: Scene, o: str) -> Failure | None:
    return None if s.close(o) else _missing("CLOSE", o)


def _walk(s: Scene, args: Sequence[str]) -> Failure | None:
    if s.posture():
        return Failure(
            "missing",
            ((True, "SITTING", CHARACTER, None), (True, "LYING", CHARACTER, None)),
            "and",
        )
    return None


def _find(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if s.has("ontop", o, CHARACTER) or s.has("body_part", o) or s.close(o):
        return _near(s, o)
    return _walk(s, args)


def _seat(prop: str, posture: str) -> Callable[[Scene, Sequence[str]], Failure | None]:
    def check(s: Scene, args: Sequence[str]) -> Failure | None:
        o = args[0]
        if not s.close(o):
            return _missing("CLOSE", o)
        if s.has(posture, CHARACTER):
            return _SATISFIED
        return None if s.has(prop, o) else _AFFORD

    return check


def _standup(s: Scene, args: Sequence[str]) -> Failure | None:
    return None if s.posture() else _SATISFIED


def _put(inside: bool) -> Callable[[Scene, Sequence[str]], Failure | None]:
    def check(s: Scene, args: Sequence[str]) -> Failure | None:
        o, d = args
        if not s.holding(o):
            return _missing("HOLDS", o)
        if not s.close(d):
            return _missing("CLOSE", d)
        if inside and s.own("can_open", d) and not s.has("open", d):
            return _AFFORD
        return None

    return check


def _toggle(
    prop: str, before: str, blocked_by: str | None = None, *, hand: bool = False
) -> Callable[[Scene, Sequence[str]], Failure | None]:
    """``OPEN``/``CLOSE``, ``SWITCHON``/``SWITCHOFF``, ``PLUGIN``/``PLUGOUT``: the property
    (affordance), close to it, a free hand (``OPEN``, the plugs), then already done when
    the state ``before`` does not hold or ``blocked_by`` does (opening what is on,
    switching on what is unplugged, unplugging what is on)."""

    def check(s: Scene, args: Sequence[str]) -> Failure | None:
        o = args[0]
        if not s.has(prop, o):
            return _AFFORD
        if not s.close(o):
            return _missing("CLOSE", o)
        if hand and not s.free_hand():
            return _NO_FREE_HAND
        if not s.has(before, o) or (blocked_by is not None and s.has(blocked_by, o)):
            return _SATISFIED
        return None

    return check


def _held_with(prop: str | None) -> Callable[[Scene, Sequence[str]], Failure | None]:
    """``PUTON`` / ``DROP``: held first, then (``PUTON``) the property."""

    def check(s: Scene, args: Sequence[str]) -> Failure | None:
        o = args[0]
        if not s.holding(o):
            return _missing("HOLDS", o)
        return None if prop is None or s.has(prop, o) else _AFFORD

    return check


def _prop_then_held(*props: str) -> Callable[[Scene, Sequence[str]], Failure | None]:
    """``DRINK`` / ``READ``: the property first, then held."""

    def check(s: Scene, args: Sequence[str]) -> Failure | None:
        o = args[0]
        if not any(s.own(p, o) for p in props):
            return _AFFORD
        return None if s.holding(o) else _missing("HOLDS", o)

    return check


def _putoff(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.has("ontop", o, CHARACTER):
        return _missing("ON", CHARACTER, subject=o)
    return None if s.has("clothes", o) else _AFFORD


def _lookat(s: Scene, args: Sequence[str]) -> Failure | None:
    return None if s.facing(args[0]) else _missing("FACING", args[0])


def _wipe(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.close(o):
        return _missing("CLOSE", o)
    if not s.held():
        return Failure("missing", ((False, "HOLDS", CHARACTER, None),), "or")
    return None


def _touch(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.close(o):
        return _missing("CLOSE", o)
    return _missing("OPEN", None, subject=o) if s.inside_closed(o) else None


def _pour(s: Scene, args: Sequence[str]) -> Failure | None:
    o, d = args
    if not (s.has("pourable", o) or s.has("drinkable", o)):
        return _AFFORD
    if not (s.has("recipient", d) or class_name(d) in ("hands_both", "sponge", "face")):
        return _AFFORD
    if not s.holding(o):
        return _missing("HOLDS", o)
    return None if s.close(d) else _missing("CLOSE", d)


def _type(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.close(o):
        return _missing("CLOSE", o)
    if s.has("keyboard", o) or class_name(o) == "keyboard":
        return None
    return None if s.has("has_switch", o) else _AFFORD


def _watch(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.has("lookable", o):
        return _AFFORD
    if s.room(o) != s.room(CHARACTER):
        return _AFFORD
    if not s.facing(o):
        return _missing("FACING", o)
    if class_name(o) != "computer" and s.posture() and not s.has("facing", CHARACTER, o):
        return _missing("FACING", o)
    return _missing("OPEN", None, subject=o) if s.inside_closed(o) else None


def _move(push: bool) -> Callable[[Scene, Sequence[str]], Failure | None]:
    def check(s: Scene, args: Sequence[str]) -> Failure | None:
        o = args[0]
        name = class_name(o)
        if not (s.has("movable", o) or push or name in ("button", "chair", "curtain")):
            return _AFFORD
        return _in_reach_with_a_hand(s, o)

    return check


def _wash(s: Scene, args: Sequence[str]) -> Failure | None:
    return _near(s, args[0])


def _squeeze(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.free_hand():
        return _NO_FREE_HAND
    if not s.close(o):
        return _missing("CLOSE", o)
    return None if s.has("clothes", o) or s.has("squeezable", o) else _AFFORD


def _cut(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.free_hand():
        return _NO_FREE_HAND
    if not s.close(o):
        return _missing("CLOSE", o)
    if not (s.has("eatable", o) and s.has("cuttable", o)):
        return _AFFORD
    if not any(s.has("knife", h) or "knife" in class_name(h) for h in s.held()):
        return Failure("missing")
    return None


def _eat(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    if not s.close(o):
        return _missing("CLOSE", o)
    if s.has("eatable", o):
        return None
    on_it = [a.args[0].name for a in s.state if a.pred == "ontop" and a.args[1].name == o]
    return None if any(s.has("eatable", x) for x in on_it) else _AFFORD


def _rest(s: Scene, args: Sequence[str]) -> Failure | None:
    if s.posture():
        return None
    return Failure(
        "missing", ((False, "LYING", CHARACTER, None), (False, "SITTING", CHARACTER, None))
    )


def _greet(s: Scene, args: Sequence[str]) -> Failure | None:
    return None if s.has("person", args[0]) else _AFFORD


def _always(s: Scene, args: Sequence[str]) -> Failure | None:
    return None


CHECKS: Mapping[str, Callable[[Scene, Sequence[str]], Failure | None]] = {
    "WALK": _walk,
    "RUN": _walk,
    "FIND": _find,
    "SIT": _seat("sittable", "sitting"),
    "LIE": _seat("lieable", "lying"),
    "STANDUP": _standup,
    "OPEN": _toggle("can_open", "closed", "on", hand=True),
    "CLOSE": _toggle("can_open", "open"),
    "PUTBACK": _put(False),
    "PUTIN": _put(True),
    "SWITCHON": _toggle("has_switch", "off", "plugged_out"),
    "SWITCHOFF": _toggle("has_switch", "on"),
    "DRINK": _prop_then_held("drinkable", "recipient"),
    "TURNTO": _always,
    "LOOKAT": _lookat,
    "LOOKAT_MEDIUM": _lookat,
    "POINTAT": _lookat,
    "WIPE": _wipe,
    "PUTON": _held_with("clothes"),
    "PUTOFF": _putoff,
    "GREET": _greet,
    "DROP": _held_with(None),
    "RELEASE": _held_with(None),
    "READ": _prop_then_held("readable"),
    "TOUCH": _touch,
    "POUR": _pour,
    "TYPE": _type,
    "WATCH": _watch,
    "PUSH": _move(True),
    "PULL": _move(False),
    "MOVE": _move(False),
    "RINSE": _wash,
    "WASH": _wash,
    "SCRUB": _wash,
    "SQUEEZE": _squeeze,
    "PLUGIN": _toggle("has_plug", "plugged_out", hand=True),
    "PLUGOUT": _toggle("has_plug", "plugged_in", "on", hand=True),
    "CUT": _cut,
    "EAT": _eat,
    "SLEEP": _rest,
    "WAKEUP": _rest,
}


def held_before(failure: Failure, states: Sequence[frozenset[Atom]]) -> bool:
    """The temporal-order checker: do the preconditions a missing step names hold (or,
    negated, fail) in some state of the run so far, the current one included? Combined by
    the failure's connective; without one only the first is read (none: not found)."""

    def holds(pre: Precond, state: frozenset[Atom]) -> bool:
        _, rel, subject, obj = pre
        if rel in NODE_STATES:
            return Atom(NODE_STATES[rel], (Const(subject),)) in state
        preds = EDGE_PREDICATES.get(rel, ())
        if subject == CHARACTER and rel != "ON":
            preds = tuple(p for p in preds if not p.startswith("obj_"))
        elif rel != "ON":
            preds = tuple(p for p in preds if p.startswith("obj_"))
        return any(
            a.pred in preds and a.args[0].name == subject and (obj is None or a.args[1].name == obj)
            for a in state
            if len(a.args) == 2
        )

    found = [any(holds(p, s) != p[0] for s in states) for p in failure.preconds]
    if not found:
        return False
    if failure.connective == "and":
        return all(found)
    if failure.connective == "or":
        return any(found)
    return found[0]


GRAB_FROM = ("ontop", "inside", "obj_next_to")
"""Where ``GrabExecutor`` remembers a grabbed object came from: the first node it was on,
else in, else close to (never a room)."""


def _node_id(name: str) -> int:
    tail = name.rsplit(".", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def grabbed_from(scene: Scene, o: str) -> tuple[str, str] | None:
    """(relation, node) the executor remembers for a grab of ``o``: the first node of its
    ON, else INSIDE, else CLOSE edges that is not a room. The executor reads a relation's
    targets from a Python ``set`` of node ids, so "first" is that set's iteration order
    (ids inserted as the executor does: the edges added while running, such as the
    character's own CLOSE edge from a walk, before the scene's); and the character, close
    to ``o``, is one of ``o``'s CLOSE targets (every CLOSE edge has its reverse)."""
    for pred in GRAB_FROM:
        found = sorted(
            (x for x in scene.targets(pred, o) if not scene.has("room", x) and x != o),
            key=_node_id,
        )
        if pred == "obj_next_to" and scene.has("next_to", CHARACTER, o):
            found.insert(0, CHARACTER)
        if found:
            # set(...) of the ids in insertion order, iterated as the executor iterates it
            first = next(iter({_node_id(x) for x in found}))
            return pred, next(x for x in found if _node_id(x) == first)
    return None


EXECUTOR_RULES = ("check-order", "walk-closeness", "grab-closeness", "grab-memory")
"""The reference executor's rules applied on planproof's simulator, each a ``simulator:*``
class of the corrections (the table switches them off one at a time to name the rule
behind a verdict): its tests in its order with its error codes and its temporal-order
checker (``check-order``); a walk also makes the character close to the containers of its
target and to every body part (``walk-closeness``); a grab makes it close to the first node
the object came from only (``grab-closeness``); a grab of an object grabbed before and not
put down since is an additional step, and ``PUTOBJBACK`` puts it back there
(``grab-memory``)."""


def replay_reference_executor(
    task: object,
    actions: Sequence[object],
    rules: Sequence[str] = EXECUTOR_RULES,
    *,
    start: frozenset[Atom] | None = None,
    history: Sequence[frozenset[Atom]] = (),
    memory: dict[str, tuple[str, str]] | None = None,
) -> tuple[frozenset[Atom], list[int], int, str | None]:
    """Replay ``actions`` as the reference's executor runs them, on planproof's states:
    (final state, indices of the executed steps, additional steps, error type or None).
    An action that passes the executor's tests takes planproof's operator's effects (as
    the executor's, whatever planproof's own precondition says), with the walk and grab
    differences of :data:`EXECUTOR_RULES`. ``start``: the state to replay from (the
    task's initial state by default), ``history`` the states before it (the temporal-order
    checker reads them), ``memory`` the executor's record of grabbed objects (object →
    (relation, node)), updated in place: a caller that replays a plan in pieces passes the
    same one each time."""
    from planproof.simulators.core import StepError

    world = task.world  # type: ignore[attr-defined]
    static: frozenset[Atom] = world.static
    body_parts = tuple(a.args[0].name for a in static if a.pred == "body_part")
    state: frozenset[Atom] = task.initial if start is None else start  # type: ignore[attr-defined]
    states = [*history, state]
    memory = {} if memory is None else memory
    done: list[int] = []
    additional = 0
    ordered = "check-order" in rules
    for i, action in enumerate(actions):
        name, args = action.name, tuple(action.args)  # type: ignore[attr-defined]
        bound = world.bind(action, i)
        if isinstance(bound, StepError):
            return state, done, additional, "missing_step"
        scene = Scene(state, static)
        failure: Failure | None
        if name == "GRAB" and "grab-memory" in rules and args[0] in memory:
            failure = _SATISFIED if scene.has("grabbable", args[0]) else _AFFORD
        elif name == "PUTOBJBACK" and "grab-memory" in rules:
            back = memory.get(args[0])
            failure = (
                Failure("missing")
                if back is None
                else _put(back[0] == "inside")(scene, (args[0], back[1]))
            )
        elif ordered and name == "GRAB":
            failure = _grab(scene, args)
        elif ordered and name in CHECKS:
            failure = CHECKS[name](scene, args)
        else:
            failure = (
                None if world.precondition_holds(bound, state) else _classic(world, bound, state, i)
            )
        if failure is not None:
            if failure.code == "satisfied":
                additional += 1
                continue
            if failure.code == "afford":
                return state, done, additional, "affordance"
            if ordered:
                order = held_before(failure, states)
            else:
                order = any(world.precondition_holds(bound, s) for s in states[:-1])
            return state, done, additional, "wrong_order" if order else "missing_step"
        adds, dels, _ = world.effects(bound, state)
        nxt = (state - dels) | adds
        c = Const(CHARACTER)
        if name in ("WALK", "RUN", "FIND") and "walk-closeness" in rules:
            o = args[0]
            walked = not (
                scene.has("ontop", o, CHARACTER) or scene.has("body_part", o) or scene.close(o)
            )
            if (name != "FIND" or walked) and not scene.has("room", o):
                boxes = [x for x in scene.targets("inside", o) if not scene.has("room", x)]
                nxt = nxt | {Atom("next_to", (c, Const(x))) for x in (*boxes, *body_parts)}
                if scene.has("can_open", o) and not scene.own("can_open", o):
                    # the walk reaches what is inside an openable target by the graph's
                    # own CAN_OPEN, not OPEN's class-name exception (a desk)
                    keep = {o, *body_parts, *scene.held(), *scene.targets("ontop", o)}
                    inner = {
                        a.args[0].name for a in state if a.pred == "inside" and a.args[1].name == o
                    }
                    nxt = nxt - {Atom("next_to", (c, Const(x))) for x in inner - keep}
        if name == "GRAB":
            came = grabbed_from(scene, args[0])
            if "grab-closeness" in rules:
                keep = {args[0], *([came[1]] if came else [])}
                nxt = frozenset(
                    a
                    for a in nxt
                    if not (
                        a.pred == "next_to"
                        and a.args[0] == c
                        and a not in state
                        and a.args[1].name not in keep
                    )
                )
            if came is not None:
                memory[args[0]] = came
        elif name in ("PUTBACK", "PUTIN", "DROP", "RELEASE") and args:
            memory.pop(args[0], None)
        elif name == "PUTOBJBACK" and args[0] in memory:
            pred, dest = memory.pop(args[0])
            nxt = nxt | {
                Atom(pred, (Const(args[0]), Const(dest))),
                Atom("next_to", (c, Const(dest))),
            }
        state = nxt
        states.append(state)
        done.append(i)
    return state, done, additional, None


def _grab(s: Scene, args: Sequence[str]) -> Failure | None:
    o = args[0]
    return _in_reach_with_a_hand(s, o) if s.has("grabbable", o) else _AFFORD


def _in_reach_with_a_hand(s: Scene, o: str) -> Failure | None:
    """``GRAB`` and ``PUSH``/``PULL``/``MOVE`` after their property: close to ``o``, ``o``
    not in a closed container, a free hand."""
    if not s.close(o):
        return _missing("CLOSE", o)
    if s.inside_closed(o):
        return _missing("OPEN", None, subject=o)
    return None if s.free_hand() else _NO_FREE_HAND


def _classic(world: object, bound: object, state: frozenset[Atom], index: int) -> Failure:
    """planproof's own classification of a failing precondition, as a :class:`Failure`
    (the executor's tests switched off)."""
    from planproof.simulators.core import ErrorKind

    _, err, _ = world.transition(state, world.key_facts(state), bound, index)  # type: ignore[attr-defined]
    kind = err.kind if err is not None else None
    if kind is ErrorKind.ADDITIONAL_STEP:
        return _SATISFIED
    if kind is ErrorKind.AFFORDANCE:
        return _AFFORD
    return Failure("missing")
