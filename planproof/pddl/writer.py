"""Domains and problems → PDDL text, with the renaming planners need.

Real files collide with planners: the VirtualHome and BEHAVIOR domains both name an
action and a predicate ``open``, a VirtualHome problem names its agent ``character`` like
its type, and unified-planning demands one namespace for types, predicates, actions and
objects. :func:`export_names` picks a fresh name for every colliding or unsafe name
(keeping the others as they are, so the text stays readable) and :class:`NameMap` maps a
plan's names back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from planproof.ltl.ast import (
    And,
    Atom,
    Binder,
    Bottom,
    Const,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Term,
    Top,
    Var,
)
from planproof.pddl.numeric import NumericEffect
from planproof.pddl.reader import ROOT_TYPE, Problem
from planproof.pddl.schema import (
    Add,
    Delete,
    Domain,
    Effect,
    ForallEffect,
    Operator,
    Param,
    When,
    operator_atoms,
)

_SAFE = re.compile(r"^[a-z][a-z0-9_\-]*$")

RESERVED = frozenset(
    {
        "and", "or", "not", "imply", "exists", "forall", "when", "either", "define",
        "domain", "problem", "object", "at", "over", "start", "end", "all", "increase",
        "decrease", "assign", "scale-up", "scale-down", "total-time", "total-cost", "minimize",
        "maximize", "always", "sometime", "within", "preference", "number", "true", "false",
    }
)  # fmt: skip
"""Words no exported name may be: PDDL keywords and names planners treat specially."""


@dataclass(frozen=True)
class NameMap:
    """Original name → exported name per namespace; ``back`` maps exported names of
    actions and objects (what a plan mentions) to the originals."""

    types: Mapping[str, str] = field(default_factory=dict)
    predicates: Mapping[str, str] = field(default_factory=dict)
    actions: Mapping[str, str] = field(default_factory=dict)
    objects: Mapping[str, str] = field(default_factory=dict)

    def type(self, t: str) -> str:
        return self.types.get(t, t)

    def predicate(self, p: str) -> str:
        return self.predicates.get(p, p)

    def action(self, a: str) -> str:
        return self.actions.get(a, a)

    def object(self, o: str) -> str:
        return self.objects.get(o, o)

    @property
    def back_actions(self) -> dict[str, str]:
        return {v.lower(): k for k, v in self.actions.items()}

    @property
    def back_objects(self) -> dict[str, str]:
        return {v.lower(): k for k, v in self.objects.items()}

    def original_action(self, exported: str) -> str:
        return self.back_actions.get(exported.lower(), exported)

    def original_object(self, exported: str) -> str:
        return self.back_objects.get(exported.lower(), exported)

    @property
    def renamed(self) -> dict[str, dict[str, str]]:
        """Only the names that changed, per namespace (for reports)."""
        out: dict[str, dict[str, str]] = {}
        for ns, m in (
            ("types", self.types),
            ("predicates", self.predicates),
            ("actions", self.actions),
            ("objects", self.objects),
        ):
            changed = {k: v for k, v in m.items() if k != v}
            if changed:
                out[ns] = changed
        return out


def _sanitize(name: str) -> str:
    s = re.sub(r"[^a-z0-9_\-]", "_", name.lower())
    if not s or not s[0].isalpha():
        s = "n" + s
    return s


def export_names(domain: Domain, problem: Problem | None = None) -> NameMap:
    """One namespace for everything, case-insensitively: types keep their names, then
    predicates, actions and objects keep theirs unless taken, reserved or unsafe, in which
    case they get ``<name>_<kind>`` (with a counter if that is taken too)."""
    taken: set[str] = set()

    def fresh(name: str, kind: str) -> str:
        base = _sanitize(name)
        if base == name.lower() and base not in taken and base not in RESERVED:
            taken.add(base)
            return name
        cand = f"{base}_{kind}"
        k = 2
        while cand in taken or cand in RESERVED:
            cand = f"{base}_{kind}{k}"
            k += 1
        taken.add(cand)
        return cand

    types: dict[str, str] = {ROOT_TYPE: ROOT_TYPE}
    taken.add(ROOT_TYPE)
    for t in domain.types:
        if t != ROOT_TYPE:
            types[t] = fresh(t, "type")
    preds = {p: fresh(p, "pred") for p in domain.predicates}
    actions = {a: fresh(a, "action") for a in domain.operators}
    objects: dict[str, str] = {}
    if problem is not None:
        for o in {**problem.constants, **problem.objects}:
            objects[o] = fresh(o, "obj")
    return NameMap(types, preds, actions, objects)


# --- formulas ---------------------------------------------------------------------------


def _term(t: Term, names: NameMap) -> str:
    return f"?{t.name}" if isinstance(t, Var) else names.object(t.name)


def _atom(a: Atom, names: NameMap) -> str:
    if a.pred == "=":
        return "(= " + " ".join(_term(t, names) for t in a.args) + ")"
    return "(" + " ".join([names.predicate(a.pred), *(_term(t, names) for t in a.args)]) + ")"


def _binder(b: Binder, names: NameMap) -> str:
    return f"(?{b.var} - {names.type(b.type or ROOT_TYPE)})"


def condition_text(f: Formula, names: NameMap | None = None) -> str:
    """PDDL text of a condition (a goal or a precondition), renamed through ``names``."""
    n = names or NameMap()
    match f:
        case Atom():
            return _atom(f, n)
        case Top():
            return "(and)"
        case Bottom():
            return "(or)"
        case Not(body):
            return f"(not {condition_text(body, n)})"
        case And(cs):
            return "(and " + " ".join(condition_text(c, n) for c in cs) + ")"
        case Or(cs):
            return "(or " + " ".join(condition_text(c, n) for c in cs) + ")"
        case Implies(a, b):
            return f"(imply {condition_text(a, n)} {condition_text(b, n)})"
        case Exists(b, body):
            return f"(exists {_binder(b, n)} {condition_text(body, n)})"
        case Forall(b, body):
            return f"(forall {_binder(b, n)} {condition_text(body, n)})"
    raise ValueError(f"{type(f).__name__} has no PDDL form")


def effect_text(
    effects: Iterable[Effect], names: NameMap | None = None, *, drop_numeric: bool = False
) -> str:
    """PDDL text of an effect list; ``drop_numeric`` leaves numeric effects out (the
    planners' export: action costs are not planned for), else they raise."""
    n = names or NameMap()
    parts = [
        _effect(e, n, drop_numeric)
        for e in effects
        if not (drop_numeric and isinstance(e, NumericEffect))
    ]
    return parts[0] if len(parts) == 1 else "(and " + " ".join(parts) + ")"


def _effect(e: Effect, n: NameMap, drop_numeric: bool = False) -> str:
    match e:
        case Add(atom):
            return _atom(atom, n)
        case Delete(atom):
            return f"(not {_atom(atom, n)})"
        case When(cond, inner):
            inner_text = effect_text(inner, n, drop_numeric=drop_numeric)
            return f"(when {condition_text(cond, n)} {inner_text})"
        case ForallEffect(b, inner):
            return f"(forall {_binder(b, n)} {effect_text(inner, n, drop_numeric=drop_numeric)})"
    raise ValueError(f"{type(e).__name__} has no PDDL form here")


def _params(params: Iterable[Param], n: NameMap) -> list[str]:
    return [f"?{p.name} - {n.type(p.type)}" for p in params]


def operator_text(op: Operator, names: NameMap | None = None, *, drop_numeric: bool = False) -> str:
    n = names or NameMap()
    params = " ".join(f"?{p.name} - {n.type(p.type)}" for p in op.params)
    return (
        f"  (:action {n.action(op.name)}\n"
        f"    :parameters ({params})\n"
        f"    :precondition {condition_text(op.precondition, n)}\n"
        f"    :effect {effect_text(op.effects, n, drop_numeric=drop_numeric)})"
    )


def operator_constants(domain: Domain) -> frozenset[str]:
    """The object names the operators and derived-predicate rules mention (domain
    constants, or problem objects an LLM-written operator names): a planner needs them
    declared in ``:constants``."""
    from planproof.ltl.ast import walk

    rule_atoms = (f for d in domain.derived.values() for r in d.rules for f in walk(r.condition))
    used = [a for op in domain.operators.values() for a in operator_atoms(op)]
    used += [f for f in rule_atoms if isinstance(f, Atom)]
    return frozenset(t.name for a in used for t in a.args if isinstance(t, Const))


REQUIREMENTS = (
    ":strips :typing :negative-preconditions :disjunctive-preconditions :equality "
    ":existential-preconditions :universal-preconditions :conditional-effects"
)


def domain_to_pddl(
    domain: Domain,
    names: NameMap | None = None,
    *,
    loose_predicates: bool = False,
    constants: Mapping[str, str] | None = None,
    drop_numeric: bool = False,
) -> str:
    """The domain as PDDL text. ``loose_predicates`` declares every predicate argument as
    ``object``: the EAI problems state facts whose arguments do not fit the declared
    types (``(facing floor computer)`` with ``facing(?char - character ...)``), which typed
    planners reject while the facts mean the same without types. ``constants`` (name →
    type) are declared in ``:constants``; ``drop_numeric`` leaves numeric effects out."""
    n = names or NameMap()
    by_parent: dict[str, list[str]] = {}
    for t, parent in domain.types.items():
        if t != ROOT_TYPE:
            by_parent.setdefault(n.type(parent or ROOT_TYPE), []).append(n.type(t))
    type_lines = [f"    {' '.join(sorted(ts))} - {p}" for p, ts in sorted(by_parent.items())]
    pred_lines = []
    for p, arg_types in domain.predicates.items():
        args = " ".join(
            f"?x{i} - {ROOT_TYPE if loose_predicates else n.type(t)}"
            for i, t in enumerate(arg_types)
        )
        pred_lines.append(f"    ({n.predicate(p)}{' ' + args if args else ''})")
    by_type: dict[str, list[str]] = {}
    for c, t in sorted((constants or {}).items()):
        by_type.setdefault(n.type(t), []).append(n.object(c))
    const_lines = (
        [
            "  (:constants",
            *(f"    {' '.join(cs)} - {t}" for t, cs in sorted(by_type.items())),
            "  )",
        ]
        if by_type
        else []
    )
    lines = [
        f"(define (domain {_sanitize(domain.name)})",
        f"  (:requirements {REQUIREMENTS}{' :derived-predicates' if domain.derived else ''})",
        "  (:types",
        *type_lines,
        "  )",
        *const_lines,
        "  (:predicates",
        *pred_lines,
        "  )",
        *(
            f"  (:derived ({' '.join([n.predicate(p), *_params(r.params, n)])})\n"
            f"    {condition_text(r.condition, n)})"
            for p, d in domain.derived.items()
            for r in d.rules
        ),
        *(operator_text(op, n, drop_numeric=drop_numeric) for op in domain.operators.values()),
        ")",
    ]
    return "\n".join(lines) + "\n"


def problem_to_pddl(
    problem: Problem,
    domain_name: str,
    names: NameMap | None = None,
    *,
    declared: frozenset[str] = frozenset(),
) -> str:
    """The problem as PDDL text (closed world: only true facts), renamed through ``names``;
    objects in ``declared`` (the domain's ``:constants``) are not declared again."""
    n = names or NameMap()
    by_type: dict[str, list[str]] = {}
    for o, t in {**problem.constants, **problem.objects}.items():
        if o in declared:
            continue
        by_type.setdefault(n.type(t), []).append(n.object(o))
    obj_lines = [f"    {' '.join(os_)} - {t}" for t, os_ in sorted(by_type.items())]
    init_lines = [f"    {_atom(a, n)}" for a in sorted(problem.init, key=_atom_key)]
    return (
        "\n".join(
            [
                f"(define (problem {_sanitize(problem.name)})",
                f"  (:domain {_sanitize(domain_name)})",
                "  (:objects",
                *obj_lines,
                "  )",
                "  (:init",
                *init_lines,
                "  )",
                f"  (:goal {condition_text(problem.goal, n)})",
                ")",
            ]
        )
        + "\n"
    )


def _atom_key(a: Atom) -> tuple[str, tuple[str, ...]]:
    return a.pred, tuple(t.name for t in a.args)


def ground_atom_text(a: Atom) -> str:
    """``(pred a b)`` of a ground atom, unrenamed."""
    return "(" + " ".join([a.pred, *(t.name for t in a.args if isinstance(t, Const))]) + ")"
