"""The exact DP behind the best option: the option maximising a linear score."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from planproof.ltl.ast import Atom, Literal
from planproof.ltl.errors import UnsupportedFormulaError
from planproof.ltl.options import normal_form as nf
from planproof.ltl.options.assignment import best_assignment
from planproof.ltl.options.merge import interleavings, merge_lits
from planproof.ltl.options.table import NO_LITS, ActKey, Table, is_subsequence, join, put

__all__ = ["Scorer"]


@dataclass(eq=False)
class Scorer:
    """The option maximising ``den * 2tp - num * n`` (n = number of elements) by dynamic
    programming over the NNF; :func:`~planproof.ltl.options.best.best_of` wraps it in
    Dinkelbach's method, which turns max F1 = max 2tp / (|P| + n) into a few such linear
    problems.

    A sub-formula's options are summarised by a table from a key to the best value and a
    witness. The key holds what the value cannot: the literals whose atom also occurs in
    a part of the formula that can still combine with this one ("tracked": needed to
    drop inconsistent merges and not to count a shared literal twice; literals are
    scored when their atom leaves the scope), and the action part, exactly while it may
    still become a predicted action sequence (a subsequence of one, or at most one
    action), else collapsed to None. Tables are tiny when atoms are not shared, as in
    BEHAVIOR goals; then a pair quantifier is one assignment problem (scipy's
    ``linear_sum_assignment``), otherwise a DP over sets of used objects.
    """

    atoms_of: nf.AtomSets
    p_lits: frozenset[Literal]
    p_acts: frozenset[tuple[Atom, ...]]
    num: int
    den: int
    _collapsed: dict[tuple[Atom, ...], ActKey] = field(default_factory=dict, init=False)

    # -- scoring pieces
    def lit_value(self, lit: Literal) -> int:
        return (2 * self.den if lit in self.p_lits else 0) - self.num

    def act_value(self, key: ActKey, acts: tuple[Atom, ...]) -> int:
        if not acts:
            return 0
        return (2 * self.den if key is not None and key in self.p_acts else 0) - self.num

    def collapse(self, acts: tuple[Atom, ...]) -> ActKey:
        if len(acts) <= 1:
            return acts
        hit = self._collapsed.get(acts, ())
        if hit == ():
            hit = acts if any(is_subsequence(acts, p) for p in self.p_acts) else None
            self._collapsed[acts] = hit
        return hit

    # -- table algebra
    def merge_keys(
        self, a1: ActKey, w1: tuple[Atom, ...], a2: ActKey, w2: tuple[Atom, ...], kind: nf.Merge
    ) -> Iterator[tuple[ActKey, tuple[Atom, ...]]]:
        if kind == "then":
            w = w1 + w2
            yield (None if a1 is None or a2 is None else self.collapse(w)), w
            return
        if not w1:
            yield a2, w2
            return
        if not w2:
            yield a1, w1
            return
        if kind == "point":
            if w1 == w2:
                yield a1, w1
            return
        if a1 is None or a2 is None:
            yield None, interleavings(w1, w2)[0]
            return
        seen_none = False
        for m in interleavings(a1, a2):
            k = self.collapse(m)
            if k is None:
                if seen_none:
                    continue
                seen_none = True
            yield k, m

    def combine(self, t1: Table, t2: Table, kind: nf.Merge) -> Table:
        out: Table = {}
        for (s1, a1), (v1, w1, l1) in t1.items():
            for (s2, a2), (v2, w2, l2) in t2.items():
                s = merge_lits(s1, s2)
                if s is None:
                    continue
                tree = join(l1, l2)
                for ak, wa in self.merge_keys(a1, w1, a2, w2, kind):
                    put(out, (s, ak), (v1 + v2, wa, tree))
        return out

    def retire(self, t: Table, keep: Counter[Atom], ext: frozenset[Atom]) -> Table:
        """Score and drop from the keys the literals whose atom no longer occurs in
        ``ext`` or in the factors still to combine (``keep``)."""
        if all(not s for s, _ in t):
            return t
        out: Table = {}
        for (lits, ak), (v, w, tree) in t.items():
            gone = [lit for lit in lits if lit.atom not in ext and keep[lit.atom] <= 0]
            if not gone:
                put(out, (lits, ak), (v, w, tree))
                continue
            gained = sum(self.lit_value(lit) for lit in gone)
            put(out, (lits.difference(gone), ak), (v + gained, w, tree))
        return out

    # -- solving
    def _ext_for(
        self, factors: Sequence[frozenset[Atom]], ext: frozenset[Atom]
    ) -> tuple[list[frozenset[Atom]], Counter[Atom]]:
        cnt: Counter[Atom] = Counter(a for s in factors for a in s)
        exts = [frozenset(a for a in s if a in ext or cnt[a] > 1) for s in factors]
        return exts, cnt

    def solve(self, node: nf.Node, ext: frozenset[Atom]) -> Table:
        match node:
            case nf.LitNode(lit):
                if lit.atom in ext:
                    return {(frozenset((lit,)), ()): (0, (), lit)}
                return {(NO_LITS, ()): (self.lit_value(lit), (), lit)}
            case nf.ActNode(atom):
                return {(NO_LITS, (atom,)): (0, (atom,), None)}
            case nf.OrNode(cs):
                out: Table = {}
                for c in cs:
                    for k, e in self.solve(c, ext & self.atoms_of(c)).items():
                        put(out, k, e)
                return out
            case nf.AndNode(cs) | nf.ThenNode(cs):
                return self._product(cs, nf.merge_kind(node), ext)
            case nf.CountNode():
                return self._count(node, ext)
            case nf.MatchNode():
                return self._match(node, ext)
        raise TypeError(node)

    def _product(self, nodes: Sequence[nf.Node], kind: nf.Merge, ext: frozenset[Atom]) -> Table:
        sets = [self.atoms_of(n) for n in nodes]
        exts, cnt = self._ext_for(sets, ext)
        acc: Table = {(NO_LITS, ()): (0, (), None)}
        for n, s, e in zip(nodes, sets, exts, strict=True):
            cnt.subtract(s)
            acc = self.retire(self.combine(acc, self.solve(n, e), kind), cnt, ext)
            if not acc:
                break
        return acc

    def _count(self, node: nf.CountNode, ext: frozenset[Atom]) -> Table:
        kind = nf.merge_kind(node)
        m, lo, need_neg = node.m, node.lo, node.m - node.hi
        sets = [
            (self.atoms_of(node.pos[i]) if lo else frozenset())
            | (self.atoms_of(node.neg[i]) if need_neg else frozenset())
            for i in range(m)
        ]
        exts, cnt = self._ext_for(sets, ext)
        states: dict[tuple[int, int], Table] = {(0, 0): {(NO_LITS, ()): (0, (), None)}}
        for i in range(m):
            cnt.subtract(sets[i])
            pos_t = self.solve(node.pos[i], exts[i] & self.atoms_of(node.pos[i])) if lo else {}
            neg_t = (
                self.solve(node.neg[i], exts[i] & self.atoms_of(node.neg[i])) if need_neg else {}
            )
            left = m - i - 1
            new: dict[tuple[int, int], Table] = {}
            for (kp, kn), t in states.items():
                moves: list[tuple[int, int, Table | None]] = [(kp, kn, None)]
                if kp < lo:
                    moves.append((kp + 1, kn, pos_t))
                if kn < need_neg:
                    moves.append((kp, kn + 1, neg_t))
                for p, q, item in moves:
                    if (lo - p) + (need_neg - q) > left:
                        continue
                    nt = t if item is None else self.combine(t, item, kind)
                    tgt = new.setdefault((p, q), {})
                    for k, e in self.retire(nt, cnt, ext).items():
                        put(tgt, k, e)
            states = {k: v for k, v in new.items() if v}
        return states.get((lo, need_neg), {})

    def _match(self, node: nf.MatchNode, ext: frozenset[Atom]) -> Table:
        kind = nf.merge_kind(node)
        sets = [self.atoms_of(b) for b in node.bodies]
        exts, cnt = self._ext_for(sets, ext)
        tables = [self.solve(b, e) for b, e in zip(node.bodies, exts, strict=True)]
        live = [i for i, t in enumerate(tables) if t]
        plain = (NO_LITS, ())
        if all(list(tables[i]) == [plain] for i in live):
            return best_assignment(node, live, tables)
        return self._mask_dp(node, live, tables, sets=sets, cnt=cnt, ext=ext, kind=kind)

    def _mask_dp(
        self,
        node: nf.MatchNode,
        live: list[int],
        tables: list[Table],
        *,
        sets: list[frozenset[Atom]],
        cnt: Counter[Atom],
        ext: frozenset[Atom],
        kind: nf.Merge,
    ) -> Table:
        """Exact DP over the objects of the smaller side already used."""
        lefts = sorted({node.pairs[i][0] for i in live})
        rights = sorted({node.pairs[i][1] for i in live})
        side = 1 if len(rights) <= len(lefts) else 0  # which pair slot the mask covers
        small, big = (rights, lefts) if side == 1 else (lefts, rights)
        if len(small) > nf.MAX_MASK_SIDE:
            raise UnsupportedFormulaError(
                f"best option of a pair quantifier with shared atoms or actions over "
                f"{len(small)} x {len(big)} objects (limit {nf.MAX_MASK_SIDE} on the smaller side)"
            )
        sidx = {v: k for k, v in enumerate(small)}
        by_big: dict[str, list[int]] = {v: [] for v in big}
        for i in live:
            by_big[node.pairs[i][1 - side]].append(i)
        s = node.size
        for i in set(range(len(tables))) - set(live):
            cnt.subtract(sets[i])
        states: dict[int, Table] = {0: {(NO_LITS, ()): (0, (), None)}}
        for u, v in enumerate(big):
            for i in by_big[v]:
                cnt.subtract(sets[i])
            left = len(big) - u - 1
            new: dict[int, Table] = {}
            for mask, t in states.items():
                pc = mask.bit_count()
                if pc + left >= s:
                    tgt = new.setdefault(mask, {})
                    for k, e in self.retire(t, cnt, ext).items():
                        put(tgt, k, e)
                if pc >= s:
                    continue
                for i in by_big[v]:
                    j = sidx[node.pairs[i][side]]
                    if mask >> j & 1:
                        continue
                    nt = self.retire(self.combine(t, tables[i], kind), cnt, ext)
                    tgt = new.setdefault(mask | 1 << j, {})
                    for k, e in nt.items():
                        put(tgt, k, e)
            states = {k: t for k, t in new.items() if t}
        out: Table = {}
        for mask, t in states.items():
            if mask.bit_count() == s:
                for k, e in t.items():
                    put(out, k, e)
        return self.retire(out, cnt, ext)
