"""The PARTNR reference's own cases (``tests/data/partnr/reference_cases.json``, MIT, from
facebookresearch/partnr-planner @ ddfff19): 95 evaluation functions and state traces
translated from its ``test_evaluation.py``, its evaluation README and the example
evaluation functions of its generation prompts, each with the value the reference code
gives. planproof must give that value, or the paper's intended value (``intent_*``) where
the case marks the reference code as deviating; docs/partnr.md §5 names those cases."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from planproof.simulators.partnr.engine import EvaluationResult, Evaluator
from planproof.simulators.partnr.errors import EvaluationFormatError
from planproof.simulators.partnr.model import TemporalConstraint, parse_evaluation
from planproof.simulators.partnr.predicates import atom

DATA = Path(__file__).parent.parent / "data" / "partnr" / "reference_cases.json"

# The cases where planproof follows the paper, not the reference code: each is named in
# docs/partnr.md §5 with the choice it illustrates.
INTENDED = {
    "tieprompt_apple_orange_different_tables": 4,
    "tieprompt_candles_own_tables": 4,
    "dev_next_to_number_counts_pairs": 2,
    "dev_number_ignored_single_lists": 2,
    "dev_unroll_dependency_slip": 3,
    "dev_ref_last_pair_returns_true": 11,
}


@cache
def cases() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
    return data


def run(case: dict[str, Any]) -> EvaluationResult:
    states = [frozenset(atom(*a) for a in s) for s in case["trace"]]
    return Evaluator(parse_evaluation(case["evaluation"])).run(states)


def observed(r: EvaluationResult, key: str, expected: Any) -> Any:
    """planproof's value of one compared quantity, in the case file's terms."""
    match key:
        case "success":
            return r.success
        case "percent_complete":
            return pytest.approx(r.percent_complete)
        case "satisfied_at":
            return list(r.satisfied_at)
        case "constraint_row":  # the validity row of the case's one constraint
            return list(r.valid[0])
        case "all_rows":  # valid under every constraint
            return [all(row[i] for row in r.valid) for i in range(len(r.satisfied_at))]
        case "evaluated_at_probe":  # recorded true at the final probe state (all atoms hold)
            return [i for i, v in enumerate(r.final) if v]
        case "explanation_contains":
            return expected if expected in r.explanation else r.explanation
        case "unroll":
            ev = r.function
            out: dict[str, Any] = {
                "n_propositions": len(ev.propositions),
                "n_constraints": len(ev.constraints),
            }
            for j, c in enumerate(ev.constraints):
                if isinstance(c, TemporalConstraint):
                    out[f"c{j}_edges"] = sorted(list(e) for e in c.edges)
                else:
                    out[f"c{j}_indices"] = sorted(c.proposition_indices)
            return out
    raise AssertionError(f"unknown comparison {key}")


def test_the_file_is_the_reference_translation() -> None:
    assert len(cases()) == 95
    assert len({c["id"] for c in cases()}) == 95
    deviating = {c["id"] for c in cases() if any(k.startswith("intent_") for k in c["compare"])}
    assert deviating == set(INTENDED)


@pytest.mark.parametrize("case", cases(), ids=lambda c: str(c["id"]))
def test_reference_case(case: dict[str, Any]) -> None:
    r = run(case)
    for key, expected in case["compare"].items():
        name = key.removeprefix("intent_")
        assert (key != name) == (case["id"] in INTENDED)
        assert observed(r, name, expected) == expected, (key, r.explanation)


def test_the_dataset_dependency_key_is_read() -> None:
    """Regression: real episodes keep dependencies under
    ``evaluation_proposition_dependencies``; planproof used to drop them silently."""
    case = next(c for c in cases() if c["id"] == "dataset_keys_dependencies_dropped")
    assert "evaluation_proposition_dependencies" in case["evaluation"]
    ev = parse_evaluation(case["evaluation"])
    assert len(ev.dependencies) == 1 and ev.dependencies[0].relation == "after_unsatisfied"
    assert run(case).percent_complete == 0.0


def test_unknown_and_ambiguous_keys_are_errors() -> None:
    case = next(c for c in cases() if c["id"] == "dataset_keys_dependencies_dropped")
    ev = dict(case["evaluation"])
    ev["evaluation_proposition_dependency"] = ev.pop("evaluation_proposition_dependencies")
    with pytest.raises(EvaluationFormatError, match=r"unknown key.*evaluation_proposition_dep"):
        parse_evaluation(ev)
    both = {**case["evaluation"], "dependencies": []}
    with pytest.raises(EvaluationFormatError, match="not several"):
        parse_evaluation(both)
    dep = {**case["evaluation"]["evaluation_proposition_dependencies"][0], "when": "now"}
    with pytest.raises(EvaluationFormatError, match=r"unknown key.*when"):
        parse_evaluation({**case["evaluation"], "evaluation_proposition_dependencies": [dep]})
    con = {"type": "TerminalSatisfactionConstraint",
           "args": {"proposition_indices": [0], "n_propositions": 3}}  # fmt: skip
    with pytest.raises(EvaluationFormatError, match="n_propositions is 3"):
        parse_evaluation({**case["evaluation"], "evaluation_constraints": [con]})


def test_tie_failures_use_the_reference_headings() -> None:
    """Regression: the reference words a broken same/different-argument constraint by
    the kind of argument (``failure_explanations.arg_msg``)."""
    on = {"function_name": "is_on_top"}
    props = [
        {**on, "args": {"object_handles": ["cup"], "receptacle_handles": ["t1", "t2"]}},
        {**on, "args": {"object_handles": ["mug"], "receptacle_handles": ["t1", "t2"]}},
    ]
    state = [frozenset({atom("on_top", "cup", "t1"), atom("on_top", "mug", "t2")})]
    same = {"type": "SameArgConstraint", "args": {"proposition_indices": [0, 1],
            "arg_names": ["receptacle_handles", "receptacle_handles"]}}  # fmt: skip
    r = Evaluator(parse_evaluation({"propositions": props, "constraints": [same]})).run(state)
    assert "Placements should have been made with the same furniture: " in r.explanation
    both = [frozenset({atom("on_top", "cup", "t1"), atom("on_top", "mug", "t1")})]
    diff = {**same, "type": "DifferentArgConstraint"}
    r = Evaluator(parse_evaluation({"propositions": props, "constraints": [diff]})).run(both)
    assert "Placements should have been made with different furniture: " in r.explanation
