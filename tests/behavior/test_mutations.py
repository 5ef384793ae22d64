"""Mutations of the gold plans give the error the paper's procedure implies, at the right
step (Fig. 19: affordance → additional step → precondition → held earlier ? wrong order :
missing step; grammar errors before anything runs).

Expected kinds are derived from the paper's procedure, the action vocabulary of the
prompt and the world's object properties and the *gold* replay's states — never from the
classifier under test. Only what the procedure implies is asserted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import Atom, Const
from planproof.simulators.core import Action, ErrorKind, Replay, Task, replay

PROMPT_ACTIONS = frozenset(
    f"{h}_{a}"
    for h in ("LEFT", "RIGHT")
    for a in (
        [
            "GRASP",
            "RELEASE",
            "PLACE_ONTOP",
            "PLACE_INSIDE",
            "PLACE_NEXTTO",
            "PLACE_UNDER",
            "PLACE_NEXTTO_ONTOP",
            "TRANSFER_CONTENTS_INSIDE",
            "TRANSFER_CONTENTS_ONTOP",
        ]
    )
) | frozenset(
    [
        "OPEN",
        "CLOSE",
        "COOK",
        "CLEAN",
        "FREEZE",
        "UNFREEZE",
        "SLICE",
        "SOAK",
        "DRY",
        "TOGGLE_ON",
        "TOGGLE_OFF",
    ]
)
"""The 29 actions of the action-sequencing prompt (seed §3.1)."""

REQUIRED_PROPERTY = {
    "OPEN": "openable",
    "CLOSE": "openable",
    "TOGGLE_ON": "toggleable",
    "TOGGLE_OFF": "toggleable",
    "SLICE": "sliceable",
    "LEFT_GRASP": "graspable",
    "RIGHT_GRASP": "graspable",
    "SOAK": "soakable",
    "DRY": "soakable",
    "COOK": "cookable",
    "CLEAN": "cleanable",
    "FREEZE": "freezable",
    "UNFREEZE": "freezable",
}
"""Table 27: the object property each single-object action needs."""

REDUNDANT_WHEN_REPEATED = frozenset(REQUIRED_PROPERTY) | {"LEFT_RELEASE", "RIGHT_RELEASE"}
"""Actions whose effect holds right after they ran: repeating one is an additional step."""

N_EXAMPLES = 40


@dataclass(frozen=True)
class Gold:
    task: Task
    replay: Replay

    @property
    def ran(self) -> int:
        """Steps of the gold plan that executed (none when a grammar error, found before
        anything runs, stops it)."""
        e = self.replay.first_error
        if e is not None and e.kind.is_grammar:
            return 0
        return len(self.task.gold) if e is None else e.index


_GOLD: dict[str, Gold] = {}


def _gold(task: Task) -> Gold:
    """The gold replay of ``task`` (computed once per test process)."""
    if task.identifier not in _GOLD:
        _GOLD[task.identifier] = Gold(task, replay(task.world, task.initial, task.gold))
    return _GOLD[task.identifier]


def _hand(name: str) -> str | None:
    return name.split("_", 1)[0] if name.startswith(("LEFT_", "RIGHT_")) else None


def _hand_held_before(g: Gold, hand: str, upto: int) -> bool:
    """Did ``hand`` hold anything in a gold state s_0..s_upto?"""
    pred = "holds_lh" if hand == "LEFT" else "holds_rh"
    return any(a.pred == pred for s in g.replay.trace.states[: upto + 1] for a in s)


def _sites(tasks: tuple[Task, ...], ok: Callable[[Gold, int], bool]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for k, t in enumerate(tasks):
        g = _gold(t)
        out.extend((k, i) for i in range(g.ran) if ok(g, i))
    return out


def _grasp_then_use(g: Gold, i: int) -> bool:
    """Step i grasps with a hand and step i + 1 places from that hand (both ran)."""
    a = g.task.gold
    if i + 1 >= g.ran or not a[i].name.endswith("_GRASP"):
        return False
    if {i, i + 1} & {w.index for w in g.replay.warnings}:
        return False  # a step that changed nothing in the gold run (a repeated GRASP)
    h = _hand(a[i].name)
    return h is not None and _hand(a[i + 1].name) == h and "_PLACE_" in a[i + 1].name


def _check_place_without_grasp(g: Gold, r: Replay, i: int) -> None:
    """The PLACE now runs in s_i, where the hand is empty (the gold GRASP needed it so)."""
    e = r.first_error
    assert e is not None and e.index == i
    assert e.kind in (ErrorKind.MISSING_STEP, ErrorKind.WRONG_ORDER)
    hand = _hand(g.task.gold[i].name)
    assert hand is not None
    if not _hand_held_before(g, hand, i):
        assert e.kind is ErrorKind.MISSING_STEP  # the hand never held anything before


@pytest.fixture(scope="module")
def grasp_sites(behavior_tasks: tuple[Task, ...]) -> list[tuple[int, int]]:
    return _sites(behavior_tasks, _grasp_then_use)


_SETTINGS = settings(
    max_examples=N_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@_SETTINGS
@given(data=st.data())
def test_drop_grasp_before_place(
    behavior_tasks: tuple[Task, ...], grasp_sites: list[tuple[int, int]], data: st.DataObject
) -> None:
    k, i = data.draw(st.sampled_from(grasp_sites))
    g = _gold(behavior_tasks[k])
    plan = g.task.gold[:i] + g.task.gold[i + 1 :]
    _check_place_without_grasp(g, replay(g.task.world, g.task.initial, plan), i)


@_SETTINGS
@given(data=st.data())
def test_swap_grasp_and_place(
    behavior_tasks: tuple[Task, ...], grasp_sites: list[tuple[int, int]], data: st.DataObject
) -> None:
    k, i = data.draw(st.sampled_from(grasp_sites))
    g = _gold(behavior_tasks[k])
    a = g.task.gold
    plan = (*a[:i], a[i + 1], a[i], *a[i + 2 :])
    _check_place_without_grasp(g, replay(g.task.world, g.task.initial, plan), i)


@_SETTINGS
@given(data=st.data())
def test_duplicate_step(behavior_tasks: tuple[Task, ...], data: st.DataObject) -> None:
    """Repeating a step right away: its effect already holds (additional step, a warning;
    the rest of the plan runs as before), except a PLACE, whose hand is now empty although
    it held the object one state earlier (wrong order)."""
    k = data.draw(st.integers(0, len(behavior_tasks) - 1))
    g = _gold(behavior_tasks[k])
    if g.ran == 0:
        return
    i = data.draw(st.integers(0, g.ran - 1))
    a = g.task.gold
    plan = (*a[: i + 1], a[i], *a[i + 1 :])
    r = replay(g.task.world, g.task.initial, plan)
    name = a[i].name
    if name in REDUNDANT_WHEN_REPEATED:
        assert any(w.index == i + 1 and w.kind is ErrorKind.ADDITIONAL_STEP for w in r.warnings)
        assert r.final == g.replay.final
        ge, re = g.replay.first_error, r.first_error
        assert (ge is None) == (re is None)
        if ge is not None and re is not None:
            assert (re.index, re.kind) == (ge.index + 1, ge.kind)
    elif "_PLACE_" in name:
        e = r.first_error
        assert e is not None and (e.index, e.kind) == (i + 1, ErrorKind.WRONG_ORDER)
        assert e.held_at == i


@_SETTINGS
@given(data=st.data())
def test_non_affordant_argument(behavior_tasks: tuple[Task, ...], data: st.DataObject) -> None:
    """An object without the property the action needs (Table 27) is an affordance error
    at that step, whatever the state."""
    sites = data.draw(st.sampled_from(_property_sites(behavior_tasks)))
    k, i = sites
    g = _gold(behavior_tasks[k])
    act = g.task.gold[i]
    prop = REQUIRED_PROPERTY[act.name]
    w = g.task.world
    lacking = sorted(
        o for o in w.universe.names if o != w.agent and Atom(prop, (Const(o),)) not in w.static
    )
    if not lacking:
        return
    y = data.draw(st.sampled_from(lacking))
    plan = (*g.task.gold[:i], Action(act.name, (y,)), *g.task.gold[i + 1 :])
    e = replay(w, g.task.initial, plan).first_error
    assert e is not None and (e.index, e.kind) == (i, ErrorKind.AFFORDANCE)


_PROPERTY_SITES: list[list[tuple[int, int]]] = []


def _property_sites(tasks: tuple[Task, ...]) -> list[tuple[int, int]]:
    if not _PROPERTY_SITES:
        _PROPERTY_SITES.append(_sites(tasks, lambda g, i: g.task.gold[i].name in REQUIRED_PROPERTY))
    return _PROPERTY_SITES[0]


def _well_formed(t: Task) -> bool:
    """The gold plan uses only prompt actions (one annotation misspells one)."""
    return all(a.name in PROMPT_ACTIONS for a in t.gold)


@_SETTINGS
@given(data=st.data(), what=st.sampled_from(["object", "action", "arity"]))
def test_invented_object_action_or_arity(
    behavior_tasks: tuple[Task, ...], data: st.DataObject, what: str
) -> None:
    """Grammar errors are found before anything runs, at the step that has them."""
    k = data.draw(
        st.sampled_from([k for k, t in enumerate(behavior_tasks) if _well_formed(t) and t.gold])
    )
    t = behavior_tasks[k]
    i = data.draw(st.integers(0, len(t.gold) - 1))
    a = t.gold[i]
    if what == "object":
        bad = Action(a.name, ("unicorn_0", *a.args[1:]))
        expected = ErrorKind.HALLUCINATION
    elif what == "action":
        bad = Action("TELEPORT", a.args)
        expected = ErrorKind.HALLUCINATION
    else:
        bad = Action(a.name, (*a.args, a.args[0]))
        expected = ErrorKind.ARGUMENT_COUNT
    plan = (*t.gold[:i], bad, *t.gold[i + 1 :])
    r = replay(t.world, t.initial, plan)
    assert r.first_error is not None
    assert (r.first_error.index, r.first_error.kind) == (i, expected)
    assert r.executed == ()  # grammar is checked before execution
