"""Goal options: the simple goals a goal formula can be satisfied by, and the one that
best matches a prediction.

EAI scores goal interpretation against the *goal options* of the ground-truth goal: simple
goals ``a1 then ... then ak then (p1 and ... and pl)`` that each entail it, and takes
F1 = max over options of F1(set(option), set(prediction)) (spec §1.4, §2.1). BEHAVIOR
goals have thousands of options, so this module never needs them all at once:

* :meth:`GoalOptions.options` enumerates them lazily;
* :meth:`GoalOptions.count` counts them combinatorially;
* :meth:`GoalOptions.best` finds the best-scoring option directly (see :class:`_Scorer`).

The reading is the final-state one of :func:`planproof.ltl.evaluate.evaluate_final`:
state atoms are read in the final state, action atoms where the action happens, ``then``
orders the actions. Options are derived from the negation normal form of the grounded
formula:

* ``or``/``exists``: union; ``and``/``forall``: product, where literal sets are merged
  (a merge holding ``p`` and ``not p`` is dropped) and action sequences are merged by
  every interleaving that may identify equal actions (the two children hold on the same
  segment, so a single occurrence can serve both). Inside a ``then``-free node, which
  holds at one position, the actions of the children must be the same action;
* ``then``: action sequences concatenated, state parts all go to the final literals;
* ``forn n`` (exact): n instances hold and the others do not; with ``minimal=True`` only n
  instances hold (BDDL's ground options);
* ``forpairs``/``fornpairs n``: one option per matching of the required size;
* ``not`` is pushed to the atoms; over an action atom or a ``then`` it raises
  :class:`UnsupportedFormulaError` (an option cannot require an action not to happen).
  ``not forpairs`` uses König's theorem: no matching of size s iff some s - 1 objects
  cover every pair that holds.

Each option entails the formula on traces with room for its state-only ``then`` parts
(a ``then`` part needs a non-empty segment), and the disjunction of the options is
equivalent to it on such traces; ``tests/ltl/test_options.py`` checks both with the
evaluator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb, perm
from typing import Literal as Kind
from typing import TypeAlias

from planproof.ltl import ground as gr
from planproof.ltl.ast import TRUE, Atom, Bottom, Formula, Literal, Top
from planproof.ltl.errors import UnsupportedFormulaError
from planproof.ltl.printer import to_text
from planproof.ltl.simplify import conj, seq
from planproof.ltl.trace import Universe

__all__ = [
    "Element",
    "GoalOptions",
    "OptionScore",
    "SimpleGoal",
    "best_option",
    "count_options",
    "options",
    "score",
]

Element: TypeAlias = Literal | tuple[Atom, ...]
"""One element of a goal's F1 set: a final-state literal, or the whole action sequence."""

MAX_COVERS = 100_000
"""Most vertex covers ``not forpairs`` may expand into."""
CACHE_LIMIT = 4096
"""Options of a sub-formula are kept in memory during enumeration when at most this many."""
MAX_MASK_SIDE = 20
"""Largest side of a pair quantifier whose best matching is found by a bitmask DP."""


def _lit_key(lit: Literal) -> tuple[str, tuple[str, ...], bool]:
    return (lit.atom.pred, tuple(a.name for a in lit.atom.args), not lit.positive)


@dataclass(frozen=True)
class SimpleGoal:
    """``a1 then ... then ak then (p1 and ... and pl)``: ordered ground action atoms and
    the ground literals that must hold in the final state."""

    actions: tuple[Atom, ...] = ()
    literals: frozenset[Literal] = frozenset()

    def elements(self) -> frozenset[Element]:
        """EAI's F1 set: the literals, plus the whole action sequence as ONE element."""
        if self.actions:
            return frozenset((self.actions, *self.literals))
        return frozenset(self.literals)

    def to_formula(self) -> Formula:
        """The goal as a formula (literals in a fixed order)."""
        state = conj(*(lit.as_formula() for lit in sorted(self.literals, key=_lit_key)))
        if not self.actions:
            return state
        return seq(*self.actions, state) if self.literals else seq(*self.actions)

    def holds(self, actions_taken: Sequence[Atom], final: Set[Atom]) -> bool:
        """Final-state reading: the actions occur in order (not necessarily contiguously)
        in ``actions_taken`` and every literal holds in ``final``."""
        it = iter(actions_taken)
        if not all(any(x == a for x in it) for a in self.actions):
            return False
        return all((lit.atom in final) == lit.positive for lit in self.literals)

    def __str__(self) -> str:
        return to_text(self.to_formula())


