"""Grounding enumerates only the instances whose top-level static preconditions hold (a
backtracking join, not the cross product of untyped parameters), and the size guard of
``plan`` counts the same instances: checked against a brute-force enumeration."""

from __future__ import annotations

from itertools import product
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import And, Atom, Var
from planproof.pddl.ground import count_instances, ground_task, static_bindings, static_filters
from planproof.pddl.reader import read_domain, read_problem

IPC = Path(__file__).resolve().parents[1] / "data" / "ipc"


def _brute_force(domain, problem) -> int:  # type: ignore[no-untyped-def]
    """Instances whose top-level static atoms hold, by the cross product."""
    objects = sorted({**problem.constants, **problem.objects})
    init = {(a.pred, *(t.name for t in a.args)) for a in problem.init}
    total = 0
    for op in domain.operators.values():
        parts = op.precondition.children if isinstance(op.precondition, And) else (op.precondition,)
        static = [p for p in parts if isinstance(p, Atom) and p.pred in domain.static_predicates]
        for args in product(objects, repeat=len(op.params)):
            env = {p.name: a for p, a in zip(op.params, args, strict=True)}
            total += all(
                (a.pred, *(env[t.name] if isinstance(t, Var) else t.name for t in a.args)) in init
                for a in static
            )
    return total


def test_untyped_logistics_counts_what_its_static_preconditions_allow() -> None:
    d = read_domain((IPC / "logistics00" / "domain.pddl").read_text(), fold_case=True)
    p = read_problem((IPC / "logistics00" / "probLOGISTICS-10-0.pddl").read_text(), fold_case=True)
    n_objects = len(p.objects)
    cross = sum(n_objects ** len(op.params) for op in d.operators.values())
    counted = count_instances(d, p, 10**9)
    assert counted == _brute_force(d, p)  # every product is small: counted exactly
    assert counted * 20 < cross  # the static join prunes most of the cross product
    task = ground_task(d, p, memo=False)
    assert 0 < len([a for a in task.actions if a.origin is not None]) <= counted


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=10),
    st.lists(st.integers(0, 3), max_size=4),
    st.integers(1, 3),
)
def test_static_join_equals_the_filtered_cross_product(
    edges: list[tuple[int, int]], marked: list[int], arity: int
) -> None:
    params = " ".join(f"?x{i}" for i in range(arity))
    pre = ["(mark ?x0)", *(f"(edge ?x{i} ?x{i + 1})" for i in range(arity - 1)), "(free ?x0)"]
    domain = read_domain(
        "(define (domain g) (:predicates (edge ?a ?b) (mark ?a) (free ?a)) "
        f"(:action go :parameters ({params}) :precondition (and {' '.join(pre)}) "
        ":effect (not (free ?x0))))"
    )
    facts = [f"(edge o{a} o{b})" for a, b in edges] + [f"(mark o{m})" for m in marked]
    facts += [f"(free o{i})" for i in range(4)]
    problem = read_problem(
        "(define (problem q) (:domain g) (:objects o0 o1 o2 o3) "
        f"(:init {' '.join(facts)}) (:goal (and)))"
    )
    op = domain.operators["go"]
    constrained, atoms_ = static_filters(op, domain.static_predicates)
    domains = [["o0", "o1", "o2", "o3"]] * arity
    found = {
        tuple(b[i] for i in constrained)
        for b in static_bindings(domains, constrained, atoms_, _facts(problem, domain))
    }
    assert count_instances(domain, problem, 10**6) == _brute_force(domain, problem) == len(found)


def _facts(problem, domain):  # type: ignore[no-untyped-def]
    out: dict[str, set[tuple[str, ...]]] = {}
    for a in problem.init:
        if a.pred in domain.static_predicates:
            out.setdefault(a.pred, set()).add(tuple(t.name for t in a.args))
    return out
