"""Fast Downward 23.06's "Negative goal not supported" rule (planproof.pddl.fd_negative_goal):
the goal reading on hand-made encodings, the groups planproof's translator chooses as 23.06
does on small PDDL tasks, and the verdict checked against 23.06's own translator (in the
reference's venv, when it is built)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.pddl.fd_negative_goal import (
    GoalEncoding,
    disjunctive_negative_goal,
    goal_encoding,
    negative_goal_unsupported,
)
from planproof.pddl.fd_process import fast_downward_script

DOMAIN = """(define (domain scrub) (:requirements :strips :negative-preconditions)
  (:predicates (stained ?x) (dusty ?x) (clean ?x))
  (:action scrub :parameters (?o ?b)
    :precondition (stained ?o)
    :effect (and (not (stained ?o)) %s)))"""
MUTEX = DOMAIN % "(dusty ?b)"
"""Removing a stain dusts the brush: 23.06 finds {stained, dusty} mutex (one variable of
three values: stained, dusty, neither)."""
BINARY = DOMAIN % ""
"""Nothing is added as the stain goes: (stained ?o) is a variable of its own, two values."""
PROBLEM = """(define (problem p) (:domain scrub) (:objects o1 b1)
  (:init (stained o1)) (:goal %s))"""
NOT_STAINED = PROBLEM % "(not (stained o1))"
ALSO_DUSTY = PROBLEM % "(and (dusty b1) (not (stained o1)))"

needs_fd = pytest.mark.skipif(
    fast_downward_script() is None, reason="up-fast-downward (planproof's planner) is not installed"
)


def test_a_negated_atom_of_a_three_valued_variable_is_a_disjunction() -> None:
    enc = GoalEncoding((("Atom a()", "Atom b()"),), ((True, "Atom a()"),))
    assert disjunctive_negative_goal(enc) == "Atom a()"


def test_a_positive_goal_on_the_same_variable_narrows_it_to_one_value() -> None:
    enc = GoalEncoding((("Atom a()", "Atom b()"),), ((True, "Atom a()"), (False, "Atom b()")))
    assert disjunctive_negative_goal(enc) is None


def test_two_negated_atoms_of_one_variable_leave_one_value() -> None:
    """(not a) then (not b) on {a, b, none}: the second narrows the first to "none"."""
    enc = GoalEncoding((("Atom a()", "Atom b()"),), ((True, "Atom a()"), (True, "Atom b()")))
    assert disjunctive_negative_goal(enc) is None


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_the_rule_fires_exactly_on_a_lone_negation_in_a_group_of_two_or_more(
    sizes: list[int], data: st.DataObject
) -> None:
    groups = tuple(tuple(f"Atom g{v}_{k}()" for k in range(n)) for v, n in enumerate(sizes))
    var = data.draw(st.integers(0, len(sizes) - 1))
    goal = ((True, groups[var][0]),)
    fires = disjunctive_negative_goal(GoalEncoding(groups, goal)) is not None
    assert fires == (sizes[var] >= 2)
    # any positive goal on that variable (another value) makes it one condition again
    if sizes[var] >= 2:
        narrowed = ((False, groups[var][-1]), *goal)
        assert disjunctive_negative_goal(GoalEncoding(groups, narrowed)) is None


@needs_fd
def test_the_translator_groups_the_stain_with_the_dust_as_2306_does() -> None:
    enc = goal_encoding(MUTEX, NOT_STAINED)
    assert enc is not None
    (group,) = (g for g in enc.groups if "Atom stained(o1)" in g)
    assert "Atom dusty(b1)" in group  # ?b may be o1 too: dusty(o1) joins the group
    assert enc.goal == ((True, "Atom stained(o1)"),)
    assert negative_goal_unsupported(MUTEX, NOT_STAINED) == "Atom stained(o1)"


@needs_fd
def test_no_rule_for_a_positive_goal_on_the_variable_or_a_binary_one() -> None:
    assert negative_goal_unsupported(MUTEX, ALSO_DUSTY) is None
    assert negative_goal_unsupported(BINARY, NOT_STAINED) is None
    assert negative_goal_unsupported(MUTEX, PROBLEM % "(stained o1)") is None  # no negation


def _translator_2306() -> Path | None:
    """23.06's ``translate.py`` beside the reference venv's driver, when it is built."""
    from tests.test_fd_reading import _fd2306

    script = _fd2306()
    if script is None:
        return None
    found = script.parent / "builds" / "release" / "bin" / "translate" / "translate.py"
    return found if found.exists() else None


@needs_fd
@pytest.mark.parametrize(
    ("domain", "problem"),
    [(MUTEX, NOT_STAINED), (MUTEX, ALSO_DUSTY), (BINARY, NOT_STAINED)],
    ids=["mutex-negated", "mutex-positive-too", "binary"],
)
def test_the_rule_is_fast_downward_2306s_own_verdict(
    domain: str, problem: str, tmp_path: Path
) -> None:
    script = _translator_2306()
    if script is None:
        pytest.skip("the reference's Fast Downward 23.06 venv is not built")
    (tmp_path / "d.pddl").write_text(domain, encoding="utf-8")
    (tmp_path / "p.pddl").write_text(problem, encoding="utf-8")
    python = script.parents[9] / "bin" / "python"
    out = subprocess.run(
        [str(python), str(script), "d.pddl", "p.pddl", "--sas-file", "o.sas"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    stopped = "Negative goal not supported" in out.stdout + out.stderr
    assert stopped == (out.returncode != 0)  # the only way this translator fails here
    assert stopped == (negative_goal_unsupported(domain, problem) is not None)
