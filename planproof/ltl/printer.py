"""AST → text, with the fewest parentheses that keep ``parse(to_text(f)) == f``.

Quantifier bodies are always parenthesised, as in the EAI data (``exists x0. (...)``), and
an n-ary node nested directly in a node of the same kind is parenthesised so the nesting
survives a round trip.
"""

from __future__ import annotations

from planproof.ltl import ast

KEYWORDS = frozenset(
    {"then", "implies", "or", "and", "not", "forall", "exists", "forn", "forpairs", "fornpairs"}
    | {"true", "false"}
)
"""The words of the grammar (``ltl.lark``, any case): a name that is one would not parse
back as a name, so the readers of names from other formats refuse it."""

# binding strength: higher binds tighter
_PREC = {
    ast.Then: 1,
    ast.Implies: 2,
    ast.Or: 3,
    ast.And: 4,
    ast.Not: 5,
}
_ATOMIC = 6


def _prec(f: ast.Formula) -> int:
    return _PREC.get(type(f), _ATOMIC)


def _binder(b: ast.Binder) -> str:
    return b.var if b.type is None else f"{b.var} - {b.type}"


def to_text(f: ast.Formula, *, upper: bool = False) -> str:
    """Render ``f``; ``upper=True`` writes predicates in capitals as the EAI dataset does."""

    def wrap(child: ast.Formula, min_prec: int) -> str:
        s = render(child)
        return f"({s})" if _prec(child) < min_prec else s

    def render(node: ast.Formula) -> str:
        match node:
            case ast.Atom(pred, args):
                name = pred.upper() if upper else pred
                return f"{name}({', '.join(a.name for a in args)})"
            case ast.Top():
                return "true"
            case ast.Bottom():
                return "false"
            case ast.Not(body):
                return f"not {wrap(body, _PREC[ast.Not])}"
            case ast.And(cs) | ast.Or(cs) | ast.Then(cs):
                p = _PREC[type(node)]
                word = {ast.And: "and", ast.Or: "or", ast.Then: "then"}[type(node)]
                # strictly tighter children need no parentheses; same kind would flatten
                return f" {word} ".join(wrap(c, p + 1) for c in cs)
            case ast.Implies(left, right):
                p = _PREC[ast.Implies]
                return f"{wrap(left, p + 1)} => {wrap(right, p)}"
            case ast.Forall(b, body):
                return f"forall {_binder(b)}. ({render(body)})"
            case ast.Exists(b, body):
                return f"exists {_binder(b)}. ({render(body)})"
            case ast.ForN(n, b, body):
                return f"forn {n}. {_binder(b)}. ({render(body)})"
            case ast.ForPairs(b1, b2, body):
                return f"forpairs {_binder(b1)}, {_binder(b2)}. ({render(body)})"
            case ast.ForNPairs(n, b1, b2, body):
                return f"fornpairs {n}. {_binder(b1)}, {_binder(b2)}. ({render(body)})"
        raise TypeError(f"not a formula: {node!r}")

    return render(f)
