"""Reading goal-interpretation responses: the EAI JSON node / edge / action form and the
LTL form, into ground literals and action goals of one task's world.

A response is untrusted text: :func:`parse_goal` never raises on it. A response that is
not a goal at all is a whole-response :class:`ResponseError` (the paper's format error);
otherwise each item is read on its own, and a malformed item (wrong shape, wrong argument
count) is a ``format`` issue while an unknown state, relation, action or object is a
``hallucination`` issue. Items with issues are left out of the matching, as in the
paper's pipeline; an issue the reference evaluator nevertheless scores as a false positive
(an unknown state or relation of known objects, any unknown action name) says so in
``counted_as``. See ``docs/goal-interpretation.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planproof.interface.errors import ResponseError
from planproof.interface.json_text import JsonObject, find_json
from planproof.ltl.ast import TRUE, Atom, Const, Formula, Literal, Not, Then, Var
from planproof.ltl.ast import And as AndF
from planproof.ltl.errors import LTLError
from planproof.ltl.parser import parse
from planproof.pddl.schema import Domain
from planproof.simulators.core import World

__all__ = [
    "GoalIssue",
    "GoalItem",
    "PredictedGoal",
    "Vocabulary",
    "parse_goal",
    "parse_goal_formula",
    "resolve_object",
    "vocabulary",
]

_NODE_KEYS = ("nodegoals", "node", "nodegoal", "stategoals")
_EDGE_KEYS = ("edgegoals", "edge", "edgegoal", "relationgoals")
_ACTION_KEYS = ("actiongoals", "actions", "actiongoal")
_LTL_KEYS = ("output", "goal", "ltl", "ltlgoal", "formula")
_RELATION_ALIASES = {"close": "next_to", "on": "ontop", "nextto": "next_to"}
"""VirtualHome's edge names in the reference prompt (``CLOSE`` is ``next_to``, the ON
edge is ``ontop``); used only when the name is not itself a relation of the world."""


@dataclass(frozen=True)
class Vocabulary:
    """What a goal may mention: unary state predicates, relations (arity ≥ 2), actions."""

    states: frozenset[str]
    relations: dict[str, int]
    actions: dict[str, int]

    def state(self, name: str) -> str | None:
        return _lookup(name, self.states)

    def relation(self, name: str) -> str | None:
        hit = _lookup(name, frozenset(self.relations))
        if hit is None:
            alias = _RELATION_ALIASES.get(_squash(name))
            hit = alias if alias in self.relations else None
        return hit

    def action(self, name: str) -> str | None:
        return _lookup(name, frozenset(self.actions))


def _squash(name: str) -> str:
    return "".join(c for c in name.strip().lower() if c.isalnum())


def _lookup(name: str, names: frozenset[str]) -> str | None:
    low = name.strip().lower()
    if low in names:
        return low
    sq = _squash(name)
    for n in names:
        if _squash(n) == sq:
            return n
    return None


_VOCABULARIES: dict[int, tuple[Domain, Vocabulary]] = {}


def _vocabulary(domain: Domain) -> Vocabulary:
    hit = _VOCABULARIES.get(id(domain))
    if hit is not None and hit[0] is domain:
        return hit[1]
    fluents = domain.fluents
    states = frozenset(p for p in fluents if len(domain.predicates[p]) == 1)
    relations = {p: len(domain.predicates[p]) for p in fluents if len(domain.predicates[p]) >= 2}
    actions = {
        name: op.arity for name, op in domain.operators.items() if name not in domain.predicates
    }
    vocab = Vocabulary(states, relations, actions)
    _VOCABULARIES[id(domain)] = (domain, vocab)
    return vocab


def vocabulary(world: World) -> Vocabulary:
    """The goal vocabulary of a world: its fluent predicates and its operators (an operator
    that is also a state predicate, like BEHAVIOR's ``open``, counts as the state)."""
    return _vocabulary(world.domain)


@dataclass(frozen=True)
class GoalIssue:
    """A predicted item left out of the matching: ``kind`` is ``format`` or
    ``hallucination``. ``counted_as`` is the goal type (``state``, ``relation``,
    ``action``) under which it still counts as one false positive, empty when it counts
    nowhere: the published evaluator drops an item only when an object name is unknown
    and scores any other item it can read, whatever its state, relation or action name."""

    kind: str
    item: str
    message: str
    counted_as: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"kind": self.kind, "item": self.item, "message": self.message}
        if self.counted_as:
            out["counted_as"] = self.counted_as
        return out


