"""Hand-written cases for the tolerant response parser: every accepted form, every
repair note, every error."""

from __future__ import annotations

import pytest

from planproof.interface.errors import ResponseError
from planproof.interface.responses import (
    MAX_DEPTH,
    MAX_RESPONSE_CHARS,
    ParsedResponse,
    parse_actions,
    render_behavior,
    render_virtualhome,
    render_virtualhome_script,
)
from planproof.simulators.core import Action, ErrorKind

A = Action

VH_PLAN = (
    A("WALK", ("dining_room.201",)),
    A("FIND", ("soap.1002",)),
    A("PUTBACK", ("soap.1002", "washing_machine.1001")),
    A("STANDUP"),
)
VH_TEXT = (
    '{"WALK": ["dining_room", "201"], "FIND": ["soap", "1002"], '
    '"PUTBACK": ["soap", "1002", "washing_machine", "1001"], "STANDUP": []}'
)


def vh(text: str) -> ParsedResponse:
    return parse_actions(text, "virtualhome")


def bh(text: str) -> ParsedResponse:
    return parse_actions(text, "behavior")


def error_of(result: ParsedResponse) -> ResponseError:
    assert result.error is not None, result
    assert result.actions == ()
    return result.error


# ------------------------------------------------------------------ VirtualHome forms


def test_reference_object_with_repeated_keys_in_order() -> None:
    text = '{"WALK": ["kitchen", "205"], "FIND": ["cup", "3"], "WALK": ["sink", "7"]}'
    r = vh(text)
    assert r.actions == (A("WALK", ("kitchen.205",)), A("FIND", ("cup.3",)), A("WALK", ("sink.7",)))
    assert r.notes == ()
    assert r.form == "json"


def test_reference_example_zero_one_two_objects() -> None:
    r = vh(VH_TEXT)
    assert r.actions == VH_PLAN and r.ok and r.notes == ()


def test_integer_ids() -> None:
    assert vh('{"WALK": ["kitchen", 205]}').actions == (A("WALK", ("kitchen.205",)),)


def test_array_of_single_key_objects() -> None:
    r = vh('[{"WALK": ["kitchen", 205]}, {"GRAB": ["cup", "3"]}, {"STANDUP": []}]')
    assert r.actions == (A("WALK", ("kitchen.205",)), A("GRAB", ("cup.3",)), A("STANDUP"))


@pytest.mark.parametrize(
    "written", ["<soap> (1002)", "soap (1002)", "<soap>(1002)", "soap.1002", "soap_1002"]
)
def test_objects_with_their_id_written_in(written: str) -> None:
    r = vh('{"PUTBACK": ["' + written + '", "<sink> (5)"]}')
    assert r.actions == (A("PUTBACK", ("soap.1002", "sink.5")),)


def test_name_followed_by_id_wins_over_an_id_inside_the_name() -> None:
    # "tv_1" followed by an id is the object named tv_1 with that id
    assert vh('{"WALK": ["tv_1", "7"]}').actions == (A("WALK", ("tv_1.7",)),)


def test_script_lines() -> None:
    text = "[WALK] <dining_room> (201)\n[PUTBACK] <soap> (1002) <washing_machine> (1001)\n[STANDUP]"
    r = vh(text)
    assert r.actions == (
        A("WALK", ("dining_room.201",)),
        A("PUTBACK", ("soap.1002", "washing_machine.1001")),
        A("STANDUP"),
    )
    assert r.form == "script"


def test_script_lines_numbered_with_prose() -> None:
    text = "Here is the plan:\n1. [WALK] <kitchen> (205)\n2) [FIND] <cup> (3)\nDone."
    r = vh(text)
    assert r.actions == (A("WALK", ("kitchen.205",)), A("FIND", ("cup.3",)))
    assert any("2 line(s) that are not actions" in n for n in r.notes)


def test_list_of_script_line_strings() -> None:
    r = vh('["[WALK] <kitchen> (205)", "[GRAB] <cup> (3)"]')
    assert r.actions == (A("WALK", ("kitchen.205",)), A("GRAB", ("cup.3",)))
    assert "read a list of script lines" in r.notes


