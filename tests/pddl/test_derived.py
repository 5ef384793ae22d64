"""Derived predicates as PDDL 2.2 defines them: several rules per predicate, recursion
(the stratified least fixpoint), negation of lower strata; unstratifiable programs,
derived predicates in effects and unknown predicates in rule bodies refused by name; a
5,000-long chain of rules checked without recursion. The fixpoint is compared with a
brute-force evaluation on random small programs."""

from __future__ import annotations

import contextlib
import io
import json
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.cli import main
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.reader import read_domain_file, read_problem
from planproof.pddl.validate import compile_task, derived_atoms

FEATURES = Path(__file__).resolve().parents[1] / "data" / "pddl_features"


def _verify(tmp_path: Path, domain: str, problem: str, plan: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    files = []
    for name, text in (("d.pddl", domain), ("p.pddl", problem), ("plan.txt", plan)):
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            ["verify", "--domain", files[0], "--problem", files[1], "--plan", files[2], "--json"]
        )
    return code, json.loads(out.getvalue())


def _task(domain: str, problem: str):  # type: ignore[no-untyped-def]
    return compile_task(
        read_domain_file(domain, fold_case=True).domain, read_problem(problem, fold_case=True)
    )


def test_recursive_rules_several_per_predicate_and_negation_of_a_lower_stratum(
    tmp_path: Path,
) -> None:
    domain = (FEATURES / "reach-domain.pddl").read_text()
    problem = (FEATURES / "reach-problem.pddl").read_text()
    task = _task(domain, problem)
    atoms = derived_atoms(task, task.initial_state())
    # reach: the transitive closure of the open links, through two rules
    assert {a for a in atoms if a[0] == "reach"} == {
        ("reach", "a", "b"), ("reach", "b", "c"), ("reach", "a", "c"),
    }  # fmt: skip
    # cut-off reads (not reach) of the stratum below
    assert {a for a in atoms if a[0] == "cut-off"} == {("cut-off", "d")}
    code, out = _verify(tmp_path, domain, problem, "(open-link c d)\n(visit d)\n")
    assert code == 0 and out["valid"], out
    code, out = _verify(tmp_path, domain, problem, "(visit d)\n")
    assert code == 1
    assert out["error"]["unmet"] == ["(not (cut-off d))", "(imply (home a) (reach a d))"]


def test_unstratifiable_program_names_its_cycle(tmp_path: Path) -> None:
    domain = (
        "(define (domain u) (:predicates (p ?x) (q ?x) (r ?x) (base ?x)) "
        "(:derived (p ?x) (and (base ?x) (q ?x))) (:derived (q ?x) (r ?x)) "
        "(:derived (r ?x) (not (p ?x))))"
    )
    with pytest.raises(PDDLSyntaxError) as bad:
        read_domain_file(domain)
    assert bad.value.kind == "unstratifiable"
    assert "cycle r -> p -> q -> r" in bad.value.message
    code, out = _verify(
        tmp_path, domain, "(define (problem x) (:domain u) (:objects a) (:init) (:goal (and)))", ""
    )
    assert code == 2 and "cycle r -> p -> q -> r" in json.dumps(out)
    self_negation = "(define (domain s) (:predicates (p)) (:derived (p) (not (p))))"
    with pytest.raises(PDDLSyntaxError, match=r"cycle p -> p"):
        read_domain_file(self_negation)


def test_derived_predicate_in_an_effect_is_refused() -> None:
    domain = (
        "(define (domain e) (:predicates (b ?x) (d ?x)) (:derived (d ?x) (b ?x)) "
        "(:action a :parameters (?x) :precondition (b ?x) :effect (not (d ?x))))"
    )
    with pytest.raises(PDDLSyntaxError, match="changes the derived predicate d") as bad:
        read_domain_file(domain)
    assert bad.value.kind == "derived-effect"


def test_unknown_predicate_or_wrong_arity_in_a_rule_body_is_refused() -> None:
    unknown = "(define (domain e) (:predicates (b ?x) (d ?x)) (:derived (d ?x) (bb ?x)))"
    with pytest.raises(PDDLSyntaxError, match="derived d: unknown predicate bb") as bad:
        read_domain_file(unknown)
    assert bad.value.kind == "unknown-predicate"
    arity = "(define (domain e) (:predicates (b ?x) (d ?x)) (:derived (d ?x) (b ?x ?x)))"
    with pytest.raises(PDDLSyntaxError, match="b takes 1 arguments, got 2"):
        read_domain_file(arity)
    head = "(define (domain e) (:predicates (b ?x) (d ?x)) (:derived (d ?x ?y) (b ?x)))"
    with pytest.raises(PDDLSyntaxError, match="the rule has 2 parameters"):
        read_domain_file(head)


def _chain(n: int) -> tuple[str, str]:
    preds = " ".join(f"(d{i})" for i in range(n))
    rules = " ".join(f"(:derived (d{i}) (d{i + 1}))" for i in range(n - 1))
    domain = (
        f"(define (domain chain) (:predicates (base) {preds}) {rules} "
        f"(:derived (d{n - 1}) (base)) "
        "(:action go :parameters () :precondition (d0) :effect (not (base))))"
    )
    return domain, "(define (problem c) (:domain chain) (:init (base)) (:goal (not (base))))"


def test_a_5000_long_chain_of_rules_is_checked_without_recursion(tmp_path: Path) -> None:
    """Issue 30: this domain ran into RecursionError after 659 s."""
    domain, problem = _chain(5000)
    code, out = _verify(tmp_path, domain, problem, "(go)\n")
    assert code == 0 and out["valid"], out
    code, out = _verify(tmp_path, domain, problem, "(go)\n(go)\n")
    assert code == 1 and out["error"]["unmet"] == ["(d0)"]