@dataclass(frozen=True)
class OptionScore:
    """An option scored against a prediction: ``tp`` = elements in both, ``fp`` =
    predicted elements not in the option, ``fn`` = option elements not predicted.
    0/0 reads as 1 (an empty prediction of an empty goal is perfect)."""

    option: SimpleGoal
    tp: int
    fp: int
    fn: int

    @property
    def f1_exact(self) -> Fraction:
        d = 2 * self.tp + self.fp + self.fn
        return Fraction(1) if d == 0 else Fraction(2 * self.tp, d)

    @property
    def f1(self) -> float:
        return float(self.f1_exact)

    @property
    def precision(self) -> float:
        d = self.tp + self.fp
        return 1.0 if d == 0 else self.tp / d

    @property
    def recall(self) -> float:
        d = self.tp + self.fn
        return 1.0 if d == 0 else self.tp / d


def score(option: SimpleGoal, predicted: Iterable[Element]) -> OptionScore:
    """P/R/F1 counts of ``option`` against a predicted element set."""
    pred = frozenset(predicted)
    el = option.elements()
    tp = len(el & pred)
    return OptionScore(option, tp, len(pred) - tp, len(el) - tp)


# --------------------------------------------------------------------------- NNF IR
# Internal negation normal form of a ground formula. Leaves are state literals and
# action atoms; `temporal` says whether a node contains `then`, which decides how the
# action parts of a product merge. Identity-hashed: nodes are memo keys by id.


@dataclass(frozen=True, slots=True, eq=False)
class _Lit:
    lit: Literal


@dataclass(frozen=True, slots=True, eq=False)
class _Act:
    atom: Atom


@dataclass(frozen=True, slots=True, eq=False)
class _And:
    children: tuple[_N, ...]
    temporal: bool


@dataclass(frozen=True, slots=True, eq=False)
class _Or:
    children: tuple[_N, ...]
    temporal: bool


@dataclass(frozen=True, slots=True, eq=False)
class _Then:
    children: tuple[_N, ...]


@dataclass(frozen=True, slots=True, eq=False)
class _Count:
    """Pick ``lo`` of ``pos`` to hold and ``len - hi`` of ``neg`` (the negated items, empty
    if ``hi == len``) not to, on distinct items."""

    pos: tuple[_N, ...]
    neg: tuple[_N, ...]
    m: int
    lo: int
    hi: int
    temporal: bool


@dataclass(frozen=True, slots=True, eq=False)
class _Match:
    pairs: tuple[tuple[str, str], ...]
    bodies: tuple[_N, ...]
    size: int
    temporal: bool


_N: TypeAlias = _Lit | _Act | _And | _Or | _Then | _Count | _Match
_TRUE = _And((), False)
_FALSE = _Or((), False)

_Merge = Kind["point", "segment", "then"]


def _merge_kind(node: _And | _Count | _Match | _Then) -> _Merge:
    if isinstance(node, _Then):
        return "then"
    return "segment" if node.temporal else "point"


def _temporal(n: _N) -> bool:
    return isinstance(n, _Then) or (not isinstance(n, _Lit | _Act) and n.temporal)


def _not_matching(m: gr.Matching) -> gr.GroundFormula:
    """``not`` (a matching of size s exists) as an ``or`` over vertex covers of size
    s - 1 of the ``and`` of the negated uncovered edges (König's theorem)."""
    verts = sorted({("L", e.left) for e in m.edges} | {("R", e.right) for e in m.edges})
    k = m.size - 1
    if len(verts) <= k:
        return TRUE
    n = comb(len(verts), k)
    if n > MAX_COVERS:
        raise UnsupportedFormulaError(
            f"'not' over a pair quantifier expands into {n} vertex covers (> {MAX_COVERS})"
        )
    out = []
    for cover in combinations(verts, k):
        cs = set(cover)
        out.append(
            gr.g_and(*(
                gr.g_not(e.body)
                for e in m.edges
                if ("L", e.left) not in cs and ("R", e.right) not in cs
            ))
        )
    return gr.g_or(*out)


