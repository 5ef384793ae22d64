"""Is a TEACh task complete in a symbolic state, how far along is it, and what is missing?

Semantics (paper, appendix F; choices in docs/teach.md). A task needed ``m`` times holds
when every component and every relation holds:

* atomic component, determiner ``all``: every object matching the primary condition
  satisfies all conditions;
* atomic component, determiner ``a``/``N``: at least ``N·m`` distinct objects satisfy the
  conditions (``N`` alone if ``instance_shareable``);
* Task component, determiner ``a``/``N``: the subtask holds ``N·m`` times (``0`` = skipped);
* relation with tail ``a`` (∀x∃y): for each head, at least ``N·m`` of its objects (every
  one for ``all``) are inside some tail object;
* relation with tail ``the`` (∃y∀x): at least ``m`` tail objects each hold ``N`` of every
  head's objects (every one for ``all``).

The objects of an atomic component are those satisfying its conditions; those of a Task
component are its subtask's *anchors*: anchor-component objects that, when the anchor is
the tail of a ``the`` relation, also hold that relation's heads (a plate *with toast*).
Goal conditions are counted as TEACh's Progress Check counts them: one per condition per
needed object instance, one per needed head object of a relation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from planproof.simulators.teach.errors import TDLError
from planproof.simulators.teach.state import ObjectState, SymbolicState
from planproof.simulators.teach.tdl import (
    RELATION_PROPERTY,
    TYPE_PROPERTIES,
    AtomicComponent,
    Component,
    Relation,
    SubtaskComponent,
    Task,
    Value,
    number,
)


@dataclass(frozen=True, slots=True)
class Step:
    """One line of a Progress Check: an object (or ``None`` when none exists yet) and what
    is wrong with it, in words."""

    success: bool
    desc: str
    object_id: str | None = None
    object_type: str | None = None

    def text(self) -> str:
        return f"{self.object_id}: {self.desc}" if self.object_id else self.desc


@dataclass(frozen=True, slots=True)
class ProblemKey:
    """A property an object must change: TEACh's ``problem_keys`` entry."""

    object_id: str
    object_type: str
    determiner: str
    property_name: str
    desired_value: Value


@dataclass(frozen=True, slots=True)
class Subgoal:
    """One component or relation of the checked task, with its goal-condition counts."""

    description: str
    success: bool
    gc_satisfied: int
    gc_total: int
    steps: tuple[Step, ...] = ()
    problem_keys: tuple[ProblemKey, ...] = ()
    representative: str | None = None
    reference_shortfall: int = 0
    """Goal conditions the reference's checker counts fewer here: its whole-object quirk
    (:meth:`_Checker.whole_object_quirk`); 0 everywhere else."""


@dataclass(frozen=True)
class TaskStatus:
    """The checker's verdict on one state."""

    task: str
    description: str
    success: bool
    gc_satisfied: int
    gc_total: int
    subgoals: tuple[Subgoal, ...] = field(default=())

    @property
    def gc(self) -> float:
        """Fraction of goal conditions satisfied (1.0 when there are none)."""
        return self.gc_satisfied / self.gc_total if self.gc_total else 1.0

    @property
    def gc_satisfied_reference(self) -> int:
        """The goal conditions TEACh's reference checker counts as satisfied: planproof's
        count less its whole-object quirk (docs/teach.md, "Two readings of GC"). The other
        departures of that table are not in it: this reading isolates the quirk."""
        return self.gc_satisfied - sum(g.reference_shortfall for g in self.subgoals)

    @property
    def unsatisfied(self) -> tuple[str, ...]:
        """Every unmet condition, in words."""
        return tuple(s.text() for g in self.subgoals for s in g.steps if not s.success)

    def progress_check(self) -> dict[str, Any]:
        """The status shaped like TEACh's Progress Check response (paper, Listing 1)."""
        subgoals = []
        for g in self.subgoals:
            keys: dict[str, list[dict[str, Any]]] = {}
            for k in g.problem_keys:
                keys.setdefault(k.object_id, []).append(
                    {
                        "objectType": k.object_type,
                        "determiner": k.determiner,
                        "property_name": k.property_name,
                        "desired_property_value": k.desired_value,
                    }
                )
            subgoals.append(
                {
                    "representative_obj_id": g.representative,
                    "success": int(g.success),
                    "description": g.description,
                    "steps": [
                        {
                            "success": int(s.success),
                            "objectId": s.object_id,
                            "objectType": s.object_type,
                            "desc": s.desc,
                        }
                        for s in g.steps
                    ],
                    "problem_keys": keys,
                    "goal_conditions_satisfied": g.gc_satisfied,
                    "goal_conditions_total": g.gc_total,
                }
            )
        return {
            "task_desc": self.description,
            "success": int(self.success),
            "goal_conditions_satisfied": self.gc_satisfied,
            "goal_conditions_total": self.gc_total,
            "subgoals": subgoals,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "success": self.success,
            "gc_satisfied": self.gc_satisfied,
            "gc_satisfied_reference": self.gc_satisfied_reference,
            "gc_total": self.gc_total,
            "gc": self.gc,
            "unsatisfied": list(self.unsatisfied),
        }


