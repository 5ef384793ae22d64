"""Fast Downward 23.06's reading of LLM operators (:mod:`planproof.pddl.fd_reading`), rule
by rule, on a tiny domain, with planproof's real builtin planner; and, where the reference's
venv with Fast Downward 23.06 is built, the same cases through FD itself (the verdicts
below are what it answers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from planproof.pddl.fd_reading import (
    CRASH,
    FREE,
    UNDECLARED_TYPE,
    FdModel,
    FdVerdict,
    OperatorText,
    fd_model,
    fd_operator,
    fd_planner_success,
    fd_task,
)
from planproof.pddl.planners import PlanStatus, fast_downward_script, plan
from planproof.pddl.reader import read_domain, read_problem

needs_fd = pytest.mark.skipif(
    fast_downward_script() is None, reason="up-fast-downward not installed"
)

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


# ------------------------------------------- the builtin search's budget: Fast Downward
CHAIN = [("go", OB, "(p ?o)", "(r ?o)"), ("go2", OB, "(r ?o)", "(q ?o)")]
"""Two steps to the goal: one expansion of the builtin search does not find them."""
TRAP = [
    ("go", OB, "(p ?o)", "(and (r ?o) (not (p ?o)))"),
    ("go2", OB, "(and (r ?o) (p ?o))", "(q ?o)"),
]
"""The goal holds in the delete relaxation, yet ``go`` deletes what ``go2`` needs."""


def _budgeted(ops: list[tuple[str, str, str, str]], cpu_budget: float | None) -> FdVerdict:
    return fd_planner_success(
        read_domain(VOCABULARY % ""),
        {},
        _texts(ops),
        read_problem(PROBLEM),
        max_expansions=1,
        cpu_budget=cpu_budget,
    )


@needs_fd
def test_a_spent_expansion_budget_is_decided_by_fast_downward() -> None:
    """The builtin search's budget is no verdict: Fast Downward, as the reference runs it,
    decides on the same model, plan or no plan; without it the status stays ``budget``."""
    assert _budgeted(CHAIN, None).status == "budget"
    solved = _budgeted(CHAIN, 10.0)
    assert (solved.success, solved.status) == (True, "solved")
    assert "Fast Downward" in solved.reason and solved.expanded == 1
    assert _budgeted(TRAP, None).status == "budget"
    none = _budgeted(TRAP, 10.0)
    assert (none.success, none.status) == (False, "unsolvable")
    assert "Fast Downward" in none.reason


def _fd_on(model_ops: list[tuple[str, str, str, str]], *, faithful: bool) -> str:
    model = fd_model(read_domain(VOCABULARY % ""), {}, _texts(model_ops), read_problem(PROBLEM))
    assert model.domain is not None
    task = fd_task(model.domain, model.problem) if faithful else (model.domain, model.problem)
    res = plan(*task, engine="fast-downward", cpu_budget=10.0)
    return {PlanStatus.SOLVED: "solved", PlanStatus.UNSOLVABLE: "unsolvable"}[res.status]


@needs_fd
@pytest.mark.parametrize(
    "case",
    sorted(c for c, (ops, v) in CASES.items() if v in ("solved", "unsolvable")),
)
def test_fast_downward_plans_the_model_as_fd_2306_reads_the_text(case: str) -> None:
    """Each rule's model, handed to Fast Downward (:func:`fd_task`), gets FD 23.06's
    verdict on the raw text: an undeclared constant stays out of every parameter's range."""
    ops, expected = CASES[case]
    assert _fd_on(ops, faithful=True) == expected


@needs_fd
def test_without_the_declared_type_fast_downward_ranges_over_undeclared_names() -> None:
    """Why :func:`fd_task` exists: in PDDL every type is under ``object``, so the plain
    export lets ``go2``'s ``?o - object`` take the undeclared ``zz`` and plans."""
    ops, expected = CASES["undeclared constant: no parameter ranges over it"]
    assert expected == "unsolvable"
    assert _fd_on(ops, faithful=False) == "solved"


def _reachable(model: FdModel) -> bool:
    """Brute force: breadth-first search over every reachable state of the model's
    grounded task (tiny tasks only)."""
    from planproof.pddl.ground import ground_task
    from planproof.pddl.planners import planning_domain

    assert model.domain is not None
    task = ground_task(planning_domain(model.domain), model.problem)
    if task.trivially_unsolvable:
        return False
    seen = {task.init}
    frontier = [task.init]
    while frontier:
        nxt = []
        for s in frontier:
            if task.goal in s:
                return True
            for a in task.actions:
                if a.pre <= s:
                    t = (s - a.dels) | a.adds
                    if t not in seen:
                        seen.add(t)
                        nxt.append(t)
        frontier = nxt
    return False


PRECONDITIONS = [
    *(f"({x} ?o)" for x in "pqr"),
    *(f"(not ({x} ?o))" for x in "pqr"),
    "(q b)",
    "(not (r a))",
    "(p zz)",
    "(not (r zz))",
    "(r ?x)",
    "(not (r ?x))",
    "(forall (?y - object) (not (q ?y)))",
    "(exists (?y - object) (r ?y))",
    "(at ?c ?o)",
]
EFFECTS = [
    *(f"({x} ?o)" for x in "pqr"),
    *(f"(not ({x} ?o))" for x in "pqr"),
    "(not (p a))",
    "(q a)",
    "(r zz)",
    "(not (at ?c ?x))",
    "(at ?c ?o)",
    "(when (r ?o) (q b))",
    "(forall (?y - object) (when (p ?y) (r ?y)))",
]
INIT = ["(p a)", "(p b)", "(r b)", "(q b)", "(at c a)"]
GOALS = [
    "(q a)",
    "(and (q a) (r b))",
    "(and (q b) (not (p a)))",
    "(and (q a) (p a))",
    "(and (r a) (not (q b)))",
]


@st.composite
def _operators(draw: st.DrawFn) -> list[tuple[str, str, str, str]]:
    n = draw(st.integers(1, 4))
    ops = []
    for k in range(n):
        pre = draw(st.lists(st.sampled_from(PRECONDITIONS), max_size=3))
        eff = draw(st.lists(st.sampled_from(EFFECTS), min_size=1, max_size=3))
        ops.append((f"go{k}", CO, f"(and {' '.join(pre)})", f"(and {' '.join(eff)})"))
    return ops


@needs_fd
@settings(max_examples=40, deadline=None)
@example(CHAIN, ["(p a)"], "(q a)")
@example(TRAP, ["(p a)"], "(q a)")
@example(TRAP, ["(p a)"], "(and (q a) (r b))")
@given(
    _operators(),
    st.lists(st.sampled_from(INIT), min_size=1, max_size=3, unique=True),
    st.sampled_from(GOALS),
)
def test_the_budget_decision_never_disagrees_with_brute_force(
    ops: list[tuple[str, str, str, str]], init: list[str], goal: str
) -> None:
    """On small random models (free variables, undeclared constants, quantifiers,
    conditional effects) the verdict with the builtin search cut after one expansion —
    mostly Fast Downward's — is whether any reachable state holds the goal."""
    text = PROBLEM.replace("(:init (p a))", f"(:init {' '.join(init)})")
    problem = read_problem(text.replace("(:goal (and (q a)))", f"(:goal {goal})"))
    vocabulary = read_domain(VOCABULARY % "")
    model = fd_model(vocabulary, {}, _texts(ops), problem)
    v = fd_planner_success(vocabulary, {}, _texts(ops), problem, max_expansions=1, cpu_budget=10.0)
    assert v.status in ("solved", "unsolvable")
    assert v.success == _reachable(model)
