"""The evaluation-function data model and its tolerant JSON reader."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.simulators.partnr.errors import EvaluationFormatError, PartnrError
from planproof.simulators.partnr.model import (
    TemporalConstraint,
    TerminalConstraint,
    TieConstraint,
    parse_evaluation,
    parse_proposition,
    signatures,
    signatures_from_json,
    task_types,
)
from planproof.simulators.partnr.strategies import evaluations

SHARED = Path("/work/shared/data/partnr/eval_predicates.json")


def test_signatures_are_the_reference_file_read_as_is() -> None:
    sigs = signatures()
    assert sigs["is_on_top"].entity_args == ("object_handles", "receptacle_handles")
    assert sigs["is_on_top"].same_flag == "is_same_receptacle"
    assert sigs["is_in_room"].same_flag == "is_same_room"
    assert sigs["is_next_to"].same_flag == "is_same_b"
    assert dict(sigs["is_next_to"].defaults)["l2_threshold"] == 0.5
    assert sigs["is_clustered"].variadic
    assert sigs["is_clean"].same_flag is None
    if SHARED.exists():  # the shipped copy is the shared data file, unchanged
        assert signatures_from_json(json.loads(SHARED.read_text())) == sigs


def test_aliases_of_the_paper_prompts_and_reference_code() -> None:
    a = parse_proposition(
        {"function_name": "is_on_top", "args": {"object_handles": ["s1", "s2"],
         "receptacle_handles": ["t1"], "n": 2, "arg_match": True}}
    )  # fmt: skip
    b = parse_proposition({"function_name": "is_on_top", "args": [["s1", "s2"], ["t1"]]} | {})
    c = parse_proposition({"function": "is_on_top", "args": {"object_handles": "s1 or s2",
                           "receptacle_handles": ["t1"], "number": 2,
                           "is_same_receptacle": True}})  # fmt: skip
    assert a == c
    assert a.number == 2 and a.same
    assert b.groups == a.groups and b.number == 1 and not b.same


def test_constraint_forms() -> None:
    ev = parse_evaluation(
        {
            "propositions": [
                {"function_name": "is_in_room",
                 "args": {"object_handles": ["c"], "room_ids": ["k"]}},
                {"function_name": "is_filled", "args": {"object_handles": ["c"]}},
                {"function_name": "is_on_top",
                 "args": {"object_handles": ["c"], "receptacle_handles": ["t"]}},
            ],
            "constraints": [
                {"type": "SameArgConstraint",
                 "args": {"proposition_indices": [0, 1, 2], "arg": "object"}},
                {"type": "DifferentArgConstraint",
                 "args": {"proposition_indices": [0, 2], "arg_indices": [1, 1]}},
                {"type": "TemporalConstraint", "args": {"temporal_groups": [[0, 1], [2]]}},
            ],
            "exclude_final_constraint": [0],
        }
    )  # fmt: skip
    same, diff, temporal, terminal = ev.constraints
    assert same == TieConstraint((0, 1, 2), (0, 0, 0), False)
    assert diff == TieConstraint((0, 2), (1, 1), True)
    assert temporal == TemporalConstraint(((0, 2), (1, 2)))
    assert terminal == TerminalConstraint((1, 2))


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"propositions": [{"function_name": "is_above", "args": {}}]}, "unknown predicate"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": []}}]},
         "empty entity list"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": ["a"],
          "colour": 1}}]}, "unknown argument"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": ["a"],
          "number": 0}}]}, "integer >= 1"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": ["a"],
          "arg_match": True}}]}, "no same-argument option"),
        ({"propositions": [{"function_name": "is_on_top", "args": {"object_handles": ["a"]}}]},
         "missing argument receptacle_handles"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": ["a"]}}],
          "constraints": [{"type": "TemporalConstraint", "args": {"dag_edges": [[0, 1]]}}]},
         "out of range"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": ["a"]}}] * 2,
          "constraints": [{"type": "TemporalConstraint", "args": {"dag_edges": [[0, 1], [1, 0]]}}]},
         "not a DAG"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": ["a"]}}],
          "dependencies": [{"proposition_indices": [0], "depends_on": [0],
                            "relation_type": "during"}]}, "relation"),
        ({"propositions": [{"function_name": "is_clean", "args": {"object_handles": ["a"]}}] * 2,
          "constraints": [{"type": "SameArgConstraint", "args": {"proposition_indices": [0, 1],
                           "arg_names": ["room_ids", "room_ids"]}}]}, "has no argument"),
        ({"propositions": [], "constraints": [{"type": "Vibes"}]}, "unknown constraint"),
        ([], "must be a JSON object"),
    ],
)  # fmt: skip
def test_bad_input_is_a_typed_error(data: Any, fragment: str) -> None:
    with pytest.raises(EvaluationFormatError, match=fragment):
        parse_evaluation(data)


@settings(max_examples=60, deadline=None)
@given(evaluations())
def test_json_round_trip(ev: Any) -> None:
    assert parse_evaluation(json.loads(json.dumps(ev.to_json()))) == ev


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5) | st.sampled_from(
        ["is_on_top", "is_clean", "a", "TemporalConstraint", "all", "after_satisfied"]
    ),
    lambda kids: st.lists(kids, max_size=3)
    | st.dictionaries(
        st.sampled_from(["function_name", "args", "propositions", "constraints", "type",
                         "dependencies", "object_handles", "number", "dag_edges",
                         "proposition_indices", "depends_on", "relation_type"]),
        kids, max_size=4,
    ),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(_json)
def test_arbitrary_json_never_crashes(data: Any) -> None:
    with contextlib.suppress(PartnrError):
        parse_evaluation(data)


@settings(max_examples=60, deadline=None)
@given(evaluations())
def test_unrolling_keeps_originals_and_adds_lower_counts(ev: Any) -> None:
    u = ev.unrolled()
    n = len(ev.propositions)
    assert u.propositions[:n] == ev.propositions
    expected = n + sum(p.number - 1 for p in ev.propositions if isinstance(p.number, int))
    assert len(u.propositions) == expected
    for i, p in enumerate(u.propositions[n:], start=n):
        orig = ev.propositions[u.origin[i]]
        assert p.groups == orig.groups and p.count < orig.count


def test_task_types() -> None:
    ev = parse_evaluation({"propositions": [
        {"function_name": "is_next_to",
         "args": {"entity_handles_a": ["a"], "entity_handles_b": ["b"]}},
        {"function_name": "is_clean", "args": {"object_handles": ["a"]}}],
        "dependencies": [{"proposition_indices": [0], "depends_on": [1],
                          "relation_type": "while_satisfied"}]})  # fmt: skip
    assert task_types(ev) == ("spatial", "heterogeneous")