def test_recursive_rules_with_typed_heads_apply_only_to_their_types() -> None:
    domain = (
        "(define (domain t) (:types car bike - vehicle) "
        "(:predicates (fast ?v - vehicle) (motor ?v - vehicle)) "
        "(:derived (fast ?c - car) (motor ?c)) (:derived (fast ?b - bike) (not (motor ?b))))"
    )
    problem = (
        "(define (problem t1) (:domain t) (:objects c1 c2 - car b1 b2 - bike) "
        "(:init (motor c1) (motor b1)) (:goal (and)))"
    )
    task = _task(domain, problem)
    assert derived_atoms(task, task.initial_state()) == {("fast", "c1"), ("fast", "b2")}


# --- random programs against a brute-force evaluation ----------------------------------

OBJECTS = ("o0", "o1", "o2")
BASE = {"b0": 1, "b1": 2}


@st.composite
def programs(draw: st.DrawFn) -> tuple[dict[str, int], dict[str, int], list, set]:  # type: ignore[type-arg]
    """(arity of each derived predicate, its stratum, rules, initial facts). A rule is
    (head, head variables, literals, whether ?z is existential); a literal is (positive,
    predicate, arguments). Negative literals read only lower strata."""
    n = draw(st.integers(1, 4))
    arity = {f"d{i}": draw(st.integers(0, 2)) for i in range(n)}
    level = {p: draw(st.integers(0, 2)) for p in arity}
    rules = []
    for p, k_head in arity.items():
        for _ in range(draw(st.integers(1, 2))):
            head = tuple(f"?x{i}" for i in range(k_head))
            terms = [*head, "?z", *OBJECTS[:2]]
            lits = []
            for _ in range(draw(st.integers(1, 3))):
                positive = draw(st.booleans())
                allowed = list(BASE) + [
                    q for q in arity if level[q] < level[p] or (positive and level[q] == level[p])
                ]
                q = draw(st.sampled_from(sorted(allowed)))
                k = BASE.get(q, arity.get(q, 0))
                lits.append((positive, q, tuple(draw(st.sampled_from(terms)) for _ in range(k))))
            rules.append((p, head, lits))
    facts = set()
    for q, k in BASE.items():
        for args in product(OBJECTS, repeat=k):
            if draw(st.booleans()):
                facts.add((q, *args))
    return arity, level, rules, facts


def _brute_force(arity: dict[str, int], level: dict[str, int], rules: list, facts: set) -> set:  # type: ignore[type-arg]
    """The stratified least fixpoint by naive iteration over every ground atom, stratum
    by stratum (a rule's free ?z ranges over every object)."""
    true = set(facts)
    for stratum in sorted(set(level.values())):
        changed = True
        while changed:
            changed = False
            for p, head, lits in rules:
                if level[p] != stratum:
                    continue
                for args in product(OBJECTS, repeat=len(head)):
                    atom = (p, *args)
                    if atom in true:
                        continue
                    env = dict(zip(head, args, strict=True))
                    for z in OBJECTS:
                        env["?z"] = z
                        if all(
                            ((q, *(env.get(t, t) for t in ts)) in true) == pos
                            for pos, q, ts in lits
                        ):
                            true.add(atom)
                            changed = True
                            break
    return {a for a in true if a[0] in arity}


def _pddl(arity: dict[str, int], rules: list, facts: set) -> tuple[str, str]:  # type: ignore[type-arg]
    preds = " ".join(
        "(" + " ".join([q, *(f"?a{i}" for i in range(k))]) + ")"
        for q, k in {**BASE, **arity}.items()
    )
    texts = []
    for p, head, lits in rules:
        body = " ".join(
            ("{}" if pos else "(not {})").format("(" + " ".join([q, *ts]) + ")")
            for pos, q, ts in lits
        )
        texts.append(f"(:derived ({' '.join([p, *head])}) (exists (?z) (and {body})))")
    domain = f"(define (domain r) (:predicates {preds}) {' '.join(texts)})"
    init = " ".join("(" + " ".join(f) + ")" for f in sorted(facts))
    problem = (
        f"(define (problem r1) (:domain r) (:objects {' '.join(OBJECTS)}) "
        f"(:init {init}) (:goal (and)))"
    )
    return domain, problem


@settings(max_examples=150, deadline=None)
@given(programs())
def test_stratified_fixpoint_equals_brute_force(program) -> None:  # type: ignore[no-untyped-def]
    arity, level, rules, facts = program
    domain, problem = _pddl(arity, rules, facts)
    task = _task(domain, problem)
    assert derived_atoms(task, task.initial_state()) == _brute_force(arity, level, rules, facts)


def test_a_derived_fact_in_init_is_ignored_with_a_note(tmp_path: Path) -> None:
    """VAL ignores it too (its repair advice asks to satisfy the rule): the verdict on
    ``(visit d)`` stays invalid."""
    domain = (FEATURES / "reach-domain.pddl").read_text()
    problem = (FEATURES / "reach-problem.pddl").read_text()
    problem = problem.replace("(home a)", "(home a) (reach a d) (reach b d)")
    code, out = _verify(tmp_path, domain, problem, "(visit d)\n")
    assert code == 1 and "(reach a d)" in out["error"]["message"]
    assert any(
        "2 fact(s) of :init name derived predicates ((reach a d), (reach b d))" in n
        for n in out["notes"]
    )
