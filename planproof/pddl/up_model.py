"""Domains and problems as unified-planning models, built directly from the schema.

Building the model object by object takes milliseconds where parsing the exported PDDL
text with unified-planning's reader takes about 0.6 s per VirtualHome problem (more than
Fast Downward's own search). Names go through :func:`~planproof.pddl.writer.export_names`
because unified-planning wants one namespace for types, fluents, actions and objects.
Import only when planning: unified-planning costs 1–3 s to import.
"""

from __future__ import annotations

import importlib
from typing import Any

from planproof.ltl.ast import (
    And,
    Atom,
    Bottom,
    Exists,
    Forall,
    Formula,
    Implies,
    Not,
    Or,
    Top,
    Var,
)
from planproof.pddl.reader import ROOT_TYPE, Problem
from planproof.pddl.schema import Add, Delete, Domain, Effect, ForallEffect, When
from planproof.pddl.writer import NameMap


def _sc() -> Any:
    return importlib.import_module("unified_planning.shortcuts")


class _Builder:
    def __init__(
        self, domain: Domain, problem: Problem, names: NameMap, *, typed: bool = True
    ) -> None:
        sc = _sc()
        self.sc = sc
        self.names = names
        self.env = sc.get_environment()
        self.env.credits_stream = None
        self.problem = sc.Problem(f"{domain.name}_{problem.name}", self.env)
        self.types: dict[str, Any] = {ROOT_TYPE: sc.UserType(ROOT_TYPE)}
        for t in domain.types:
            if t.startswith("(either "):
                raise ValueError(f"type {t} has no planning form")
            self._type(t, domain)
        for t in {**problem.constants, **problem.objects}.values():
            if t not in self.types:
                self.types[t] = sc.UserType(names.type(t), self.types[ROOT_TYPE])
        root = self.types[ROOT_TYPE]
        self.fluents: dict[str, Any] = {}
        for p, arg_types in domain.predicates.items():
            params = {
                f"x{i}": self.types[t] if typed and t in self.types else root
                for i, t in enumerate(arg_types)
            }
            f = sc.Fluent(names.predicate(p), sc.BoolType(), None, self.env, **params)
            self.fluents[p] = f
            self.problem.add_fluent(f, default_initial_value=False)
        self.objects: dict[str, Any] = {}
        for o, t in {**problem.constants, **problem.objects}.items():
            obj = sc.Object(names.object(o), self.types[t], self.env)
            self.objects[o] = obj
            self.problem.add_object(obj)
        for op in domain.operators.values():
            params = {p.name: self.types[p.type] for p in op.params}
            act = sc.InstantaneousAction(names.action(op.name), None, self.env, **params)
            scope = {p.name: act.parameter(p.name) for p in op.params}
            pre = self.cond(op.precondition, scope)
            if not pre.is_true():
                act.add_precondition(pre)
            self.effects(act, op.effects, scope, sc.TRUE(), ())
            self.problem.add_action(act)
        for a in problem.init:
            if a.pred in self.fluents and a.pred != "=":
                self.problem.set_initial_value(self.atom(a, {}), True)
        self.problem.add_goal(self.cond(problem.goal, {}))

    def _type(self, t: str, domain: Domain) -> Any:
        if t not in self.types:
            parent = domain.types.get(t) or ROOT_TYPE
            father = self._type(parent, domain) if parent != t else self.types[ROOT_TYPE]
            self.types[t] = self.sc.UserType(self.names.type(t), father)
        return self.types[t]

    def atom(self, a: Atom, scope: dict[str, Any]) -> Any:
        args = [scope[t.name] if isinstance(t, Var) else self.objects[t.name] for t in a.args]
        if a.pred == "=":
            return self.sc.Equals(args[0], args[1])
        return self.fluents[a.pred](*args)

    def cond(self, f: Formula, scope: dict[str, Any]) -> Any:
        sc = self.sc
        match f:
            case Atom():
                return self.atom(f, scope)
            case Top():
                return sc.TRUE()
            case Bottom():
                return sc.FALSE()
            case Not(body):
                return sc.Not(self.cond(body, scope))
            case And(cs):
                return sc.And(*(self.cond(c, scope) for c in cs))
            case Or(cs):
                return sc.Or(*(self.cond(c, scope) for c in cs))
            case Implies(a, b):
                return sc.Implies(self.cond(a, scope), self.cond(b, scope))
            case Exists(b, body) | Forall(b, body):
                v = sc.Variable(
                    f"{b.var}_{len(scope)}",
                    self.types.get(b.type or ROOT_TYPE, self.types[ROOT_TYPE]),
                )
                inner = self.cond(body, {**scope, b.var: v})
                return sc.Exists(inner, v) if isinstance(f, Exists) else sc.Forall(inner, v)
        raise ValueError(f"{type(f).__name__} has no planning form")

    def effects(
        self,
        act: Any,
        effects: tuple[Effect, ...],
        scope: dict[str, Any],
        condition: Any,
        forall: tuple[Any, ...],
    ) -> None:
        for e in effects:
            match e:
                case Add(atom) | Delete(atom):
                    act.add_effect(
                        self.atom(atom, scope), isinstance(e, Add), condition, forall=forall
                    )
                case When(c, inner):
                    cond = self.cond(c, scope)
                    both = cond if condition.is_true() else self.sc.And(condition, cond)
                    self.effects(act, inner, scope, both, forall)
                case ForallEffect(b, inner):
                    v = self.sc.Variable(
                        f"{b.var}_{len(scope)}",
                        self.types.get(b.type or ROOT_TYPE, self.types[ROOT_TYPE]),
                    )
                    self.effects(act, inner, {**scope, b.var: v}, condition, (*forall, v))


def up_problem(domain: Domain, problem: Problem, names: NameMap) -> Any:
    """The unified-planning ``Problem`` of ``problem`` under ``domain``, with predicate
    arguments typed as declared; when the facts or operators do not fit those types (the
    EAI problems state ``(facing floor computer)`` against ``facing(?char - character
    ...)``), with every predicate argument typed ``object``. Typed arguments matter:
    ``object``-typed fluents make the planner ground every predicate over every object
    (234,690 ground fluents on airport-adl)."""
    try:
        return _Builder(domain, problem, names, typed=True).problem
    except Exception:  # unified-planning's type checks raise several kinds
        return _Builder(domain, problem, names, typed=False).problem
