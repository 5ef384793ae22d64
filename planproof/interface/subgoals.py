"""Reading subgoal-decomposition responses: ``{"output": ["subgoal", ...]}`` (each line a
boolean formula; lines, and ``then`` inside a line, give the temporal order) into ground
formulas over one task's world.

As for action plans, grammar is checked before anything runs: a response that is not a
list of formulas is a parsing error, an unknown predicate, action or object is a
hallucination, a wrong argument count an argument-count error; the first one found is
reported with the index of its subgoal. Names are resolved as the goal reader does
(aliases, BDDL names, a class name naming a single object). ``not_open(x)`` is read as
``not open(x)``. See ``docs/subgoal-decomposition.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from planproof.interface.errors import ResponseError
from planproof.interface.goals import resolve_object
from planproof.interface.json_text import JsonObject, find_json
from planproof.ltl.ast import (
    And,
    Atom,
    Bottom,
    Const,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Then,
    Top,
    walk,
)
from planproof.ltl.errors import LTLError
from planproof.ltl.parser import parse
from planproof.ltl.printer import to_text
from planproof.ltl.simplify import conj
from planproof.pddl.schema import Domain
from planproof.simulators.core import Action, ErrorKind, Task, World, replay
from planproof.simulators.core.replay import action_atom
from planproof.simulators.core.world import per_domain

__all__ = [
    "ParsedSubgoals",
    "SubgoalError",
    "parse_subgoals",
    "read_subgoal_formulas",
    "subgoals_from_plan",
]

_LIST_KEYS = ("output", "subgoals", "subgoal", "plan", "subgoalplan", "answer")


@dataclass(frozen=True)
class SubgoalError:
    """The first grammar error of a subgoal plan (``index`` is the 0-based subgoal, None
    when the response as a whole is unreadable)."""

    kind: ErrorKind
    message: str
    index: int | None = None
    subgoal: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "error_type": self.kind.value,
            "message": self.message,
            "subgoal_index": self.index,
            "subgoal": self.subgoal,
        }


@dataclass(frozen=True)
class ParsedSubgoals:
    """Ground subgoal formulas in order, or the first grammar error."""

    subgoals: tuple[Formula, ...] = ()
    error: SubgoalError | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


class _Grammar(Exception):
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _squash(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


_NAMES: dict[int, tuple[Domain, tuple[dict[str, int], dict[str, str]]]] = {}
"""Per domain: its names' arities and squashed name → name, built once per domain
instead of once per answer (3 ms each; 10,000 answers in ``reproduce eai``'s subgoal
sweep)."""


def _names(domain: Domain) -> tuple[dict[str, int], dict[str, str]]:
    def make() -> tuple[dict[str, int], dict[str, str]]:
        arity: dict[str, int] = {p: len(ts) for p, ts in domain.predicates.items()}
        for n, op in domain.operators.items():
            arity.setdefault(n, op.arity)
        return arity, {_squash(n): n for n in arity}

    return per_domain(_NAMES, domain, make)


@lru_cache(maxsize=16384)
def _parsed(line: str) -> Formula | LTLError:
    """``parse(line)`` or its error, memoised: formulas are immutable, and in a sweep the
    same subgoal lines recur across models and are read by both readings (a parse costs
    about 1 ms)."""
    try:
        return parse(line)
    except LTLError as exc:
        return exc


class _Resolver:
    def __init__(self, world: World) -> None:
        self.world = world
        self.arity, self.by_squash = _names(world.domain)

    def pred(self, name: str) -> tuple[str, bool]:
        """(predicate, negated) for a written predicate name."""
        if name in self.arity:
            return name, False
        hit = self.by_squash.get(_squash(name))
        if hit is not None:
            return hit, False
        if name.startswith("not_"):
            inner, neg = self.pred(name[4:])
            return inner, not neg
        raise _Grammar(ErrorKind.HALLUCINATION, f"unknown predicate or action {name!r}")

    def obj(self, name: str) -> str:
        objs = resolve_object(name, self.world)
        if len(objs) == 1:
            return objs[0]
        if not objs:
            raise _Grammar(ErrorKind.HALLUCINATION, f"unknown object {name!r}")
        raise _Grammar(
            ErrorKind.HALLUCINATION,
            f"{name!r} is ambiguous: {', '.join(objs[:4])}; name the object with its id",
        )

    def rewrite(self, f: Formula, bound: frozenset[str] = frozenset()) -> Formula:
        match f:
            case Atom(pred, args):
                p, neg = self.pred(pred)
                if len(args) != self.arity[p]:
                    raise _Grammar(
                        ErrorKind.ARGUMENT_COUNT,
                        f"{p} takes {self.arity[p]} argument(s), got {len(args)}",
                    )
                new = tuple(
                    a if not isinstance(a, Const) or a.name in bound else Const(self.obj(a.name))
                    for a in args
                )
                out: Formula = Atom(p, new)
                return Not(out) if neg else out
            case Top() | Bottom():
                return f
            case Not(body):
                return Not(self.rewrite(body, bound))
            case And(cs):
                return And(tuple(self.rewrite(c, bound) for c in cs))
            case Or(cs):
                return Or(tuple(self.rewrite(c, bound) for c in cs))
            case Implies(a, b):
                return Implies(self.rewrite(a, bound), self.rewrite(b, bound))
            case Forall(b, body):
                return Forall(b, self.rewrite(body, bound | {b.var}))
            case Exists(b, body):
                return Exists(b, self.rewrite(body, bound | {b.var}))
            case Then():
                raise _Grammar(ErrorKind.PARSING, "'then' nested inside a subgoal")
        raise _Grammar(
            ErrorKind.PARSING,
            f"{type(f).__name__} is not allowed in a subgoal: write concrete states",
        )


def read_subgoal_formulas(lines: list[str], world: World) -> ParsedSubgoals:
    """Subgoal lines (each an LTL formula, possibly a ``then`` chain) as ground formulas."""
    r = _Resolver(world)
    out: list[Formula] = []
    for line in lines:
        f = _parsed(line)
        if isinstance(f, LTLError):
            return ParsedSubgoals(
                error=SubgoalError(ErrorKind.PARSING, str(f), len(out), line[:200])
            )
        for part in f.children if isinstance(f, Then) else (f,):
            try:
                out.append(r.rewrite(part))
            except _Grammar as exc:
                return ParsedSubgoals(
                    error=SubgoalError(exc.kind, exc.message, len(out), to_text(part))
                )
    if not out:
        return ParsedSubgoals(error=SubgoalError(ErrorKind.PARSING, "no subgoals"))
    return ParsedSubgoals(tuple(out))


def _shaped(v: object) -> bool:
    if isinstance(v, list):
        return bool(v) and all(isinstance(x, str) for x in v)
    if isinstance(v, JsonObject):
        return any(_shaped(v.get(k)) or isinstance(v.get(k), str) for k in _LIST_KEYS)
    return False


def parse_subgoals(text: str, world: World) -> ParsedSubgoals:
    """Read a subgoal-decomposition response against ``world``. Never raises on bad text."""
    if not isinstance(text, str):
        raise TypeError(f"parse_subgoals() takes a str, not {type(text).__name__}")
    found = find_json(text, _shaped)
    notes: list[str] = []
    if isinstance(found, ResponseError):
        bare = text.strip().strip("`").strip()
        if not bare or "{" in bare or "[" in bare:
            return ParsedSubgoals(error=SubgoalError(ErrorKind.PARSING, found.message))
        lines = [bare]
        notes.append("read the response as one LTL formula")
    else:
        notes.extend(found.notes)
        v = found.value
        if isinstance(v, JsonObject):
            v = next(v.get(k) for k in _LIST_KEYS if v.get(k) is not None)
        lines = [v] if isinstance(v, str) else [str(x) for x in v] if isinstance(v, list) else []
    parsed = read_subgoal_formulas(lines, world)
    return ParsedSubgoals(parsed.subgoals, parsed.error, tuple(notes))


def subgoals_from_plan(task: Task, plan: Sequence[Action] | None = None) -> tuple[Formula, ...]:
    """A subgoal sequence derived from a plan's state trajectory (the gold plan by
    default): per executed action, the literals it changed (added atoms, ``not`` deleted
    ones), or the action itself when it changes nothing or is one of the task's action
    goals (action-only predicates only: BEHAVIOR's ``open`` is a state). Additional steps
    of the plan (actions that could not run because their effect already held) give no
    subgoal."""
    world = task.world
    run = replay(world, task.initial, task.gold if plan is None else plan)
    states = run.trace.states
    goal_actions = {a.pred for g in task.parts.actions for a in walk(g) if isinstance(a, Atom)}
    d = world.domain
    only_actions = frozenset(n for n in d.operators if n not in d.predicates)
    redundant = {w.index for w in run.warnings}
    out: list[Formula] = []
    for i, act in enumerate(run.executed):
        if i in redundant:  # an additional step of the gold plan: nothing to reach
            continue
        before, after = states[i], states[i + 1]
        lits: list[Formula] = sorted(after - before, key=to_text)
        lits += [Not(a) for a in sorted(before - after, key=to_text)]
        atom = action_atom(act)
        if (not lits or atom.pred in goal_actions) and atom.pred in only_actions:
            lits.append(atom)
        if lits:
            out.append(conj(*lits))
    return tuple(out)