def _nnf(g: gr.GroundFormula, positive: bool, actions: frozenset[str]) -> _N:
    """Negation normal form; raises on ``not`` over an action atom or a ``then``."""
    match g:
        case Atom():
            if g.pred in actions:
                if not positive:
                    raise UnsupportedFormulaError(
                        f"'not' over the action {to_text(g)}: a goal option cannot require "
                        "an action not to happen"
                    )
                return _Act(g)
            return _Lit(Literal(g, positive))
        case Top():
            return _TRUE if positive else _FALSE
        case Bottom():
            return _FALSE if positive else _TRUE
        case gr.GNot(body):
            return _nnf(body, not positive, actions)
        case gr.GEventually(body):
            # final-state reading: state parts do not depend on the position, and the
            # parent, marked temporal, already merges actions segment-wise
            return _nnf(body, positive, actions)
        case gr.GAnd(cs) | gr.GOr(cs):
            kids = tuple(_nnf(c, positive, actions) for c in cs)
            if isinstance(g, gr.GAnd) == positive:
                return _And(kids, g.temporal)
            return _Or(kids, g.temporal)
        case gr.GThen(cs):
            if not positive:
                raise UnsupportedFormulaError(
                    "'not' over 'then': goal options cannot express that an order of "
                    "events does not happen"
                )
            return _Then(tuple(_nnf(c, True, actions) for c in cs))
        case gr.Count(items, lo, hi):
            m = len(items)
            if not positive:
                neg = gr.g_or(gr.g_count(items, 0, lo - 1), gr.g_count(items, hi + 1, m))
                return _nnf(neg, True, actions)
            pos_items = tuple(_nnf(i, True, actions) for i in items) if lo > 0 else ()
            neg_items = tuple(_nnf(i, False, actions) for i in items) if hi < m else ()
            return _Count(pos_items, neg_items, m, lo, hi, g.temporal)
        case gr.Matching(edges, size):
            if not positive:
                return _nnf(_not_matching(g), True, actions)
            return _Match(
                tuple((e.left, e.right) for e in edges),
                tuple(_nnf(e.body, True, actions) for e in edges),
                size,
                g.temporal,
            )
    raise TypeError(f"not a ground formula: {g!r}")


# --------------------------------------------------------------------------- merging

_Partial: TypeAlias = tuple[tuple[Atom, ...], frozenset[Literal]]
_EMPTY: _Partial = ((), frozenset())


def _merge_lits(a: frozenset[Literal], b: frozenset[Literal]) -> frozenset[Literal] | None:
    """Union, or None if it would hold a literal and its negation."""
    if not a:
        return b
    if not b:
        return a
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    for lit in small:
        if Literal(lit.atom, not lit.positive) in big:
            return None
    return a | b


@lru_cache(maxsize=1 << 16)
def _interleavings(a: tuple[Atom, ...], b: tuple[Atom, ...]) -> tuple[tuple[Atom, ...], ...]:
    """Sequences containing both ``a`` and ``b`` as subsequences, built by always
    identifying equal heads. Complete: every sequence containing both contains one of
    these (map both leftmost embeddings; equal heads land on the same position)."""
    if not a:
        return (b,)
    if not b:
        return (a,)
    if a[0] == b[0]:
        return tuple((a[0], *m) for m in _interleavings(a[1:], b[1:]))
    out = dict.fromkeys((a[0], *m) for m in _interleavings(a[1:], b))
    out.update(dict.fromkeys((b[0], *m) for m in _interleavings(a, b[1:])))
    return tuple(out)


def _merge_acts(a: tuple[Atom, ...], b: tuple[Atom, ...], kind: _Merge) -> Sequence[
    tuple[Atom, ...]
]:
    if kind == "then":
        return (a + b,)
    if not a:
        return (b,)
    if not b:
        return (a,)
    if kind == "point":  # one position, one action: both parts must be that action
        return (a,) if a == b else ()
    return _interleavings(a, b)


# --------------------------------------------------------------------------- counting

_CTable: TypeAlias = dict[Hashable, int]
"""Option counts by action part: for a then-free node by its single action (or None),
for a temporal node by the length of its action sequence."""


def _as_lengths(t: _CTable, temporal: bool) -> dict[int, int]:
    if temporal:
        return {k: v for k, v in t.items() if isinstance(k, int)}
    out: dict[int, int] = {}
    for k, v in t.items():
        out[0 if k is None else 1] = out.get(0 if k is None else 1, 0) + v
    return out


