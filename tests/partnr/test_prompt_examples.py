"""The example evaluation functions of the PARTNR generation prompts
(``propositions_prompt.txt`` and ``os_propositions_prompt.txt`` of
facebookresearch/partnr-planner @ ddfff19, MIT; ``tests/data/partnr/prompt_examples.json``):
each example's instruction, initial state and ``[FN]`` functions, copied verbatim. The
prompt says the functions are what must hold for the instruction to be done, and each
function's comment says what it means. planproof must give every function the value the
prompt's own initial state implies, and succeed once the instruction is carried out.

The ``[FN] name("a or b", "table in kitchen") [/FN]`` text is turned into planproof's
evaluation JSON here, in the test: string arguments are read with ``ast.literal_eval``
(never evaluated as code), and "``<furniture> in <room>``" names the furniture of that type
in that room, as the reference's ``PropositionParser`` maps it to instances."""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from planproof.simulators.partnr.engine import Evaluator
from planproof.simulators.partnr.model import parse_evaluation
from planproof.simulators.partnr.predicates import Atom, atom

DATA = Path(__file__).parent.parent / "data" / "partnr" / "prompt_examples.json"
STATES = {"clean", "filled", "powered_on"}
ROOM_ARG = {"is_in_room"}


@cache
def cases() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
    return data


class Scene:
    """The prompt's state description: furniture ``<type>_<room>``, placements, states."""

    def __init__(self, text: str) -> None:
        self.furniture: dict[tuple[str, str], str] = {}
        self.place: dict[str, tuple[str, str | None, str]] = {}  # obj → (how, furniture, room)
        self.states: dict[str, set[str]] = {}
        self.next_to: set[tuple[str, str]] = set()
        section = ""
        for raw in text.splitlines():
            line = raw.strip()
            if line.endswith(":"):
                section = line[:-1]
                continue
            line = line.removeprefix("* ")
            if section == "Objects":
                m = re.fullmatch(r"(\w+)(?: \(([^)]*)\))?", line)
                assert m, line
                self.states[m.group(1)] = set()  # "(empty, dirty)": the defaults
            elif section == "Furniture-Room Relations":
                kind, room = line.split(" in ")
                self.handle(kind, room)
            elif section == "Object-Furniture-Room Relations":
                self.change(line)

    def handle(self, kind: str, room: str) -> str:
        return self.furniture.setdefault((kind, room), f"{kind}_{room}")

    def change(self, line: str) -> None:
        """``x on f in r`` / ``x in f in r`` / ``x on floor in r`` / ``x next to y`` /
        ``x: clean, filled``."""
        if ": " in line:
            entity, states = line.split(": ")
            self.states.setdefault(entity, set()).update(s.strip() for s in states.split(","))
            return
        if " next to " in line:
            a, b = line.split(" next to ")
            self.next_to.add((a, b))
            return
        m = re.fullmatch(r"(\w+) (on|in) (\w+) in (\w+)", line)
        assert m, line
        obj, how, kind, room = m.groups()
        if kind == "floor":
            self.place[obj] = ("floor", None, room)
        else:
            self.place[obj] = ("on_top" if how == "on" else "inside", self.handle(kind, room), room)

    def atoms(self) -> frozenset[Atom]:
        out = {atom("in_room", f, room) for (_, room), f in self.furniture.items()}
        for obj, (how, furniture, room) in self.place.items():
            out.add(atom("in_room", obj, room))
            out.add(atom("on_floor", obj) if furniture is None else atom(how, obj, furniture))
        for entity, states in self.states.items():
            assert states <= STATES, states
            out |= {atom(s, entity) for s in states}
        out |= {atom("next_to", a, b) for a, b in self.next_to}
        return frozenset(out)

    def entities(self, text: str) -> list[str]:
        """``"shirt_1 or shirt_2"`` → objects; ``"table in kitchen"`` → that furniture."""
        out: list[str] = []
        for part in text.split(" or "):
            kind, _, room = part.strip().partition(" in ")
            if re.search(r"_\d+$", kind):
                out.append(kind)
            else:
                out += [f for (k, r), f in self.furniture.items() if k == kind and room in ("", r)]
        assert out, text
        return out


def proposition(scene: Scene, line: str) -> dict[str, Any]:
    m = re.fullmatch(r"\[FN\] (.*) \[/FN\]", line)
    assert m, line
    call = ast.parse(m.group(1), mode="eval").body
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    texts = [ast.literal_eval(a) for a in call.args]
    name = call.func.id
    args: list[Any] = [scene.entities(texts[0])]
    if len(texts) == 2:
        args.append([texts[1]] if name in ROOM_ARG else scene.entities(texts[1]))
    return {"function_name": name, "args": args}


def states_of(case: dict[str, Any]) -> tuple[Scene, frozenset[Atom], frozenset[Atom]]:
    scene = Scene(case["initial_state"])
    initial = scene.atoms()
    for change in case["goal_changes"]:
        scene.change(change)
    return scene, initial, scene.atoms()


def test_the_examples_are_the_prompts() -> None:
    """6 system examples shared by both prompts and 13 answered ones (6 + 7)."""
    all_cases = cases()
    assert len(all_cases) == 19
    by_file: dict[str, int] = {}
    for c in all_cases:
        for s in c["sources"]:
            name = s["path"].rsplit("/", 1)[-1]
            by_file[name] = by_file.get(name, 0) + 1
    assert by_file == {"propositions_prompt.txt": 12, "os_propositions_prompt.txt": 13}
    assert sum(len(c["functions"]) for c in all_cases) == 45  # 9 + 14 + 22
    assert (DATA.parent / "LICENSE").read_text("utf-8").startswith("MIT License")


@pytest.mark.parametrize("case", cases(), ids=lambda c: str(c["id"]))
def test_prompt_example(case: dict[str, Any]) -> None:
    scene, initial, goal = states_of(case)
    evaluation = parse_evaluation(
        {"propositions": [proposition(scene, line) for line in case["functions"]]}
    )
    at_start = Evaluator(evaluation).run([initial])
    assert [s == 0 for s in at_start.satisfied_at] == case["initial_values"], case["note"]
    expected_pc = sum(case["initial_values"]) / len(case["initial_values"])
    assert at_start.percent_complete == pytest.approx(expected_pc)
    done = Evaluator(evaluation).run([initial, goal])
    assert done.success and done.percent_complete == 1.0
    if not all(case["initial_values"]):
        assert not at_start.success


def test_or_lists_need_one_listed_entity() -> None:
    """The comments' "any object in object_names": with shirt_3 in the washer the OR-list
    function holds, the all-shirts example still needs the other two."""
    one = next(c for c in cases() if c["id"] == "system_put_a_shirt_in_the_washer")
    every = next(c for c in cases() if c["id"] == "system_put_all_the_shirts_in_the_washer")
    scene, initial, goal = states_of(one)
    evaluation = parse_evaluation(
        {"propositions": [proposition(scene, line) for line in every["functions"]]}
    )
    result = Evaluator(evaluation).run([initial, goal])
    assert not result.success
    assert result.percent_complete == pytest.approx(1 / 3)
