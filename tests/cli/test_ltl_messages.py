"""What `ltl check`, `ltl sat` and `data fetch` print: a reader is told which part failed, never
shown an empty witness, and gets JSON only when asking for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import planproof

FORMULA = "grab(cup.1) then ontop(cup.1, table.2)"


def _trace(tmp_path: Path, states: list[list[str]]) -> str:
    path = tmp_path / "trace.json"
    doc = {"objects": {"cup.1": ["cup"], "table.2": ["table"]}, "actions": ["grab(cup.1)"]}
    path.write_text(json.dumps({**doc, "states": states}))
    return str(path)


def test_check_says_the_order_failed(tmp_path: Path) -> None:
    """Both parts hold on the trace (the cup was on the table before the grab): the order
    is what fails, and the output says so."""
    trace = _trace(tmp_path, [["ontop(cup.1, table.2)"], []])
    r = planproof("ltl", "check", "--trace", trace, "--actions", "grab", FORMULA)
    assert r.code == 1
    assert "DOES NOT HOLD" in r.out and "not in the order 'then' asks" in r.out
    j = planproof("ltl", "check", "--trace", trace, "--actions", "grab", FORMULA, "--json")
    assert json.loads(j.out)["failed"]["kind"] == "order"


def test_check_names_the_failing_part(tmp_path: Path) -> None:
    trace = _trace(tmp_path, [[], []])
    j = planproof("ltl", "check", "--trace", trace, "--actions", "grab", FORMULA, "--json")
    failed = json.loads(j.out)["failed"]
    assert j.code == 1 and failed == {
        "kind": "part",
        "part": "ontop(cup.1, table.2)",
        "message": "ontop(cup.1, table.2) does not hold",
    }


def test_check_that_holds_has_no_failure(tmp_path: Path) -> None:
    trace = _trace(tmp_path, [[], ["ontop(cup.1, table.2)"]])
    j = planproof("ltl", "check", "--trace", trace, "--actions", "grab", FORMULA, "--json")
    assert j.code == 0 and json.loads(j.out)["failed"] is None


def test_sat_never_prints_an_empty_witness() -> None:
    r = planproof("ltl", "sat", "not on(a.1)")
    assert r.code == 0
    assert not r.out.rstrip().endswith(":") and "every atom false" in r.out
    e = planproof("ltl", "entails", "not on(a.1)", "on(b.1)")
    assert e.code == 1 and "{}" not in e.out and "every atom false" in e.out


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
def test_data_fetch_prints_json_only_with_json() -> None:
    text = planproof("data", "fetch", "eai")
    assert text.code == 0 and text.out.startswith("eai data ready\n")
    assert "virtualhome goals: 338" in text.out and "{" not in text.out
    as_json = planproof("data", "fetch", "eai", "--json")
    assert json.loads(as_json.out)["virtualhome_goals"] == 338
