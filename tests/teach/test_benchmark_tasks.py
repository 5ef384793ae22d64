"""The paper's 12 benchmark task types: a complete hand-written state for each, and states
with one condition broken, with the goal-condition counts worked out by hand from the
definitions (comments give the arithmetic) and the unmet condition named in words."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from planproof.simulators.teach.catalog import BENCHMARK_TASKS
from planproof.simulators.teach.checker import check
from planproof.simulators.teach.compile import goal_reached
from planproof.simulators.teach.state import SymbolicState
from planproof.simulators.teach.tdl import load_task
from tests.teach.helpers import edit, obj, scene, without


@dataclass(frozen=True)
class Broken:
    what: str
    state: SymbolicState
    gc_satisfied: int
    phrase: str


@dataclass(frozen=True)
class Case:
    label: str
    complete: SymbolicState
    gc_total: int
    broken: tuple[Broken, ...]


def _coffee() -> Case:
    s = scene(obj("Mug|1", ["isFilledWithCoffee", "receptacle"], ["CounterTop|1"]))
    return Case(
        "Make Coffee",
        s,
        3,
        (  # Mug: objectType, isDirty=0, isFilledWithCoffee=1
            Broken(
                "dirty", edit(s, "Mug|1", ["isDirty"]), 2, "The mug is dirty. Rinse with water."
            ),
            Broken(
                "empty",
                edit(s, "Mug|1", remove=["isFilledWithCoffee"]),
                2,
                "The mug does not have coffee.",
            ),
        ),
    )


def _plant() -> Case:
    s = scene(obj("HousePlant|1", ["isFilledWithLiquid"], ["CounterTop|1"]))
    return Case(
        "Water Plant",
        s,
        2,
        (
            Broken(
                "dry",
                edit(s, "HousePlant|1", remove=["isFilledWithLiquid"]),
                1,
                "The plant needs to be watered.",
            ),
        ),
    )


def _toast() -> Case:
    s = scene(
        obj("BreadSliced|1", ["isCooked"], ["Plate|1"]),
        obj("Plate|1", ["receptacle"], ["CounterTop|1"]),
    )
    # toast 2 + clean plate 2 + sink 2 + relation 1
    return Case(
        "Make Plate Of Toast",
        s,
        7,
        (
            # toast 1/2, relation 0 (no toast anchors)
            Broken(
                "untoasted",
                edit(s, "BreadSliced|1", remove=["isCooked"]),
                5,
                "The bread needs to be toasted.",
            ),
            # plate 1/2, relation 0 (no clean plate)
            Broken("dirty plate", edit(s, "Plate|1", ["isDirty"]), 5, "The Plate is dirty."),
            Broken(
                "off plate",
                edit(s, "BreadSliced|1", parents=["CounterTop|1"]),
                6,
                "The toast needs to be on a clean plate.",
            ),
            Broken("no sink", without(s, "SinkBasin|1"), 5, "Need 1 more Sink"),
            # the whole bread is the candidate: objectType fails, isCooked holds: toast 1/2
            Broken(
                "unsliced",
                edit(without(s, "BreadSliced|1"), "Plate|1").replace_objects(
                    [obj("Bread|1", ["isCooked"], ["Plate|1"])]
                ),
                5,
                "Bread|1: The bread needs to be sliced using a knife.",
            ),
        ),
    )


def _boil() -> Case:
    s = scene(obj("Potato|1", ["isBoiled"], ["CounterTop|1"]))
    return Case(
        "Boil Potato",
        s,
        2,
        (
            Broken(
                "raw",
                edit(s, "Potato|1", remove=["isBoiled"]),
                1,
                "Boil the Potato by cooking it in water.",
            ),
        ),
    )


def _n_slices() -> Case:
    s = scene(
        obj("Tomato|1", ["isSliced"], ["CounterTop|1"]),
        obj("TomatoSliced|1", [], ["Bowl|1"]),
        obj("TomatoSliced|2", [], ["Bowl|1"]),
        obj("Bowl|1", ["receptacle"], ["CounterTop|1"]),
    )
    # 2 slices x 1 + knife 1 + clean bowl 2 + sink 2 + relation 2 slices in the bowl
    return Case(
        "N Slices Of X In Y",
        s,
        9,
        (
            Broken(
                "one out",
                edit(s, "TomatoSliced|2", parents=["CounterTop|1"]),
                8,
                "The Tomato slice needs to be in a clean Bowl.",
            ),
            # slices 1 (+0 for the whole tomato, the candidate), relation 1
            Broken(
                "one slice",
                without(s, "TomatoSliced|2"),
                7,
                "Tomato|1: The Tomato needs to be sliced using a knife.",
            ),
            Broken("no knife", without(s, "Knife|1"), 8, "Need 1 more Knife"),
            # bowl 1/2, relation 0
            Broken("dirty bowl", edit(s, "Bowl|1", ["isDirty"]), 6, "The Bowl is dirty."),
        ),
    )


def _n_cooked() -> Case:
    s = scene(
        obj("PotatoSliced|1", ["simbotIsCooked"], ["Plate|1"]),
        obj("Plate|1", ["receptacle"], ["CounterTop|1"]),
    )
    # cooked slice 2 + knife 1 + clean plate 2 + sink 2 + relation 1
    return Case(
        "N Cooked Slices Of X In Y",
        s,
        8,
        (
            Broken(
                "raw",
                edit(s, "PotatoSliced|1", remove=["simbotIsCooked"]),
                6,
                "The Potato slice needs to be cooked.",
            ),
            Broken(
                "off plate",
                edit(s, "PotatoSliced|1", parents=["CounterTop|1"]),
                7,
                "The cooked Potato slice needs to be on a clean Plate.",
            ),
        ),
    )


def _clean_all() -> Case:
    s = scene(obj("Cup|1", [], ["CounterTop|1"]), obj("Cup|2", [], ["SinkBasin|1"]))
    # 2 cups x (class, isDirty=0) + sink 2
    return Case(
        "Clean All X",
        s,
        6,
        (Broken("one dirty", edit(s, "Cup|2", ["isDirty"]), 5, "Cup|2: The Cup is dirty."),),
    )


def _put_all_on() -> Case:
    s = scene(
        obj("Drawer|1", ["receptacle"]),
        obj("Drawer|2", ["receptacle"]),
        obj("Fork|1", [], ["Drawer|1"]),
        obj("Fork|2", [], ["Drawer|2"]),
    )
    # 2 forks x 1 + drawer 2 + relation 2 (every fork)
    return Case(
        "Put All X On Y",
        s,
        6,
        (
            Broken(
                "one out",
                edit(s, "Fork|2", parents=["CounterTop|1"]),
                5,
                "Fork|2: The Fork needs to be put into a Drawer",
            ),
        ),
    )


def _put_all_in_one() -> Case:
    s = scene(
        obj("Bowl|1", ["receptacle"]),
        obj("Bowl|2", ["receptacle"]),
        obj("Apple|1", [], ["Bowl|1"]),
        obj("Apple|2", [], ["Bowl|1"]),
    )
    return Case(
        "Put All X In One Y",
        s,
        6,
        (
            Broken(
                "two bowls",
                edit(s, "Apple|2", parents=["Bowl|2"]),
                5,
                "The Apple needs to be put into a single Bowl",
            ),
        ),
    )


def _sandwich() -> Case:
    s = scene(
        obj("BreadSliced|1", ["isCooked"], ["Plate|1"]),
        obj("BreadSliced|2", ["isCooked"], ["Plate|1"]),
        obj("LettuceSliced|1", [], ["Plate|1"]),
        obj("TomatoSliced|1", [], ["Plate|1"]),
        obj("Plate|1", ["receptacle"], ["CounterTop|1"]),
    )
    # toast x2: 4; lettuce 1 + knife 1; tomato 1 + knife 1; plate 4; relation 2+1+1
    return Case(
        "Prepare Sandwich",
        s,
        16,
        (
            # toast 2+1, relation 3/4
            Broken(
                "one untoasted",
                edit(s, "BreadSliced|2", remove=["isCooked"]),
                14,
                "The bread needs to be toasted.",
            ),
            Broken(
                "lettuce off",
                edit(s, "LettuceSliced|1", parents=["CounterTop|1"]),
                15,
                "All sandwich components need to be on a plate.",
            ),
        ),
    )


def _salad() -> Case:
    s = scene(
        obj("LettuceSliced|1", [], ["Plate|1"]),
        obj("TomatoSliced|1", [], ["Plate|1"]),
        obj("PotatoSliced|1", ["simbotIsCooked"], ["Plate|1"]),
        obj("Plate|1", ["receptacle"], ["CounterTop|1"]),
    )
    # lettuce 2, tomato 2, cooked potato 3, plate 4, relation 3
    return Case(
        "Prepare Salad",
        s,
        14,
        (
            Broken(
                "potato raw",
                edit(s, "PotatoSliced|1", remove=["simbotIsCooked"]),
                12,
                "The Potato slice needs to be cooked.",
            ),
        ),
    )


def _breakfast() -> Case:
    s = scene(
        obj("DiningTable|1", ["receptacle"]),
        obj("Mug|1", ["isFilledWithCoffee"], ["DiningTable|1"]),
        obj("BreadSliced|1", ["isCooked"], ["Plate|1"]),
        obj("Plate|1", ["receptacle"], ["DiningTable|1"]),
    )
    # coffee 3 + plate of toast 7 + table 2 + relation (1 coffee, 1 toast plate) 2
    return Case(
        "Prepare Breakfast",
        s,
        14,
        (
            Broken(
                "mug away",
                edit(s, "Mug|1", parents=["CounterTop|1"]),
                13,
                "All breakfast items need to be on the DiningTable.",
            ),
            Broken(
                "plate away",
                edit(s, "Plate|1", parents=["CounterTop|1"]),
                13,
                "Plate|1: All breakfast items need to be on the DiningTable.",
            ),
            # coffee 2/3 and no coffee anchor for the relation
            Broken("mug dirty", edit(s, "Mug|1", ["isDirty"]), 12, "The mug is dirty."),
        ),
    )


CASES = {
    c.label: c
    for c in (
        _coffee(),
        _plant(),
        _toast(),
        _boil(),
        _n_slices(),
        _n_cooked(),
        _clean_all(),
        _put_all_on(),
        _put_all_in_one(),
        _sandwich(),
        _salad(),
        _breakfast(),
    )
}
TASKS = {b.label: b for b in BENCHMARK_TASKS}


def test_every_benchmark_type_has_a_case() -> None:
    assert set(CASES) == set(TASKS)
    assert len(TASKS) == 12


@pytest.mark.parametrize("label", sorted(CASES))
def test_complete_state(label: str) -> None:
    b, c = TASKS[label], CASES[label]
    task = load_task(b.task_name, b.params)
    status = check(task, c.complete)
    assert status.success, status.unsatisfied
    assert (status.gc_satisfied, status.gc_total) == (c.gc_total, c.gc_total)
    assert status.unsatisfied == ()
    assert goal_reached(task, c.complete)


@pytest.mark.parametrize(
    ("label", "index"), [(k, i) for k, c in sorted(CASES.items()) for i in range(len(c.broken))]
)
def test_broken_condition(label: str, index: int) -> None:
    b, c = TASKS[label], CASES[label]
    broken = c.broken[index]
    task = load_task(b.task_name, b.params)
    status = check(task, broken.state)
    assert not status.success, broken.what
    assert status.gc_total == c.gc_total
    assert status.gc_satisfied == broken.gc_satisfied, status.unsatisfied
    assert any(broken.phrase in u for u in status.unsatisfied), status.unsatisfied
    assert not goal_reached(task, broken.state)


def test_on_any_versus_in_one() -> None:
    """x1 in y1, x2 in y2 satisfies PUT ALL X ON Y but not PUT ALL X IN ONE Y (paper)."""
    split = CASES["Put All X In One Y"].broken[0].state
    assert check(load_task("Put All X On Y", ["Apple", "in", "Bowl"]), split).success
    assert not check(load_task("Put All X In One Y", ["Apple", "in", "Bowl"]), split).success


def test_progress_check_shape() -> None:
    c = CASES["Make Plate Of Toast"]
    status = check(load_task("Plate Of Toast"), c.broken[0].state)
    pc = status.progress_check()
    assert pc["task_desc"] == "Make a plate of toast."
    assert pc["success"] == 0
    toast = pc["subgoals"][0]
    assert toast["description"] == "Make a slice of toast."
    assert toast["problem_keys"]["BreadSliced|1"][0]["property_name"] == "isCooked"
    assert toast["problem_keys"]["BreadSliced|1"][0]["desired_property_value"] == 1
