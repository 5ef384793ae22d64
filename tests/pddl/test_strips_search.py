"""planproof's in-process STRIPS search (``planners.plan(engine="builtin")``): its verdict is
that of an exhaustive enumeration of the state space, every plan it returns runs and
reaches the goal, and a bound reached is never read as "no plan"."""

from __future__ import annotations

import time
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.pddl.strips_search import Action, search

FACTS = 8


def _facts(lo: int, hi: int) -> st.SearchStrategy[frozenset[int]]:
    return st.frozensets(st.integers(0, FACTS - 1), min_size=lo, max_size=hi)


# few facts true at the start and few preconditions, so that plans are often long chains
actions = st.lists(
    st.tuples(_facts(0, 2), _facts(1, 2), _facts(0, 3)).map(
        lambda t: Action("a", t[0], t[1], t[2])
    ),
    max_size=12,
)


def _apply(state: frozenset[int], a: Action[int]) -> frozenset[int]:
    return (state - a.dels) | a.adds


def _reachable_goal(init: frozenset[int], goal: frozenset[int], acts: list[Action[int]]) -> bool:
    """Breadth-first enumeration of every reachable state: the ground truth."""
    seen = {init}
    todo = deque([init])
    while todo:
        s = todo.popleft()
        if goal <= s:
            return True
        for a in acts:
            if a.pre <= s:
                t = _apply(s, a)
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
    return False


@settings(max_examples=400, deadline=None)
@given(_facts(0, 2), _facts(1, 3), actions)
def test_verdict_equals_exhaustive_enumeration(
    init: frozenset[int], goal: frozenset[int], acts: list[Action[int]]
) -> None:
    out = search(init, goal, acts)
    assert out.status == ("solved" if _reachable_goal(init, goal, acts) else "unsolvable")
    if out.status == "solved":
        state = init
        for i in out.plan:
            assert acts[i].pre <= state
            state = _apply(state, acts[i])
        assert goal <= state


def test_adds_win_over_deletes() -> None:
    """An atom both added and deleted by one action ends true, as in PDDL."""
    flip = Action("flip", frozenset({0}), frozenset({1}), frozenset({1}))
    assert search(frozenset({0}), frozenset({1}), [flip]).plan == (0,)


def test_irrelevant_actions_and_facts_are_left_out_of_the_search() -> None:
    """20 independent switches nothing asks for would make 2**20 states; relevance keeps
    the search to the one that matters."""
    noise = [Action(f"n{i}", frozenset(), frozenset({i}), frozenset()) for i in range(1, 21)]
    noise += [Action(f"m{i}", frozenset({i}), frozenset(), frozenset({i})) for i in range(1, 21)]
    goal_step = Action("g", frozenset(), frozenset({0}), frozenset())
    out = search(frozenset(), frozenset({0}), [*noise, goal_step])
    assert out.status == "solved"
    assert out.plan == (40,)
    assert out.stored <= 4  # the start and the goal state, in each of the two searches


def _counter(bits: int) -> list[Action[str]]:
    """A binary counter: ``b{k}`` / ``z{k}`` say bit k is 1 / 0; in every state only the
    increment at the lowest 0 bit applies, so counting up visits 2**bits states one by
    one, while the relaxation (which ignores the deletions) sees every goal in reach."""
    acts = []
    for k in range(bits):
        low = frozenset(f"b{j}" for j in range(k))
        zeros = frozenset(f"z{j}" for j in range(k))
        acts.append(Action(f"inc{k}", low | {f"z{k}"}, zeros | {f"b{k}"}, low | {f"z{k}"}))
    return acts


BITS = 10
ZERO = frozenset(f"z{k}" for k in range(BITS))
ALL_ONES = frozenset(f"b{k}" for k in range(BITS))


def test_a_long_plan_and_an_exhausted_state_space() -> None:
    acts = _counter(BITS)
    found = search(ZERO, ALL_ONES, acts)
    assert found.status == "solved"
    assert len(found.plan) == 2**BITS - 1
    # b0 and z0 are never true together: only the whole state space shows it
    never = search(ZERO, ALL_ONES | {"z0"}, acts)
    assert never.status == "unsolvable"
    assert never.stored >= 2**BITS  # one of the two searches stored every state


def test_bounds_give_a_limit_never_a_verdict() -> None:
    acts = _counter(BITS)
    for goal in (ALL_ONES, ALL_ONES | {"z0"}):
        by_states = search(ZERO, goal, acts, max_states=100)
        assert by_states.status == "limit"
        assert "100 states" in by_states.reason
        by_time = search(ZERO, goal, acts, deadline=time.process_time() - 1.0)
        assert by_time.status == "limit"
        assert by_time.expanded == 0  # the clock is read before the first expansion
