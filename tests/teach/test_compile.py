"""The compiled goal formula and the checker agree; Z3 reads the same goals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from planproof.ltl.smt import entails
from planproof.simulators.teach.catalog import BENCHMARK_TASKS
from planproof.simulators.teach.checker import check
from planproof.simulators.teach.compile import goal_reached, to_ltl, witness
from planproof.simulators.teach.state import SymbolicState, state_from_atoms
from planproof.simulators.teach.strategies import symbolic_states
from planproof.simulators.teach.tdl import load_task
from tests.teach.helpers import obj

TYPES = {
    "Make Coffee": ("Mug", "CounterTop"),
    "Water Plant": ("HousePlant", "Cup"),
    "Make Plate Of Toast": ("BreadSliced", "Bread", "Plate", "SinkBasin", "Knife"),
    "Boil Potato": ("Potato", "Pot"),
    "N Slices Of X In Y": ("TomatoSliced", "Bowl", "Knife", "SinkBasin"),
    "N Cooked Slices Of X In Y": ("PotatoSliced", "Plate", "Knife", "SinkBasin"),
    "Clean All X": ("Cup", "Mug", "SinkBasin"),
    "Put All X On Y": ("Fork", "Drawer", "CounterTop"),
    "Put All X In One Y": ("Apple", "Bowl"),
    "Prepare Sandwich": (
        "BreadSliced",
        "LettuceSliced",
        "TomatoSliced",
        "Plate",
        "Knife",
        "SinkBasin",
    ),
    "Prepare Salad": (
        "LettuceSliced",
        "TomatoSliced",
        "PotatoSliced",
        "Plate",
        "Knife",
        "SinkBasin",
    ),
    "Prepare Breakfast": ("Mug", "BreadSliced", "Plate", "DiningTable", "SinkBasin"),
}
BENCH = {b.label: b for b in BENCHMARK_TASKS}


@pytest.mark.parametrize("label", sorted(TYPES))
def test_checker_and_compiled_goal_agree(label: str) -> None:
    b = BENCH[label]
    task = load_task(b.task_name, b.params)
    formula = to_ltl(task)
    max_objects = 7 if label not in {"Prepare Sandwich", "Prepare Salad"} else 8

    @settings(max_examples=60, deadline=None)
    @given(symbolic_states(TYPES[label], max_objects=max_objects))
    def agree(state: SymbolicState) -> None:
        assert check(task, state).success == goal_reached(task, state, formula)

    agree()


@pytest.mark.parametrize(
    ("label", "objects"),
    [
        ("Make Plate Of Toast", ("BreadSliced|1", "Plate|1", "SinkBasin|1")),
        (
            "N Slices Of X In Y",
            ("TomatoSliced|1", "TomatoSliced|2", "Bowl|1", "Knife|1", "SinkBasin|1"),
        ),
        ("Put All X In One Y", ("Apple|1", "Apple|2", "Bowl|1", "Bowl|2")),
    ],
)
def test_z3_witness_is_a_complete_state(label: str, objects: tuple[str, ...]) -> None:
    b = BENCH[label]
    task = load_task(b.task_name, b.params)
    base = SymbolicState.of(obj(o) for o in objects)
    result = witness(task, base)
    assert result.sat and result.model is not None
    assert check(task, state_from_atoms(base, result.model)).success


def test_z3_no_witness_without_the_objects() -> None:
    task = load_task("N Slices Of X In Y", ["2", "Tomato", "in", "Bowl"])
    base = SymbolicState.of(obj(o) for o in ("TomatoSliced|1", "Bowl|1", "Knife|1", "Sink|1"))
    assert not witness(task, base).sat  # two slices are needed, one exists


def test_in_one_entails_on_any_but_not_back() -> None:
    one = to_ltl(load_task("Put All X In One Y", ["Apple", "in", "Bowl"]))
    any_ = to_ltl(load_task("Put All X On Y", ["Apple", "in", "Bowl"]))
    universe = SymbolicState.of(
        obj(o) for o in ("Apple|1", "Apple|2", "Bowl|1", "Bowl|2")
    ).universe()
    assert entails(one, any_, universe).holds
    back = entails(any_, one, universe)
    assert not back.holds and back.counterexample is not None
