"""A sound test that a translated task has no plan: h^2 reachability of fact pairs.

The delete relaxation (Fast Downward's translator and its FF heuristic already apply it)
reaches every atom of a goal on its own; it cannot see that two of them never hold
together. BEHAVIOR's answers give many such tasks: an LLM's ``slice`` needs the object
and the knife both ``in_reach_of_agent`` (``navigate_to`` puts one object in reach and
takes every other out of it), or ``place_inside`` needs ``holding`` without
``handsfull`` (every step that sets one sets the other). Fast Downward's search then
runs to its budget. This test computes, by a least fixpoint, a set ``R`` of fact pairs
that contains every pair holding together in some reachable state (Haslum and Geffner's
h^2 reachability, here over Fast Downward's finite-domain variables and with conditional
effects), by induction over one step from a reachable state ``s`` by an operator ``a``
(applicable: every pair of its precondition in ``R``) to ``s'``; a pair of ``s'`` is

- two facts both set by effects of ``a`` that fire in ``s``: each such effect's
  condition and ``a``'s precondition hold together in ``s``, so their pairs are in
  ``R``: the effect *may fire*, and every two effects that may fire give a pair;
- a fact set by a firing effect and a fact ``q`` of ``s`` that ``a`` leaves alone: ``q``
  forms a pair in ``R`` with every fact of the precondition (and of the effect's
  condition), and ``q`` is not *surely changed* (an effect on its variable to another
  value whose condition holds whenever ``q`` and the precondition do, with no effect of
  ``a`` setting ``q`` itself);
- two facts of ``s``: in ``R`` already.

So every pair of a reachable state is in ``R``, and a goal two of whose facts (or one)
are not is never reached: no plan exists. Variables set by axioms (derived predicates)
are left out: a condition on one is read as true (only more pairs, never fewer). The
test is sound, never complete: a "no" says nothing. The pairs are kept as one bit set
(a Python int) per fact, and only the operators whose conditions gained pairs are visited
again; the test stops as soon as the goal's pairs are all in ``R``. Cost: a few hundredths
of a second on BEHAVIOR's translated tasks (a few hundred facts, a few thousand operators).
"""

from __future__ import annotations

from dataclasses import dataclass

from planproof.pddl.sas import SasFact, SasTask


@dataclass(frozen=True)
class _Effect:
    fact: int
    condition: tuple[int, ...]
    """The condition's facts (variables set by axioms left out) and the precondition's."""
    mask: int
    """The bits of ``condition``."""
    conditional: bool


@dataclass(frozen=True)
class _Op:
    pre: tuple[int, ...]
    pre_mask: int
    effects: tuple[_Effect, ...]
    surely_changed: int
    """The bits of the facts this operator surely changes (the module docstring)."""
    watched: int
    """The bits of every fact of its precondition and effect conditions."""


def _index(task: SasTask) -> tuple[list[int], list[int]]:
    """Each variable's first fact index (-1 for a derived variable) and each fact's
    variable."""
    offset: list[int] = []
    var_of: list[int] = []
    for v, (n, derived) in enumerate(zip(task.ranges, task.derived, strict=True)):
        if derived:
            offset.append(-1)
            continue
        offset.append(len(var_of))
        var_of.extend([v] * n)
    return offset, var_of


def _facts(offset: list[int], facts: tuple[SasFact, ...]) -> list[int]:
    return [offset[v] + x for v, x in facts if offset[v] >= 0]


def _bits(facts: object) -> int:
    out = 0
    for f in facts:  # type: ignore[attr-defined]
        out |= 1 << f
    return out


