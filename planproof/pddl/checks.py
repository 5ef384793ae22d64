"""Static checks of an operator, with Z3 where logic is needed.

* unknown predicates (or wrong arities) and variables that are not parameters;
* a precondition no state can satisfy under the domain axioms (``open`` and ``closed``
  together, ``p`` and ``not p``);
* contradictory effects: one atom both added and deleted, or additions that break an
  axiom (an object made both ``on`` and ``off``), unconditionally or under a condition the
  precondition allows;
* effects the precondition already implies: the action changes nothing (a no-op);
* a check Z3 could not decide within its resource budget (``undecided``): named, never
  read as the absence of an issue.

The operator is grounded on a small symbolic universe: one object per parameter (distinct
objects, so a precondition counts as unsatisfiable only if it is so for distinct
arguments) plus two spare objects per type for quantifiers to range over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.boundary.limits import DEFAULT_RLIMIT
from planproof.ltl.ast import (
    Atom,
    Formula,
    Not,
    Var,
    map_atoms,
    substitute,
    walk,
)
from planproof.ltl.simplify import conj
from planproof.ltl.trace import Universe
from planproof.pddl.compare.operators import decide_equality, operator_universe
from planproof.pddl.schema import (
    Add,
    Delete,
    Domain,
    Effect,
    Operator,
    When,
    operator_atoms,
)

SMT_RLIMIT = DEFAULT_RLIMIT
"""Z3 resource units per query (a deterministic count, not seconds: the same issues under
any load)."""


@dataclass(frozen=True)
class Issue:
    """One finding: ``kind`` is unknown-predicate, unknown-variable,
    unsatisfiable-precondition, contradictory-effects, no-op or undecided (a Z3 query
    that spent its resource budget)."""

    operator: str
    kind: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"operator": self.operator, "kind": self.kind, "message": self.message}


def vocabulary_issues(op: Operator, domain: Domain) -> list[Issue]:
    """Predicates the domain does not declare, or used with the wrong number of arguments."""
    out: list[Issue] = []
    seen: set[str] = set()
    for a in operator_atoms(op):
        if a.pred == "=" or a.pred in seen:
            continue
        if a.pred not in domain.predicates:
            seen.add(a.pred)
            out.append(Issue(op.name, "unknown-predicate", f"unknown predicate {a.pred}"))
        elif len(a.args) != len(domain.predicates[a.pred]):
            seen.add(a.pred)
            out.append(
                Issue(
                    op.name,
                    "unknown-predicate",
                    f"{a.pred} takes {len(domain.predicates[a.pred])} arguments, got {len(a.args)}",
                )
            )
    return out


def _universe(op: Operator, domain: Domain) -> tuple[Universe, dict[str, str]]:
    """One object per parameter (``x_arg``) and two spare objects per type: the grounding
    :mod:`planproof.pddl.compare.operators` also compares operators on."""
    env = {p.name: f"{p.name}_arg" for p in op.params}
    objects = {f"{p.name}_arg": p.type for p in op.params}
    return operator_universe(domain, (op,), objects), env


def _ground_eq(f: Formula) -> Formula:
    """Decide ``=`` between constants (the solver would treat it as a proposition)."""
    return map_atoms(f, decide_equality)


def _has_eq_with_vars(f: Formula) -> bool:
    return any(
        isinstance(x, Atom) and x.pred == "=" and any(isinstance(a, Var) for a in x.args)
        for x in walk(f)
    )


def _unconditional(effects: Sequence[Effect]) -> list[tuple[Atom, bool]]:
    return [(e.atom, isinstance(e, Add)) for e in effects if isinstance(e, Add | Delete)]


def _literal(a: Atom, positive: bool) -> Formula:
    return a if positive else Not(a)


def operator_issues(
    op: Operator,
    domain: Domain,
    *,
    axioms: Callable[[Universe], Iterable[Formula]] | None = None,
    rlimit: int = SMT_RLIMIT,
) -> list[Issue]:
    """Every issue of ``op`` (see the module docstring). ``axioms`` builds the domain
    axioms for a universe (e.g. ``planproof.ltl.axioms.virtualhome_state_axioms``)."""
    from planproof.ltl.smt import entails, satisfiable

    issues = vocabulary_issues(op, domain)
    universe, env = _universe(op, domain)
    ax = tuple(axioms(universe)) if axioms else ()
    pre = _ground_eq(substitute(op.precondition, env))
    if _has_eq_with_vars(pre):
        return issues
    undecided: list[str] = []

    def note(res: Any, what: str) -> Any:
        """``res``, with an undecided check remembered by name."""
        if res.unknown:
            undecided.append(f"{what} ({res.status})")
        return res

    sat = note(satisfiable(pre, universe, ax, rlimit=rlimit), "precondition satisfiable")
    if not sat.sat and not sat.unknown:
        issues.append(
            Issue(op.name, "unsatisfiable-precondition", "no state satisfies the precondition")
        )
        return _with_undecided(issues, op.name, undecided)
    uncond = [(substitute_atom(a, env), v) for a, v in _unconditional(op.effects)]
    contradictions = sorted({_text(a) for a, v in uncond if v and (a, False) in set(uncond)})
    if contradictions:
        issues.append(
            Issue(
                op.name,
                "contradictory-effects",
                "added and deleted at once: " + ", ".join(contradictions),
            )
        )
    elif uncond:
        effect = conj(*(_literal(a, v) for a, v in uncond))
        res = note(satisfiable(effect, universe, ax, rlimit=rlimit), "effects consistent")
        if not res.sat and not res.unknown:
            issues.append(
                Issue(
                    op.name,
                    "contradictory-effects",
                    "the effects break a domain axiom (e.g. a state and its opposite)",
                )
            )
    for e in op.effects:
        if isinstance(e, When):
            cond = _ground_eq(substitute(e.condition, env))
            inner = [(substitute_atom(a, env), v) for a, v in _unconditional(e.effects)]
            both = [*uncond, *inner]
            clash = sorted({_text(a) for a, v in both if v and (a, False) in set(both)})
            if (
                clash
                and note(
                    satisfiable(conj(pre, cond), universe, ax, rlimit=rlimit), "condition reachable"
                ).sat
            ):
                issues.append(
                    Issue(
                        op.name,
                        "contradictory-effects",
                        "when its condition holds, added and deleted at once: " + ", ".join(clash),
                    )
                )
    if uncond and len(uncond) == len(op.effects):
        effect = conj(*(_literal(a, v) for a, v in uncond))
        implied = note(entails(pre, effect, universe, ax, rlimit=rlimit), "no-op")
        if implied.holds:
            issues.append(
                Issue(
                    op.name,
                    "no-op",
                    "every effect already holds whenever the precondition does",
                )
            )
    return _with_undecided(issues, op.name, undecided)


def _with_undecided(issues: list[Issue], op: str, undecided: list[str]) -> list[Issue]:
    """``issues``, and one ``undecided`` issue naming the checks Z3 did not decide."""
    if undecided:
        issues.append(Issue(op, "undecided", "Z3 did not decide: " + ", ".join(undecided)))
    return issues


def substitute_atom(a: Atom, env: dict[str, str]) -> Atom:
    f = substitute(a, env)
    assert isinstance(f, Atom)
    return f


def _text(a: Atom) -> str:
    return f"{a.pred}({', '.join(t.name for t in a.args)})"
