"""Counting goal options combinatorially, without enumerating them."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from math import comb, perm
from typing import TypeAlias

from planproof.ltl.options import normal_form as nf

__all__ = ["CountTable", "OptionCounter"]


CountTable: TypeAlias = dict[Hashable, int]
"""Option counts by action part: for a then-free node by its single action (or None),
for a temporal node by the length of its action sequence."""


def _as_lengths(t: CountTable, temporal: bool) -> dict[int, int]:
    if temporal:
        return {k: v for k, v in t.items() if isinstance(k, int)}
    out: dict[int, int] = {}
    for k, v in t.items():
        out[0 if k is None else 1] = out.get(0 if k is None else 1, 0) + v
    return out


class OptionCounter:
    """Counts options as if no literal merge were inconsistent and no two options
    coincided: an upper bound, exact when no ground atom occurs twice in the grounded
    formula and no pair quantifier is negated (a dropped merge or a duplicate option
    needs a repeated atom; different vertex covers can leave the same pairs)."""

    def __init__(self) -> None:
        self._memo: dict[int, CountTable] = {}

    def total(self, node: nf.Node) -> int:
        return sum(self.table(node).values())

    def table(self, node: nf.Node) -> CountTable:
        hit = self._memo.get(id(node))
        if hit is None:
            hit = self._memo[id(node)] = self._table(node)
        return hit

    def _combine(
        self, t1: CountTable, t2: CountTable, kind: nf.Merge, tmp: tuple[bool, bool]
    ) -> CountTable:
        out: dict[Hashable, int] = {}
        if kind == "point":
            for k1, c1 in t1.items():
                for k2, c2 in t2.items():
                    if k1 is not None and k2 is not None and k1 != k2:
                        continue
                    k = k1 if k1 is not None else k2
                    out[k] = out.get(k, 0) + c1 * c2
            return out
        l1, l2 = _as_lengths(t1, tmp[0]), _as_lengths(t2, tmp[1])
        for a, c1 in l1.items():
            for b, c2 in l2.items():
                ways = comb(a + b, a) if kind == "segment" else 1
                out[a + b] = out.get(a + b, 0) + c1 * c2 * ways
        return out

    def _product(self, nodes: Sequence[nf.Node], kind: nf.Merge) -> CountTable:
        acc: CountTable = {None: 1} if kind == "point" else {0: 1}
        acc_tmp = kind != "point"
        for n in nodes:
            acc = self._combine(acc, self.table(n), kind, (acc_tmp, nf.is_temporal(n)))
        return acc

    def _table(self, node: nf.Node) -> CountTable:
        match node:
            case nf.LitNode():
                return {None: 1}
            case nf.ActNode(atom):
                return {atom: 1}
            case nf.OrNode(cs, temporal):
                out: dict[Hashable, int] = {}
                for c in cs:
                    t = self.table(c)
                    if temporal:
                        for k, v in _as_lengths(t, nf.is_temporal(c)).items():
                            out[k] = out.get(k, 0) + v
                    else:
                        _add_counts(out, t)
                return out
            case nf.AndNode(cs) | nf.ThenNode(cs):
                return self._product(cs, nf.merge_kind(node))
            case nf.CountNode():
                return self._count_table(node)
            case nf.MatchNode():
                return self._match_table(node)
        raise TypeError(node)

    def _count_table(self, node: nf.CountNode) -> CountTable:
        kind = nf.merge_kind(node)
        need_neg = node.m - node.hi
        init: CountTable = {None: 1} if kind == "point" else {0: 1}
        states: dict[tuple[int, int], CountTable] = {(0, 0): init}
        for i in range(node.m):
            new: dict[tuple[int, int], CountTable] = {}
            left = node.m - i - 1
            for (kp, kn), t in states.items():
                moves: list[tuple[int, int, nf.Node | None]] = [(kp, kn, None)]
                if kp < node.lo:
                    moves.append((kp + 1, kn, node.pos[i]))
                if kn < need_neg:
                    moves.append((kp, kn + 1, node.neg[i]))
                for p, q, item in moves:
                    if (node.lo - p) + (need_neg - q) > left:
                        continue
                    nt = (
                        t
                        if item is None
                        else self._combine(
                            t, self.table(item), kind, (kind != "point", nf.is_temporal(item))
                        )
                    )
                    _add_counts(new.setdefault((p, q), {}), nt)
            states = new
        return states.get((node.lo, need_neg), {})

    def _match_table(self, node: nf.MatchNode) -> CountTable:
        kind = nf.merge_kind(node)
        lefts = sorted({a for a, _ in node.pairs})
        rights = sorted({b for _, b in node.pairs})
        s = node.size
        if len(rights) > nf.MAX_MASK_SIDE or comb(len(rights), min(s, len(rights))) > 200_000:
            return self._match_bound(node, len(lefts), len(rights))
        ridx = {b: j for j, b in enumerate(rights)}
        by_left: dict[str, list[tuple[int, nf.Node]]] = {a: [] for a in lefts}
        for (a, b), body in zip(node.pairs, node.bodies, strict=True):
            by_left[a].append((ridx[b], body))
        init: CountTable = {None: 1} if kind == "point" else {0: 1}
        states: dict[int, CountTable] = {0: init}
        for i, a in enumerate(lefts):
            left = len(lefts) - i - 1
            new: dict[int, CountTable] = {}
            for mask, t in states.items():
                pc = mask.bit_count()
                if pc + left >= s:
                    _add_counts(new.setdefault(mask, {}), t)
                if pc < s:
                    for j, body in by_left[a]:
                        if not mask >> j & 1:
                            nt = self._combine(
                                t, self.table(body), kind, (kind != "point", nf.is_temporal(body))
                            )
                            _add_counts(new.setdefault(mask | 1 << j, {}), nt)
            states = new
        out: CountTable = {}
        for mask, t in states.items():
            if mask.bit_count() == s:
                _add_counts(out, t)
        return out

    def _match_bound(self, node: nf.MatchNode, n_left: int, n_right: int) -> CountTable:
        """Too many matchings to count one by one: bound them by C(L, s) * P(R, s) times
        the largest per-edge count to the power s, at the longest action length."""
        s = node.size
        tables = [self.table(b) for b in node.bodies]
        per_edge = max((sum(t.values()) for t in tables), default=0)
        bound = comb(n_left, s) * perm(n_right, s) * per_edge**s
        if not node.temporal:
            return {None: bound}
        longest = max(
            max(_as_lengths(t, nf.is_temporal(b)), default=0)
            for t, b in zip(tables, node.bodies, strict=True)
        )
        return {s * longest: bound * comb(s * longest, longest) ** s}


def _add_counts(into: CountTable, t: CountTable) -> None:
    for k, v in t.items():
        into[k] = into.get(k, 0) + v
