"""BDDL goal → typed :class:`~planproof.ltl.ast.Formula`.

BDDL's typed quantifiers become binders with a type, so grounding ranges over the
category's objects only; counting and pair quantifiers map one to one onto the AST.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from planproof.ltl import ast
from planproof.ltl.bddl.errors import BDDLSyntaxError, error_at
from planproof.ltl.bddl.names import check_name, check_object_name, ltl_category, ltl_object
from planproof.ltl.bddl.reader import MAX_DEPTH, read_goal
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList

MAX_COUNT_DIGITS = 9
"""Most digits in a ``forn``/``fornpairs`` count."""

VariableNaming = Literal["indexed", "bddl"]


class _ToLTL:
    """One conversion: source text for error positions, objects, variable naming."""

    def __init__(
        self,
        text: str,
        objects: Mapping[str, str] | None,
        naming: VariableNaming,
        prefix: str,
    ) -> None:
        self.text = text
        self.objects = objects
        self.naming = naming
        self.prefix = prefix

    def err(self, message: str, at: SExpr, kind: str = "bad-goal") -> BDDLSyntaxError:
        return error_at(message, at, self.text, kind)

    def count(self, e: SExpr) -> int:
        items = e.items if isinstance(e, SList) else (e,)
        if len(items) != 1 or not isinstance(items[0], SAtom):
            raise self.err("a count is written (N)", e)
        digits = items[0].text
        if not digits.isdigit() or not digits.isascii() or len(digits) > MAX_COUNT_DIGITS:
            raise self.err(f"count {digits!r} is not a small non-negative integer", e)
        return int(digits)

    def binder(self, e: SExpr, scope: dict[str, str], k: int) -> tuple[ast.Binder, str]:
        """Parse ``(?v - type)`` or ``(?v)``; returns the binder and the BDDL name."""
        if not isinstance(e, SList) or not all(isinstance(i, SAtom) for i in e.items):
            raise self.err("a variable is declared as (?name - type)", e)
        parts = [i.text for i in e.items if isinstance(i, SAtom)]
        if not (len(parts) == 1 or (len(parts) == 3 and parts[1] == "-")):
            raise self.err("a variable is declared as (?name - type)", e)
        if not parts[0].startswith("?") or len(parts[0]) < 2:
            raise self.err(f"variable {parts[0]!r} must start with '?'", e)
        bddl_name = parts[0]
        if self.naming == "indexed":
            var = f"{self.prefix}{k}"
        else:
            var = check_name(ltl_category(bddl_name[1:]), "variable", e, self.text)
        typ = None
        if len(parts) == 3:
            typ = check_name(ltl_category(parts[2]), "type", e, self.text)
        return ast.Binder(var, typ), bddl_name

    def term(self, a: SExpr, scope: dict[str, str]) -> ast.Term:
        if not isinstance(a, SAtom):
            raise self.err("an argument must be a name, not a list", a)
        if a.text in scope:
            return ast.Var(scope[a.text])
        raw = a.text[1:] if a.text.startswith("?") else a.text
        if self.objects is not None and raw not in self.objects:
            raise self.err(f"unknown object {raw!r}", a, "unknown-object")
        name = ltl_object(raw)
        check_object_name(name, a, self.text)
        if name in scope.values():
            raise self.err(f"object {name!r} has the name of a bound variable", a, "name-collision")
        return ast.Const(name)

    def convert(self, e: SExpr, scope: dict[str, str], k: int, depth: int) -> ast.Formula:
        if depth > MAX_DEPTH:
            raise self.err(f"goal nests deeper than {MAX_DEPTH}", e, "too-deep")
        if not isinstance(e, SList) or not e.items:
            raise self.err("expected a formula (...)", e)
        head_e = e.items[0]
        if not isinstance(head_e, SAtom):
            raise self.err("a formula starts with a connective or predicate name", e)
        head = head_e.text.lower()
        args = e.items[1:]
        d = depth + 1

        def need(n: int, shape: str) -> None:
            if len(args) != n:
                raise self.err(f"({head} ...) takes {shape}", e)

        match head:
            case "and" | "or":
                parts = tuple(self.convert(a, scope, k, d) for a in args)
                if len(parts) == 1:
                    return parts[0]
                if not parts:
                    return ast.TRUE if head == "and" else ast.FALSE
                return ast.And(parts) if head == "and" else ast.Or(parts)
            case "not":
                need(1, "one formula")
                return ast.Not(self.convert(args[0], scope, k, d))
            case "imply":
                need(2, "two formulas")
                return ast.Implies(
                    self.convert(args[0], scope, k, d), self.convert(args[1], scope, k, d)
                )
            case "forall" | "exists":
                need(2, "a variable (?x - type) and a formula")
                b, name = self.binder(args[0], scope, k)
                body = self.convert(args[1], {**scope, name: b.var}, k + 1, d)
                return ast.Forall(b, body) if head == "forall" else ast.Exists(b, body)
            case "forn":
                need(3, "a count (N), a variable (?x - type) and a formula")
                n = self.count(args[0])
                b, name = self.binder(args[1], scope, k)
                return ast.ForN(n, b, self.convert(args[2], {**scope, name: b.var}, k + 1, d))
            case "forpairs" | "fornpairs":
                offset = 1 if head == "fornpairs" else 0
                shape = ("a count (N), " if offset else "") + "two variables and a formula"
                need(3 + offset, shape)
                b1, n1 = self.binder(args[offset], scope, k)
                b2, n2 = self.binder(args[offset + 1], scope, k + 1)
                if n1 == n2:
                    raise self.err("the two variables of a pair quantifier must differ", e)
                inner = {**scope, n1: b1.var, n2: b2.var}
                body = self.convert(args[offset + 2], inner, k + 2, d)
                if offset:
                    return ast.ForNPairs(self.count(args[0]), b1, b2, body)
                return ast.ForPairs(b1, b2, body)
        pred = check_name(head_e.text, "predicate", head_e, self.text)
        return ast.Atom(pred, tuple(self.term(a, scope) for a in args))


def _fresh_prefix(e: SExpr) -> str:
    """``x`` unless an object is literally named ``x<digits>``; then ``_x``, ``__x``...
    (declared variables, the lists starting with ``?name``, are not objects)."""
    declared: set[str] = set()
    names: set[str] = set()
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, SAtom):
            names.add(node.text)
            continue
        first = node.items[0] if node.items else None
        if isinstance(first, SAtom) and first.text.startswith("?"):
            declared.add(first.text)
        stack.extend(node.items)
    objects = {ltl_object(n.lstrip("?")) for n in names - declared}
    prefix = "x"
    while any(re.fullmatch(re.escape(prefix) + r"[0-9]+", n) for n in objects):
        prefix = "_" + prefix
    return prefix


def bddl_goal_to_ltl(
    goal: SExpr | str,
    *,
    objects: Mapping[str, str] | None = None,
    variables: VariableNaming = "indexed",
) -> ast.Formula:
    """Convert a BDDL goal to a typed formula.

    ``(forall (?j - jar.n.01) F)`` → ``Forall(Binder("x0", "jar_n_01"), F')``. With
    ``variables="indexed"`` variables are named ``x0, x1, ...`` by nesting depth, as the
    EAI data writes them; ``"bddl"`` keeps the BDDL names (``?jar.n.01`` → ``jar_n_01``).
    ``?name`` not bound by an enclosing quantifier is an object, as in BEHAVIOR's files.
    If ``objects`` (BDDL name → category) is given, unknown objects are errors.
    ``(and)``/``(or)`` with no operand are true/false; with one operand, that operand.
    """
    e, text = read_goal(goal)
    return _ToLTL(text, objects, variables, _fresh_prefix(e)).convert(e, {}, 0, 0)
