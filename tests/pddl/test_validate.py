"""The general PDDL validator (``planproof.pddl.validate``, ``planproof verify``): reading
every IPC domain, VAL's semantics, numeric fluents, derived predicates, tolerant plan text,
the batch form, and the bounds that keep hostile domains from hanging."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.cli import main
from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.plan_io import read_plan_text
from planproof.pddl.reader import read_domain_file, read_problem
from planproof.pddl.validate import ValidationLimitError, compile_task, validate

DATA = Path(__file__).resolve().parents[1] / "data"
IPC = DATA / "ipc"
FEATURES = DATA / "pddl_features"


def ipc_problems() -> list[tuple[str, Path, Path]]:
    """(domain name, domain file, problem file) for all 57 IPC problems."""
    out = []
    for d in sorted(p for p in IPC.iterdir() if p.is_dir()):
        for prob in sorted(d.glob("*.pddl")):
            if "domain" in prob.name:
                continue
            own = d / f"{prob.name.split('-')[0].removesuffix('.pddl')}-domain.pddl"
            dom = own if own.exists() else d / "domain.pddl"
            out.append((d.name, dom, prob))
    return out


def _task(domain: Path, problem: Path):  # type: ignore[no-untyped-def]
    df = read_domain_file(domain.read_text(), fold_case=True)
    from dataclasses import replace

    prob = read_problem(problem.read_text(), fold_case=True)
    prob = replace(prob, constants=dict(df.constants))
    return compile_task(df.domain, prob)


def test_every_ipc_problem_reads() -> None:
    problems = ipc_problems()
    assert len(problems) == 57 and len({d for d, _, _ in problems}) == 19
    for _, dom, prob in problems:
        task = _task(dom, prob)
        assert task.init, prob


def _run(module: str, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([module, *argv])
    return code, out.getvalue()


BLOCKS = (
    "(define (domain bw) (:requirements :strips) "
    "(:predicates (on ?x ?y) (clear ?x) (holding ?x) (handempty) (ontable ?x)) "
    "(:action pick-up :parameters (?x) :precondition (and (clear ?x) (ontable ?x) (handempty)) "
    ":effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x))) "
    "(:action put-down :parameters (?x) :precondition (holding ?x) "
    ":effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x))) "
    "(:action stack :parameters (?x ?y) :precondition (and (holding ?x) (clear ?y)) "
    ":effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))) "
    "(:action unstack :parameters (?x ?y) :precondition (and (on ?x ?y) (clear ?x) (handempty)) "
    ":effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) "
    "(not (on ?x ?y)))))"
)
BLOCKS_PROBLEM = (
    "(define (problem p) (:domain bw) (:objects A B C) "
    "(:init (clear A) (clear B) (clear C) (ontable A) (ontable B) (ontable C) (handempty)) "
    "(:goal (and (on A B) (on B C))))"
)


@pytest.fixture
def blocks(tmp_path: Path) -> tuple[Path, Path]:
    d, p = tmp_path / "d.pddl", tmp_path / "p.pddl"
    d.write_text(BLOCKS)
    p.write_text(BLOCKS_PROBLEM)
    return d, p


def _verify(blocks: tuple[Path, Path], plan: str, *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    f = blocks[0].parent / "x.plan"
    f.write_text(plan)
    code, out = _run(
        "verify",
        "--domain",
        str(blocks[0]),
        "--problem",
        str(blocks[1]),
        "--plan",
        str(f),
        "--json",
        *extra,
    )
    return code, json.loads(out)


def test_valid_plan_upper_case_problem_lower_case_plan(blocks: tuple[Path, Path]) -> None:
    code, data = _verify(blocks, "(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n")
    assert code == 0 and data["valid"] and data["trace"][0]["step"] == 1


def test_inapplicable_step_with_effects_holding_is_invalid(blocks: tuple[Path, Path]) -> None:
    """(put-down a) when a is already on the table: the EAI reading calls it an
    additional step; VAL (and the default here) call the plan invalid."""
    plan = "(put-down a)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"
    code, data = _verify(blocks, plan)
    assert code == 1 and not data["valid"]
    assert data["failed_step"] == 1 and data["error"]["unmet"] == ["(holding a)"]
    assert data["error"]["repair"] == ["(pick-up a)"]


def test_first_failure_in_plan_order_and_prefix_kept(blocks: tuple[Path, Path]) -> None:
    plan = "(pick-up b)\n(stack b c)\n(stack a b)\n(frobnicate z)\n"
    code, data = _verify(blocks, plan)
    assert code == 1
    assert data["failed_step"] == 3 and data["error"]["error_type"] == "precondition"
    assert [s["action"] for s in data["trace"]] == ["(pick-up b)", "(stack b c)"]
    assert data["executed"] == 2 and data["steps"] == 4


@pytest.mark.parametrize(
    ("plan", "kind"),
    [
        ("(pick-up b)\n(stak b c)\n", "unknown-action"),
        ("(pick-up b)\n(stack b c d)\n", "wrong-arity"),
        ("(pick-up b)\n(stack b zz)\n", "unknown-object"),
    ],
)
def test_plan_errors_are_step_failures(blocks: tuple[Path, Path], plan: str, kind: str) -> None:
    code, data = _verify(blocks, plan)
    assert code == 1 and data["failed_step"] == 2 and data["error"]["error_type"] == kind


def test_goal_unmet(blocks: tuple[Path, Path]) -> None:
    code, data = _verify(blocks, "(pick-up b)\n(stack b c)\n")
    assert code == 1 and data["executable"] and data["unmet_goal"] == ["(on a b)"]


def test_llm_plan_text_read_with_notes(blocks: tuple[Path, Path]) -> None:
    text = (
        "Here is the plan:\n[PDDL PLAN]\n```pddl\n1. (pick-up b)\n2. (stack b c) ; cost 1\n"
        "Step 3: (pick-up a)\n0.004: (stack a b) [1]\n```\n[PDDL PLAN END]\nThat's it.\n"
    )
    code, data = _verify(blocks, text)
    assert code == 0 and data["valid"]
    notes = " ".join(data["notes"])
    assert "prose skipped" in notes and "code fence" in notes and "marker" in notes


def test_malformed_step_is_bad_input_not_skipped(blocks: tuple[Path, Path]) -> None:
    code, data = _verify(blocks, "(pick-up b)\n(stack b c!)\n")
    assert code == 2 and data["ok"] is False


def test_lenient_keeps_the_eai_additional_step(blocks: tuple[Path, Path]) -> None:
    plan = "(put-down a)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"
    code, data = _verify(blocks, plan, "--lenient")
    assert code == 0 and data["valid"] and not data["strict_valid"]


NAME = st.sampled_from(["pick-up", "put-down", "stack", "unstack"])
OBJ = st.sampled_from(["a", "b", "c"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(NAME, st.lists(OBJ, min_size=1, max_size=2)), max_size=8))
def test_validator_agrees_with_the_simulator_core(steps: list[tuple[str, list[str]]]) -> None:
    """On STRIPS, VAL's verdict is the core replay's strict verdict: two independent
    executors, one answer (and the same number of executed steps when both fail)."""
    from planproof.pddl.reader import read_domain

    dom = read_domain(BLOCKS, fold_case=True)
    prob = read_problem(BLOCKS_PROBLEM, fold_case=True)
    plan = [(n, tuple(a)) for n, a in steps]
    v = validate(compile_task(dom, prob), plan)
    c = check_plan(pddl_task(dom, prob), to_actions(plan))
    assert v.valid == c.strict
    if c.replay.first_error is not None:  # the strict reading fails no later
        assert v.failure is not None and v.failure.step <= c.replay.first_error.index + 1
    if v.failure is None:
        assert c.replay.first_error is None and not c.replay.warnings


def test_numeric_fluents_metric_and_repair() -> None:
    task = _task(FEATURES / "fuel-domain.pddl", FEATURES / "fuel-problem.pddl")
    good = [
        ("drive", ("t1", "depot", "town")),
        ("refuel", ("t1", "town")),
        ("drive", ("t1", "town", "city")),
    ]
    v = validate(task, good)
    assert v.valid and v.metric == 8.0 and v.metric_text == "(minimize (total-fuel-used))"
    assert v.trace[1].changed == {"(fuel t1)": 10.0}
    bad = [("drive", ("t1", "depot", "town")), ("drive", ("t1", "town", "city"))]
    v = validate(task, bad, repair=True)
    assert v.failure is not None and v.failure.step == 2
    assert v.failure.kind == "numeric-precondition"
    assert v.failure.unmet == ("(>= (fuel t1) (distance town city))",)
    assert v.failure.repair == ("(refuel t1 town)",)
    assert v.metric is None


def test_numeric_undefined_value_is_a_failure(tmp_path: Path) -> None:
    text = (FEATURES / "fuel-problem.pddl").read_text().replace("(= (fuel t1) 4)", "")
    task = compile_task(
        read_domain_file((FEATURES / "fuel-domain.pddl").read_text(), fold_case=True).domain,
        read_problem(text, fold_case=True),
    )
    v = validate(task, [("drive", ("t1", "depot", "town"))])
    assert v.failure is not None and v.failure.kind == "undefined-value"
    assert "(fuel t1)" in v.failure.message


def test_derived_predicates_and_either_types() -> None:
    task = _task(FEATURES / "derived-domain.pddl", FEATURES / "derived-problem.pddl")
    assert validate(
        task, [("switch-on", ("r1", "kitchen")), ("move", ("r1", "kitchen", "corridor"))]
    ).valid
    v = validate(task, [("move", ("r1", "kitchen", "corridor"))])
    assert v.failure is not None and v.failure.unmet == ("(safe r1)",)
    v = validate(task, [("switch-on", ("r1", "kitchen")), ("move", ("r1", "r1", "corridor"))])
    assert v.failure is not None and v.failure.kind == "wrong-type"


def test_unstratifiable_derived_and_durative_actions_refused() -> None:
    rec = (
        "(define (domain r) (:predicates (p ?x) (q ?x)) "
        "(:derived (p ?x) (not (q ?x))) (:derived (q ?x) (p ?x)))"
    )
    with pytest.raises(PDDLSyntaxError, match=r"cycle p -> q -> p") as bad:
        read_domain_file(rec)
    assert bad.value.kind == "unstratifiable"
    dur = "(define (domain d) (:durative-action a :parameters () :duration (= ?duration 1)))"
    with pytest.raises(PDDLSyntaxError, match="durative actions") as info:
        read_domain_file(dur)
    assert info.value.kind == "unsupported"
    til = "(define (problem p) (:domain d) (:init (at 10 (p))) (:goal (p)))"
    with pytest.raises(PDDLSyntaxError, match="timed initial literals"):
        read_problem(til)


def _nested_forall(depth: int, objects: int) -> tuple[str, str]:
    body = "(p " + " ".join(f"?v{i}" for i in range(depth)) + ")"
    for i in reversed(range(depth)):
        body = f"(forall (?v{i}) {body})"
    params = " ".join(f"?v{i}" for i in range(depth))
    dom = (
        f"(define (domain n) (:predicates (p {params}) (g)) "
        f"(:action a :parameters () :precondition {body} :effect (g)))"
    )
    objs = " ".join(f"o{i}" for i in range(objects))
    prob = f"(define (problem n) (:domain n) (:objects {objs}) (:init) (:goal (g)))"
    return dom, prob


def test_deeply_nested_forall_refused_up_front(tmp_path: Path) -> None:
    dom, prob = _nested_forall(12, 10)  # 10**12 assignments
    with pytest.raises(ValidationLimitError, match="1,000,000,000,000 assignments"):
        compile_task(read_domain_file(dom).domain, read_problem(prob))
    d, p, pl = tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "x.plan"
    d.write_text(dom)
    p.write_text(prob)
    pl.write_text("(a)\n")
    code, out = _run("verify", "--domain", str(d), "--problem", str(p), "--plan", str(pl), "--json")
    assert code == 2 and "over the limit" in json.loads(out)["message"]
    argv = ("--domain", str(d), "--problem", str(p), "--engine", "pyperplan", "--json")
    code, out = _run("plan", *argv)
    assert code == 2 and "1,000,000,000,000 assignments" in json.loads(out)["message"]


def test_problem_with_undefined_predicate_is_bad_input(blocks: tuple[Path, Path]) -> None:
    blocks[1].write_text(BLOCKS_PROBLEM.replace("(handempty))", "(handempty) (glued A))"))
    code, data = _verify(blocks, "(pick-up b)\n")
    assert code == 2 and "unknown predicate glued" in data["message"]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_plan_timeout_must_be_positive_and_finite(blocks: tuple[Path, Path], value: str) -> None:
    """The boundary's check of --timeout (planproof.boundary.check_seconds): exit 2."""
    argv = ("--domain", str(blocks[0]), "--problem", str(blocks[1]), "--timeout", value)
    code, out = _run("plan", *argv, "--json")
    data = json.loads(out)
    assert code == 2 and data["source"] == "--timeout" and data["error"] == "bad-number"