@dataclass(frozen=True)
class GoalItem:
    """One readable predicted goal. ``candidates`` holds the ground literals it may mean
    (several when a name without id fits several objects of the class; the metric picks
    one); ``kind`` is ``state``, ``relation`` or ``action``. An action goal's literal is
    the action atom (no arguments when the response names only the action)."""

    kind: str
    text: str
    candidates: tuple[Literal, ...]


@dataclass(frozen=True)
class PredictedGoal:
    """A goal-interpretation response read against one world."""

    items: tuple[GoalItem, ...] = ()
    issues: tuple[GoalIssue, ...] = ()
    notes: tuple[str, ...] = ()
    form: str = ""
    error: ResponseError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, object]:
        return {
            "form": self.form,
            "error": self.error.to_dict() if self.error else None,
            "issues": [i.to_dict() for i in self.issues],
            "notes": list(self.notes),
        }


def resolve_object(name: object, world: World) -> tuple[str, ...]:
    """The objects ``name`` may denote in ``world``: exact, alias, BDDL (``jar.n.01_1``),
    VirtualHome ``name`` / ``name_id`` forms, then every object of the class ``name``."""
    if isinstance(name, bool) or not isinstance(name, str | int):
        return ()
    s = str(name).strip()
    if not s:
        return ()
    hit = world.resolve(s)
    if hit is not None:
        return (hit,)
    if ".n." in s:
        from planproof.ltl.bddl.names import ltl_object

        try:
            hit = world.resolve(ltl_object(s))
        except (ValueError, LTLError):
            hit = None
        if hit is not None:
            return (hit,)
    base, sep, ident = s.rpartition("_")
    if sep and ident.isdigit():
        hit = world.resolve(f"{base}.{ident}")
        if hit is not None:
            return (hit,)
    low = s.lower()
    return tuple(sorted(o for o in world.universe.names if o.rpartition(".")[0].lower() == low))


def _text(value: object) -> str:
    if isinstance(value, JsonObject):
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in value.pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return str(value)