class _Counter:
    """Counts options as if no literal merge were inconsistent and no two options
    coincided: an upper bound, exact when no ground atom occurs twice in the grounded
    formula and no pair quantifier is negated (a dropped merge or a duplicate option
    needs a repeated atom; different vertex covers can leave the same pairs)."""

    def __init__(self) -> None:
        self._memo: dict[int, _CTable] = {}

    def total(self, node: _N) -> int:
        return sum(self.table(node).values())

    def table(self, node: _N) -> _CTable:
        hit = self._memo.get(id(node))
        if hit is None:
            hit = self._memo[id(node)] = self._table(node)
        return hit

    def _combine(self, t1: _CTable, t2: _CTable, kind: _Merge, tmp: tuple[bool, bool]) -> _CTable:
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

    def _product(self, nodes: Sequence[_N], kind: _Merge) -> _CTable:
        acc: _CTable = {None: 1} if kind == "point" else {0: 1}
        acc_tmp = kind != "point"
        for n in nodes:
            acc = self._combine(acc, self.table(n), kind, (acc_tmp, _temporal(n)))
        return acc

    def _table(self, node: _N) -> _CTable:
        match node:
            case _Lit():
                return {None: 1}
            case _Act(atom):
                return {atom: 1}
            case _Or(cs, temporal):
                out: dict[Hashable, int] = {}
                for c in cs:
                    t = self.table(c)
                    if temporal:
                        for k, v in _as_lengths(t, _temporal(c)).items():
                            out[k] = out.get(k, 0) + v
                    else:
                        _add_counts(out, t)
                return out
            case _And(cs) | _Then(cs):
                return self._product(cs, _merge_kind(node))
            case _Count():
                return self._count_table(node)
            case _Match():
                return self._match_table(node)
        raise TypeError(node)

    def _count_table(self, node: _Count) -> _CTable:
        kind = _merge_kind(node)
        need_neg = node.m - node.hi
        init: _CTable = {None: 1} if kind == "point" else {0: 1}
        states: dict[tuple[int, int], _CTable] = {(0, 0): init}
        for i in range(node.m):
            new: dict[tuple[int, int], _CTable] = {}
            left = node.m - i - 1
            for (kp, kn), t in states.items():
                moves: list[tuple[int, int, _N | None]] = [(kp, kn, None)]
                if kp < node.lo:
                    moves.append((kp + 1, kn, node.pos[i]))
                if kn < need_neg:
                    moves.append((kp, kn + 1, node.neg[i]))
                for p, q, item in moves:
                    if (node.lo - p) + (need_neg - q) > left:
                        continue
                    nt = t if item is None else self._combine(
                        t, self.table(item), kind, (kind != "point", _temporal(item))
                    )
                    _add_counts(new.setdefault((p, q), {}), nt)
            states = new
        return states.get((node.lo, need_neg), {})

    def _match_table(self, node: _Match) -> _CTable:
        kind = _merge_kind(node)
        lefts = sorted({a for a, _ in node.pairs})
        rights = sorted({b for _, b in node.pairs})
        s = node.size
        if len(rights) > MAX_MASK_SIDE or comb(len(rights), min(s, len(rights))) > 200_000:
            return self._match_bound(node, len(lefts), len(rights))
        ridx = {b: j for j, b in enumerate(rights)}
        by_left: dict[str, list[tuple[int, _N]]] = {a: [] for a in lefts}
        for (a, b), body in zip(node.pairs, node.bodies, strict=True):
            by_left[a].append((ridx[b], body))
        init: _CTable = {None: 1} if kind == "point" else {0: 1}
        states: dict[int, _CTable] = {0: init}
        for i, a in enumerate(lefts):
            left = len(lefts) - i - 1
            new: dict[int, _CTable] = {}
            for mask, t in states.items():
                pc = mask.bit_count()
                if pc + left >= s:
                    _add_counts(new.setdefault(mask, {}), t)
                if pc < s:
                    for j, body in by_left[a]:
                        if not mask >> j & 1:
                            nt = self._combine(
                                t, self.table(body), kind, (kind != "point", _temporal(body))
                            )
                            _add_counts(new.setdefault(mask | 1 << j, {}), nt)
            states = new
        out: _CTable = {}
        for mask, t in states.items():
            if mask.bit_count() == s:
                _add_counts(out, t)
        return out

    def _match_bound(self, node: _Match, n_left: int, n_right: int) -> _CTable:
        """Too many matchings to count one by one: bound them by C(L, s) * P(R, s) times
        the largest per-edge count to the power s, at the longest action length."""
        s = node.size
        tables = [self.table(b) for b in node.bodies]
        per_edge = max((sum(t.values()) for t in tables), default=0)
        bound = comb(n_left, s) * perm(n_right, s) * per_edge**s
        if not node.temporal:
            return {None: bound}
        longest = max(
            max(_as_lengths(t, _temporal(b)), default=0)
            for t, b in zip(tables, node.bodies, strict=True)
        )
        return {s * longest: bound * comb(s * longest, longest) ** s}


def _add_counts(into: _CTable, t: _CTable) -> None:
    for k, v in t.items():
        into[k] = into.get(k, 0) + v


# --------------------------------------------------------------------------- enumeration