# ---------------------------------------------------------------------------------------
# Object tests, shared with the compilers' tests through the docstring semantics above


def condition_holds(state: SymbolicState, obj: ObjectState, prop: str, value: Value) -> bool:
    """Does ``obj`` satisfy ``prop = value``? Type properties test the type set; a string
    ``parentReceptacles`` asks for a container of that type; the rest are booleans."""
    if prop in TYPE_PROPERTIES:
        return str(value) in obj.types
    if prop == RELATION_PROPERTY and isinstance(value, str):
        return any(value in state.get(c).types for c in state.containers[obj.object_id])
    if isinstance(value, str):
        raise TDLError(f"condition {prop} = {value!r}: expected 0 or 1")
    return obj.has(prop) == bool(value)


def satisfies(state: SymbolicState, obj: ObjectState, comp: AtomicComponent) -> bool:
    return all(condition_holds(state, obj, p, v) for p, v in comp.conditions)


def matches_primary(state: SymbolicState, obj: ObjectState, comp: AtomicComponent) -> bool:
    return condition_holds(state, obj, comp.primary_condition, comp.primary_value)


def _could_become(obj: ObjectState, comp: AtomicComponent) -> bool:
    """A whole ``Bread`` is a candidate for ``BreadSliced`` (TEACh's Progress Check points
    at it with "The bread needs to be sliced"); likewise ``Egg`` for ``EggCracked``."""
    want = str(comp.primary_value)
    if comp.primary_condition != "objectType":
        return False
    return any(
        want.endswith(suffix) and want[: -len(suffix)] in obj.types
        for suffix in ("Sliced", "Cracked")
    )


def _describe(comp: AtomicComponent) -> str:
    parts = [f"{p}={v}" for p, v in comp.conditions if p != comp.primary_condition]
    head = str(comp.primary_value)
    return f"{head} ({', '.join(parts)})" if parts else head


def _condition_words(obj: ObjectState, prop: str, value: Value) -> str:
    if prop in TYPE_PROPERTIES:
        return f"The {obj.object_type} needs to be a {value}."
    if prop == RELATION_PROPERTY:
        return f"The {obj.object_type} needs to be in a {value}."
    return f"The {obj.object_type} needs {prop} = {value}."


# ---------------------------------------------------------------------------------------