def test_bad_script_arguments() -> None:
    err = error_of(vh("[WALK] <kitchen> (205)\n[GRAB] cup 3"))
    assert err.kind is ErrorKind.PARSING
    assert err.step == 1 and err.line == 2
    assert "cup 3" in err.message


def test_bare_name_without_id_is_kept_for_the_simulator() -> None:
    r = vh('{"FIND": ["sink"]}')
    assert r.actions == (A("FIND", ("sink",)),)
    assert any("'sink' has no id" in n for n in r.notes)


def test_odd_list_readable_as_objects_is_not_an_error() -> None:
    # three items, two objects: a pair and an object with its id written in
    r = vh('{"PUTBACK": ["soap", "1002", "sink.5"]}')
    assert r.actions == (A("PUTBACK", ("soap.1002", "sink.5")),)


@pytest.mark.parametrize(
    "args", ['["1002"]', '["soap", "1002", "1001"]', "[1002, 1001]", '"1002"', "7"]
)
def test_list_not_readable_as_name_id_pairs_is_argument_count(args: str) -> None:
    err = error_of(vh('{"WALK": ["kitchen", 1], "PUTBACK": ' + args + "}"))
    assert err.kind is ErrorKind.ARGUMENT_COUNT
    assert err.step == 1
    assert "name/id pairs" in err.message


def test_empty_strings_are_dropped_as_the_reference_does() -> None:
    r = vh('{"STANDUP": [""], "WALK": ["kitchen", "1", ""]}')
    assert r.actions == (A("STANDUP"), A("WALK", ("kitchen.1",)))
    assert any("dropped an empty argument" in n for n in r.notes)


def test_null_and_string_arguments() -> None:
    r = vh('{"STANDUP": null, "WALK": "kitchen, 205", "FIND": "<cup> (3)"}')
    assert r.actions == (A("STANDUP"), A("WALK", ("kitchen.205",)), A("FIND", ("cup.3",)))
    assert any("null arguments" in n for n in r.notes)
    assert any("written as a string" in n for n in r.notes)


def test_bracketed_action_name() -> None:
    r = vh('{"[WALK]": ["kitchen", 1]}')
    assert r.actions == (A("WALK", ("kitchen.1",)),)
    assert any("removed brackets" in n for n in r.notes)


def test_action_names_and_object_names_are_kept_as_written() -> None:
    r = vh('{"walk": ["Kitchen", 1]}')
    assert r.actions == (A("walk", ("Kitchen.1",)),)


def test_records_are_accepted_for_virtualhome() -> None:
    r = vh('[{"action": "WALK", "object": ["kitchen", 1]}, {"action": "STANDUP"}]')
    assert r.actions == (A("WALK", ("kitchen.1",)), A("STANDUP"))
    assert any("no 'object' member" in n for n in r.notes)


# --------------------------------------------------------------------- BEHAVIOR forms


def test_behavior_records() -> None:
    text = (
        '[{"action": "RIGHT_GRASP", "object": "paper_towel_0"},'
        ' {"action": "RIGHT_PLACE_NEXTTO", "object": "paper_towel_0, sink_82"}]'
    )
    r = bh(text)
    assert r.actions == (
        A("RIGHT_GRASP", ("paper_towel_0",)),
        A("RIGHT_PLACE_NEXTTO", ("paper_towel_0", "sink_82")),
    )
    assert r.notes == ()


def test_behavior_object_names_are_not_rewritten() -> None:
    # VirtualHome would read "_0" as an id; BEHAVIOR names stay as written
    assert bh('[{"action": "OPEN", "object": "fridge_97"}]').actions == (A("OPEN", ("fridge_97",)),)


def test_behavior_object_list_and_extra_members() -> None:
    r = bh('[{"action": "CLEAN", "object": ["cup_1"], "reason": "dirty"}]')
    assert r.actions == (A("CLEAN", ("cup_1",)),)
    assert any("'reason'" in n for n in r.notes)
    assert any("objects written as a list" in n for n in r.notes)


def test_behavior_single_record_and_pair_objects() -> None:
    assert bh('{"action": "OPEN", "object": "box_1"}').actions == (A("OPEN", ("box_1",)),)
    assert bh('[{"OPEN": "box_1"}, {"CLOSE": ["box_1"]}]').actions == (
        A("OPEN", ("box_1",)),
        A("CLOSE", ("box_1",)),
    )