def _op(task: SasTask, offset: list[int], op_index: int) -> _Op:
    op = task.operators[op_index]
    pre = sorted(set(_facts(offset, op.precondition)))
    pre_set = set(pre)
    effects: list[_Effect] = []
    sets: dict[int, set[int]] = {}
    for e in op.effects:
        if offset[e.var] < 0:
            continue  # effects on derived variables do not occur
        fact = offset[e.var] + e.value
        cond = tuple(sorted(set(_facts(offset, e.condition)) | pre_set))
        effects.append(_Effect(fact, cond, _bits(cond), len(cond) > len(pre)))
        sets.setdefault(e.var, set()).add(e.value)
    changed: set[int] = set()
    for e in op.effects:
        if offset[e.var] < 0 or any(offset[v] < 0 for v, _ in e.condition):
            continue
        extra = {offset[v] + x for v, x in e.condition} - pre_set
        for x in range(task.ranges[e.var]):
            q = offset[e.var] + x
            if x not in sets[e.var] and extra <= {q}:
                changed.add(q)
    watched = pre_set | {f for e in effects for f in e.condition}
    return _Op(tuple(pre), _bits(pre), tuple(effects), _bits(changed), _bits(watched))


def h2_unreachable_goal(task: SasTask) -> bool:
    """Whether h^2 reachability proves the goal of ``task`` unreachable (see the module
    docstring): True means no plan exists; False means nothing."""
    offset, var_of = _index(task)
    same_var: dict[int, int] = {}
    for f, v in enumerate(var_of):
        same_var[v] = same_var.get(v, 0) | 1 << f
    var_mask = [same_var[v] for v in var_of]
    goal = sorted(set(_facts(offset, task.goal)))
    goal_mask = _bits(goal)
    init = _bits(_facts(offset, tuple(enumerate(task.init))))
    rows = [init if init >> f & 1 else 0 for f in range(len(var_of))]
    state = _State(rows, var_mask)
    if state.holds(goal, goal_mask):
        return False
    # each operator is compiled when first visited: a solvable task often stops early
    ops: list[_Op | None] = [None] * len(task.operators)
    applicable = [False] * len(ops)
    dirty = -1  # the first pass visits every operator
    while True:
        touched = 0
        for k, known in enumerate(ops):
            op = known if known is not None else _op(task, offset, k)
            ops[k] = op
            # an operator without precondition keeps every reached fact: always visited
            if op.pre and not op.watched & dirty:
                continue
            if not applicable[k]:
                if not state.holds(op.pre, op.pre_mask):
                    continue
                applicable[k] = True
            grew = state.apply(op)
            if grew & goal_mask and state.holds(goal, goal_mask):
                return False  # pairs only grow: the goal's stay in R
            touched |= grew
        if not touched:
            return True  # the fixpoint, without every pair of the goal
        dirty = touched


class _State:
    """``R`` as one bit set per fact: bit ``g`` of ``rows[f]`` is the pair (f, g); bit
    ``f`` of ``rows[f]``: ``f`` is reached."""

    def __init__(self, rows: list[int], var_mask: list[int]) -> None:
        self.rows = rows
        self.var_mask = var_mask
        self.reached = _bits(f for f, r in enumerate(rows) if r >> f & 1)

    def holds(self, facts: tuple[int, ...] | list[int], mask: int) -> bool:
        """Every pair (and fact) of ``facts`` is in R."""
        rows = self.rows
        return all(rows[f] & mask == mask for f in facts)

    def together(self, facts: tuple[int, ...], keep: int) -> int:
        rows = self.rows
        for f in facts:
            keep &= rows[f]
        return keep

    def apply(self, op: _Op) -> int:
        """Add the pairs one step of ``op`` can make (the module docstring's cases);
        return the bits of the facts whose pairs grew."""
        rows = self.rows
        may = [e for e in op.effects if not e.conditional or self.holds(e.condition, e.mask)]
        if not may:
            return 0
        keep = self.together(op.pre, -1) if op.pre else self.reached
        keep &= ~op.surely_changed
        fired = _bits(e.fact for e in may)
        touched = 0
        for e in may:
            stays = self.together(e.condition, keep) if e.conditional else keep
            bit = 1 << e.fact
            stays = (stays | fired) & ~self.var_mask[e.fact] | bit
            new = stays & ~rows[e.fact]
            if not new:
                continue
            rows[e.fact] |= new
            self.reached |= bit
            touched |= bit | new
            new &= ~bit
            while new:
                low = new & -new
                rows[low.bit_length() - 1] |= bit
                new ^= low
        return touched