class _Enumerator:
    """Lazy generation of partial options. Products walk their factors depth-first with
    an explicit stack, so neither wide ``and``s nor huge products recurse or
    materialise; a factor's options are cached when there are at most CACHE_LIMIT."""

    def __init__(self, counter: _Counter) -> None:
        self.counter = counter
        self._cache: dict[int, list[_Partial]] = {}

    def gen(self, node: _N) -> Iterator[_Partial]:
        hit = self._cache.get(id(node))
        if hit is not None:
            return iter(hit)
        if self.counter.total(node) <= CACHE_LIMIT:
            lst = self._cache[id(node)] = list(self._gen(node))
            return iter(lst)
        return self._gen(node)

    def _gen(self, node: _N) -> Iterator[_Partial]:
        match node:
            case _Lit(lit):
                yield ((), frozenset((lit,)))
            case _Act(atom):
                yield ((atom,), frozenset())
            case _Or(cs):
                for c in cs:
                    yield from self.gen(c)
            case _And(cs) | _Then(cs):
                yield from self.product(cs, _merge_kind(node))
            case _Count(pos, neg, m, lo, hi):
                kind = _merge_kind(node)
                for chosen in combinations(range(m), lo):
                    rest = [i for i in range(m) if i not in chosen]
                    for negated in combinations(rest, m - hi):
                        factors = [pos[i] for i in chosen] + [neg[i] for i in negated]
                        yield from self.product(factors, kind)
            case _Match(pairs, bodies, size):
                kind = _merge_kind(node)
                for chosen in gr.matchings(pairs, size):
                    yield from self.product([bodies[i] for i in chosen], kind)

    def product(self, nodes: Sequence[_N], kind: _Merge) -> Iterator[_Partial]:
        if not nodes:
            yield _EMPTY
            return
        stack = [self._extend(_EMPTY, nodes[0], kind)]
        while stack:
            p = next(stack[-1], None)
            if p is None:
                stack.pop()
            elif len(stack) == len(nodes):
                yield p
            else:
                stack.append(self._extend(p, nodes[len(stack)], kind))

    def _extend(self, prefix: _Partial, node: _N, kind: _Merge) -> Iterator[_Partial]:
        for acts, lits in self.gen(node):
            merged = _merge_lits(prefix[1], lits)
            if merged is None:
                continue
            for a in _merge_acts(prefix[0], acts, kind):
                yield (a, merged)


# --------------------------------------------------------------------------- best option

_AKey: TypeAlias = tuple[Atom, ...] | None
_Key: TypeAlias = tuple[frozenset[Literal], _AKey]
_Tree: TypeAlias = Literal | tuple["_Tree", "_Tree"] | None
_Entry: TypeAlias = tuple[int, tuple[Atom, ...], _Tree]
_Table: TypeAlias = dict[_Key, _Entry]
_NO_LITS: frozenset[Literal] = frozenset()


def _subsequence(a: tuple[Atom, ...], b: tuple[Atom, ...]) -> bool:
    it = iter(b)
    return all(any(x == y for y in it) for x in a)


def _materialise(tree: _Tree) -> frozenset[Literal]:
    out: set[Literal] = set()
    stack = [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, Literal):
            out.add(t)
        elif t is not None:
            stack.extend(t)
    return frozenset(out)


def _join(a: _Tree, b: _Tree) -> _Tree:
    if a is None:
        return b
    return a if b is None else (a, b)


def _put(out: _Table, key: _Key, entry: _Entry) -> None:
    old = out.get(key)
    if old is None or entry[0] > old[0]:
        out[key] = entry


