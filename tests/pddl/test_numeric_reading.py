"""How ``verify`` reads numbers where PDDL 2.1 leaves a gap: a fluent only ever increased
and never given a value starts at 0 (VAL's and Fast Downward's reading) with a note, or
stays undefined under ``--strict-numeric``; an arithmetic error in the goal or the metric
is named, not hidden behind an empty ``unmet_goal`` or a ``null`` metric."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from planproof.cli import main
from planproof.pddl.reader import read_domain_file, read_problem
from planproof.pddl.validate import compile_task, validate

FEATURES = Path(__file__).resolve().parents[1] / "data" / "pddl_features"
GOOD = [
    ("drive", ("t1", "depot", "town")),
    ("refuel", ("t1", "town")),
    ("drive", ("t1", "town", "city")),
]


def _fuel(problem_text: str, *, strict: bool = False):  # type: ignore[no-untyped-def]
    domain = read_domain_file((FEATURES / "fuel-domain.pddl").read_text(), fold_case=True)
    return compile_task(
        domain.domain, read_problem(problem_text, fold_case=True), strict_numeric=strict
    )


def _verify(tmp_path: Path, domain: str, problem: str, plan: str, *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    paths = []
    for name, text in (("d.pddl", domain), ("p.pddl", problem), ("plan.txt", plan)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    out = io.StringIO()
    argv = ["verify", "--domain", paths[0], "--problem", paths[1], "--plan", paths[2], "--json"]
    with contextlib.redirect_stdout(out):
        code = main([*argv, *extra])
    return code, json.loads(out.getvalue())


def test_an_only_increased_fluent_without_a_value_starts_at_zero(tmp_path: Path) -> None:
    text = (FEATURES / "fuel-problem.pddl").read_text().replace("(= (total-fuel-used) 0)", "")
    v = validate(_fuel(text), GOOD)
    assert v.valid and v.metric == 8.0
    assert len(v.notes) == 1 and "(total-fuel-used) had no initial value" in v.notes[0]
    strict = validate(_fuel(text, strict=True), GOOD)
    assert strict.failure is not None and strict.failure.step == 1
    assert strict.failure.kind == "undefined-value" and strict.notes == ()
    # given a value, nothing is noted
    assert validate(_fuel((FEATURES / "fuel-problem.pddl").read_text()), GOOD).notes == ()
    domain = (FEATURES / "fuel-domain.pddl").read_text()
    plan = "\n".join("(" + " ".join([n, *a]) + ")" for n, a in GOOD)
    code, out = _verify(tmp_path, domain, text, plan)
    assert code == 0 and out["metric"] == 8.0
    assert any("starts at 0" in n for n in out["notes"])
    code, out = _verify(tmp_path, domain, text, plan, "--strict-numeric")
    assert code == 1 and out["error"]["error_type"] == "undefined-value"


def test_a_fluent_also_decreased_or_assigned_stays_undefined() -> None:
    text = (FEATURES / "fuel-problem.pddl").read_text().replace("(= (fuel t1) 4)", "")
    v = validate(_fuel(text), GOOD)
    assert v.failure is not None and v.failure.kind == "undefined-value"
    assert "(fuel t1)" in v.failure.message and v.notes == ()


RATIO_DOMAIN = (
    "(define (domain ratio) (:requirements :numeric-fluents) (:predicates (done)) "
    "(:functions (f) (g)) "
    "(:action finish :parameters () :precondition (and) :effect (done)))"
)


def test_division_by_zero_in_the_goal_and_the_metric_is_named(tmp_path: Path) -> None:
    problem = (
        "(define (problem r) (:domain ratio) (:init (= (f) 3) (= (g) 0)) "
        "(:goal (and (done) (> (/ (f) (g)) 1))) (:metric minimize (/ (f) (g))))"
    )
    code, out = _verify(tmp_path, RATIO_DOMAIN, problem, "(finish)\n")
    assert code == 1 and not out["valid"] and out["executable"]
    assert out["unmet_goal"] == ["(> (/ (f) (g)) 1) [division by zero in (/ (f) (g))]"]
    assert "division by zero in (/ (f) (g))" in out["goal_error"]
    assert out["metric"] is None
    assert "division by zero in (/ (f) (g))" in out["metric_error"]
    # with g = 2 both evaluate
    code, out = _verify(
        tmp_path, RATIO_DOMAIN, problem.replace("(= (g) 0)", "(= (g) 2)"), "(finish)"
    )
    assert code == 0 and out["metric"] == 1.5 and out["goal_error"] is None
