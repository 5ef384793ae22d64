"""Temporal plans (durative actions): planproof's verdict equals VAL's on every stored
case of tests/data/temporal (IPC 2002/2008/2011 temporal domains and a small domain
written for these tests; plans and mutants with VAL's verdicts, written by
``benchmarks/bench_temporal.py --write``), invariants of the semantics (hypothesis), the
command line, and bad input."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from planproof.cli import main
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.reader import read_problem
from planproof.pddl.temporal import (
    DURATION,
    SNAP,
    TemporalTask,
    TimedStep,
    compile_temporal,
    read_temporal_domain,
    read_temporal_plan,
    split_timed_literals,
    validate_temporal,
)
from planproof.pddl.validate import validate

DATA = Path(__file__).resolve().parents[1] / "data" / "temporal"
LINES = [json.loads(x) for x in (DATA / "cases.jsonl").read_text().splitlines()]
META = LINES[0]["_meta"]
CASES = LINES[1:]
BINDING = {"unknown-action", "unknown-object", "wrong-type", "wrong-arity"}
# VAL reads the prose around an LLM's plan as no plan at all (valid: the goal already
# holds, final value 0); planproof reads the two steps inside it (docs/pddl.md)
READS_PROSE = {"toggles/instance-1/hand-llm-noise"}

_TASKS: dict[tuple[str, str], TemporalTask] = {}


def _task(domain: str, problem: str) -> TemporalTask:
    key = (domain, problem)
    if key not in _TASKS:
        df, durative = read_temporal_domain((DATA / domain).read_text())
        text, tils = split_timed_literals((DATA / problem).read_text())
        prob = read_problem(text, fold_case=True)
        _TASKS[key] = compile_temporal(df, durative, prob, tils)
    return _TASKS[key]


def test_the_cases_say_where_they_come_from() -> None:
    assert len(META["val_commit"]) == 40 and "Validate -t" in META["val_command"]
    assert len(CASES) >= 150
    domains = {c["domain"].split("/")[0] for c in CASES}
    assert {"satellite-time", "driverlog-time", "crewplanning", "match-cellar", "tanks"} <= domains
    verdicts = [c["val_valid"] for c in CASES]
    assert 0.25 < sum(verdicts) / len(verdicts) < 0.75  # both verdicts well represented


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_vals_verdict_on_every_stored_case(case: dict[str, Any]) -> None:
    steps, _ = read_temporal_plan(case["plan"])
    v = validate_temporal(
        _task(case["domain"], case["problem"]), steps, tolerance=case["tolerance"]
    )
    assert v.valid == case["val_valid"], v.failure
    if case["val_valid"] and case["id"] not in READS_PROSE:
        assert v.final_value == pytest.approx(case["val_final_value"], abs=1e-3)
    if case["val_bad_plan"]:  # VAL's "Bad plan description" is a binding failure here
        assert v.failure is not None and v.failure.kind in BINDING


def _kinds() -> dict[str, str]:
    out = {}
    for c in CASES:
        steps, _ = read_temporal_plan(c["plan"])
        v = validate_temporal(_task(c["domain"], c["problem"]), steps, tolerance=c["tolerance"])
        out[c["id"]] = v.failure.kind if v.failure else ("valid" if v.valid else "goal")
    return out


def test_every_kind_of_failure_is_met_and_named() -> None:
    kinds = _kinds()
    assert {"at-start", "over-all", "duration", "mutex", "goal", "missing-duration"} <= set(
        kinds.values()
    )
    assert kinds["toggles/instance-1/hand-same-time-read-delete"] == "mutex"
    assert kinds["toggles/instance-1/hand-within-tenth-read-delete"] == "mutex"
    assert kinds["toggles/instance-1/hand-both-read-and-decrease"] == "mutex"
    assert kinds["toggles/instance-1/hand-assign-and-increase"] == "mutex"
    # a duration that reads a fluent another point changes; a conditional effect's
    # condition that another point deletes
    assert kinds["toggles/instance-1/hand-duration-reads-what-fill-changes"] == "mutex"
    assert kinds["toggles/instance-1/hand-when-condition-meets-delete"] == "mutex"
    assert kinds["toggles/instance-1/hand-when-condition-then-delete"] == "valid"
    assert kinds["toggles/instance-1/hand-invariant-broken"] == "over-all"
    assert kinds["toggles/instance-1/hand-check-too-long"] == "duration"
    assert kinds["toggles/instance-1/hand-negative-duration"] == "bad-duration"
    # continuous change: the invariant fails between happenings, not at them
    assert kinds["tanks/instance-1/hand-overflow"] == "over-all"
    assert kinds["tanks/instance-1/hand-drain-past-zero"] == "over-all"
    assert kinds["tanks/instance-1/hand-drain-to-zero"] == "valid"
    assert kinds["tanks/instance-1/hand-fill-too-little"] == "at-end"


def test_a_mutex_failure_names_both_actions_and_the_time() -> None:
    case = next(c for c in CASES if c["id"] == "toggles/instance-1/hand-same-time-read-delete")
    steps, _ = read_temporal_plan(case["plan"])
    v = validate_temporal(_task(case["domain"], case["problem"]), steps)
    f = v.failure
    assert f is not None and f.kind == "mutex" and f.time == 0.0 and f.happening == 1
    assert {f.action, f.other_action} == {"(check a)", "(turn-on a)"}
    assert {f.step, f.other_step} == {1, 2}
    assert "(off a)" in f.message


# --- invariants ------------------------------------------------------------------------

TOGGLES = ("toggles/domain.pddl", "toggles/instance-1.pddl")
DURATIONS = {"turn-on": 2.0, "check": 1.5, "fill": 1.0, "reset": 1.0}
STEP = st.tuples(st.sampled_from(sorted(DURATIONS)), st.sampled_from(["a", "b"]))


@settings(max_examples=80, deadline=None)
@given(st.lists(STEP, max_size=8))
def test_spread_apart_equals_the_sequential_plan_of_its_snap_actions(
    plan: list[tuple[str, str]],
) -> None:
    """Actions far apart (no two points within 1 time unit) get the verdict of the
    sequential plan start, over-all check, end, ... under the classical validator."""
    tt = _task(*TOGGLES)
    steps = [
        TimedStep(i, 10.0 * (i - 1), n, (a,), DURATIONS[n], i)
        for i, (n, a) in enumerate(plan, start=1)
    ]
    temporal = validate_temporal(tt, steps)
    # ?duration is read only by fill (duration 1): the classical task gets it as a value
    task = replace(tt.task, values={**tt.task.values, (DURATION, ()): 1.0})
    snaps = [(f"{n}{SNAP}{k}", (a,)) for n, a in plan for k in ("start", "inv", "end")]
    classical = validate(task, snaps)
    assert temporal.valid == classical.valid
    failed = classical.failure.step if classical.failure else None
    assert (temporal.failure.step if temporal.failure else None) == (
        None if failed is None else (failed - 1) // 3 + 1
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.integers(1, 400).map(lambda k: k * 0.25))
def test_shifting_every_time_keeps_the_verdict(case: dict[str, Any], shift: float) -> None:
    """(Without timed initial literals: they stay where the problem puts them.)"""
    steps, _ = read_temporal_plan(case["plan"])
    tt = _task(case["domain"], case["problem"])
    assume(not tt.tils)
    tol = case["tolerance"]
    before = validate_temporal(tt, steps, tolerance=tol)
    after = validate_temporal(tt, [replace(s, time=s.time + shift) for s in steps], tolerance=tol)
    assert after.valid == before.valid
    assert (after.failure and after.failure.kind) == (before.failure and before.failure.kind)
    if before.valid:
        assert after.makespan == pytest.approx(before.makespan + shift)


JUNK = st.sampled_from(
    ["0", "-1", "1.5", "nan", "-inf", "1e309", "", "abc", "0.0001", "3", "1e-9", "+2"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(JUNK, STEP, JUNK, st.booleans()), max_size=6))
def test_any_plan_text_gets_a_verdict_or_a_typed_error(
    rows: list[tuple[str, tuple[str, str], str, bool]],
) -> None:
    text = "".join(
        f"{t}: ({n} {a}) [{d}]\n" if br else f"{t}: ({n} {a})\n" for t, (n, a), d, br in rows
    )
    try:
        steps, _ = read_temporal_plan(text)
    except PDDLSyntaxError as exc:
        assert exc.kind in {"bad-time", "bad-duration", "bad-plan"}
        return
    v = validate_temporal(_task(*TOGGLES), steps)
    assert all(math.isfinite(s.time) for s in steps)
    if any(s.time < 0 for s in steps):
        assert not v.valid
    assert v.valid or v.failure is not None or v.unmet_goal


def test_a_plan_of_too_many_steps_is_refused() -> None:
    with pytest.raises(PDDLSyntaxError) as err:
        read_temporal_plan("(f)\n" * 100_001)  # short steps: under the text's length limit
    assert err.value.kind == "too-large" and "100,001 steps" in str(err.value)
    with pytest.raises(PDDLSyntaxError) as err:
        read_temporal_plan("0.0: (fill a) [1.0]\n" * 100_000)  # long ones: over it
    assert err.value.kind == "too-long"


# --- the domain reader -----------------------------------------------------------------

_PLUS = """(define (domain d) (:requirements :time) (:predicates (p))
  (:functions (x)) (:process grow :parameters () :precondition (p)
  :effect (increase (x) (* #t 1))))"""
_CTS = """(define (domain d) (:requirements :durative-actions :continuous-effects)
  (:predicates (p)) (:functions (x))
  (:durative-action go :parameters () :duration (= ?duration 1)
   :condition (at start (p)) :effect (increase (x) (* #t (x)))))"""
_UNTIMED = """(define (domain d) (:requirements :durative-actions) (:predicates (p))
  (:durative-action go :parameters () :duration (= ?duration 1)
   :condition (p) :effect (at end (p))))"""


@pytest.mark.parametrize(
    ("text", "kind", "words"),
    [
        (_PLUS, "unsupported", ":process"),
        (_PLUS.replace(":process", ":event"), "unsupported", ":event"),
        (_CTS, "unsupported", "non-linear"),
        (_CTS.replace("(* #t (x))", "(* #t #t)"), "unsupported", "linear"),
        (
            _CTS.replace("(at start (p))", "(over all (or (p) (> (x) 1)))").replace(
                "(* #t (x))", "(* #t 2)"
            ),
            "unsupported",
            "not a linear condition",
        ),
        (_UNTIMED, "bad-action", "at start"),
    ],
)
def test_what_is_refused_is_named(text: str, kind: str, words: str) -> None:
    with pytest.raises(PDDLSyntaxError) as err:
        read_temporal_domain(text)
    assert err.value.kind == kind and words in str(err.value)


# --- the command line ------------------------------------------------------------------

MC = DATA / "match-cellar"


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["verify", *args])
    return code, capsys.readouterr().out


def test_verify_a_temporal_plan_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--domain", str(MC / "domain.pddl"), "--problem", str(MC / "instance-1.pddl")]
    code, out = _verify(capsys, *base, "--plan", str(MC / "instance-1.handwritten.plan"), "--json")
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["temporal"]
    assert data["final_value"] == pytest.approx(15.02) and data["makespan"] == pytest.approx(15.02)
    code, out = _verify(capsys, *base, "--plan", str(MC / "instance-1.short-duration.plan"))
    assert code == 1 and "duration" in out and "INVALID" in out


def test_verify_tolerance_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    d = DATA / "toggles"
    base = ["--domain", str(d / "domain.pddl"), "--problem", str(d / "instance-1.pddl")]
    plan = str(d / "instance-1.duration-long.plan")
    assert _verify(capsys, *base, "--plan", plan)[0] == 1
    assert _verify(capsys, *base, "--plan", plan, "--tolerance", "0.1")[0] == 0
    assert _verify(capsys, *base, "--plan", plan, "--tolerance", "nan")[0] == 2


@pytest.mark.parametrize("text", ["0.0: (fill a) [nan]\n", "inf: (fill a) [1]\n"])
def test_nan_and_infinite_numbers_are_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    d = DATA / "toggles"
    p = tmp_path / "p.plan"
    p.write_text(text)
    code = main(["verify", "--domain", str(d / "domain.pddl"), "--problem",
                 str(d / "instance-1.pddl"), "--plan", str(p), "--json"])  # fmt: skip
    assert code == 2


def test_negative_time_is_invalid_and_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    d = DATA / "toggles"
    p = tmp_path / "p.plan"
    p.write_text("-1.0: (fill a) [1.0]\n")
    code, out = _verify(capsys, "--domain", str(d / "domain.pddl"), "--problem",
                        str(d / "instance-1.pddl"), "--plan", str(p), "--json")  # fmt: skip
    data = json.loads(out)
    assert code == 1 and data["error"]["error_type"] == "bad-time" and data["failed_step"] == 1


def test_a_pddl_plus_domain_is_exit_2_naming_the_construct(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "d.pddl").write_text(_PLUS)
    (tmp_path / "p.pddl").write_text("(define (problem q) (:domain d) (:init) (:goal (p)))")
    (tmp_path / "plan").write_text("0: (grow)\n")
    code = main(["verify", "--domain", str(tmp_path / "d.pddl"), "--problem",
                 str(tmp_path / "p.pddl"), "--plan", str(tmp_path / "plan"), "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2 and ":process" in captured.out + captured.err


def test_cases_batch_matches_vals_verdicts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chosen = [c for c in CASES if c["domain"].startswith(("satellite", "toggles"))]
    lines = [
        {"id": c["id"], "domain": str(DATA / c["domain"]), "problem": str(DATA / c["problem"]),
         "plan": c["plan"], "tolerance": c["tolerance"]}
        for c in chosen
    ]  # fmt: skip
    f = tmp_path / "cases.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    main(["verify", "--cases", str(f)])
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == [c["id"] for c in chosen]
    for o, c in zip(out, chosen, strict=True):
        assert o["valid"] == c["val_valid"], o["id"]


TANKS = ("tanks/domain.pddl", "tanks/instance-1.pddl")


@settings(max_examples=100, deadline=None)
@given(st.floats(0.01, 100.0), st.floats(0.0, 50.0))
def test_linear_change_is_exact(duration: float, start: float) -> None:
    """Tank a fills at 2 per time unit up to its capacity 10, over all: one fill of
    duration d runs iff 2d <= 10, and the metric (+ total-time pumped) is then
    start + d + 2d (pumped grows at 2)."""
    tt = _task(*TANKS)
    v = validate_temporal(tt, [TimedStep(1, start, "fill", ("a",), duration, 1)])
    assert (v.failure is None) == (2 * duration <= 10)
    if v.failure is None:
        assert v.result.metric == pytest.approx(start + 3 * duration)
    else:
        assert v.failure.kind == "over-all" and v.failure.time == start


def test_many_simultaneous_and_overlapping_actions_are_checked_linearly() -> None:
    """5,000 actions in one happening (the mutex check looks at each atom once, not at
    every pair) and 5,000 overlapping ones (an invariant is re-checked only when a
    happening touches what it reads) get their verdicts."""
    tt = _task(*TOGGLES)
    same, _ = read_temporal_plan("0: (check a) [1]\n" * 5000)
    assert validate_temporal(tt, same).valid
    fills, _ = read_temporal_plan("0: (fill a) [1]\n" * 5000)
    v = validate_temporal(tt, fills)
    assert v.failure is not None and v.failure.kind == "mutex"
    checks = "".join(f"{i * 0.002:.3f}: (check a) [3]\n" for i in range(5000))
    overlapping, _ = read_temporal_plan(checks + "20: (turn-on a) [2]\n")
    assert validate_temporal(tt, overlapping).valid
    broken, _ = read_temporal_plan(checks + "10.5: (turn-on a) [2]\n")
    v = validate_temporal(tt, broken)
    assert v.failure is not None and v.failure.kind == "over-all" and v.failure.time == 12.5


def test_a_bad_tolerance_in_a_case_is_reported_on_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    d = DATA / "toggles"
    case = {"domain": str(d / "domain.pddl"), "problem": str(d / "instance-1.pddl"),
            "plan": "0: (fill a) [1]\n"}  # fmt: skip
    f = tmp_path / "cases.jsonl"
    f.write_text(
        "".join(
            json.dumps({**case, "id": str(t), "tolerance": t}) + "\n" for t in ["x", -1, None, 0.5]
        )
    )
    assert main(["verify", "--cases", str(f)]) == 2
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o.get("valid") for o in out] == [None, None, True, True]
    assert "tolerance" in out[0]["message"] and "tolerance" in out[1]["message"]


def test_timed_initial_literals_happen_at_their_times() -> None:
    """PDDL 2.2 timed initial literals: IPC 2004's satellite time windows open and close a
    window; an action meeting a literal that undoes its effect is a mutex naming it."""
    tt = _task("satellite-time-windows/domain.pddl", "satellite-time-windows/instance-1.pddl")
    assert [(t.time, t.text) for t in tt.tils] == [
        (143.0, "(active window0 satellite0)"),
        (223.04, "(not (active window0 satellite0))"),
    ]
    kinds = _kinds()
    assert kinds["satellite-time-windows/instance-1/hand-handwritten"] == "valid"
    assert kinds["satellite-time-windows/instance-1/hand-send-before-window"] == "over-all"
    case = next(c for c in CASES if c["id"] == "toggles/instance-2/hand-reset-meets-til")
    steps, _ = read_temporal_plan(case["plan"])
    f = validate_temporal(_task(case["domain"], case["problem"]), steps).failure
    assert f is not None and f.kind == "mutex" and f.action == "(reset a)" and f.time == 10
    assert f.other_step is None and f.other_action == "timed initial literal (not (off a))"


@pytest.mark.parametrize("til", ["(at -1 (off b))", "(at nan (off b))", "(at 3 (and (p)))"])
def test_a_bad_timed_literal_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, til: str
) -> None:
    d = DATA / "toggles"
    text = (d / "instance-2.pddl").read_text().replace("(at 5 (off b))", til)
    (tmp_path / "p.pddl").write_text(text)
    (tmp_path / "plan").write_text("0: (check a) [1]\n")
    code = main(["verify", "--domain", str(d / "domain.pddl"), "--problem",
                 str(tmp_path / "p.pddl"), "--plan", str(tmp_path / "plan"), "--json"])  # fmt: skip
    assert code == 2


def test_llm_noise_around_timed_steps() -> None:
    """Markdown around the times, bullets, prose and markers are read as the classical
    reader reads them; a dash glued to the number is a negative time, not a bullet; a step
    without a time gets VAL's default, with a note."""
    text = (
        "Here is my plan:\n**0.5:** (FILL a) [1]\n- 1.0: (fill b) [2]\n-2.0: (fill b) [2]\n"
        "> 4.5: (fill a)  [1] ; done\n(check a) [1]\n[PLAN END]\n(ignored after the end)\n"
    )
    steps, notes = read_temporal_plan(text)
    assert [(s.time, s.name, s.args, s.duration) for s in steps] == [
        (0.5, "fill", ("a",), 1.0),
        (1.0, "fill", ("b",), 2.0),
        (-2.0, "fill", ("b",), 2.0),
        (4.5, "fill", ("a",), 1.0),
        (1.0, "check", ("a",), 1.0),
    ]
    assert any("no time before the step" in n for n in notes)
    assert any("prose skipped" in n for n in notes)
