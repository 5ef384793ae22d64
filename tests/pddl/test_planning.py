"""Planners (Fast Downward, pyperplan through grounding), Z3 operator checks, and the
export of a simulator world to PDDL."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.axioms import virtualhome_state_axioms
from planproof.ltl.parser import parse
from planproof.metrics.transition_modeling.export import pddl_plan, task_to_pddl
from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
from planproof.pddl.checks import operator_issues
from planproof.pddl.eai import EaiPddl
from planproof.pddl.ground import dnf, ground_strips
from planproof.pddl.planners import PlanStatus, plan
from planproof.pddl.reader import declare_missing_objects, read_domain, read_problem
from planproof.pddl.schema import Domain
from planproof.pddl.sexpr_io import operator
from planproof.simulators.core import Action, World, replay
from tests.pddl.conftest import sample
from tests.pddl.test_reader_writer import SMALL_DOMAIN, SMALL_PROBLEM

# a domain with the constructs the EAI domains use: forall/when effects, exists, or, not
SWITCH_DOMAIN = """
(define (domain lights)
  (:types agent - object)
  (:predicates (on ?l) (off ?l) (near ?a - agent ?l) (wired ?l ?m) (plugged ?l))
  (:action go
    :parameters (?a - agent ?l)
    :precondition ()
    :effect (and (near ?a ?l)
                 (forall (?m) (when (and (near ?a ?m) (not (= ?m ?l))) (not (near ?a ?m))))))
  (:action switch
    :parameters (?a - agent ?l)
    :precondition (and (near ?a ?l) (off ?l) (or (plugged ?l) (exists (?m) (wired ?l ?m))))
    :effect (and (on ?l) (not (off ?l))
                 (forall (?m) (when (and (wired ?l ?m) (off ?m)) (and (on ?m) (not (off ?m))))))))
