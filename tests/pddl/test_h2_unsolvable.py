"""The h^2 test of a translated task (planproof.pddl.h2) is sound: when it says the goal is
unreachable, no sequence of operators reaches it. Checked against a brute-force search on
random small finite-domain tasks (conditional effects, effects that change a variable
only when it holds a value, conditions on variables set by axioms), and on BEHAVIOR's
published answers with the real Fast Downward (docs/reproduce.md, "Planner budget")."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.pddl.h2 import h2_unreachable_goal
from planproof.pddl.sas import SasEffect, SasFormatError, SasOperator, SasTask, read_sas


@st.composite
def tasks(draw: st.DrawFn) -> SasTask:
    n = draw(st.integers(2, 5))
    ranges = tuple(draw(st.integers(2, 3)) for _ in range(n))
    derived = tuple(draw(st.booleans()) if v else False for v in range(n))

    def fact(v: int | None = None) -> tuple[int, int]:
        var = draw(st.integers(0, n - 1)) if v is None else v
        return var, draw(st.integers(0, ranges[var] - 1))

    def facts(k: int) -> tuple[tuple[int, int], ...]:
        return tuple(dict(fact() for _ in range(draw(st.integers(0, k)))).items())

    fluent = [v for v in range(n) if not derived[v]]
    ops = []
    for i in range(draw(st.integers(1, 6))):
        effects = [
            SasEffect(facts(2), *fact(draw(st.sampled_from(fluent))))
            for _ in range(draw(st.integers(1, 3)))
        ]
        ops.append(SasOperator(f"op{i}", facts(2), tuple(effects)))
    init = tuple(draw(st.integers(0, r - 1)) for r in ranges)
    return SasTask(ranges, derived, init, facts(3), tuple(ops))


def _holds(
    state: tuple[int, ...], facts: tuple[tuple[int, int], ...], derived: tuple[bool, ...]
) -> bool:
    """A condition in ``state``; one on a variable set by axioms may hold either way (the
    most permissive reading of the axioms, which h^2 must respect too)."""
    return all(derived[v] or state[v] == x for v, x in facts)


def solvable(task: SasTask) -> bool:
    """Breadth-first search over every state (effects fire on the state before the step;
    of two firing effects on one variable the later wins)."""
    start = task.init
    seen = {start}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if _holds(s, task.goal, task.derived):
            return True
        for op in task.operators:
            if not _holds(s, op.precondition, task.derived):
                continue
            nxt = list(s)
            for e in op.effects:
                if _holds(s, e.condition, task.derived):
                    nxt[e.var] = e.value
            t = tuple(nxt)
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return False


@settings(max_examples=600, deadline=None)
@given(tasks())
def test_an_unreachable_goal_has_no_plan(task: SasTask) -> None:
    if h2_unreachable_goal(task):
        assert not solvable(task)


def test_it_sees_what_the_delete_relaxation_cannot() -> None:
    """Two objects, at most one in reach (going to one takes the other out of reach, as
    BEHAVIOR's navigate_to does by a conditional effect); slicing needs both in reach:
    each fact is reachable alone, the pair is not."""
    # variables 0, 1: object a / b in reach (value 0 = yes); 2: sliced (0 = yes)
    go = [
        SasOperator(
            f"go{me}",
            ((me, 1),),
            (SasEffect((), me, 0), SasEffect(((other, 0),), other, 1)),
        )
        for me, other in ((0, 1), (1, 0))
    ]
    slice_ = SasOperator("slice", ((0, 0), (1, 0)), (SasEffect((), 2, 0),))
    task = SasTask((2, 2, 2), (False, False, False), (1, 1, 1), ((2, 0),), (*go, slice_))
    assert h2_unreachable_goal(task) and not solvable(task)
    # without the conditional deletion the pair is reachable, and so is the goal
    loose = [SasOperator(o.name, o.precondition, o.effects[:1]) for o in go]
    free = SasTask(task.ranges, task.derived, task.init, task.goal, (*loose, slice_))
    assert not h2_unreachable_goal(free) and solvable(free)


# (init, goal, operators): solvable tasks that each rule of the test must not call unreachable
_SOLVABLE = {
    # a deletion whose condition does not hold leaves the fact: (a=0, b=0) after one step
    "conditional-deletion-not-sure": (
        (0, 1, 1),
        ((0, 0), (1, 0)),
        (SasOperator("o", (), (SasEffect((), 1, 0), SasEffect(((2, 0),), 0, 1))),),
    ),
    # two effects of one step make a pair although the step changes its precondition
    "effects-of-one-step-together": (
        (0, 1, 1),
        ((1, 0), (2, 0)),
        (
            SasOperator(
                "o", ((0, 0),), (SasEffect((), 0, 1), SasEffect((), 1, 0), SasEffect((), 2, 0))
            ),
        ),
    ),
    # a fact the step sets again is not deleted by the step's other effect on it
    "set-again": (
        (0, 1, 1),
        ((0, 0), (1, 0)),
        (
            SasOperator(
                "o",
                (),
                (SasEffect((), 1, 0), SasEffect(((0, 0),), 0, 1), SasEffect(((2, 1),), 0, 0)),
            ),
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(_SOLVABLE))
def test_each_rule_keeps_a_solvable_task_reachable(case: str) -> None:
    init, goal, ops = _SOLVABLE[case]
    task = SasTask((2, 2, 2), (False, False, False), init, goal, ops)
    assert solvable(task) and not h2_unreachable_goal(task)


def test_a_reached_goal_and_an_empty_one_are_not_unreachable() -> None:
    task = SasTask((2,), (False,), (0,), ((0, 0),), ())
    assert not h2_unreachable_goal(task)
    assert not h2_unreachable_goal(SasTask((2,), (False,), (0,), (), ()))


SAS = """begin_version
3
end_version
begin_metric
0
end_metric
2
begin_variable
var0
-1
2
Atom p()
NegatedAtom p()
end_variable
begin_variable
var1
0
2
Atom new-axiom@0()
NegatedAtom new-axiom@0()
end_variable
0
begin_state
1
1
end_state
begin_goal
1
0 0
end_goal
1
begin_operator
make-p
1
1 0
1
1 1 0 0 1 0
1
end_operator
0
"""


def test_the_reader_keeps_what_the_test_needs() -> None:
    task = read_sas(SAS)
    assert task.ranges == (2, 2) and task.derived == (False, True)
    assert task.init == (1, 1) and task.goal == ((0, 0),)
    (op,) = task.operators
    assert op.name == "make-p"
    # the prevail condition and the effect's pre-value are the precondition
    assert op.precondition == ((1, 0), (0, 1))
    assert op.effects == (SasEffect(((1, 0),), 0, 0),)
    # a condition on the derived variable is read as true: make-p may apply
    assert not h2_unreachable_goal(task)


@pytest.mark.parametrize(
    "text", ["", "begin_version\n2\nend_version\n", SAS.replace("1 1 0 0 1 0", "1 1 0 0 1")]
)
def test_a_malformed_translation_is_a_typed_error(text: str) -> None:
    with pytest.raises(SasFormatError):
        read_sas(text)