def test_plan_refuses_a_huge_grounding_up_front(tmp_path: Path) -> None:
    """10,000 actions x 10,000 objects: refused before any planner runs, with the size."""
    act = "(:action a{} :parameters (?x) :precondition (p ?x) :effect (not (p ?x)))"
    acts = " ".join(act.format(i) for i in range(10_000))
    d, p = tmp_path / "d.pddl", tmp_path / "p.pddl"
    d.write_text(f"(define (domain big) (:predicates (p ?x)) {acts})")
    objs = " ".join(f"o{i}" for i in range(10_000))
    p.write_text(
        f"(define (problem big) (:domain big) (:objects {objs}) (:init (p o1)) (:goal (p o2)))"
    )
    for engine in ("builtin", "pyperplan"):  # Fast Downward grounds for itself
        code, out = _run(
            "plan", "--domain", str(d), "--problem", str(p), "--engine", engine, "--json"
        )
        data = json.loads(out)
        assert code == 2 and data["ground_actions"] == 100_000_000


def test_batch_of_cases(tmp_path: Path) -> None:
    """--cases reads a JSONL of (domain, problem, plan), answers one JSON line per case,
    and a bad case is reported and skipped over, not fatal."""
    src = [json.loads(line) for line in (DATA / "planbench" / "cases.jsonl").open()][:40]
    lines = [json.dumps({k: c[k] for k in ("id", "domain", "problem", "plan")}) for c in src]
    lines.append(json.dumps({"id": "broken", "domain": "nope.pddl", "problem": "x", "plan": ""}))
    lines.append(json.dumps({"id": "nul", "domain": "a\u0000b", "problem": "x", "plan": ""}))
    lines.append(json.dumps([1, 2]))
    cases = DATA / "planbench" / "batch-test.jsonl"
    try:
        cases.write_text("\n".join(lines) + "\nnot json\n")
        code, out = _run("verify", "--cases", str(cases))
    finally:
        cases.unlink()
    rows = [json.loads(x) for x in out.splitlines()]
    assert len(rows) == 44 and code == 2
    assert [r["valid"] for r in rows[:40]] == [c["expected"] for c in src]
    assert rows[40]["ok"] is False and rows[40]["error"] == "not-found"
    assert rows[41]["ok"] is False and "cannot read" in rows[41]["message"]
    assert all(r["ok"] is False for r in rows[42:])