class _Scorer:
    """The option maximising ``den * 2tp - num * n`` (n = number of elements) by dynamic
    programming over the NNF; :meth:`GoalOptions.best` wraps it in Dinkelbach's method,
    which turns max F1 = max 2tp / (|P| + n) into a few such linear problems.

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

    def __init__(
        self,
        atoms_of: _AtomSets,
        p_lits: frozenset[Literal],
        p_acts: frozenset[tuple[Atom, ...]],
        num: int,
        den: int,
    ) -> None:
        self.atoms_of = atoms_of
        self.p_lits = p_lits
        self.p_acts = p_acts
        self.num = num
        self.den = den
        self._collapsed: dict[tuple[Atom, ...], _AKey] = {}

    # -- scoring pieces
    def lit_value(self, lit: Literal) -> int:
        return (2 * self.den if lit in self.p_lits else 0) - self.num

    def act_value(self, key: _AKey, acts: tuple[Atom, ...]) -> int:
        if not acts:
            return 0
        return (2 * self.den if key is not None and key in self.p_acts else 0) - self.num

    def collapse(self, acts: tuple[Atom, ...]) -> _AKey:
        if len(acts) <= 1:
            return acts
        hit = self._collapsed.get(acts, ())
        if hit == ():
            hit = acts if any(_subsequence(acts, p) for p in self.p_acts) else None
            self._collapsed[acts] = hit
        return hit

    # -- table algebra
    def merge_keys(
        self, a1: _AKey, w1: tuple[Atom, ...], a2: _AKey, w2: tuple[Atom, ...], kind: _Merge
    ) -> Iterator[tuple[_AKey, tuple[Atom, ...]]]:
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
            yield None, _interleavings(w1, w2)[0]
            return
        seen_none = False
        for m in _interleavings(a1, a2):
            k = self.collapse(m)
            if k is None:
                if seen_none:
                    continue
                seen_none = True
            yield k, m

    def combine(self, t1: _Table, t2: _Table, kind: _Merge) -> _Table:
        out: _Table = {}
        for (s1, a1), (v1, w1, l1) in t1.items():
            for (s2, a2), (v2, w2, l2) in t2.items():
                s = _merge_lits(s1, s2)
                if s is None:
                    continue
                tree = _join(l1, l2)
                for ak, wa in self.merge_keys(a1, w1, a2, w2, kind):
                    _put(out, (s, ak), (v1 + v2, wa, tree))
        return out

    def retire(self, t: _Table, keep: Counter[Atom], ext: frozenset[Atom]) -> _Table:
        """Score and drop from the keys the literals whose atom no longer occurs in
        ``ext`` or in the factors still to combine (``keep``)."""
        if all(not s for s, _ in t):
            return t
        out: _Table = {}
        for (lits, ak), (v, w, tree) in t.items():
            gone = [lit for lit in lits if lit.atom not in ext and keep[lit.atom] <= 0]
            if not gone:
                _put(out, (lits, ak), (v, w, tree))
                continue
            gained = sum(self.lit_value(lit) for lit in gone)
            _put(out, (lits.difference(gone), ak), (v + gained, w, tree))
        return out

    # -- solving
    def _ext_for(
        self, factors: Sequence[frozenset[Atom]], ext: frozenset[Atom]
    ) -> tuple[list[frozenset[Atom]], Counter[Atom]]:
        cnt: Counter[Atom] = Counter(a for s in factors for a in s)
        exts = [frozenset(a for a in s if a in ext or cnt[a] > 1) for s in factors]
        return exts, cnt

    def solve(self, node: _N, ext: frozenset[Atom]) -> _Table:
        match node:
            case _Lit(lit):
                if lit.atom in ext:
                    return {(frozenset((lit,)), ()): (0, (), lit)}
                return {(_NO_LITS, ()): (self.lit_value(lit), (), lit)}
            case _Act(atom):
                return {(_NO_LITS, (atom,)): (0, (atom,), None)}
            case _Or(cs):
                out: _Table = {}
                for c in cs:
                    for k, e in self.solve(c, ext & self.atoms_of(c)).items():
                        _put(out, k, e)
                return out
            case _And(cs) | _Then(cs):
                return self._product(cs, _merge_kind(node), ext)
            case _Count():
                return self._count(node, ext)
            case _Match():
                return self._match(node, ext)
        raise TypeError(node)

    def _product(self, nodes: Sequence[_N], kind: _Merge, ext: frozenset[Atom]) -> _Table:
        sets = [self.atoms_of(n) for n in nodes]
        exts, cnt = self._ext_for(sets, ext)
        acc: _Table = {(_NO_LITS, ()): (0, (), None)}
        for n, s, e in zip(nodes, sets, exts, strict=True):
            cnt.subtract(s)
            acc = self.retire(self.combine(acc, self.solve(n, e), kind), cnt, ext)
            if not acc:
                break
        return acc

    def _count(self, node: _Count, ext: frozenset[Atom]) -> _Table:
        kind = _merge_kind(node)
        m, lo, need_neg = node.m, node.lo, node.m - node.hi
        sets = [
            (self.atoms_of(node.pos[i]) if lo else frozenset())
            | (self.atoms_of(node.neg[i]) if need_neg else frozenset())
            for i in range(m)
        ]
        exts, cnt = self._ext_for(sets, ext)
        states: dict[tuple[int, int], _Table] = {(0, 0): {(_NO_LITS, ()): (0, (), None)}}
        for i in range(m):
            cnt.subtract(sets[i])
            pos_t = self.solve(node.pos[i], exts[i] & self.atoms_of(node.pos[i])) if lo else {}
            neg_t = (
                self.solve(node.neg[i], exts[i] & self.atoms_of(node.neg[i])) if need_neg else {}
            )
            left = m - i - 1
            new: dict[tuple[int, int], _Table] = {}
            for (kp, kn), t in states.items():
                moves: list[tuple[int, int, _Table | None]] = [(kp, kn, None)]
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
                        _put(tgt, k, e)
            states = {k: v for k, v in new.items() if v}
        return states.get((lo, need_neg), {})

    def _match(self, node: _Match, ext: frozenset[Atom]) -> _Table:
        kind = _merge_kind(node)
        sets = [self.atoms_of(b) for b in node.bodies]
        exts, cnt = self._ext_for(sets, ext)
        tables = [self.solve(b, e) for b, e in zip(node.bodies, exts, strict=True)]
        live = [i for i, t in enumerate(tables) if t]
        plain = (_NO_LITS, ())
        if all(list(tables[i]) == [plain] for i in live):
            return self._assignment(node, live, tables)
        return self._mask_dp(node, live, tables, sets=sets, cnt=cnt, ext=ext, kind=kind)

    def _assignment(self, node: _Match, live: list[int], tables: list[_Table]) -> _Table:
        """Best matching of exactly ``size`` edges with independent edge values: one
        rectangular assignment problem, dummy columns absorbing the unmatched rows."""
        import numpy as np
        from scipy.optimize import linear_sum_assignment

        s = node.size
        rows = sorted({node.pairs[i][0] for i in live})
        cols = sorted({node.pairs[i][1] for i in live})
        flip = len(rows) > len(cols)
        if flip:
            rows, cols = cols, rows
        if s > len(rows):
            return {}
        ri = {v: k for k, v in enumerate(rows)}
        ci = {v: k for k, v in enumerate(cols)}
        plain = (_NO_LITS, ())
        values = {i: tables[i][plain][0] for i in live}
        big = 2 * len(rows) * max(1, *(abs(v) for v in values.values())) + 1
        cost = np.full((len(rows), len(cols) + len(rows) - s), np.inf)
        cost[:, len(cols):] = -big
        where: dict[tuple[int, int], int] = {}
        for i in live:
            a, b = node.pairs[i]
            if flip:
                a, b = b, a
            r, c = ri[a], ci[b]
            cost[r, c] = -values[i]
            where[(r, c)] = i
        try:
            r_ind, c_ind = linear_sum_assignment(cost)
        except ValueError:  # no matching of this size
            return {}
        chosen = [where[(int(r), int(c))] for r, c in zip(r_ind, c_ind, strict=True)
                  if c < len(cols)]
        total, tree = 0, None
        for i in chosen:
            v, _, t = tables[i][plain]
            total += v
            tree = _join(tree, t)
        return {plain: (total, (), tree)}

    def _mask_dp(
        self,
        node: _Match,
        live: list[int],
        tables: list[_Table],
        *,
        sets: list[frozenset[Atom]],
        cnt: Counter[Atom],
        ext: frozenset[Atom],
        kind: _Merge,
    ) -> _Table:
        """Exact DP over the objects of the smaller side already used."""
        lefts = sorted({node.pairs[i][0] for i in live})
        rights = sorted({node.pairs[i][1] for i in live})
        side = 1 if len(rights) <= len(lefts) else 0  # which pair slot the mask covers
        small, big = (rights, lefts) if side == 1 else (lefts, rights)
        if len(small) > MAX_MASK_SIDE:
            raise UnsupportedFormulaError(
                f"best option of a pair quantifier with shared atoms or actions over "
                f"{len(small)} x {len(big)} objects (limit {MAX_MASK_SIDE} on the smaller side)"
            )
        sidx = {v: k for k, v in enumerate(small)}
        by_big: dict[str, list[int]] = {v: [] for v in big}
        for i in live:
            by_big[node.pairs[i][1 - side]].append(i)
        s = node.size
        for i in set(range(len(tables))) - set(live):
            cnt.subtract(sets[i])
        states: dict[int, _Table] = {0: {(_NO_LITS, ()): (0, (), None)}}
        for u, v in enumerate(big):
            for i in by_big[v]:
                cnt.subtract(sets[i])
            left = len(big) - u - 1
            new: dict[int, _Table] = {}
            for mask, t in states.items():
                pc = mask.bit_count()
                if pc + left >= s:
                    tgt = new.setdefault(mask, {})
                    for k, e in self.retire(t, cnt, ext).items():
                        _put(tgt, k, e)
                if pc >= s:
                    continue
                for i in by_big[v]:
                    j = sidx[node.pairs[i][side]]
                    if mask >> j & 1:
                        continue
                    nt = self.retire(self.combine(t, tables[i], kind), cnt, ext)
                    tgt = new.setdefault(mask | 1 << j, {})
                    for k, e in nt.items():
                        _put(tgt, k, e)
            states = {k: t for k, t in new.items() if t}
        out: _Table = {}
        for mask, t in states.items():
            if mask.bit_count() == s:
                for k, e in t.items():
                    _put(out, k, e)
        return self.retire(out, cnt, ext)


class _AtomSets:
    """State atoms of every NNF node (memoised by identity; nodes live as long as the
    :class:`GoalOptions` holding them)."""

    def __init__(self) -> None:
        self._memo: dict[int, frozenset[Atom]] = {}

    def __call__(self, node: _N) -> frozenset[Atom]:
        hit = self._memo.get(id(node))
        if hit is None:
            hit = self._memo[id(node)] = self._compute(node)
        return hit

    def _compute(self, node: _N) -> frozenset[Atom]:
        match node:
            case _Lit(lit):
                return frozenset((lit.atom,))
            case _Act():
                return frozenset()
            case _And(cs) | _Or(cs) | _Then(cs):
                return frozenset().union(*(self(c) for c in cs))
            case _Count(pos, neg):
                return frozenset().union(*(self(c) for c in pos + neg))
            case _Match(_, bodies):
                return frozenset().union(*(self(c) for c in bodies))
        raise TypeError(node)


# --------------------------------------------------------------------------- public API


class GoalOptions:
    """The goal options of one formula over one universe; grounds and normalises once,
    so many predictions can be scored against the same goal cheaply.

    ``actions`` names the action predicates (case-insensitive). ``minimal=True`` reads
    ``forn n`` as "at least n" (BDDL's ground options) instead of "exactly n".
    Raises :class:`GroundingError` or :class:`UnsupportedFormulaError` on construction.
    """

    def __init__(
        self,
        f: Formula,
        universe: Universe,
        actions: Iterable[str],
        *,
        minimal: bool = False,
    ) -> None:
        if isinstance(actions, str):
            raise TypeError("actions must be a set of predicate names, not a string")
        self.actions = frozenset(a.lower() for a in actions)
        self.ground = gr.ground(f, universe, forn_at_least=minimal)
        self._root = _nnf(self.ground, True, self.actions)
        self._counter = _Counter()
        self._atoms = _AtomSets()

    def options(self, *, dedupe: bool = True) -> Iterator[SimpleGoal]:
        """Every option, lazily, in the formula's order. ``dedupe=False`` skips the set
        of options already seen (constant memory, possible repeats)."""
        seen: set[SimpleGoal] = set()
        for acts, lits in _Enumerator(self._counter).gen(self._root):
            g = SimpleGoal(acts, lits)
            if dedupe:
                if g in seen:
                    continue
                seen.add(g)
            yield g

    def __iter__(self) -> Iterator[SimpleGoal]:
        return self.options()

    def count(self) -> int:
        """Number of options counted combinatorially, without enumerating them.

        An upper bound on the number of distinct options: it counts before dropping
        inconsistent merges (``p`` and ``not p``) and before removing duplicates, and
        counts every interleaving of action parts. It is exact when no ground atom
        occurs twice in the grounded formula and no pair quantifier is negated.
        """
        return self._counter.total(self._root)

    def best(self, predicted: Iterable[Element]) -> OptionScore | None:
        """The option with the highest F1 against ``predicted`` (None if the formula has
        no option). Exact: Dinkelbach's method over the exact DP of :class:`_Scorer`;
        each round strictly raises F1, and it stops when no option beats the last."""
        pred = frozenset(predicted)
        p_lits = frozenset(e for e in pred if isinstance(e, Literal))
        p_acts = frozenset(e for e in pred if isinstance(e, tuple))
        if not pred:  # every non-empty option scores 0; an empty one scores 1
            opt = self._argmax(p_lits, p_acts, 1, 0)
            return None if opt is None else score(opt, pred)
        best: OptionScore | None = None
        lam = Fraction(0)
        while True:
            opt = self._argmax(p_lits, p_acts, lam.numerator, lam.denominator)
            if opt is None:
                return None
            sc = score(opt, pred)
            if best is not None and sc.f1_exact <= lam:
                return best
            best, lam = sc, sc.f1_exact

    def _argmax(
        self, p_lits: frozenset[Literal], p_acts: frozenset[tuple[Atom, ...]], num: int, den: int
    ) -> SimpleGoal | None:
        scorer = _Scorer(self._atoms, p_lits, p_acts, num, den)
        table = scorer.solve(self._root, frozenset())
        best: tuple[int, tuple[Atom, ...], _Tree] | None = None
        for (lits, key), (v, acts, tree) in table.items():
            assert not lits, "every literal is scored at the root"
            total = v + scorer.act_value(key, acts)
            if best is None or total > best[0]:
                best = (total, acts, tree)
        if best is None:
            return None
        return SimpleGoal(best[1], _materialise(best[2]))


def options(
    f: Formula,
    universe: Universe,
    actions: Iterable[str],
    *,
    minimal: bool = False,
    dedupe: bool = True,
) -> Iterator[SimpleGoal]:
    """Lazily enumerate the goal options of ``f`` (see :class:`GoalOptions`). Errors in
    the formula are raised here, not at the first ``next``."""
    return GoalOptions(f, universe, actions, minimal=minimal).options(dedupe=dedupe)


def count_options(
    f: Formula, universe: Universe, actions: Iterable[str], *, minimal: bool = False
) -> int:
    """Number of goal options without enumerating them (see :meth:`GoalOptions.count`:
    an upper bound, exact when no ground atom repeats and no pair quantifier is
    negated)."""
    return GoalOptions(f, universe, actions, minimal=minimal).count()


def best_option(
    f: Formula,
    universe: Universe,
    actions: Iterable[str],
    predicted: Iterable[Element],
    *,
    minimal: bool = False,
) -> OptionScore | None:
    """The goal option maximising F1 against the predicted elements, found without
    enumerating options; None if ``f`` has no option (its F1 is then 0)."""
    return GoalOptions(f, universe, actions, minimal=minimal).best(predicted)