def test_behavior_missing_action_is_an_error() -> None:
    err = error_of(bh('[{"action": "OPEN", "object": "a_1"}, {"object": "b_1"}]'))
    assert err.kind is ErrorKind.PARSING
    assert "item 2" in err.message or "step 2" in err.message


def test_behavior_non_string_object_is_an_error() -> None:
    err = error_of(bh('[{"action": "OPEN", "object": 3}]'))
    assert "'object' must be a string" in err.message and err.step == 0


def test_behavior_empty_parts_dropped_with_note() -> None:
    r = bh('[{"action": "PLACE", "object": "a_1,,b_2,"}]')
    assert r.actions == (A("PLACE", ("a_1", "b_2")),)
    assert any("dropped empty" in n for n in r.notes)


# ------------------------------------------------------------------------ tolerance


def test_markdown_fence_and_prose() -> None:
    text = f"Sure! Here's the plan.\n```json\n{VH_TEXT}\n```\nIt satisfies every goal."
    r = vh(text)
    assert r.actions == VH_PLAN
    assert r.notes[0] == "stripped markdown fence"
    assert any("before the plan" in n for n in r.notes)
    assert any("after the plan" in n for n in r.notes)


def test_unclosed_fence() -> None:
    r = vh("```json\n" + VH_TEXT)
    assert r.actions == VH_PLAN and "stripped markdown fence" in r.notes


def test_fenced_plan_preferred_over_bracketed_prose() -> None:
    text = '[Note] I will use {"reasoning"} first.\n```\n' + VH_TEXT + "\n```"
    r = vh(text)
    assert r.actions == VH_PLAN


def test_bracketed_prose_before_unfenced_plan_is_skipped_with_a_note() -> None:
    r = vh("[Plan] (three steps): " + VH_TEXT)
    assert r.actions == VH_PLAN
    assert any("before the plan" in n for n in r.notes)


def test_single_quotes_trailing_commas_python_constants() -> None:
    r = vh("{'WALK': ['kitchen', 205,], 'STANDUP': None,}")
    assert r.actions == (A("WALK", ("kitchen.205",)), A("STANDUP"))
    assert r.form == "python-literal"
    assert "read single-quoted strings" in r.notes
    assert "ignored trailing commas" in r.notes
    assert "read Python constants True/False/None" in r.notes


def test_single_quotes_with_apostrophe_in_double_quoted_string() -> None:
    r = bh("""[{'action': 'OPEN', 'object': "mom's_box_1"}]""")
    assert r.actions == (A("OPEN", ("mom's_box_1",)),)


def test_single_quoted_repeated_keys_keep_order() -> None:
    r = vh("{'WALK': ['a', 1], 'GRAB': ['b', 2], 'WALK': ['c', 3]}")
    assert [a.args[0] for a in r.actions] == ["a.1", "b.2", "c.3"]


def test_unquoted_words() -> None:
    r = vh("{WALK: [kitchen, 205]}")
    assert r.actions == (A("WALK", ("kitchen.205",)),)
    assert any("unquoted words" in n for n in r.notes)


def test_output_wrapper_with_reasoning() -> None:
    r = vh('{"reasoning": "walk first", "output": ' + VH_TEXT + "}")
    assert r.actions == VH_PLAN
    assert any("'output'" in n and "'reasoning'" in n for n in r.notes)


def test_nested_wrappers_and_list_wrapper() -> None:
    r = bh('{"answer": {"actions": [{"action": "OPEN", "object": "box_1"}]}}')
    assert r.actions == (A("OPEN", ("box_1",)),)
    assert len([n for n in r.notes if "member of the outer object" in n]) == 2


def test_action_named_like_a_wrapper_is_not_unwrapped() -> None:
    assert vh('{"PLAN": ["kitchen", 1]}').actions == (A("PLAN", ("kitchen.1",)),)


def test_consecutive_objects_are_one_plan() -> None:
    r = vh('{"WALK": ["kitchen", 1]}\n{"GRAB": ["cup", 2]},\n{"STANDUP": []}')
    assert r.actions == (A("WALK", ("kitchen.1",)), A("GRAB", ("cup.2",)), A("STANDUP"))
    assert any("joined 3" in n for n in r.notes)


