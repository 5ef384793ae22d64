"""Lazy enumeration of goal options, with optional removal of repeats."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

from planproof.ltl import ground as gr
from planproof.ltl.options import normal_form as nf
from planproof.ltl.options.count import OptionCounter
from planproof.ltl.options.merge import EMPTY, Partial, merge_acts, merge_lits
from planproof.ltl.options.simple_goal import SimpleGoal

__all__ = ["CACHE_LIMIT", "Enumerator", "simple_goals"]


CACHE_LIMIT = 4096
"""Options of a sub-formula are kept in memory during enumeration when at most this many."""


class Enumerator:
    """Lazy generation of partial options. Products walk their factors depth-first with
    an explicit stack, so neither wide ``and``s nor huge products recurse or
    materialise; a factor's options are cached when there are at most CACHE_LIMIT."""

    def __init__(self, counter: OptionCounter) -> None:
        self.counter = counter
        self._cache: dict[int, list[Partial]] = {}

    def gen(self, node: nf.Node) -> Iterator[Partial]:
        hit = self._cache.get(id(node))
        if hit is not None:
            return iter(hit)
        if self.counter.total(node) <= CACHE_LIMIT:
            lst = self._cache[id(node)] = list(self._gen(node))
            return iter(lst)
        return self._gen(node)

    def _gen(self, node: nf.Node) -> Iterator[Partial]:
        match node:
            case nf.LitNode(lit):
                yield ((), frozenset((lit,)))
            case nf.ActNode(atom):
                yield ((atom,), frozenset())
            case nf.OrNode(cs):
                for c in cs:
                    yield from self.gen(c)
            case nf.AndNode(cs) | nf.ThenNode(cs):
                yield from self.product(cs, nf.merge_kind(node))
            case nf.CountNode(pos, neg, m, lo, hi):
                kind = nf.merge_kind(node)
                for chosen in combinations(range(m), lo):
                    rest = [i for i in range(m) if i not in chosen]
                    for negated in combinations(rest, m - hi):
                        factors = [pos[i] for i in chosen] + [neg[i] for i in negated]
                        yield from self.product(factors, kind)
            case nf.MatchNode(pairs, bodies, size):
                kind = nf.merge_kind(node)
                for chosen in gr.matchings(pairs, size):
                    yield from self.product([bodies[i] for i in chosen], kind)

    def product(self, nodes: Sequence[nf.Node], kind: nf.Merge) -> Iterator[Partial]:
        if not nodes:
            yield EMPTY
            return
        stack = [self._extend(EMPTY, nodes[0], kind)]
        while stack:
            p = next(stack[-1], None)
            if p is None:
                stack.pop()
            elif len(stack) == len(nodes):
                yield p
            else:
                stack.append(self._extend(p, nodes[len(stack)], kind))

    def _extend(self, prefix: Partial, node: nf.Node, kind: nf.Merge) -> Iterator[Partial]:
        for acts, lits in self.gen(node):
            merged = merge_lits(prefix[1], lits)
            if merged is None:
                continue
            for a in merge_acts(prefix[0], acts, kind):
                yield (a, merged)


def simple_goals(root: nf.Node, counter: OptionCounter, *, dedupe: bool) -> Iterator[SimpleGoal]:
    """The options of ``root`` as simple goals, lazily; ``dedupe`` skips repeats at the
    cost of remembering every option yielded."""
    seen: set[SimpleGoal] = set()
    for acts, lits in Enumerator(counter).gen(root):
        g = SimpleGoal(acts, lits)
        if dedupe:
            if g in seen:
                continue
            seen.add(g)
        yield g
