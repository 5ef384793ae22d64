"""TEACh tasks as planproof goal formulas, so LTL traces and Z3 can reason about them.

The compiled formula follows the checker's semantics (``checker`` module docstring) node
for node: ``a``/``N`` become "at least N distinct" (``not (forn 0 or ... or forn N-1)``),
``all`` a guarded ``forall``, tail ``a`` ∀x∃y and tail ``the`` ∃y∀x; containment is the
``inside(x, y)`` atom of :meth:`SymbolicState.atoms`. One formula therefore serves three
jobs: the final-state goal of a replayed trace (:func:`goal_reached`), the query "is this
task achievable over these objects?" (:func:`witness`, Z3) and comparisons between tasks
("in one Y" entails "on any Y": :func:`planproof.ltl.smt.entails`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from typing import TYPE_CHECKING

from planproof.boundary.limits import DEFAULT_RLIMIT
from planproof.ltl.ast import (
    TRUE,
    Atom,
    Binder,
    Exists,
    Forall,
    Formula,
    ForN,
    Implies,
    Not,
    Var,
)
from planproof.ltl.simplify import conj, disj
from planproof.ltl.trace import Trace
from planproof.simulators.teach.errors import TDLError
from planproof.simulators.teach.state import INSIDE, SymbolicState
from planproof.simulators.teach.tdl import (
    RELATION_PROPERTY,
    TYPE_PROPERTIES,
    AtomicComponent,
    Component,
    Relation,
    SubtaskComponent,
    Task,
    number,
)

if TYPE_CHECKING:
    from planproof.ltl.smt import SatResult

Body = Callable[[Var], Formula]


def at_least(n: int, binder: Binder, body: Formula) -> Formula:
    """At least ``n`` distinct objects of the binder's type satisfy ``body``."""
    if n <= 0:
        return TRUE
    if n == 1:
        return Exists(binder, body)
    return Not(disj(*(ForN(k, binder, body) for k in range(n))))


@dataclass(frozen=True, slots=True)
class _ObjSet:
    """The objects of a component as a typed formula with one free variable."""

    type: str | None
    body: Body


class _Compiler:
    def __init__(self) -> None:
        self._names = count()

    def fresh(self) -> Var:
        return Var(f"v{next(self._names)}")

    # object sets -------------------------------------------------------------------------

    def atomic_set(self, comp: AtomicComponent) -> _ObjSet:
        types = [(p, v) for p, v in comp.conditions if p in TYPE_PROPERTIES]
        if len(types) != 1 or types[0][0] != comp.primary_condition:
            raise TDLError(
                f"component {comp.key!r}: compilation needs exactly one type condition, "
                "and it must be the primary condition"
            )
        rest = [(p, v) for p, v in comp.conditions if p not in TYPE_PROPERTIES]

        def body(x: Var) -> Formula:
            parts: list[Formula] = []
            for p, v in rest:
                if p == RELATION_PROPERTY and isinstance(v, str):
                    parts.append(
                        Exists(Binder("c_" + x.name, v), Atom(INSIDE, (x, Var("c_" + x.name))))
                    )
                else:
                    a = Atom(p.lower(), (x,))
                    parts.append(a if v else Not(a))
            return conj(*parts) if parts else TRUE

        return _ObjSet(str(types[0][1]), body)

    def objects(self, task: Task, comp: Component) -> _ObjSet:
        if isinstance(comp, AtomicComponent):
            return self.atomic_set(comp)
        return self.anchor_set(comp.task)

    def anchor_set(self, task: Task) -> _ObjSet:
        if task.anchor is None:
            raise TDLError(f"task {task.name!r} has no anchor object")
        base = self.objects(task, task.component(task.anchor))
        goods = [r for r in task.relations if r.tail == task.anchor and r.tail_determiner == "the"]

        def body(y: Var) -> Formula:
            return conj(base.body(y), *(self.tail_good(task, r, y) for r in goods))

        return _ObjSet(base.type, body)

    def tail_good(self, task: Task, rel: Relation, y: Var) -> Formula:
        parts: list[Formula] = []
        for h, d in zip(rel.heads, rel.head_determiners, strict=True):
            if d == "0":
                continue
            hs = self.objects(task, task.component(h))
            x = self.fresh()
            inside = Atom(INSIDE, (x, y))
            if d == "all":
                parts.append(Forall(Binder(x.name, hs.type), Implies(hs.body(x), inside)))
            else:
                n = number(d, where=f"relation of {task.name}")
                parts.append(at_least(n, Binder(x.name, hs.type), conj(hs.body(x), inside)))
        return conj(*parts) if parts else TRUE

    # tasks -------------------------------------------------------------------------------

    def task(self, task: Task, m: int) -> Formula:
        parts: list[Formula] = []
        for comp in task.components:
            if comp.determiner == "0":
                continue
            if isinstance(comp, SubtaskComponent):
                k = number(comp.determiner, where=f"component {comp.key}")
                parts.append(self.task(comp.task, m * k))
                continue
            s = self.atomic_set(comp)
            x = self.fresh()
            if comp.determiner == "all":
                parts.append(Forall(Binder(x.name, s.type), s.body(x)))
            else:
                n = number(comp.determiner, where=f"component {comp.key}")
                n = n if comp.instance_shareable else n * m
                parts.append(at_least(n, Binder(x.name, s.type), s.body(x)))
        parts.extend(self.relation(task, r, m) for r in task.relations)
        return conj(*parts) if parts else TRUE

    def relation(self, task: Task, rel: Relation, m: int) -> Formula:
        ts = self.objects(task, task.component(rel.tail))
        if rel.tail_determiner == "the":
            y = self.fresh()
            return at_least(
                m, Binder(y.name, ts.type), conj(ts.body(y), self.tail_good(task, rel, y))
            )
        parts: list[Formula] = []
        for h, d in zip(rel.heads, rel.head_determiners, strict=True):
            if d == "0":
                continue
            hs = self.objects(task, task.component(h))
            x, y = self.fresh(), self.fresh()
            in_some = Exists(Binder(y.name, ts.type), conj(ts.body(y), Atom(INSIDE, (x, y))))
            if d == "all":
                parts.append(Forall(Binder(x.name, hs.type), Implies(hs.body(x), in_some)))
            else:
                n = m * number(d, where=f"relation of {task.name}")
                parts.append(at_least(n, Binder(x.name, hs.type), conj(hs.body(x), in_some)))
        return conj(*parts) if parts else TRUE


def to_ltl(task: Task, instances: int = 1) -> Formula:
    """The goal "``task`` is complete" (needed ``instances`` times) as a state formula."""
    return _Compiler().task(task, instances)


def anchor_formula(task: Task) -> tuple[str | None, Formula]:
    """The anchor objects of ``task`` as (type, formula with free variable ``a``)."""
    s = _Compiler().anchor_set(task)
    return s.type, s.body(Var("a"))


def goal_reached(task: Task, state: SymbolicState, formula: Formula | None = None) -> bool:
    """Evaluate the compiled goal (or ``formula``) on ``state`` through the LTL evaluator."""
    from planproof.ltl.evaluate import evaluate_final

    f = to_ltl(task) if formula is None else formula
    return evaluate_final(f, Trace((state.atoms(),)), state.universe())


def witness(task: Task, state: SymbolicState, *, rlimit: int = DEFAULT_RLIMIT) -> SatResult:
    """Z3: is there an assignment of the fluent properties and containments of ``state``'s
    objects (types fixed) that completes ``task``? The model is a goal state."""
    from planproof.ltl.smt import satisfiable

    return satisfiable(to_ltl(task), state.universe(), rlimit=rlimit)
