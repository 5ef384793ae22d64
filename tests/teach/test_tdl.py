"""Loading the 25 shipped TEACh definitions, macro expansion, subtasks, and bad input."""

from __future__ import annotations

import json

import pytest

from planproof.simulators.teach.catalog import EXAMPLE_PARAMS
from planproof.simulators.teach.checker import check
from planproof.simulators.teach.compile import to_ltl
from planproof.simulators.teach.errors import TDLError
from planproof.simulators.teach.state import SymbolicState
from planproof.simulators.teach.tdl import (
    SubtaskComponent,
    TaskRegistry,
    data_dir,
    default_registry,
    expand,
    parse_definition,
)


def test_all_25_definitions_load_with_licences() -> None:
    reg = default_registry()
    assert len(reg) == 25
    files = sorted(p.name for p in (data_dir() / "task_definitions").glob("*.json"))
    assert len(files) == 25
    assert {d.task_id for d in reg.definitions} == {int(f.split("__")[0]) for f in files}
    assert (data_dir() / "DATALICENSE").is_file() and (data_dir() / "SOFTWARELICENSE").is_file()
    assert set(EXAMPLE_PARAMS) == {d.task_name for d in reg.definitions}


@pytest.mark.parametrize("name", sorted(EXAMPLE_PARAMS))
def test_every_definition_instantiates_compiles_and_checks(name: str) -> None:
    task = default_registry().instantiate(name, EXAMPLE_PARAMS[name])
    assert "#" not in task.desc
    for sub in task.subtasks():
        assert "#" not in sub.desc
    to_ltl(task)
    status = check(task, SymbolicState.of([]))
    assert status.gc_satisfied <= status.gc_total


def test_breakfast_resolves_coffee_and_plate_of_toast() -> None:
    task = default_registry().instantiate("Breakfast", EXAMPLE_PARAMS["Breakfast"])
    names = {s.name for s in task.subtasks()}
    assert {"Coffee", "Plate Of Toast", "Toast", "Clean X", "Sandwich", "Salad"} <= names
    potatoes = task.component("potatoes")
    assert isinstance(potatoes, SubtaskComponent)
    # "#3" of Breakfast reaches the subtask's own "#3" as "Plate"
    assert potatoes.task.params == ("2", "Potato", "on", "Plate")
    assert potatoes.task.desc == "Cook 2 slice(s) of Potato and serve on a Plate."


def test_high_parameter_indices_expand_first() -> None:
    params = [str(i) for i in range(14)]
    assert expand("#13 and #1", params) == "13 and 1"


def test_put_all_preposition_macro() -> None:
    task = default_registry().instantiate("Put All X On Y", ["Fork", "in", "Sink"])
    assert task.desc == "Put all Fork in any Sink."
    assert task.relations[0].failure_desc == "The Fork needs to be put into a Sink"


def test_ocr_key_variants_are_read() -> None:
    raw = json.loads((data_dir() / "task_definitions" / "101__toast.json").read_text())
    raw["task name"] = raw.pop("task_name")
    raw["task anchor object"] = raw.pop("task_anchor_object")
    assert parse_definition(raw).task_name == "Toast"


def _defn(**over: object) -> dict[str, object]:
    base: dict[str, object] = {
        "task_id": 1,
        "task_name": "T",
        "task_nparams": 0,
        "task_anchor_object": "c",
        "desc": "d",
        "components": {
            "c": {
                "determiner": "a",
                "primary_condition": "objectType",
                "instance_shareable": False,
                "conditions": {"objectType": "Mug"},
                "condition_failure_descs": {},
            }
        },
        "relations": [],
    }
    base.update(over)
    return base


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"components": {}}, "components"),
        ({"task_anchor_object": "nope"}, "anchor"),
        (
            {
                "components": {
                    "c": {
                        "determiner": "some",
                        "primary_condition": "objectType",
                        "instance_shareable": False,
                        "conditions": {"objectType": "Mug"},
                    }
                }
            },
            "determiner",
        ),
        (
            {
                "relations": [
                    {
                        "property": "isOpen",
                        "head_entity_list": ["c"],
                        "head_determiner_list": ["a"],
                        "tail_entity_list": ["c"],
                        "tail_determiner_list": ["a"],
                    }
                ]
            },
            "parentReceptacles",
        ),
        (
            {
                "relations": [
                    {
                        "property": "parentReceptacles",
                        "head_entity_list": ["c"],
                        "head_determiner_list": ["a"],
                        "tail_entity_list": ["x"],
                        "tail_determiner_list": ["a"],
                    }
                ]
            },
            "not a component",
        ),
    ],
)
def test_malformed_definitions_are_typed_errors(over: dict[str, object], message: str) -> None:
    with pytest.raises(TDLError, match=message):
        parse_definition(_defn(**over))


def test_parameter_count_and_unknown_task() -> None:
    reg = default_registry()
    with pytest.raises(TDLError, match="takes 4 parameter"):
        reg.instantiate("N Slices Of X In Y", ["2"])
    with pytest.raises(TDLError, match="unknown task"):
        reg.instantiate("Make Pancakes")
    with pytest.raises(TDLError, match="must be 0 or 1"):
        reg.instantiate("Toggle X All Y", ["on", "maybe", "Lamps"])


def test_cycles_and_null_anchor_relations_are_rejected() -> None:
    a = _defn(
        task_name="A",
        task_id=1,
        components={"c": {"determiner": "a", "task_name": "B", "task_params": []}},
    )
    b = _defn(
        task_name="B",
        task_id=2,
        components={"c": {"determiner": "a", "task_name": "A", "task_params": []}},
    )
    reg = TaskRegistry([parse_definition(a), parse_definition(b)])
    with pytest.raises(TDLError, match="cyclic"):
        reg.instantiate("A")
    water = json.loads((data_dir() / "task_definitions" / "114__water_plant.json").read_text())
    uses = _defn(
        task_name="U",
        task_id=3,
        components={
            "w": {"determiner": "a", "task_name": "Water Plant", "task_params": []},
            "c": {
                "determiner": "a",
                "primary_condition": "objectType",
                "instance_shareable": True,
                "conditions": {"objectType": "Sink"},
            },
        },
        relations=[
            {
                "property": "parentReceptacles",
                "head_entity_list": ["w"],
                "head_determiner_list": ["a"],
                "tail_entity_list": ["c"],
                "tail_determiner_list": ["a"],
            }
        ],
    )
    reg2 = TaskRegistry([parse_definition(water), parse_definition(uses)])
    with pytest.raises(TDLError, match="no anchor"):
        reg2.instantiate("U")
