"""Meaning-preserving simplification: flattening and constant folding.

"Meaning" is the trace semantics of ``docs/ltl-semantics.md``, which is not
compositional across the temporal boundary: a ``then``-free formula is evaluated at one
position ("eventually"), while a node containing ``then`` combines its children segment by
segment. So ``and(p, q)`` inside a temporal ``and`` is *not* the same as two siblings
``p`` and ``q`` there, and a temporal node must never silently turn into a ``then``-free
one. The rules below respect both facts; ``tests/ltl/test_simplify.py`` checks them
against the evaluator.
"""

from __future__ import annotations

from planproof.ltl import ast
from planproof.ltl.ast import FALSE, TRUE, Formula, is_temporal, size


def conj(*fs: Formula) -> Formula:
    """``and`` of any number of formulas (``true`` for none, the formula itself for one)."""
    return _fold_and(tuple(fs), temporal_ctx=any(map(is_temporal, fs))) if fs else TRUE


def disj(*fs: Formula) -> Formula:
    """``or`` of any number of formulas (``false`` for none)."""
    return _fold_or(tuple(fs), temporal_ctx=any(map(is_temporal, fs))) if fs else FALSE


def seq(*fs: Formula) -> Formula:
    """``then`` of one or more formulas."""
    if not fs:
        raise ValueError("seq() needs at least one formula")
    return fs[0] if len(fs) == 1 else ast.Then(tuple(fs))


def _dedupe(fs: tuple[Formula, ...]) -> tuple[Formula, ...]:
    return tuple(dict.fromkeys(fs))


def _flatten(
    kind: type[ast.And] | type[ast.Or], fs: tuple[Formula, ...], temporal_ctx: bool
) -> tuple[Formula, ...]:
    out: list[Formula] = []
    for f in fs:
        # a then-free child is one "eventually" block inside a temporal and: keep it whole
        if isinstance(f, kind) and (is_temporal(f) or not temporal_ctx or kind is ast.Or):
            out.extend(f.children)
        else:
            out.append(f)
    return tuple(out)


def _fold_and(fs: tuple[Formula, ...], temporal_ctx: bool) -> Formula:
    fs = _dedupe(_flatten(ast.And, fs, temporal_ctx))
    if FALSE in fs:
        return FALSE
    fs = tuple(f for f in fs if f != TRUE)
    if not fs:
        return TRUE
    return fs[0] if len(fs) == 1 else ast.And(fs)


def _fold_or(fs: tuple[Formula, ...], temporal_ctx: bool) -> Formula:
    fs = _dedupe(_flatten(ast.Or, fs, temporal_ctx))
    if TRUE in fs:
        return TRUE
    fs = tuple(f for f in fs if f != FALSE)
    if not fs:
        return FALSE
    return fs[0] if len(fs) == 1 else ast.Or(fs)


def _is_const(f: Formula) -> bool:
    return isinstance(f, ast.Top | ast.Bottom)


def simplify(f: Formula) -> Formula:
    """Flatten nested and/or/then, drop duplicate and/or operands, fold true/false, and
    remove double negation, without changing the formula's value on any trace.

    Invariant: a formula containing ``then`` simplifies to one containing ``then`` or to a
    constant, so the way its context reads it never changes.

    One bottom-up pass is not enough: a rewrite of a node can put an operand of a child in
    a new context where a rule applies to it (a temporal operand kept only to keep a
    child temporal becomes redundant once that child is flattened into a parent with
    another temporal operand). So passes repeat until nothing changes, which makes
    ``simplify`` idempotent. Every pass that changes the formula removes nodes, so there
    are at most ``size(f)`` passes; the size test bounds the loop even if a rule broke
    that.
    """
    memo: dict[Formula, Formula] = {}
    out = _pass(f, memo)
    while (again := _pass(out, memo)) != out and size(again) < size(out):
        out = again
    return out


def _pass(f: Formula, memo: dict[Formula, Formula]) -> Formula:
    """One bottom-up pass (memoised: a pass is a function of the formula alone)."""
    if (hit := memo.get(f)) is not None:
        return hit
    out = _simplify_node(f, memo)
    if is_temporal(f) and not is_temporal(out) and not _is_const(out):
        out = _rebuild_keeping_temporal(f, memo)
    memo[f] = out
    return out


def _rebuild_keeping_temporal(f: Formula, memo: dict[Formula, Formula]) -> Formula:
    """``f`` with simplified operands, except that an operand whose ``then`` folded away to
    a constant is kept as written, so ``f`` keeps its temporal reading."""
    kids = tuple(
        c if is_temporal(c) and _is_const(n) else n
        for c, n in ((c, _pass(c, memo)) for c in ast.children(f))
    )
    match f:
        case ast.Not():
            return ast.Not(kids[0])
        case ast.And():
            return ast.And(kids)
        case ast.Or():
            return ast.Or(kids)
        case ast.Implies():
            return ast.Implies(kids[0], kids[1])
        case ast.Forall(b, _):
            return ast.Forall(b, kids[0])
        case ast.Exists(b, _):
            return ast.Exists(b, kids[0])
        case ast.ForN(n, b, _):
            return ast.ForN(n, b, kids[0])
        case ast.ForPairs(b1, b2, _):
            return ast.ForPairs(b1, b2, kids[0])
        case ast.ForNPairs(n, b1, b2, _):
            return ast.ForNPairs(n, b1, b2, kids[0])
    raise TypeError(f"cannot rebuild {f!r}")  # pragma: no cover - then/leaves never get here


def _simplify_node(f: Formula, memo: dict[Formula, Formula]) -> Formula:
    match f:
        case ast.Atom() | ast.Top() | ast.Bottom():
            return f
        case ast.Not(body):
            b = _pass(body, memo)
            if isinstance(b, ast.Not):
                return b.body
            if _is_const(b):
                return FALSE if b == TRUE else TRUE
            return ast.Not(b)
        case ast.Then(cs):
            parts = tuple(_pass(c, memo) for c in cs)
            if FALSE in parts:
                return FALSE
            flat: list[Formula] = []
            for p in parts:
                flat.extend(p.children if isinstance(p, ast.Then) else (p,))
            return ast.Then(tuple(flat))
        case ast.And(cs):
            return _fold_and(tuple(_pass(c, memo) for c in cs), is_temporal(f))
        case ast.Or(cs):
            return _fold_or(tuple(_pass(c, memo) for c in cs), is_temporal(f))
        case ast.Implies(left, right):
            lt, rt = _pass(left, memo), _pass(right, memo)
            if lt == FALSE or rt == TRUE:
                return TRUE
            if lt == TRUE:
                return rt
            if rt == FALSE:
                return _pass(ast.Not(lt), memo)
            return ast.Implies(lt, rt)
        case ast.Forall(b, body):
            sb = _pass(body, memo)
            return TRUE if sb == TRUE else ast.Forall(b, sb)
        case ast.Exists(b, body):
            sb = _pass(body, memo)
            return FALSE if sb == FALSE else ast.Exists(b, sb)
        case ast.ForN(n, b, body):
            sb = _pass(body, memo)
            if sb == FALSE:  # no object satisfies false: exactly n holds iff n == 0
                return TRUE if n == 0 else FALSE
            return ast.ForN(n, b, sb)
        case ast.ForPairs(b1, b2, body):
            return ast.ForPairs(b1, b2, _pass(body, memo))
        case ast.ForNPairs(n, b1, b2, body):
            if n == 0:
                return TRUE
            sb = _pass(body, memo)
            return FALSE if sb == FALSE else ast.ForNPairs(n, b1, b2, sb)
    raise TypeError(f"not a formula: {f!r}")