class _Builder:
    def __init__(self, world: World) -> None:
        self.world = world
        self.vocab = vocabulary(world)
        self.items: list[GoalItem] = []
        self.issues: list[GoalIssue] = []

    def issue(self, kind: str, item: object, message: str, counted_as: str = "") -> None:
        self.issues.append(GoalIssue(kind, _text(item), message, counted_as))

    def unknown_name(
        self, kind: str, what: str, name: str, args: Sequence[object], g: object
    ) -> None:
        """An unknown state / relation: a false positive when its objects are known (the
        reference then scores it), else only a hallucination (the reference drops it)."""
        known = all(resolve_object(a, self.world) for a in args)
        self.issue("hallucination", g, f"unknown {what} {name!r}", kind if known else "")

    def objects(self, raw: Sequence[object], item: object) -> list[tuple[str, ...]] | None:
        out: list[tuple[str, ...]] = []
        for r in raw:
            objs = resolve_object(r, self.world)
            if not objs:
                self.issue("hallucination", item, f"unknown object {_text(r)!r}")
                return None
            out.append(objs)
        return out

    def add(
        self, kind: str, pred: str, raw_args: Sequence[object], positive: bool, item: object
    ) -> None:
        arity = (
            1
            if kind == "state"
            else self.vocab.relations[pred]
            if kind == "relation"
            else self.vocab.actions[pred]
        )
        if kind == "action" and not raw_args:
            self.items.append(GoalItem(kind, _text(item), (Literal(Atom(pred, ())),)))
            return
        if len(raw_args) != arity:
            self.issue("format", item, f"{pred} takes {arity} argument(s), got {len(raw_args)}")
            return
        objs = self.objects(raw_args, item)
        if objs is None:
            return
        cands: list[Literal] = [Literal(Atom(pred, ()), positive)]
        for choices in objs:
            cands = [
                Literal(Atom(pred, (*c.atom.args, Const(o))), positive)
                for c in cands
                for o in choices
            ][:64]
        self.items.append(GoalItem(kind, _text(item), tuple(cands)))

    # -- JSON form ------------------------------------------------------------------

    def node(self, g: object) -> None:
        positive = True
        if isinstance(g, list) and len(g) == 2 and _is_not(g[0]):
            positive, g = False, g[1]
        if isinstance(g, JsonObject):
            name, state = g.get("name"), g.get("state")
            if name is None or not isinstance(state, str):
                self.issue("format", g, "a node goal needs 'name' and 'state'")
                return
            args: list[object] = [name]
        elif isinstance(g, list) and g and isinstance(g[0], str):
            state, args = g[0], list(g[1:])
        else:
            self.issue("format", g, "a node goal is {'name', 'state'} or [state, object]")
            return
        if state.lower().startswith("not ") or state.lower().startswith("not_"):
            positive, state = not positive, state[4:]
        pred = self.vocab.state(state)
        if pred is None:
            self.unknown_name("state", "state", state, args, g)
            return
        self.add("state", pred, args, positive, g)

    def edge(self, g: object) -> None:
        positive = True
        if isinstance(g, list) and len(g) == 2 and _is_not(g[0]):
            positive, g = False, g[1]
        if isinstance(g, JsonObject):
            rel, a, b = g.get("relation"), g.get("from_name"), g.get("to_name")
            if not isinstance(rel, str) or a is None or b is None:
                self.issue("format", g, "an edge goal needs 'from_name', 'relation', 'to_name'")
                return
            args: list[object] = [a, b]
        elif isinstance(g, list) and g and isinstance(g[0], str):
            rel, args = g[0], list(g[1:])
        else:
            self.issue("format", g, "an edge goal is {'from_name', ...} or [relation, a, b]")
            return
        pred = self.vocab.relation(rel)
        if pred is None:
            self.unknown_name("relation", "relation", rel, args, g)
            return
        self.add("relation", pred, args, positive, g)

    def action(self, g: object) -> None:
        if isinstance(g, JsonObject):
            name = g.get("action")
            raw = g.get("args") or g.get("object") or g.get("objects")
            args: list[object] = (
                raw if isinstance(raw, list) else [raw] if isinstance(raw, str) and raw else []
            )
        elif isinstance(g, str):
            name, args = g, []
        elif isinstance(g, list) and g and isinstance(g[0], str):
            name, args = g[0], list(g[1:])
        else:
            name, args = None, []
        if not isinstance(name, str):
            self.issue("format", g, "an action goal is {'action': NAME} or a name")
            return
        pred = self.vocab.action(name)
        if pred is None:
            self.issue("hallucination", g, f"unknown action {name!r}", "action")
            return
        self.add("action", pred, args, True, g)

    # -- LTL form -------------------------------------------------------------------

    def formula(self, f: Formula) -> None:
        parts = list(f.children) if isinstance(f, Then) else [f]
        for i, part in enumerate(parts):
            for c in part.children if isinstance(part, AndF) else (part,):
                self.literal(c, last=i == len(parts) - 1)

    def literal(self, f: Formula, *, last: bool) -> None:
        from planproof.ltl.printer import to_text

        positive = True
        g = f
        if g == TRUE:
            return
        if isinstance(g, Not):
            positive, g = False, g.body
        if not isinstance(g, Atom) or any(isinstance(a, Var) for a in g.args):
            self.issue("format", to_text(f), "not a literal of a simple goal")
            return
        args = [a.name for a in g.args]
        if len(args) == 1 and (pred := self.vocab.state(g.pred)) is not None and last:
            self.add("state", pred, args, positive, to_text(f))
        elif (pred := self.vocab.action(g.pred)) is not None and positive:
            self.add("action", pred, args, True, to_text(f))
        elif (pred := self.vocab.state(g.pred)) is not None and len(args) == 1:
            self.add("state", pred, args, positive, to_text(f))
        elif (pred := self.vocab.relation(g.pred)) is not None:
            self.add("relation", pred, args, positive, to_text(f))
        elif self.vocab.state(g.pred) is not None:
            self.add("state", self.vocab.state(g.pred) or g.pred, args, positive, to_text(f))
        else:
            self.issue("hallucination", to_text(f), f"unknown predicate {g.pred!r}")


