"""Fast Downward 23.06's reading of LLM operators (:mod:`planproof.pddl.fd_reading`), rule
by rule, on a tiny domain, with planproof's real builtin planner; and, where the reference's
venv with Fast Downward 23.06 is built, the same cases through FD itself (the verdicts
below are what it answers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.pddl.fd_reading import (
    CRASH,
    FREE,
    UNDECLARED_TYPE,
    OperatorText,
    fd_model,
    fd_operator,
    fd_planner_success,
)
from planproof.pddl.reader import read_domain, read_problem

VOCABULARY = """(define (domain t) (:requirements :typing)
 (:types object character)
 (:predicates (p ?o - object) (q ?o - object) (r ?o - object) (at ?c - character ?o - object))
 %s)"""
PROBLEM = """(define (problem t1) (:domain t) (:objects a b - object c - character)
 (:init (p a)) (:goal (and (q a))))"""

CO = "(?c - character ?o - object)"
OB = "(?o - object)"
CASES: dict[str, tuple[list[tuple[str, str, str, str]], str]] = {
    # rule: operators (name, parameters, precondition, effect) -> FD 23.06's verdict
    "free variable in a delete: dropped": (
        [("go", CO, "(p ?o)", "(and (q ?o) (not (at ?c ?x)))")],
        "solved",
    ),
    "free variable in an add: the translator crashes": (
        [("go", CO, "(p ?o)", "(and (q ?x))")],
        "crash",
    ),
    "free variable in an add beside a good add: crashes": (
        [("go", CO, "(p ?o)", "(and (q ?o) (r ?x))")],
        "crash",
    ),
    "free variable in a positive precondition: false": (
        [("go", CO, "(and (p ?o) (p ?x))", "(q ?o)")],
        "unsolvable",
    ),
    "free variable in a negative precondition: true": (
        [("go", CO, "(and (p ?o) (not (r ?x)))", "(q ?o)")],
        "solved",
    ),
    "free variable in exists: false": (
        [("go", OB, "(and (p ?o) (exists (?y - object) (at ?x ?y)))", "(q ?o)")],
        "unsolvable",
    ),
    "free variable in a when condition: false": (
        [("go", OB, "(p ?o)", "(when (p ?x) (q ?o))")],
        "unsolvable",
    ),
    "free variable in a negated when condition: true": (
        [("go", OB, "(p ?o)", "(when (not (r ?x)) (q ?o))")],
        "solved",
    ),
    "add of a free variable never reached: no crash": (
        [
            ("go", OB, "(r ?o)", "(q ?x)"),
            ("go2", OB, "(p ?o)", "(q ?o)"),
        ],
        "solved",
    ),
    "add of a free variable under a statically false condition: no crash": (
        [("go", OB, "(p ?o)", "(and (q ?o) (when (r ?o) (r ?x)))")],
        "solved",
    ),
    "undeclared constant in a positive precondition: false": (
        [("go", CO, "(and (p ?o) (p zz))", "(q ?o)")],
        "unsolvable",
    ),
    "undeclared constant in a negative precondition: true": (
        [("go", CO, "(and (p ?o) (not (p zz)))", "(q ?o)")],
        "solved",
    ),
    "undeclared constant added, then read: holds": (
        [
            ("go", OB, "(p ?o)", "(r zz)"),
            ("go2", OB, "(and (p ?o) (r zz))", "(q ?o)"),
        ],
        "solved",
    ),
    "undeclared constant: no parameter ranges over it": (
        [
            ("go", OB, "(p ?o)", "(r zz)"),
            ("go2", OB, "(r ?o)", "(q a)"),
        ],
        "unsolvable",
    ),
    "undeclared parameter type: no objects": (
        [("go", "(?o - item)", "(p ?o)", "(q ?o)")],
        "unsolvable",
    ),
    "forall over an undeclared type: true": (
        [("go", OB, "(and (p ?o) (forall (?y - item) (p ?y)))", "(q ?o)")],
        "solved",
    ),
    "unknown predicate: the translator refuses": (
        [("go", OB, "(and (p ?o) (zzz ?o))", "(q ?o)")],
        "unreadable",
    ),
    "wrong arity: the translator refuses": (
        [("go", OB, "(p ?o ?o)", "(q ?o)")],
        "unreadable",
    ),
    "text is lower-cased": (
        [("go", OB, "(and (p ?o) (P A))", "(q ?o)")],
        "solved",
    ),
    "names differing in case: both operators kept": (
        [
            ("Go", OB, "(r ?o)", "(q ?o)"),
            ("go", OB, "(p ?o)", "(q ?o)"),
        ],
        "solved",
    ),
    "effect variable bound by the precondition's exists: a parameter": (
        [("go", CO, "(exists (?l - object) (and (p ?l)))", "(and (q ?l) (not (r ?l)))")],
        "solved",
    ),
    "exists under or: lifted in its own disjunct only": (
        [("go", OB, "(or (exists (?l - object) (r ?l)) (p ?o))", "(q ?l)")],
        "crash",
    ),
    "exists under or, the other disjunct unreachable": (
        [("go", OB, "(or (exists (?l - object) (p ?l)) (r ?o))", "(q ?l)")],
        "solved",
    ),
    "wrong arity in a delete of a free variable: refused all the same": (
        [("go", CO, "(p ?o)", "(and (q ?o) (not (at ?c ?x - object)))")],
        "unreadable",
    ),
    "add of a free variable under a forall's unreachable condition: no crash": (
        [
            (
                "go",
                CO,
                "(p ?o)",
                "(and (q ?o) (forall (?y - object) (when (at ?c ?y) (and (r ?z)))))",
            )
        ],
        "solved",
    ),
    "add of a free variable under a forall precondition: explored as true, crashes": (
        [("go", OB, "(and (p ?o) (forall (?y - object) (q ?y)))", "(r ?x)")],
        "crash",
    ),
    "add of a free variable under a negative static literal true initially: no crash": (
        [("go", OB, "(and (p ?o) (not (p ?o)))", "(r ?x)")],
        "unsolvable",
    ),
    "add of a free variable under a negative fluent literal never false: crashes": (
        [
            ("go", OB, "(and (p ?o) (not (p ?o)))", "(r ?x)"),
            ("go2", OB, "(p ?o)", "(p ?o)"),
        ],
        "crash",
    ),
    "add of a free variable under a forall when-condition: crashes": (
        [("go", OB, "(p ?o)", "(when (forall (?y - object) (q ?y)) (r ?x))")],
        "crash",
    ),
    "an operator part with a parenthesis never closed: the translator refuses": (
        [("go", OB, "(and (p ?o)", "(q ?o)")],
        "unreadable",
    ),
    "empty precondition": (
        [("go", OB, "()", "(q ?o)")],
        "solved",
    ),
}


def _texts(ops: list[tuple[str, str, str, str]]) -> list[OperatorText]:
    return [OperatorText(*o) for o in ops]


def _verdict(ops: list[tuple[str, str, str, str]]) -> str:
    vocabulary = read_domain(VOCABULARY % "")
    problem = read_problem(PROBLEM)
    return fd_planner_success(vocabulary, {}, _texts(ops), problem, max_expansions=1000).status


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_rule_gives_fast_downward_2306s_verdict(case: str) -> None:
    ops, expected = CASES[case]
    assert _verdict(ops) == expected


def _fd2306() -> Path | None:
    root = Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(root))
    try:
        from reference_env import PUBLISHED_TM_FD2306, venv_dir
    except ImportError:
        return None
    finally:
        sys.path.remove(str(root))
    venv = venv_dir(PUBLISHED_TM_FD2306)
    found = sorted(
        venv.glob("lib/python*/site-packages/up_fast_downward/downward/fast-downward.py")
    )
    return found[0] if found else None


def _fast_downward(script: Path, ops: list[tuple[str, str, str, str]], tmp: Path) -> str:
    """FD 23.06's own verdict, as the reference asks it (lama-first, raw PDDL text)."""
    actions = " ".join(
        f"(:action {n} :parameters {p} :precondition {pre} :effect {eff})" for n, p, pre, eff in ops
    )
    (tmp / "d.pddl").write_text(VOCABULARY % actions, encoding="utf-8")
    (tmp / "p.pddl").write_text(PROBLEM, encoding="utf-8")
    python = script.parents[5] / "bin" / "python"
    out = subprocess.run(
        [
            str(python),
            str(script),
            "--alias",
            "lama-first",
            "--sas-file",
            str(tmp / "o.sas"),
            str(tmp / "d.pddl"),
            str(tmp / "p.pddl"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp,
        timeout=120,
        check=False,
    )
    text = out.stdout + out.stderr
    if "Solution found!" in text:
        return "solved"
    if "Traceback" in text:
        return "crash"
    if "translate exit code: 30" in text:
        return "unreadable"
    return "unsolvable"


def test_the_cases_are_fast_downward_2306s_own_verdicts(tmp_path: Path) -> None:
    script = _fd2306()
    if script is None:
        pytest.skip("the reference's Fast Downward 23.06 venv is not built")
    for case, (ops, expected) in sorted(CASES.items()):
        work = tmp_path / str(abs(hash(case)))
        work.mkdir()
        assert _fast_downward(script, ops, work) == expected, case


def test_free_variables_and_undeclared_names_are_made_explicit() -> None:
    fo = fd_operator(
        OperatorText("go", CO, "(and (p ?o) (not (r ?x)))", "(and (q ?y) (not (p ?z)))")
    )
    assert len(fo.operators) == 1
    assert fo.rules == {"free-variable-condition", "free-variable-add", "free-variable-delete"}
    from planproof.pddl.schema import operator_atoms

    atoms = list(operator_atoms(fo.operators[0]))
    assert not [a for a in atoms if any(FREE in str(t) for t in a.args)]  # none survives
    assert CRASH in {a.pred for a in atoms}
    model = fd_model(
        read_domain(VOCABULARY % ""),
        {},
        _texts([("go", OB, "(and (p ?o) (p zz))", "(q ?o)")]),
        read_problem(PROBLEM),
    )
    assert model.problem.objects["zz"] == UNDECLARED_TYPE
    assert "undeclared-constant" in model.rules


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["(p ?o)", "(not (p ?o))", "(q ?o)", "(r ?o)"]), st.booleans())
def test_a_free_variable_in_a_delete_changes_nothing(pre: str, with_free: bool) -> None:
    """Dropping a delete of a free variable is the verdict without that delete."""
    extra = " (not (at ?c ?loc))" if with_free else ""
    ops = [("go", CO, pre, f"(and (q ?o){extra})")]
    plain = [("go", CO, pre, "(and (q ?o))")]
    assert _verdict(ops) == _verdict(plain)