"""


def _switch_problem(n: int, wired: list[tuple[int, int]], plugged: list[int], goal: str) -> str:
    lamps = " ".join(f"l{i}" for i in range(n))
    init = [f"(off l{i})" for i in range(n)]
    init += [f"(wired l{a} l{b})" for a, b in wired]
    init += [f"(plugged l{i})" for i in plugged]
    return (
        f"(define (problem p) (:domain lights) (:objects bot - agent {lamps})"
        f" (:init {' '.join(init)}) (:goal {goal}))"
    )


def test_small_domain_both_engines() -> None:
    d, p = read_domain(SMALL_DOMAIN), read_problem(SMALL_PROBLEM)
    for engine in ("fast-downward", "pyperplan", "builtin"):
        r = plan(d, p, engine=engine, timeout=30)
        assert r.status is PlanStatus.SOLVED, r.reason
        # the action `open` and the object `robot` were renamed on export and mapped back
        assert r.plan[0] == ("open", ("robot", "d1"))
        assert check_plan(pddl_task(d, p), to_actions(r.plan)).valid


def test_unsolvable_and_static_goal() -> None:
    d = read_domain(SWITCH_DOMAIN)
    never = read_problem(_switch_problem(2, [], [], "(and (on l0) (wired l0 l1))"))
    for engine in ("fast-downward", "pyperplan", "builtin"):
        r = plan(d, never, engine=engine, timeout=30)
        assert r.status is PlanStatus.UNSOLVABLE, (engine, r)


def _switch_cases(goals: int) -> st.SearchStrategy[tuple[Any, ...]]:
    """(lamps, wired pairs, plugged lamps[, goal lamps]) of a random light-switch problem."""
    return st.integers(2, 4).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4),
            st.lists(st.integers(0, n - 1), max_size=2),
            *([st.lists(st.integers(0, n - 1), min_size=1, max_size=3)] if goals else []),
        )
    )


@settings(max_examples=12, deadline=None)
@given(_switch_cases(goals=1))
def test_engines_agree_on_solvability_and_plans_replay(
    case: tuple[int, list[tuple[int, int]], list[int], list[int]],
) -> None:
    """On random light-switch problems the planners agree on solvability, and every plan
    found reaches the goal when replayed by the simulator core — with the conditional
    effects compiled both ways for pyperplan and the built-in search (split into
    variants, and as a sequence)."""
    from planproof.pddl import ground

    n, wired, plugged, goals = case
    goal = "(and " + " ".join(f"(on l{i})" for i in goals) + ")"
    d = read_domain(SWITCH_DOMAIN)
    p = read_problem(_switch_problem(n, wired, plugged, goal))
    fd = plan(d, p, engine="fast-downward", timeout=30)
    results = [fd]
    saved = ground.MAX_SPLIT
    try:
        for split in (saved, 0):
            ground.MAX_SPLIT = split
            for engine in ("pyperplan", "builtin"):
                pp = plan(d, p, engine=engine, timeout=30)
                assert fd.solved == pp.solved, (split, engine, fd, pp)
                results.append(pp)
    finally:
        ground.MAX_SPLIT = saved
    task = pddl_task(d, p)
    for r in results:
        if r.solved:
            assert check_plan(task, to_actions(r.plan)).valid, r


@pytest.mark.data
def test_pyperplan_plans_are_valid_on_behavior(bh: EaiPddl) -> None:
    """Regression: the sequence compilation once lost its conditional deletions and let
    other actions run inside a sequence; BEHAVIOR's navigate_to exposed both.

    pyperplan's search time depends on the hash seed (its tie-breaking follows set order):
    moving_boxes_to_storage takes 0.4 s under some seeds and 35-50 s under others, which
    made this test flaky under load. These two problems (each plan alternates
    navigate_to with grasp / place) take under 3 s under every seed tried (0-4)."""
    for ident in (
        "cleaning_table_after_clearing_0_Merom_1_int_0_2021-06-06_19-48-44",
        "bringing_in_wood_0_Benevolence_1_int_0_2021-09-15_18-42-25",
    ):
        p = bh.problem(ident)
        r = plan(bh.domain, p, engine="pyperplan", timeout=120)
        assert r.solved, r.reason
        assert check_plan(pddl_task(bh.domain, p), to_actions(r.plan)).valid, ident


def test_dnf_drops_contradictions() -> None:
    f = parse("(p(a) or q(a)) and not p(a)")
    assert dnf(f) == [frozenset({(parse("q(a)"), True), (parse("p(a)"), False)})]


def test_grounding_prunes_unreachable_actions() -> None:
    d = read_domain(SWITCH_DOMAIN)
    p = read_problem(_switch_problem(3, [(0, 1)], [], "(on l1)"))
    task = ground_strips(d, p)
    ops = {a for a, _ in task.actions.values()}
    assert ops == {"go", "switch"}
    # l2 is neither plugged nor wired to anything: switching it can never fire
    assert all(args[1] != "l2" for a, args in task.actions.values() if a == "switch")


# --- Z3 checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pre", "eff", "kinds"),
    [
        ("(and (open ?o) (closed ?o))", "(on ?o)", {"unsatisfiable-precondition"}),
        ("(and (next_to ?c ?o) (not (next_to ?c ?o)))", "(on ?o)", {"unsatisfiable-precondition"}),
        ("(next_to ?c ?o)", "(and (on ?o) (off ?o))", {"contradictory-effects"}),
        ("(next_to ?c ?o)", "(and (on ?o) (not (on ?o)))", {"contradictory-effects"}),
        ("(and (on ?o) (next_to ?c ?o))", "(on ?o)", {"no-op"}),
        ("(and (off ?o) (next_to ?c ?o))", "(and (on ?o) (not (off ?o)))", set()),
        ("(wearable ?o)", "(clean ?o)", {"unknown-predicate"}),
        ("(next_to ?c ?o ?o)", "(clean ?o)", {"unknown-predicate"}),
    ],
)
def test_operator_checks(pre: str, eff: str, kinds: set[str]) -> None:
    d = read_domain(
        "(define (domain d) (:types character - object) (:predicates (open ?o) (closed ?o)"
        " (on ?o) (off ?o) (clean ?o) (next_to ?c - character ?o)))"
    )
    op = operator("x", "(?c - character ?o - object)", pre=pre, eff=eff)
    got = {i.kind for i in operator_issues(op, d, axioms=virtualhome_state_axioms)}
    assert got == kinds


@pytest.mark.data
def test_gold_operators_pass_the_checks(vh: EaiPddl, bh: EaiPddl) -> None:
    from planproof.ltl.axioms import behavior_state_axioms

    for data, ax in ((vh, virtualhome_state_axioms), (bh, behavior_state_axioms)):
        for op in data.domain.operators.values():
            assert operator_issues(op, data.domain, axioms=ax) == [], op.name


# --- the EAI tasks ----------------------------------------------------------------------------


@pytest.mark.data
@pytest.mark.parametrize(
    ("dataset", "part"), [("virtualhome", 0), ("virtualhome", 1), ("behavior", 0)]
)
def test_fast_downward_solves_a_sample_of_eai_tasks(
    vh: EaiPddl, bh: EaiPddl, dataset: str, part: int
) -> None:
    """25 of the 296 VirtualHome tasks the data lists as solved (in two halves, so test
    workers share them) and 5 BEHAVIOR tasks; the full sweep is
    ``benchmarks/bench_pddl.py --full``. Each is solved and its plan is valid under the
    gold model."""
    data = vh if dataset == "virtualhome" else bh
    ids = sample(data.solved, 25)[part::2] if dataset == "virtualhome" else sample(data.solved, 5)
    for ident in ids:
        problem = declare_missing_objects(data.domain, data.problem(ident))
        r = plan(data.domain, problem, timeout=120)
        assert r.solved, (ident, r.reason)
        assert check_plan(pddl_task(data.domain, problem), to_actions(r.plan)).valid, ident


# --- export of a simulator world -------------------------------------------------------------


def _core_world() -> tuple[World, frozenset, object]:  # type: ignore[type-arg]
    dom = Domain(
        "kitchen",
        {"object": None, "agent": "object", "cup": "object"},
        {"holding": ("agent", "object"), "on_table": ("object",), "graspable": ("object",)},
        {
            "grab": operator(
                "grab",
                "(?a - agent ?o - object)",
                pre="(and (graspable ?o) (on_table ?o))",
                eff="(and (holding ?a ?o) (not (on_table ?o)))",
                implicit=("a",),
            ),
            "put": operator(
                "put",
                "(?a - agent ?o - object)",
                pre="(holding ?a ?o)",
                eff="(and (on_table ?o) (not (holding ?a ?o)))",
                implicit=("a",),
            ),
        },
    )
    from planproof.ltl.trace import ground_atom

    world = World(
        dom,
        {"bot": frozenset({"agent"}), "cup.1": frozenset({"cup"}), "table": frozenset()},
        frozenset({ground_atom("graspable", "cup.1")}),
        agent="bot",
    )
    s0 = frozenset({ground_atom("on_table", "cup.1")})
    return world, s0, parse("holding(bot, cup.1)")


def test_simulator_world_exports_and_verifies_the_same() -> None:
    world, s0, goal = _core_world()
    dt, pt = task_to_pddl(world, s0, goal)  # type: ignore[arg-type]
    d, p = read_domain(dt), read_problem(pt)
    task = pddl_task(d, p)
    for plan_ in (
        [Action("grab", ("cup.1",))],
        [Action("put", ("cup.1",))],
        [Action("grab", ("cup.1",)), Action("grab", ("cup.1",))],
        [Action("grab", ("table",))],
        [Action("fly", ())],
    ):
        sim = replay(world, s0, plan_)
        ver = check_plan(task, pddl_plan(world, plan_))
        assert sim.executable == ver.executable
        assert (sim.first_error.kind if sim.first_error else None) == (
            ver.replay.first_error.kind if ver.replay.first_error else None
        )
    found = plan(d, p, timeout=30)
    assert found.plan == (("grab", ("bot", "cup.1")),)


@settings(max_examples=15, deadline=None)
@given(_switch_cases(goals=0), st.sampled_from([0, 3]))
def test_grounding_memo_gives_the_direct_compilation(
    case: tuple[int, list[tuple[int, int]], list[int]], split: int
) -> None:
    """The memoised operator compilations (renamed, their sequences renumbered) make the
    same grounded task as compiling every operator afresh, on a cold and a warm memo."""
    from planproof.pddl import ground

    n, wired, plugged = case
    d = read_domain(SWITCH_DOMAIN)
    p = read_problem(_switch_problem(n, wired, plugged, "(on l0)"))
    saved = ground.MAX_SPLIT
    try:
        ground.MAX_SPLIT = split
        direct = ground.ground_task(d, p, memo=False)
        ground._OPERATORS.clear()
        assert ground.ground_task(d, p) == direct
        assert ground.ground_task(d, p) == direct
    finally:
        ground.MAX_SPLIT = saved


@settings(max_examples=10, deadline=None)
@given(_switch_cases(goals=0))
def test_a_type_no_object_has_shares_the_grounding_memo(
    case: tuple[int, list[tuple[int, int]], list[int]],
) -> None:
    """The reference reading's domain declares a type no object has
    (``fd_reading.UNDECLARED_TYPE``): its operators compile as in the domain without it,
    so they come from the memo compiled for planproof's reading (nothing new is stored),
    and the task is the direct compilation's. An object of that type makes another
    context: its operators compile afresh."""
    import dataclasses

    from planproof.pddl import ground
    from planproof.pddl.fd_reading import UNDECLARED_TYPE

    n, wired, plugged = case
    d = read_domain(SWITCH_DOMAIN)
    p = read_problem(_switch_problem(n, wired, plugged, "(on l0)"))
    wider = dataclasses.replace(d, types={**d.types, UNDECLARED_TYPE: None})
    ground._OPERATORS.clear()
    ground.ground_task(d, p)
    stored = len(ground._OPERATORS)
    assert ground.ground_task(wider, p) == ground.ground_task(wider, p, memo=False)
    assert len(ground._OPERATORS) == stored
    named = dataclasses.replace(p, objects={**p.objects, "dining_room": UNDECLARED_TYPE})
    assert ground.ground_task(wider, named) == ground.ground_task(wider, named, memo=False)
    assert len(ground._OPERATORS) == 2 * stored


COUNTER_DOMAIN = """
(define (domain counter)
  (:predicates (b ?x) (z ?x) (lower ?x ?y))
  (:action inc
    :parameters (?k)
    :precondition (and (z ?k) (forall (?j) (imply (lower ?j ?k) (b ?j))))
    :effect (and (b ?k) (not (z ?k))
                 (forall (?j) (when (lower ?j ?k) (and (z ?j) (not (b ?j))))))))