def test_metric_is_finite_number_in_json(tmp_path: Path) -> None:
    code, out = _run(
        "verify",
        "--domain",
        str(FEATURES / "fuel-domain.pddl"),
        "--problem",
        str(FEATURES / "fuel-problem.pddl"),
        "--plan",
        str(_write(tmp_path, "(drive t1 depot town) (refuel t1 town) (drive t1 town city)")),
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and math.isclose(data["metric"], 8.0)


def _write(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "plan.txt"
    f.write_text(text)
    return f


def test_glued_variables_and_at_predicate_read() -> None:
    df = read_domain_file((IPC / "zenotravel" / "domain.pddl").read_text(), fold_case=True)
    assert df.domain.operators["board"].params[0].name == "p"
    prob = read_problem((IPC / "gripper" / "prob01.pddl").read_text(), fold_case=True)
    assert any(a.pred == "at" for a in prob.init)
    assert read_plan_text("(board p1 plane1 city0)").steps == (
        ("board", ("p1", "plane1", "city0")),
    )


PDDLISH = st.text(
    alphabet=st.sampled_from(list("()?-; \n\tabcxyz0123456789:=<>.")) | st.characters(),
    max_size=300,
)


@settings(max_examples=300, deadline=None)
@given(PDDLISH)
def test_readers_return_a_value_or_a_typed_error(text: str) -> None:
    """Arbitrary text into every PDDL reader: a value or a positioned PDDLSyntaxError,
    never another exception."""
    for reader in (read_domain_file, read_problem, read_plan_text):
        try:
            reader(text)
        except PDDLSyntaxError as exc:
            assert exc.line >= 1 and exc.column >= 1


@pytest.mark.parametrize("depth", [101, 100_000])
def test_deep_nesting_is_a_typed_error(depth: int) -> None:
    text = "(define (domain d) " + "(" * depth + ")" * depth + ")"
    with pytest.raises(PDDLSyntaxError) as info:
        read_domain_file(text)
    assert info.value.kind == "too-deep"


def test_deeply_nested_json_plan_is_a_typed_error() -> None:
    with pytest.raises(PDDLSyntaxError) as info:
        read_plan_text("[" * 100_000 + "]" * 100_000)
    assert info.value.kind == "too-deep"


def test_lenient_refuses_what_the_eai_replay_cannot_read(tmp_path: Path) -> None:
    plan = _write(tmp_path, "(drive t1 depot town)")
    argv = ["--domain", str(FEATURES / "fuel-domain.pddl"), "--problem"]
    argv += [str(FEATURES / "fuel-problem.pddl"), "--plan", str(plan), "--lenient", "--json"]
    code, out = _run("verify", *argv)
    assert code == 2 and "numeric" in json.loads(out)["message"]
