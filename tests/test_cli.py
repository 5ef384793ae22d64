"""The command line end to end: exit statuses, JSON output, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from planproof.cli import EXIT_BAD_INPUT, EXIT_NO, EXIT_YES, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_prints_normal_form(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ltl", "parse", "ON(tv.1)  AND (FACING(c.2, tv.1))")
    assert code == EXIT_YES
    assert out.strip() == "on(tv.1) and facing(c.2, tv.1)"


def test_parse_json_reports_structure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ltl", "parse", "--json", "exists x. (grab(x)) then on(a.1, b.2)")
    data = json.loads(out)
    assert code == EXIT_YES
    assert data["temporal"] is True
    assert data["predicates"] == [["grab", 1], ["on", 2]]
    assert data["objects"] == ["a.1", "b.2"]


def test_parse_error_is_exit_2_with_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ltl", "parse", "--json", "on(a.1, b.2))")
    data = json.loads(out)
    assert code == EXIT_BAD_INPUT
    assert data["ok"] is False
    assert (data["line"], data["column"]) == (1, 13)
    code, _, err = run(capsys, "ltl", "parse", "")
    assert code == EXIT_BAD_INPUT
    assert "empty formula" in err


def test_check_bundled_example_holds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ltl", "check", "--json")
    data = json.loads(out)
    assert code == EXIT_YES
    assert data["holds"] is True
    assert data["actions"] == 9
    assert all(p["holds"] for p in data["parts"])


def write_trace(tmp_path: Path, doc: object) -> str:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_check_false_goal_names_the_failing_part(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = write_trace(
        tmp_path,
        {"actions": ["grab(cup.1)"], "states": [["ontop(cup.1, table.2)"], ["holds(cup.1)"]]},
    )
    code, out, _ = run(
        capsys,
        "ltl",
        "check",
        "--json",
        "--trace",
        trace,
        "--actions",
        "grab",
        "grab(cup.1) then ontop(cup.1, table.2)",
    )
    data = json.loads(out)
    assert code == EXIT_NO
    assert [p["holds"] for p in data["parts"]] == [True, True]  # each part alone holds...
    assert data["holds"] is False  # ...but not in that order
    code, out, _ = run(
        capsys,
        "ltl",
        "check",
        "--json",
        "--trace",
        trace,
        "--reading",
        "final",
        "--actions",
        "grab",
        "ontop(cup.1, table.2)",
    )
    assert code == EXIT_NO  # under the final-state reading the cup is no longer on the table


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"states": []}, "non-empty"),
        ({"actions": ["a()"], "states": [[]]}, "need 2 states"),
        ({"states": [["on(x, y"]]}, "unexpected end"),
        ({"states": [["on(x) and p()"]]}, "not a single ground atom"),
        ([1, 2], "JSON object"),
    ],
)
def test_check_bad_trace_is_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: object, message: str
) -> None:
    code, _, err = run(capsys, "ltl", "check", "--trace", write_trace(tmp_path, doc), "p()")
    assert code == EXIT_BAD_INPUT
    assert message in err


def test_check_unreadable_files_are_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert run(capsys, "ltl", "check", "--trace", str(bad), "p()")[0] == EXIT_BAD_INPUT
    missing = str(tmp_path / "missing.json")
    assert run(capsys, "ltl", "check", "--trace", missing, "p()")[0] == EXIT_BAD_INPUT
    assert run(capsys, "ltl", "parse", "--file", missing)[0] == EXIT_BAD_INPUT


def test_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "ltl", "frobnicate")[0] == EXIT_BAD_INPUT
    assert run(capsys, "ltl", "check", "--reading", "sometimes")[0] == EXIT_BAD_INPUT


def test_console_script_runs_the_readme_main_job() -> None:
    exe = shutil.which("planproof")
    assert exe is not None, "the console script is not installed"
    proc = subprocess.run(
        [exe, "ltl", "check"], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "HOLDS" in proc.stdout


def test_sat_with_and_without_domain_axioms(capsys: pytest.CaptureFixture[str]) -> None:
    goal = "open(fridge.1) and closed(fridge.1)"
    code, out, _ = run(capsys, "ltl", "sat", "--json", goal)
    assert code == EXIT_YES
    assert json.loads(out)["model"] == ["closed(fridge.1)", "open(fridge.1)"]
    code, out, _ = run(capsys, "ltl", "sat", "--json", "--axioms", "virtualhome", goal)
    assert code == EXIT_NO
    assert json.loads(out)["satisfiable"] is False
    assert run(capsys, "ltl", "sat", "--axioms", "nonsense", goal)[0] == EXIT_BAD_INPUT


def test_sat_refuses_temporal_formulas_as_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "ltl", "sat", "grab(cup.1) then on(cup.1, table.2)")
    assert code == EXIT_BAD_INPUT
    assert "then" in err


def test_entails_gives_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    objs = "cup.1,cup.2,table.3"
    every = "forall x - cup. (on(x, table.3))"
    code, _, _ = run(capsys, "ltl", "entails", "--objects", objs, every, "on(cup.1, table.3)")
    assert code == EXIT_YES
    code, out, _ = run(
        capsys, "ltl", "entails", "--json", "--objects", objs, "on(cup.1, table.3)", every
    )
    data = json.loads(out)
    assert code == EXIT_NO
    assert "on(cup.2, table.3)" not in data["counterexample"]
    code, _, _ = run(
        capsys, "ltl", "entails", "--equivalent", "not (p() and q())", "not p() or not q()"
    )
    assert code == EXIT_YES