"""


def _counter_problem(bits: int, goal: str) -> str:
    objs = " ".join(f"k{i}" for i in range(bits))
    lower = " ".join(f"(lower k{j} k{i})" for i in range(bits) for j in range(i))
    zeros = " ".join(f"(z k{i})" for i in range(bits))
    return (
        f"(define (problem c) (:domain counter) (:objects {objs})"
        f" (:init {zeros} {lower}) (:goal {goal}))"
    )


def test_builtin_time_limit_is_a_timeout_never_unsolvable() -> None:
    """A 9-bit counter counts through 512 states to its goal (and to "no plan" for a goal
    that needs bit 0 both set and clear): past the time limit the built-in search says
    TIMEOUT; with time it finds the 511-step plan and exhausts the other."""
    d = read_domain(COUNTER_DOMAIN)
    every = "(and " + " ".join(f"(b k{i})" for i in range(9)) + ")"
    never = "(and " + " ".join(f"(b k{i})" for i in range(9)) + " (z k0))"
    for goal in (every, never):
        p = read_problem(_counter_problem(9, goal))
        late = plan(d, p, engine="builtin", timeout=0.0)
        assert late.status is PlanStatus.TIMEOUT, late
        done = plan(d, p, engine="builtin", timeout=120)
        if goal == every:
            assert done.solved and len(done.plan) == 2**9 - 1
            assert check_plan(pddl_task(d, p), to_actions(done.plan)).valid
        else:
            assert done.status is PlanStatus.UNSOLVABLE, done