def test_behavior_jsonl_records_are_one_plan() -> None:
    r = bh('{"action": "OPEN", "object": "a_1"}\n{"action": "CLOSE", "object": "a_1"}')
    assert r.actions == (A("OPEN", ("a_1",)), A("CLOSE", ("a_1",)))


def test_later_valid_plan_after_an_invalid_one() -> None:
    r = vh('Draft: {"WALK": 5}\nFinal: {"WALK": ["kitchen", 1]}')
    assert r.actions == (A("WALK", ("kitchen.1",)),)
    assert any("skipped 1" in n for n in r.notes)


# --------------------------------------------------------------------------- errors


def test_empty_response() -> None:
    assert error_of(vh("   \n")).message == "the response is empty"


@pytest.mark.parametrize("text", ["{}", "[]", "```json\n{}\n```", '{"output": []}'])
def test_empty_plan_is_no_actions(text: str) -> None:
    err = error_of(bh(text) if "output" in text else vh(text))
    assert err.kind is ErrorKind.PARSING
    assert "no actions" in err.message or "expected" in err.message


def test_no_json_at_all() -> None:
    err = error_of(vh("I cannot help with that."))
    assert "no JSON object" in err.message and err.position is None


def test_truncated_response_points_at_the_opening_bracket() -> None:
    err = error_of(vh('Plan:\n{"WALK": ["kitchen", 1], "FIND": ["cup"'))
    assert "never closed" in err.message
    assert (err.line, err.column, err.position) == (2, 1, 6)


def test_missing_comma_reports_the_json_position() -> None:
    err = error_of(vh('{"WALK": ["a", 1] "FIND": ["b", 2]}'))
    assert "Expecting ',' delimiter" in err.message
    assert err.position == 18 and err.column == 19


def test_mismatched_bracket() -> None:
    err = error_of(vh('{"WALK": ["a", 1}'))
    assert "unexpected '}'" in err.message


def test_json_value_that_is_not_a_plan() -> None:
    err = error_of(vh('["walk", "kitchen"]'))
    assert "list of action objects" in err.message


def test_non_string_action_name() -> None:
    err = error_of(vh("[{1: ['a', 1]}]"))
    assert "action name must be a non-empty string" in err.message


def test_non_scalar_argument() -> None:
    err = error_of(vh('{"WALK": [["kitchen", 1]]}'))
    assert err.kind is ErrorKind.PARSING and "argument 1" in err.message


def test_arguments_must_be_a_list() -> None:
    err = error_of(vh('{"WALK": {"kitchen": 1}}'))
    assert "arguments must be a list" in err.message


def test_python_expressions_are_refused_not_evaluated() -> None:
    err = error_of(vh("{'WALK': [__import__('os').getcwd()]}"))
    assert err.kind is ErrorKind.PARSING
    err = error_of(vh("[x for x in range(10**9)]"))
    assert err.kind is ErrorKind.PARSING


def test_too_long() -> None:
    err = error_of(vh(" " * (MAX_RESPONSE_CHARS + 1)))
    assert "over the limit" in err.message


def test_too_deep() -> None:
    err = error_of(vh("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)))
    assert "nested more than" in err.message


def test_wrong_argument_types_raise_for_programming_errors() -> None:
    with pytest.raises(ValueError, match="dataset"):
        parse_actions("{}", "alfred")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse_actions(b"{}", "behavior")  # type: ignore[arg-type]


def test_error_to_dict_and_str() -> None:
    err = error_of(vh('{"WALK": ["1"]}'))
    d = err.to_dict()
    assert d["error_type"] == "argument_count" and d["step"] == 0
    assert str(err).startswith("argument_count: ")
    assert vh(VH_TEXT).to_dict()["actions"][0] == {"name": "WALK", "args": ["dining_room.201"]}


# ------------------------------------------------------------------------ rendering


def test_renderers_match_the_reference_formats() -> None:
    assert render_virtualhome(VH_PLAN) == VH_TEXT.replace('"1002", "w', '"1002", "w')
    assert render_virtualhome_script(VH_PLAN[2:3]) == (
        "[PUTBACK] <soap> (1002) <washing_machine> (1001)"
    )
    assert render_behavior([A("PLACE", ("a_1", "b_2"))]) == (
        '[{"action": "PLACE", "object": "a_1,b_2"}]'
    )