def _is_not(x: object) -> bool:
    return isinstance(x, str) and x.strip().lower() == "not"


def _goal_shaped(v: object) -> bool:
    if not isinstance(v, JsonObject):
        return False
    if any(v.get(k) is not None for k in (*_NODE_KEYS, *_EDGE_KEYS, *_ACTION_KEYS)):
        return True
    return any(isinstance(v.get(k), str) for k in _LTL_KEYS)


def _as_list(v: object) -> list[object]:
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def parse_goal_formula(f: Formula, world: World, *, form: str = "ltl") -> PredictedGoal:
    """A goal already parsed as LTL, read as a simple goal of ``world``."""
    b = _Builder(world)
    b.formula(f)
    return PredictedGoal(tuple(b.items), tuple(b.issues), (), form)


def _parse_ltl(text: str, world: World, notes: list[str]) -> PredictedGoal:
    try:
        f = parse(text)
    except LTLError as exc:
        return PredictedGoal(error=ResponseError(f"not a goal: {exc}"), notes=tuple(notes))
    g = parse_goal_formula(f, world)
    return PredictedGoal(g.items, g.issues, tuple(notes), "ltl")


def parse_goal(text: str, world: World) -> PredictedGoal:
    """Read a goal-interpretation response (JSON node/edge/action goals, or LTL either
    bare or as a JSON ``output`` string) against ``world``. Never raises on bad text."""
    if not isinstance(text, str):
        raise TypeError(f"parse_goal() takes a str, not {type(text).__name__}")
    found = find_json(text, _goal_shaped)
    if isinstance(found, ResponseError):
        stripped = text.strip().strip("`").strip()
        if stripped and "{" not in stripped and "[" not in stripped:
            return _parse_ltl(stripped, world, [])
        return PredictedGoal(error=found)
    obj = found.value
    assert isinstance(obj, JsonObject)
    notes = list(found.notes)
    nodes = next((obj.get(k) for k in _NODE_KEYS if obj.get(k) is not None), None)
    edges = next((obj.get(k) for k in _EDGE_KEYS if obj.get(k) is not None), None)
    acts = next((obj.get(k) for k in _ACTION_KEYS if obj.get(k) is not None), None)
    if nodes is None and edges is None and acts is None:
        ltl = next(v for k in _LTL_KEYS if isinstance(v := obj.get(k), str))
        notes.append("read the LTL goal in the JSON 'output' member")
        return _parse_ltl(ltl, world, notes)
    b = _Builder(world)
    for g in _as_list(nodes):
        b.node(g)
    for g in _as_list(edges):
        b.edge(g)
    for g in _as_list(acts):
        b.action(g)
    unknown = [
        k
        for k in obj.names()
        if _squash(k) not in {*_NODE_KEYS, *_EDGE_KEYS, *_ACTION_KEYS, *_LTL_KEYS}
    ]
    if unknown:
        notes.append(f"ignored member(s) {', '.join(map(repr, unknown[:5]))}")
    return PredictedGoal(tuple(b.items), tuple(b.issues), tuple(notes), found.form)