class _Checker:
    def __init__(self, state: SymbolicState) -> None:
        self.state = state
        self._objs: dict[int, tuple[ObjectState, ...]] = {}
        self._keep: list[object] = []  # keeps memo keys (ids) alive for the checker's life

    # objects of components and anchors of tasks ---------------------------------------

    def objects(self, comp: Component) -> tuple[ObjectState, ...]:
        key = id(comp)
        if key not in self._objs:
            self._keep.append(comp)
            if isinstance(comp, AtomicComponent):
                objs = tuple(o for o in self.state.objects if satisfies(self.state, o, comp))
            else:
                objs = self.anchors(comp.task)
            self._objs[key] = objs
        return self._objs[key]

    def anchors(self, task: Task) -> tuple[ObjectState, ...]:
        if task.anchor is None:
            return ()
        objs = self.objects(task.component(task.anchor))
        for rel in task.relations:
            if rel.tail == task.anchor and rel.tail_determiner == "the":
                objs = tuple(y for y in objs if self._tail_good(task, rel, y))
        return objs

    def _inside(self, x: ObjectState, y: ObjectState) -> bool:
        return y.object_id in self.state.containers[x.object_id]

    def _heads(self, task: Task, rel: Relation) -> list[tuple[str, str, tuple[ObjectState, ...]]]:
        return [
            (h, d, self.objects(task.component(h)))
            for h, d in zip(rel.heads, rel.head_determiners, strict=True)
            if d != "0"
        ]

    def _tail_counts(
        self, task: Task, rel: Relation, y: ObjectState
    ) -> list[tuple[str, str, int, tuple[ObjectState, ...], tuple[ObjectState, ...]]]:
        """Per head: (key, determiner, needed, inside y, not inside y)."""
        out = []
        for h, d, objs in self._heads(task, rel):
            need = len(objs) if d == "all" else number(d, where=f"relation of {task.name}")
            ins = tuple(x for x in objs if self._inside(x, y))
            outs = tuple(x for x in objs if not self._inside(x, y))
            out.append((h, d, need, ins, outs))
        return out

    def _tail_good(self, task: Task, rel: Relation, y: ObjectState) -> bool:
        return all(len(ins) >= need for _, _, need, ins, _ in self._tail_counts(task, rel, y))

    # checking ---------------------------------------------------------------------------

    def task(self, task: Task, m: int) -> list[Subgoal]:
        out: list[Subgoal] = []
        for comp in task.components:
            if comp.determiner == "0":
                continue
            if isinstance(comp, AtomicComponent):
                out.append(self.atomic(comp, m))
            else:
                out.append(self.subtask(comp, m))
        out.extend(self.relation(task, rel, m) for rel in task.relations)
        return out

    def subtask(self, comp: SubtaskComponent, m: int) -> Subgoal:
        k = number(comp.determiner, where=f"component {comp.key}") * m
        inner = self.task(comp.task, k)
        desc = comp.task.desc
        if comp.determiner not in ("a", "1") or m != 1:
            desc = f"{k} x {desc}"
        anchors = self.anchors(comp.task)
        return Subgoal(
            description=desc,
            success=all(g.success for g in inner),
            gc_satisfied=sum(g.gc_satisfied for g in inner),
            gc_total=sum(g.gc_total for g in inner),
            steps=tuple(s for g in inner for s in g.steps),
            problem_keys=tuple(p for g in inner for p in g.problem_keys),
            representative=(
                anchors[0].object_id
                if anchors
                else next((g.representative for g in inner if g.representative), None)
            ),
            reference_shortfall=sum(g.reference_shortfall for g in inner),
        )

    def _object_steps(
        self, comp: AtomicComponent, problems: Iterable[ObjectState]
    ) -> tuple[list[Step], list[ProblemKey], int]:
        steps: list[Step] = []
        keys: list[ProblemKey] = []
        ok_count = 0
        for o in problems:
            for prop, value in comp.conditions:
                if condition_holds(self.state, o, prop, value):
                    ok_count += 1
                    continue
                desc = comp.failure_desc(prop) or _condition_words(o, prop, value)
                steps.append(Step(False, desc, o.object_id, o.object_type))
                keys.append(ProblemKey(o.object_id, o.object_type, comp.determiner, prop, value))
        return steps, keys, ok_count

    def atomic(self, comp: AtomicComponent, m: int) -> Subgoal:
        n_conds = len(comp.conditions)
        sat = self.objects(comp)
        if comp.determiner == "all":
            matching = [o for o in self.state.objects if matches_primary(self.state, o, comp)]
            sat_ids = {o.object_id for o in sat}
            problems = [o for o in matching if o.object_id not in sat_ids]
            steps, keys, ok = self._object_steps(comp, problems)
            return Subgoal(
                description=f"all {_describe(comp)}",
                success=not problems,
                gc_satisfied=n_conds * (len(matching) - len(problems)) + ok,
                gc_total=n_conds * len(matching),
                steps=tuple(steps),
                problem_keys=tuple(keys),
                representative=(problems or matching)[0].object_id if matching else None,
            )
        n = number(comp.determiner, where=f"component {comp.key}")
        if not comp.instance_shareable:
            n *= m
        missing = max(0, n - len(sat))
        sat_ids = {o.object_id for o in sat}
        candidates = sorted(
            (
                o
                for o in self.state.objects
                if o.object_id not in sat_ids
                and (matches_primary(self.state, o, comp) or _could_become(o, comp))
            ),
            key=lambda o: (
                -sum(condition_holds(self.state, o, p, v) for p, v in comp.conditions),
                o.object_id,
            ),
        )
        problems = candidates[:missing]
        steps, keys, ok = self._object_steps(comp, problems)
        # the reference checks a single instance once a whole object could be sliced
        reference_missing = (
            max(0, 1 - len(sat)) if self.whole_object_quirk(comp, n, sat) else missing
        )
        shortfall = sum(
            sum(condition_holds(self.state, o, p, v) for p, v in comp.conditions)
            for o in candidates[reference_missing:missing]
        )
        absent = missing - len(problems)
        if absent:
            steps.append(Step(False, f"Need {absent} more {_describe(comp)}; none in the scene."))
        rep = sat[0] if sat else (candidates[0] if candidates else None)
        return Subgoal(
            description=f"{n} x {_describe(comp)}",
            success=missing == 0,
            gc_satisfied=n_conds * min(n, len(sat)) + ok,
            gc_total=n_conds * n,
            steps=tuple(steps),
            problem_keys=tuple(keys),
            representative=rep.object_id if rep else None,
            reference_shortfall=shortfall,
        )

    def whole_object_quirk(
        self, comp: AtomicComponent, needed: int, sat: tuple[ObjectState, ...]
    ) -> bool:
        """TEACh's ``check_component_n_instances`` sets ``num_instances_to_check = 1`` when a
        whole object (a ``Potato`` for ``PotatoSliced``) meets every other condition, even
        when ``allow_state_change`` is False (the Progress Check's setting), so it stops
        counting the partial matches of the instances still missing: with one cooked and
        one raw slice on a clean plate, a cooked whole potato takes ``N Cooked Slices (2,
        Potato, on, Plate)`` from 7/11 to 6/11 there. Only ``Sliced`` triggers it (not
        ``Cracked``), and the whole object must have exactly the base type, as its
        ``obj[primary] == value.replace("Sliced", "")`` test. Success is not affected."""
        want = str(comp.primary_value)
        if comp.primary_condition != "objectType" or "Sliced" not in want:
            return False
        if len(sat) >= needed:
            return False  # the reference stops looking once the component holds
        base = want.replace("Sliced", "")
        others = [(p, v) for p, v in comp.conditions if p != comp.primary_condition]
        return any(
            o.object_type == base and all(condition_holds(self.state, o, p, v) for p, v in others)
            for o in self.state.objects
        )

    def _relation_problem(
        self, rel: Relation, det: str, x: ObjectState, tail_type: str
    ) -> tuple[Step, ProblemKey]:
        return (
            Step(False, rel.failure_desc, x.object_id, x.object_type),
            ProblemKey(x.object_id, x.object_type, det, RELATION_PROPERTY, tail_type),
        )

    def relation(self, task: Task, rel: Relation, m: int) -> Subgoal:
        tails = self.objects(task.component(rel.tail))
        tail_type = tails[0].object_type if tails else rel.tail
        steps: list[Step] = []
        keys: list[ProblemKey] = []
        if rel.tail_determiner == "a":
            total = satisfied = 0
            success = True
            for h, d, objs in self._heads(task, rel):
                ins = [x for x in objs if any(self._inside(x, y) for y in tails)]
                outs = [x for x in objs if not any(self._inside(x, y) for y in tails)]
                need = len(objs) if d == "all" else m * number(d, where=f"relation of {h}")
                total += need
                satisfied += min(need, len(ins))
                if len(ins) < need:
                    success = False
                    for x in outs[: need - len(ins)]:
                        s, k = self._relation_problem(rel, d, x, tail_type)
                        steps.append(s)
                        keys.append(k)
                    absent = need - len(ins) - len(outs)
                    if absent > 0:
                        steps.append(Step(False, f"{rel.failure_desc} ({absent} {h} missing)"))
            return Subgoal(rel.failure_desc, success, satisfied, total, tuple(steps), tuple(keys))
        # tail "the": rank tail objects: good ones first, then by heads already inside
        ranked = []
        for y in tails:
            counts = self._tail_counts(task, rel, y)
            score = sum(min(need, len(ins)) for _, _, need, ins, _ in counts)
            good = all(len(ins) >= need for _, _, need, ins, _ in counts)
            ranked.append((not good, -score, y.object_id, y, counts, score))
        ranked.sort(key=lambda r: r[:3])
        per_tail = sum(
            len(objs) if d == "all" else number(d, where=f"relation of {h}")
            for h, d, objs in self._heads(task, rel)
        )
        chosen = ranked[:m]
        n_good = sum(1 for r in ranked if not r[0])
        for bad, _, _, y, counts, _ in chosen:
            if not bad:
                continue
            for h, d, need, ins_t, outs_t in counts:
                for x in outs_t[: max(0, need - len(ins_t))]:
                    s, k = self._relation_problem(rel, d, x, y.object_type)
                    steps.append(s)
                    keys.append(k)
                absent = need - len(ins_t) - len(outs_t)
                if absent > 0:
                    steps.append(Step(False, f"{rel.failure_desc} ({absent} {h} missing)"))
        if len(tails) < m:
            steps.append(Step(False, f"{rel.failure_desc} (need {m - len(tails)} more {rel.tail})"))
        return Subgoal(
            description=rel.failure_desc,
            success=n_good >= m,
            gc_satisfied=sum(r[5] for r in chosen),
            gc_total=m * per_tail,
            steps=tuple(steps),
            problem_keys=tuple(keys),
            representative=chosen[0][3].object_id if chosen else None,
        )


def check(task: Task, state: SymbolicState, instances: int = 1) -> TaskStatus:
    """Check ``task`` (needed ``instances`` times) in ``state``."""
    subgoals = _Checker(state).task(task, instances)
    return TaskStatus(
        task=task.name,
        description=task.desc,
        success=all(g.success for g in subgoals),
        gc_satisfied=sum(g.gc_satisfied for g in subgoals),
        gc_total=sum(g.gc_total for g in subgoals),
        subgoals=tuple(subgoals),
    )


def anchors(task: Task, state: SymbolicState) -> tuple[str, ...]:
    """Ids of the task's anchor objects in ``state`` (what an enclosing relation uses)."""
    return tuple(o.object_id for o in _Checker(state).anchors(task))
