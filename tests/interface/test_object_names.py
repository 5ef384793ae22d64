"""Reading published answers: bare object names, repeated keys, scene-prefixed ids."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planproof.interface.identifiers import canonical_identifiers
from planproof.interface.object_names import collapse_repeated, has_id, resolve_names
from planproof.interface.responses import parse_actions
from planproof.simulators.core import Action


def test_bare_names_resolve_and_unknown_names_stay() -> None:
    parsed = parse_actions('{"WALK": ["washing_machine"], "GRAB": ["unicorn"]}', "virtualhome")
    actions, notes = resolve_names(parsed.actions, {"washing_machine": "washing_machine.1001"})
    assert actions == (Action("WALK", ("washing_machine.1001",)), Action("GRAB", ("unicorn",)))
    assert len(notes) == 1 and "washing_machine.1001" in notes[0]


def test_names_with_ids_are_left_alone() -> None:
    plan = (Action("WALK", ("soap.1002",)),)
    assert resolve_names(plan, {"soap.1002": "x.1", "soap": "soap.7"}) == (plan, ())
    assert has_id("soap.1002") and not has_id("soap") and not has_id("a.b")


def test_repeated_keys_collapse_as_json_loads_does() -> None:
    import json

    text = '{"WALK": ["a"], "GRAB": ["b"], "WALK": ["c"], "PUTIN": ["b", "c"]}'
    steps = parse_actions(text, "virtualhome").actions
    assert len(steps) == 4
    collapsed, notes = collapse_repeated(steps)
    assert [(a.name, list(a.args)) for a in collapsed] == list(json.loads(text).items())
    assert notes and "4 steps become 3" in notes[0]


names = st.sampled_from(["WALK", "GRAB", "OPEN", "PUTIN", "SWITCHON"])
args = st.lists(st.sampled_from(["a", "b", "c"]), max_size=2)


@given(st.lists(st.tuples(names, args), max_size=12))
def test_collapse_equals_json_loads_on_any_plan(plan: list[tuple[str, list[str]]]) -> None:
    import json

    text = "{" + ", ".join(f"{json.dumps(n)}: {json.dumps(a)}" for n, a in plan) + "}"
    actions = tuple(Action(n, tuple(a)) for n, a in plan)
    collapsed, _ = collapse_repeated(actions)
    assert [(a.name, list(a.args)) for a in collapsed] == list(json.loads(text).items())


def test_scene_prefixed_identifiers() -> None:
    known = {"27_2", "30_1"}
    out, notes = canonical_identifiers({"scene_1_27_2": 1, "30_1": 2, "scene_1_9_9": 3}, known)
    assert out == {"27_2": 1, "30_1": 2, "scene_1_9_9": 3}
    assert notes == ["1 identifiers written scene_1_<id> read as <id>"]
    # an id present in both spellings keeps both entries as written
    out, notes = canonical_identifiers({"scene_1_27_2": 1, "27_2": 2}, known)
    assert out == {"scene_1_27_2": 1, "27_2": 2} and notes == []


def test_a_published_answer_without_ids_executes() -> None:
    """GPT-4o's published answer for 27_2 (Wash clothes), written without ids: read with
    the reference's names it is a plan of the task's objects, not a hallucination."""
    from planproof.metrics.action_sequencing import evaluate_response
    from planproof.runs.modules import load_tasks

    task = next(t for t in load_tasks("virtualhome") if t.identifier == "27_2")
    text = (
        '```json\n{"WALK": ["washing_machine"], "OPEN": ["washing_machine"], '
        '"WALK": ["soap"], "GRAB": ["soap"]}'
    )
    result = evaluate_response(task, text, "virtualhome")
    assert result.error_type != "hallucination"
    assert [str(a) for a in result.actions][:2] == [
        "WALK(washing_machine.1001)",
        "OPEN(washing_machine.1001)",
    ]
    collapsed = evaluate_response(task, text, "virtualhome", repeated="last")
    assert [str(a) for a in collapsed.actions] == [
        "WALK(soap.1002)",
        "OPEN(washing_machine.1001)",
        "GRAB(soap.1002)",
    ]
