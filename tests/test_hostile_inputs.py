"""The hostile-input probe of issue 18: every command that reads a file or a number is fed
each class of bad input and must answer with exit status 2 and one ``planproof: error:``
line naming the problem: never a traceback, never a hang, never a silent success.

Runs ``planproof.cli.main`` in process (exit status and stderr are what a person sees);
every input is bounded, so the module runs in seconds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from planproof.cli import main

Make = Callable[[Path], str]


def _write(name: str, data: bytes) -> Make:
    def make(d: Path) -> str:
        p = d / name
        p.write_bytes(data)
        return str(p)

    return make


def _directory(d: Path) -> str:
    (d / "a_dir").mkdir(exist_ok=True)
    return str(d / "a_dir")


def _under_a_file(d: Path) -> str:
    (d / "plain").write_text("{}", encoding="utf-8")
    return str(d / "plain" / "inside.json")


HOSTILE_FILES: dict[str, Make] = {
    "empty": _write("empty.json", b""),
    "binary": _write("binary.json", bytes(range(256)) * 4),
    "invalid-utf8": _write("bad8.json", b'{"a": "\xff\xfe\xfa"}'),
    "utf16": _write("u16.json", '{"states": [[]]}'.encode("utf-16")),
    "utf16-no-bom": _write("u16le.json", '{"states": [[]]}'.encode("utf-16-le")),
    "lone-surrogate": _write("sur.json", b'{"states": [["on(a\\ud800)"]], "x": "\\udc00"}'),
    "wrong-shape": _write("shape.json", b'[42, "x", null]'),
    "deep-nesting": _write("deep.json", b"[" * 100_000 + b"]" * 100_000),
    "ten-mb-text": _write("big.json", b'"' + b"x" * 10_000_000 + b'"'),
    "directory": _directory,
    "under-a-file": _under_a_file,
    "huge-integer": _write("int.json", b"[" + b"9" * 5000 + b"]"),
    "endless-device": lambda d: "/dev/zero",
}

COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "ltl check --trace": lambda f: ["ltl", "check", "on(a)", "--trace", f],
    "ltl check --file": lambda f: ["ltl", "check", "--file", f],
    "ltl sat --universe": lambda f: ["ltl", "sat", "on(a)", "--universe", f],
    "ltl entails --universe": lambda f: ["ltl", "entails", "on(a)", "on(a)", "--universe", f],
    "evaluate teach": lambda f: ["evaluate", "teach", f],
    "evaluate housekeep": lambda f: ["evaluate", "housekeep", f],
    "report": lambda f: ["report", f],
    "evaluate partnr --episodes": lambda f: ["evaluate", "partnr", "--episodes", f],
    "evaluate partnr --plans": lambda f: ["evaluate", "partnr", "--plans", f],
    "compare-domains CANDIDATE": lambda f: ["compare-domains", str(PDDL / "virtualhome.pddl"), f],
    "compare-domains --mapping": lambda f: [
        "compare-domains",
        str(PDDL / "virtualhome.pddl"),
        str(PDDL / "virtualhome.pddl"),
        "--mapping",
        f,
    ],
    "verify --plan": lambda f: [
        "verify",
        "--domain",
        str(PDDL / "virtualhome.pddl"),
        "--problem",
        str(PDDL / "browse_internet.pddl"),
        "--plan",
        f,
    ],
}

PDDL = Path(__file__).resolve().parents[1] / "planproof" / "examples" / "pddl"
LEGAL = {
    ("verify --plan", "empty"): 1,
    **{
        ("compare-domains CANDIDATE", h): 1
        for h in ("empty", "deep-nesting", "huge-integer", "lone-surrogate", "ten-mb-text",
                  "wrong-shape")
    },
}  # fmt: skip
"""Hostile-looking input that is legal: an empty plan is a plan (it leaves the goal
unmet, exit 1); a readable candidate domain that is not PDDL is a finding about the
candidate (a report saying why it does not parse, exit 1)."""


@pytest.mark.parametrize("hostile", sorted(HOSTILE_FILES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_hostile_file(
    command: str, hostile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = HOSTILE_FILES[hostile](tmp_path)
    code = main(COMMANDS[command](path))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if (command, hostile) in LEGAL:
        assert code == LEGAL[command, hostile], (out[-300:], err[-300:])
        return
    assert code == 2, (command, hostile, out[-300:], err[-300:])
    # a command that scores many items reports a bad one in its table, goes on, and
    # still says on stderr why its status is 2
    assert err.startswith("planproof: error: "), err[:300]
    assert len(err.strip().splitlines()) <= 3, err[:600]


NUMBERS = ["nan", "inf", "-inf", "1e308", "-1", "0", "ten"]
TIMEOUT_COMMANDS: dict[str, list[str]] = {
    "ltl sat": ["ltl", "sat", "on(a)"],
    "ltl entails": ["ltl", "entails", "on(a)", "on(a)"],
    "evaluate goal-interpretation": ["evaluate", "goal-interpretation", "--dataset", "behavior"],
    "evaluate transition-modeling": ["evaluate", "transition-modeling", "--dataset", "behavior"],
    "run": ["run", "--model", "planner", "--module", "action-sequencing", "--dataset", "behavior"],
}


@pytest.mark.parametrize("value", NUMBERS)
@pytest.mark.parametrize("command", sorted(TIMEOUT_COMMANDS))
def test_timeout_must_be_a_finite_positive_number(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*TIMEOUT_COMMANDS[command], f"--timeout={value}"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--timeout" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--limit", "-3"),
        ("--concurrency", "0"),
        ("--max-retries", "-1"),
        ("--temperature", "nan"),
        ("--top-p", "inf"),
        ("--max-tokens", "0"),
    ],
)
def test_run_counts_and_sampling_numbers(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = TIMEOUT_COMMANDS["run"]
    assert main([*argv, f"{option}={value}"]) == 2
    assert option in capsys.readouterr().err


def test_an_argument_that_is_not_text_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ltl", "parse", "on(a\udcff)"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("planproof: error: argument 3") and "surrogate" in err


@pytest.mark.parametrize("where", ["directory", "under-a-file", "binary"])
def test_run_cache_that_cannot_be_a_cache(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = HOSTILE_FILES[where](tmp_path)
    argv = [*TIMEOUT_COMMANDS["run"], "--limit", "1", "--cache", cache]
    assert main([*argv, "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("planproof: error: ") and "Traceback" not in err
    assert "cache" in err.lower()


def test_run_cache_at_dev_null(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*TIMEOUT_COMMANDS["run"], "--limit", "1", "--cache", "/dev/null"]
    assert main([*argv, "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("planproof: error: LLM cache /dev/null")


def test_output_at_a_file_or_under_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    for output in (plain, plain / "sub"):
        code = main(["evaluate", "teach", "--output", str(output)])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("planproof: error: --output"), err


def test_report_on_too_many_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from planproof.report.load import MAX_RECORDS

    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"model": "m", "module": "action-sequencing"}))
    (run / "summary.json").write_text("{}")
    line = json.dumps({"identifier": "t", "success": True}) + "\n"
    (run / "results.jsonl").write_text(line * (MAX_RECORDS + 1), encoding="utf-8")
    assert main(["report", str(run), "--output", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert f"{MAX_RECORDS + 1} lines, over the limit of {MAX_RECORDS}" in err


def test_report_with_lone_surrogates_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"model": "m", "module": "action-sequencing"}))
    (run / "summary.json").write_text("{}")
    (run / "results.jsonl").write_text(
        '{"identifier": "ok", "success": true}\n{"identifier": "x\\ud800", "error": "\\udc00"}\n'
    )
    out = tmp_path / "r.html"
    assert main(["report", str(run), "--output", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "results.jsonl line 2: invalid JSON" in page


def test_ltl_check_of_a_long_then_chain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = 5000
    formula = tmp_path / "f.ltl"
    formula.write_text(" then ".join(f"on(a.{i}, b.1)" for i in range(n)), encoding="utf-8")
    trace = tmp_path / "t.json"
    states = [[f"on(a.{i}, b.1)"] for i in range(n)]
    trace.write_text(
        json.dumps({"actions": [f"go(a.{i})" for i in range(n - 1)], "states": states})
    )
    assert main(["ltl", "check", "--file", str(formula), "--trace", str(trace), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["holds"] and len(doc["parts"]) == n and all(p["holds"] for p in doc["parts"])


def test_ltl_check_of_a_quantifier_over_many_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from planproof.ltl.evaluate import MAX_ATOM_GROUNDINGS

    trace = tmp_path / "t.json"
    objects = {f"cup.{i}": ["cup"] for i in range(3000)}
    trace.write_text(json.dumps({"objects": objects, "actions": [], "states": [[]]}))
    formula = "forall x - cup. exists y - cup. on(x, y)"
    assert main(["ltl", "check", formula, "--trace", str(trace)]) == 2
    err = capsys.readouterr().err
    assert f"9000000 groundings over the universe, over the limit of {MAX_ATOM_GROUNDINGS}" in err


def _pddl_files(tmp_path: Path, parameters: int, objects: int) -> tuple[str, str]:
    params = " ".join(f"?p{k}" for k in range(parameters))
    domain = tmp_path / "d.pddl"
    domain.write_text(
        "(define (domain big) (:requirements :strips) (:predicates (p ?x) (q ?x))\n"
        f"(:action a :parameters ({params}) :precondition (p ?p0) :effect (q ?p0)))"
    )
    problem = tmp_path / "p.pddl"
    names = " ".join(f"o{i}" for i in range(objects))
    problem.write_text(
        f"(define (problem pb) (:domain big) (:objects {names}) (:init (p o0)) (:goal (q o0)))"
    )
    return str(domain), str(problem)


@pytest.mark.parametrize("command", ["plan", "verify"])
def test_an_operator_with_a_thousand_parameters_is_refused_where_it_is_read(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from planproof.pddl.schema import MAX_PARAMETERS

    domain, problem = _pddl_files(tmp_path, 1000, 2)
    plan = tmp_path / "plan.txt"
    plan.write_text("(a o0)\n")
    extra = ["--plan", str(plan)] if command == "verify" else []
    assert main([command, "--domain", domain, "--problem", problem, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"planproof: error: {domain}: operator a: 1000 parameters")
    assert f"over the limit of {MAX_PARAMETERS}" in err and "line 2" in err


def test_plan_names_a_grounding_too_large_to_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """64 parameters over 10 objects, the first fixed by a static precondition: 10^63
    ground actions for the engines planproof grounds for, counted (not grounded) and
    named in a form a person can read. Fast Downward grounds for itself: no guard, and
    its time limit holds."""
    domain, problem = _pddl_files(tmp_path, 64, 10)
    argv = ["plan", "--domain", domain, "--problem", problem, "--json"]
    assert main([*argv, "--engine", "builtin"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"] == "too-large" and doc["ground_actions"] == "about 1.0e+63"
    assert "about 1.0e+63 ground actions, over the limit of 20,000,000" in doc["message"]
    assert main([*argv, "--engine", "fast-downward", "--timeout", "2"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] in ("timeout", "error")


def test_a_long_trace_parses_each_atom_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """100,000 states of the same atom cost two parses (issue 18: ``ltl check`` spent
    8.7 s of CPU parsing one atom 200,001 times); equal atoms are one shared object."""
    from planproof.ltl import io

    n = 100_000
    doc = {"actions": ["go(a.1)"] * n, "states": [["on(a.1)"]] * (n + 1)}
    calls: list[str] = []
    real = io.parse

    def counting(text: str) -> object:  # the real parser, counted
        calls.append(text)
        return real(text)

    monkeypatch.setattr(io, "parse", counting)
    trace, _ = io.trace_from_json(doc)
    assert sorted(calls) == ["go(a.1)", "on(a.1)"]
    assert len(trace) == n + 1 and len({id(a) for s in trace.states for a in s}) == 1


@pytest.mark.parametrize("section", [":goal", ":init"])
def test_verify_refuses_a_problem_with_an_undefined_predicate(
    section: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's suspect case: a problem using a predicate the domain does not declare
    is bad input (exit 2), not a VALID plan."""
    import re

    text = (PDDL / "browse_internet.pddl").read_text(encoding="utf-8")
    pattern = r"\(:goal\s*\(and" if section == ":goal" else r"\(:init"
    head = "(:goal (and" if section == ":goal" else "(:init"
    bad = re.sub(pattern, head + " (no_such_predicate computer)", text, count=1)
    assert bad != text
    problem = tmp_path / "p.pddl"
    problem.write_text(bad, encoding="utf-8")
    argv = ["verify", "--domain", str(PDDL / "virtualhome.pddl"), "--problem", str(problem)]
    assert main([*argv, "--plan", str(PDDL / "browse_internet.plan")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("planproof: error: ") and "unknown predicate no_such_predicate" in err
