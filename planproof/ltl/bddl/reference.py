"""The EAI reference implementation's untyped goal strings, reproduced for comparison
with planproof's typed form (see :func:`reference_tl_string`)."""

from __future__ import annotations

from planproof.ltl.bddl.errors import error_at
from planproof.ltl.bddl.names import check_name, check_object_name, ltl_category, ltl_object
from planproof.ltl.bddl.reader import MAX_DEPTH, read_goal
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head
from planproof.ltl.errors import UnsupportedFormulaError

REFERENCE_PREDICATES = {"toggled_on": "toggledon"}
"""Predicate renames the EAI reference applies when it writes BDDL goals as strings."""


class _Reference:
    """Writes the EAI reference's untyped goal strings (see :func:`reference_tl_string`)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def render(self, e: SExpr, scope: dict[str, str], k: int, level: int) -> str:
        if level > MAX_DEPTH or not isinstance(e, SList) or not e.items:
            raise error_at("expected a formula (...)", e, self.text, "bad-goal")
        head_e, args = e.items[0], e.items[1:]
        if not isinstance(head_e, SAtom):
            raise error_at("a formula starts with a name", e, self.text, "bad-goal")
        word = head_e.text.lower()
        sub = level + 1

        def wrap(s: str) -> str:
            return f"({s})" if level > 0 else s

        def bind(b: SExpr) -> tuple[str, str]:
            if not (
                isinstance(b, SList)
                and len(b.items) == 3
                and all(isinstance(i, SAtom) for i in b.items)
            ):
                raise error_at("a variable is declared as (?name - type)", b, self.text, "bad-goal")
            name, dash, typ = (i.text for i in b.items if isinstance(i, SAtom))
            if dash != "-" or not name.startswith("?"):
                raise error_at("a variable is declared as (?name - type)", b, self.text, "bad-goal")
            return name, check_name(ltl_category(typ), "type", b, self.text)

        def guarded(q: str, var: str, cat: str, body: str) -> str:
            return f"{q} {var}. (not {cat}({var}) or {body})"

        def count(c: SExpr) -> str:
            n = c.items[0] if isinstance(c, SList) and len(c.items) == 1 else c
            if not isinstance(n, SAtom) or not n.text.isdigit():
                raise error_at("a count is written (N)", c, self.text, "bad-goal")
            return str(int(n.text))

        match word:
            case "and" | "or" if args:
                return wrap(f" {word} ".join(self.render(a, scope, k, sub) for a in args))
            case "not" if len(args) == 1:
                return wrap("not " + self.render(args[0], scope, k, sub))
            case "imply" if len(args) == 2:
                return wrap(
                    f"not {self.render(args[0], scope, k, sub)} or "
                    f"{self.render(args[1], scope, k, sub)}"
                )
            case "forall" | "exists" if len(args) == 2:
                v = f"x{k}"
                name, cat = bind(args[0])
                body = self.render(args[1], {**scope, name: v}, k + 1, sub)
                return wrap(guarded(word, v, cat, body))
            case "forn" if len(args) == 3:
                v = f"x{k}"
                name, cat = bind(args[1])
                body = self.render(args[2], {**scope, name: v}, k + 1, sub)
                return wrap(guarded(f"forn {count(args[0])}.", v, cat, body))
            case "forpairs" | "fornpairs" if len(args) == (4 if word == "fornpairs" else 3):
                off = 1 if word == "fornpairs" else 0
                outer = f"forn {count(args[0])}." if off else "forall"
                v1, v2 = f"x{k}", f"x{k + 1}"
                n1, c1 = bind(args[off])
                n2, c2 = bind(args[off + 1])
                body = self.render(args[off + 2], {**scope, n1: v1, n2: v2}, k + 2, sub)
                one = guarded(outer, v1, c1, guarded("forn 1.", v2, c2, body))
                two = guarded(outer, v2, c2, guarded("forn 1.", v1, c1, body))
                return wrap(f"{one} and {two}")
            case (
                "and"
                | "or"
                | "not"
                | "imply"
                | "forall"
                | "exists"
                | "forn"
                | "forpairs"
                | "fornpairs"
            ):
                raise UnsupportedFormulaError(
                    f"the reference format cannot write ({word} ...) with {len(args)} operands"
                )
        pred = REFERENCE_PREDICATES.get(head_e.text, head_e.text)
        check_name(pred, "predicate", head_e, self.text)
        terms = []
        for a in args:
            if not isinstance(a, SAtom):
                raise error_at("an argument must be a name", a, self.text, "bad-goal")
            term = scope.get(a.text) or ltl_object(a.text.lstrip("?"))
            check_object_name(term, a, self.text)
            terms.append(term)
        return f"{pred}({', '.join(terms)})"


def reference_tl_string(goal: SExpr | str) -> str:
    """The goal as the EAI reference writes BEHAVIOR ``tl_goal`` strings: untyped
    quantifiers whose category is a unary guard (``forall x0. (not jar_n_01(x0) or
    ...)``), ``forpairs`` expanded into two ``forall ... forn 1.`` conjuncts,
    ``toggled_on`` written ``toggledon``. Each top-level conjunct is rendered on its own
    (as the reference does per goal condition) and joined with ``and``; ``imply`` (absent
    from the reference) is written ``not A or B``.

    Kept for comparison only: the guard is right for ``forall`` but makes ``exists`` and
    ``forn`` also count objects *outside* the category (see ``docs/data.md``)."""
    e, text = read_goal(goal)
    r = _Reference(text)
    conjuncts = e.items[1:] if head(e) == "and" and isinstance(e, SList) else (e,)
    if not conjuncts:
        raise UnsupportedFormulaError("the reference format cannot write an empty (and)")
    parts = []
    for c in conjuncts:
        s = r.render(c, {}, 0, 0)
        parts.append(f"({s})" if head(c) in ("or", "imply") and len(conjuncts) > 1 else s)
    return " and ".join(parts)
