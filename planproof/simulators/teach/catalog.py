"""The paper's 12 benchmark task types and one parameter list for every shipped task.

The paper does not list parameter values (seed spec §9); the ones below are examples
chosen from the object classes of ``custom_object_classes.json`` so that every shipped
definition can be instantiated, compiled and checked.
"""

from __future__ import annotations

from dataclasses import dataclass

BREAKFAST_PARAMS = (
    "1",
    "1",
    "0",
    "Plate",
    "0",
    "Plate",
    "0",
    "0",
    "0",
    "0",
    "0",
    "0",
    "0",
    "DiningTable",
)


@dataclass(frozen=True, slots=True)
class BenchmarkTask:
    """A task type of the paper's Table 2 and the definition that implements it."""

    label: str
    task_name: str
    params: tuple[str, ...] = ()


BENCHMARK_TASKS: tuple[BenchmarkTask, ...] = (
    BenchmarkTask("Make Coffee", "Coffee"),
    BenchmarkTask("Water Plant", "Water Plant"),
    BenchmarkTask("Make Plate Of Toast", "Plate Of Toast"),
    BenchmarkTask("Boil Potato", "Boil X", ("Potato",)),
    BenchmarkTask("N Slices Of X In Y", "N Slices Of X In Y", ("2", "Tomato", "in", "Bowl")),
    BenchmarkTask(
        "N Cooked Slices Of X In Y", "N Cooked Slices Of X In Y", ("1", "Potato", "on", "Plate")
    ),
    BenchmarkTask("Clean All X", "Clean All X", ("Cup",)),
    BenchmarkTask("Put All X On Y", "Put All X On Y", ("Fork", "in", "Drawer")),
    BenchmarkTask("Put All X In One Y", "Put All X In One Y", ("Apple", "in", "Bowl")),
    BenchmarkTask("Prepare Sandwich", "Sandwich", ("1", "1")),
    BenchmarkTask("Prepare Salad", "Salad", ("1", "1", "1")),
    BenchmarkTask("Prepare Breakfast", "Breakfast", BREAKFAST_PARAMS),
)

EXAMPLE_PARAMS: dict[str, tuple[str, ...]] = {
    "Toast": (),
    "Coffee": (),
    "Clean X": ("Plate",),
    "Sliced X": ("Tomato",),
    "Cooked Slice Of X": ("Potato",),
    "Plate Of Toast": (),
    "N Cooked Slices Of X In Y": ("2", "Potato", "on", "Plate"),
    "N Slices Of X In Y": ("2", "Tomato", "in", "Bowl"),
    "Omelette": (),
    "Put All X On Y": ("Fork", "in", "Drawer"),
    "Put All X In One Y": ("Apple", "in", "Bowl"),
    "Boil X": ("Potato",),
    "Poach Egg": (),
    "Water Plant": (),
    "Clean All X": ("Cup",),
    "Toggle X All Y": ("on", "1", "Lamps"),
    "Tutorial": (),
    "Breakfast": (
        "1",
        "1",
        "1",
        "Plate",
        "1",
        "Plate",
        "1",
        "1",
        "1",
        "1",
        "1",
        "1",
        "1",
        "CounterTop",
    ),
    "Sandwich": ("1", "1"),
    "Salad": ("1", "1", "1"),
    "Candles": (),
    "Workspace": ("1", "1", "1"),
    "Basic Kitchen Tasks": (),
    "Basic Bathroom Tasks": (),
    "Custom Properties Kitchen Tasks": (),
}
