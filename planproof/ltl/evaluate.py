"""Evaluate goal formulas on state-action traces in polynomial time.

The semantics (``docs/ltl-semantics.md``) is the EAI paper's: a ``then``-free formula holds
on a segment of positions iff it holds at *some* position of it ("eventually"), ``then``
splits a segment into consecutive non-empty parts, and a node containing ``then`` combines
its children segment by segment. Read literally that is an enumeration of split points
(``planproof.ltl.bruteforce``); here every node gets one of three representations instead:

* ``then``-free ("point"): a boolean vector over the N positions;
* upward closed in the end of the segment ("end": then-free formulas, and/or/forall/
  exists of such, a ``then`` whose last part is such; other nodes whose matrix turns out
  upward closed, e.g. pair quantifiers over such bodies, are converted at run time): the
  array ``e[i]`` = smallest ``j`` such that the formula holds on ``[i, j)`` (``N + 1`` if
  none). ``and`` is the max, ``or`` the min, ``then`` a composition through suffix minima
  — O(N) per node;
* anything else (``not``/``implies``/``forn`` over ``then``): the ``(N+1) x (N+1)``
  boolean matrix of segments, O(N^2) per node; only a ``then`` joining a matrix part
  after a matrix part needs a boolean matrix product, O(N^3).

Quantifiers are vectorised: a node with free variables ``x1 < ... < xk`` is evaluated once,
as an array with one leading axis per variable (indexed by the objects of its domain), so
``exists x. watch(x)`` over 300 objects is a handful of numpy calls, not 300 evaluations.
The driver is iterative (an explicit stack): neither formula depth nor trace length touches
Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from functools import reduce
from itertools import product
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from planproof.ltl import ast
from planproof.ltl.ast import Atom, Const, Formula, Var
from planproof.ltl.errors import GroundingError, GroundingLimitError
from planproof.ltl.printer import to_text
from planproof.ltl.trace import Trace, Universe

__all__ = [
    "MAX_ATOM_GROUNDINGS",
    "MAX_EVALUATION_CELLS",
    "TraceEvaluator",
    "evaluate",
    "evaluate_final",
]

MAX_ATOM_GROUNDINGS = 1_000_000
"""Most groundings of one atom's variables (each is looked up in the trace one by one)."""

MAX_EVALUATION_CELLS = 50_000_000
"""Most values (groundings of a sub-formula's free variables x positions) one node of a
formula may need on a trace; beyond it evaluation is refused before it starts."""

Array: TypeAlias = npt.NDArray[Any]  # numpy stubs cannot follow dtypes through our ops
BoolArray: TypeAlias = npt.NDArray[np.bool_]
IntArray: TypeAlias = npt.NDArray[np.int64]
_Kind = Literal["point", "end", "matrix"]
_Scope = dict[str, str | None]  # variable -> type of the binder that binds it
_MemoKey = tuple[int, tuple[str | None, ...]]
_AtomKey = tuple[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class _Val:
    """A node's value: ``data`` has one leading axis per free variable (``vars``, sorted),
    then positions (point: ``N``), start points (end: ``N + 2``) or start x end (matrix:
    ``(N + 1) x (N + 1)``)."""

    kind: _Kind
    vars: tuple[str, ...]
    data: Array


def evaluate(
    f: Formula,
    trace: Trace,
    universe: Universe | None = None,
    actions: Set[str] | None = None,
) -> bool:
    """Does ``f`` hold on the whole trace (positions ``[0, N)``)?

    ``actions`` names the action predicates: their atoms match only the action taken at a
    position, all other atoms only the state. Without it an atom matches either.
    Quantifiers range over ``universe`` (default: ``trace.universe()``).
    Raises :class:`GroundingError` if ``f`` has free variables.
    """
    return TraceEvaluator(trace, universe, actions).holds(f)


def evaluate_final(
    f: Formula,
    trace: Trace,
    universe: Universe | None = None,
    actions: Set[str] | None = None,
) -> bool:
    """Like :func:`evaluate`, but every state atom is read in the final state at every
    position: the reading of EAI's evaluators (ordered action goals as a subsequence of the
    executed actions, state goals in the final state)."""
    return TraceEvaluator(trace, universe, actions, final=True).holds(f)


class TraceEvaluator:
    """Evaluates many formulas on one trace, sharing atom vectors between them (the goal
    options of one task are often thousands of formulas over the same atoms)."""

    _normalise = True
    """Turn segment matrices that happen to be upward closed back into end arrays (tests
    switch this off to exercise the matrix paths on small traces)."""

    def __init__(
        self,
        trace: Trace,
        universe: Universe | None = None,
        actions: Set[str] | None = None,
        *,
        final: bool = False,
    ) -> None:
        if isinstance(actions, str):
            raise TypeError("actions must be a set of predicate names, not a string")
        self.trace = trace
        self.actions = None if actions is None else frozenset(a.lower() for a in actions)
        self.final = final
        self.n = len(trace)  # number of positions N
        self._universe = universe
        self._domains: dict[str | None, tuple[tuple[str, ...], dict[str, int]]] = {}
        self._in_states: dict[_AtomKey, BoolArray] = {}  # state part of a ground atom
        self._by_pred: dict[str, list[tuple[tuple[str, ...], IntArray]]] | None = None
        self._upper: BoolArray | None = None

    @property
    def universe(self) -> Universe:
        """The objects quantifiers range over; the trace's own objects unless given
        (computed only when a quantifier needs it; the trace caches it)."""
        if self._universe is None:
            self._universe = self.trace.universe()
        return self._universe

    # ----------------------------------------------------------------- public API
    def holds(self, f: Formula) -> bool:
        """Does ``f`` hold on the whole trace?"""
        info = _analyse(f)
        if info.free[id(f)]:
            raise GroundingError(
                f"free variable(s) {', '.join(info.free[id(f)])} in the formula: "
                "every variable must be bound by a quantifier"
            )
        self._check_size(f, info)
        self._prefetch_states(f, info)
        n = self.n
        if isinstance(f, ast.Then) and info.temporal[id(f)]:
            # only the segment [0, N) is asked for: sweep split points instead of products
            return self._then_from_zero([self._run(c, info) for c in f.children])
        val = self._run(f, info)
        if val.kind == "point":
            return bool(val.data.any())
        if val.kind == "end":
            return bool(val.data[0] <= n)
        return bool(val.data[0, n])

    # ----------------------------------------------------------------- driver
    def _run(self, root: Formula, info: _Info) -> _Val:
        """Post-order over the formula with an explicit stack. A node is keyed by its id
        and the types of the binders of its free variables (a node object shared under
        different binders is evaluated once per binding context)."""
        memo: dict[_MemoKey, _Val] = {}
        free = info.free

        def key(node: Formula, scope: _Scope) -> _MemoKey:
            return (id(node), tuple(scope[v] for v in free[id(node)]))

        stack: list[tuple[Formula, _Scope, bool]] = [(root, {}, False)]
        while stack:
            node, scope, expanded = stack.pop()
            k = key(node, scope)
            if k in memo:
                continue
            inner = _inner_scope(node, scope)
            kids = ast.children(node)
            if not expanded:
                stack.append((node, scope, True))
                stack.extend((c, inner, False) for c in kids if key(c, inner) not in memo)
                continue
            vals = [memo[key(c, inner)] for c in kids]
            if info.temporal[id(node)]:
                memo[k] = self._segments(node, vals, free[id(node)])
            else:
                memo[k] = self._points(node, scope, vals, free[id(node)])
        return memo[key(root, {})]

    def _domain(self, type_name: str | None) -> tuple[tuple[str, ...], dict[str, int]]:
        """Objects of a binder's type, and each one's index along the variable's axis."""
        hit = self._domains.get(type_name)
        if hit is None:
            objs = self.universe.of_type(type_name)
            hit = self._domains[type_name] = (objs, {o: i for i, o in enumerate(objs)})
        return hit

    # ----------------------------------------------------------------- atoms
    def _atom(self, atom: Atom, scope: _Scope) -> _Val:
        """The point array of an atom over all groundings of its variables."""
        variables = tuple(sorted({t.name for t in atom.args if isinstance(t, Var)}))
        doms = [self._domain(scope[v]) for v in variables]
        dims = tuple(len(objs) for objs, _ in doms)
        out = np.zeros((*dims, self.n), dtype=np.bool_)
        if self._reads_state(atom.pred):
            keys = _groundings(atom, variables, [objs for objs, _ in doms])
            self._scan_states({k: _ground(k) for k in keys if k not in self._in_states})
            if keys:
                out |= np.stack([self._in_states[k] for k in keys]).reshape(out.shape)
        if self.actions is None or atom.pred in self.actions:
            where = {v: i for i, v in enumerate(variables)}
            for names, positions in self._actions_by_pred().get(atom.pred, ()):
                idx = _match_args(atom.args, names, where, [index for _, index in doms])
                if idx is not None:
                    cell: tuple[Any, ...] = (*idx, positions)
                    out[cell] = True
        return _Val("point", variables, out)

    def _reads_state(self, pred: str) -> bool:
        return self.actions is None or pred not in self.actions

    def _actions_by_pred(self) -> dict[str, list[tuple[tuple[str, ...], IntArray]]]:
        """Distinct executed actions grouped by predicate, with their positions."""
        if self._by_pred is None:
            distinct: dict[Atom, list[int]] = {}
            for i, a in enumerate(self.trace.actions):
                distinct.setdefault(a, []).append(i)
            by_pred: dict[str, list[tuple[tuple[str, ...], IntArray]]] = {}
            for a, positions in distinct.items():
                names = tuple(t.name for t in a.args)
                by_pred.setdefault(a.pred, []).append((names, np.array(positions)))
            self._by_pred = by_pred
        return self._by_pred

    def _check_size(self, f: Formula, info: _Info) -> None:
        """Refuse up front a formula whose vectorised evaluation would not fit: a node
        with free variables holds one value per grounding and position (a segment matrix
        one per grounding and pair of positions), so ``forall x, y, z`` over 3,000
        objects would need 27 billion of them."""
        n = self.n
        seen: set[_MemoKey] = set()
        stack: list[tuple[Formula, _Scope]] = [(f, {})]
        while stack:
            node, scope = stack.pop()
            variables = info.free[id(node)]
            mark = (id(node), tuple(scope[v] for v in variables))
            if mark in seen:
                continue
            seen.add(mark)
            groundings = 1
            for v in variables:
                groundings *= max(1, len(self._domain(scope[v])[0]))
            if isinstance(node, Atom) and groundings > MAX_ATOM_GROUNDINGS:
                raise GroundingLimitError(
                    f"the atom {to_text(node)[:80]!r} has {groundings} groundings over the "
                    f"universe, over the limit of {MAX_ATOM_GROUNDINGS}; shrink the universe "
                    "or the quantifier nesting"
                )
            cells = groundings * (n + 2)
            if cells > MAX_EVALUATION_CELLS:
                raise GroundingLimitError(
                    f"evaluating {to_text(node)[:80]!r} needs {groundings} groundings of "
                    f"{', '.join(variables)} x {n + 2} positions = {cells} values, over the "
                    f"limit of {MAX_EVALUATION_CELLS}; shrink the universe or the "
                    "quantifier nesting"
                )
            inner = _inner_scope(node, scope)
            stack.extend((c, inner) for c in ast.children(node))

    def _prefetch_states(self, f: Formula, info: _Info) -> None:
        """Collect every grounding of every state atom ``f`` can ask for and read them
        all at once from the trace's run index."""
        wanted: dict[_AtomKey, Atom] = {}
        seen: set[_MemoKey] = set()
        stack: list[tuple[Formula, _Scope]] = [(f, {})]
        while stack:
            node, scope = stack.pop()
            mark = (id(node), tuple(scope[v] for v in info.free[id(node)]))
            if mark in seen:
                continue
            seen.add(mark)
            if isinstance(node, Atom):
                if self._reads_state(node.pred):
                    variables = info.free[id(node)]
                    doms = [self._domain(scope[v])[0] for v in variables]
                    for k in _groundings(node, variables, doms):
                        if k not in self._in_states and k not in wanted:
                            wanted[k] = node if not variables else _ground(k)
                continue
            inner = _inner_scope(node, scope)
            stack.extend((c, inner) for c in ast.children(node))
        self._scan_states(wanted)

    def _scan_states(self, wanted: dict[_AtomKey, Atom]) -> None:
        """State part of each wanted atom, from the trace's per-atom runs of positions
        (built once per trace), so no state is visited again."""
        final = self.trace.final if self.final else None
        for k, a in wanted.items():
            row = np.zeros(self.n, dtype=np.bool_)
            if final is not None:
                row[:] = a in final
            else:
                for start, stop in self.trace.runs(a):
                    row[start:stop] = True
            self._in_states[k] = row

    # ----------------------------------------------------------------- then-free nodes
    def _points(
        self, node: Formula, scope: _Scope, vals: list[_Val], variables: tuple[str, ...]
    ) -> _Val:
        n = self.n
        match node:
            case Atom():
                return self._atom(node, scope)
            case ast.Top():
                return _Val("point", (), np.ones(n, dtype=np.bool_))
            case ast.Bottom():
                return _Val("point", (), np.zeros(n, dtype=np.bool_))
            case ast.Not():
                return _Val("point", vals[0].vars, ~vals[0].data)
            case ast.And() | ast.Or() | ast.Implies():
                parts = [_align(v, variables) for v in vals]
                if isinstance(node, ast.Implies):
                    return _Val("point", variables, ~parts[0] | parts[1])
                op = np.logical_and if isinstance(node, ast.And) else np.logical_or
                return _Val("point", variables, reduce(op, parts))
            case ast.Forall(b) | ast.Exists(b) | ast.ForN(_, b):
                arr, axis = self._quantified_axis(vals[0], b)
                if isinstance(node, ast.Forall):
                    return _Val("point", variables, np.asarray(arr.all(axis=axis)))
                if isinstance(node, ast.Exists):
                    return _Val("point", variables, np.asarray(arr.any(axis=axis)))
                return _Val("point", variables, np.asarray(arr.sum(axis=axis) == node.count))
            case ast.ForPairs() | ast.ForNPairs():
                arr, need = self._pair_array(node, vals[0], 1)  # (*outer, d1, d2, N)
                outer = arr.shape[:-3]
                d1, d2 = arr.shape[-3], arr.shape[-2]
                count = int(np.prod(outer, dtype=np.int64)) * n
                rows = np.moveaxis(arr, -1, -3).reshape(count, d1 * d2)
                res = _matchings(rows, (d1, d2), need, {})
                return _Val("point", variables, res.reshape((*outer, n)))
        raise TypeError(f"not a formula: {node!r}")

    def _quantified_axis(self, body: _Val, b: ast.Binder) -> tuple[Array, int]:
        """The body's array with an axis for ``b.var`` (broadcast if the body does not
        mention it), and that axis' index."""
        if b.var in body.vars:
            return body.data, body.vars.index(b.var)
        size = len(self._domain(b.type)[0])
        arr = np.expand_dims(body.data, 0)
        return np.broadcast_to(arr, (size, *arr.shape[1:])), 0

    def _pair_array(
        self, node: ast.ForPairs | ast.ForNPairs, body: _Val, tail: int
    ) -> tuple[Array, int]:
        """The body as ``(*outer, d1, d2, *tail)`` with pairs of equal objects masked out,
        and the matching size required."""
        x, y = node.first.var, node.second.var
        objs1 = self._domain(node.first.type)[0]
        objs2 = self._domain(node.second.type)[0]
        names: list[str | None] = list(body.vars)
        arr = body.data
        lead = len(names)
        # the inner binder wins when both have the same name (it shadows the outer one)
        if y in names:
            arr = np.moveaxis(arr, names.index(y), lead - 1)
            names.remove(y)
        else:
            arr = np.expand_dims(arr, lead)
        names.append(y)
        if x != y and x in names:
            arr = np.moveaxis(arr, names.index(x), len(names) - 2)
            names.remove(x)
        else:
            arr = np.expand_dims(arr, len(names) - 1)
        names.insert(len(names) - 1, None)
        outer = arr.shape[: len(names) - 2]
        tail_shape = arr.shape[len(names) :]
        arr = np.broadcast_to(arr, (*outer, len(objs1), len(objs2), *tail_shape))
        distinct = np.array([[a != b for b in objs2] for a in objs1], dtype=np.bool_)
        arr = arr & distinct.reshape((len(objs1), len(objs2)) + (1,) * tail)
        if isinstance(node, ast.ForPairs):
            return arr, min(len(objs1), len(objs2))
        return arr, node.count

    # ----------------------------------------------------------------- temporal nodes
    def _segments(self, node: Formula, vals: list[_Val], variables: tuple[str, ...]) -> _Val:
        out = self._segments_raw(node, vals, variables)
        if out.kind != "matrix" or not self._normalise:
            return out
        m = out.data
        if bool(np.all(m[..., :-1] <= m[..., 1:])):
            # upward closed in the end point after all (e.g. pairs over monotone bodies):
            # an end array, so that an enclosing ``then`` avoids matrix products
            first = np.where(m.any(axis=-1), m.argmax(axis=-1), self.n + 1)
            return _Val("end", out.vars, self._pad_end(first))
        return out

    def _segments_raw(self, node: Formula, vals: list[_Val], variables: tuple[str, ...]) -> _Val:
        upper = self._upper_mask
        match node:
            case ast.Not():
                return _Val("matrix", variables, ~self._matrix(vals[0]) & upper())
            case ast.Implies():
                left, right = (_align(self._as_matrix(v), variables) for v in vals)
                return _Val("matrix", variables, (~left | right) & upper())
            case ast.And() | ast.Or():
                return self._lattice(vals, variables, conj=isinstance(node, ast.And))
            case ast.Forall(b) | ast.Exists(b):
                return self._lattice_over(vals[0], b, variables, isinstance(node, ast.Forall))
            case ast.Then():
                return self._then(vals, variables)
            case ast.ForN(count, b):
                arr, axis = self._quantified_axis(self._as_matrix(vals[0]), b)
                total = arr.sum(axis=axis, dtype=np.int64)
                return _Val("matrix", variables, (total == count) & upper())
            case ast.ForPairs() | ast.ForNPairs():
                return _Val("matrix", variables, self._pair_segments(node, vals[0]))
        raise TypeError(f"not a temporal formula: {node!r}")

    def _lattice(self, vals: list[_Val], variables: tuple[str, ...], *, conj: bool) -> _Val:
        if all(v.kind != "matrix" for v in vals):
            ends = [_align(self._as_end(v), variables) for v in vals]
            red = reduce(np.maximum if conj else np.minimum, ends)
            return _Val("end", variables, red)
        mats = [_align(self._as_matrix(v), variables) for v in vals]
        return _Val("matrix", variables, reduce(np.logical_and if conj else np.logical_or, mats))

    def _lattice_over(
        self, body: _Val, b: ast.Binder, variables: tuple[str, ...], conj: bool
    ) -> _Val:
        if body.kind == "matrix":
            arr, axis = self._quantified_axis(body, b)
            red = arr.all(axis=axis) if conj else arr.any(axis=axis)
            return _Val("matrix", variables, red & self._upper_mask())
        arr, axis = self._quantified_axis(self._as_end(body), b)
        if arr.shape[axis] == 0:  # empty domain: forall is true, exists false, everywhere
            const = self._true_end() if conj else self._false_end()
            shape = arr.shape[:axis] + arr.shape[axis + 1 :]
            return _Val("end", variables, np.broadcast_to(const, shape).copy())
        red = arr.max(axis=axis) if conj else arr.min(axis=axis)
        return _Val("end", variables, red)

    def _then(self, vals: list[_Val], variables: tuple[str, ...]) -> _Val:
        """Left to right. A part given by an end array joins in O(N) after an end array
        and O(N^2) after a matrix; a part given by a matrix joins in O(N^2) after an end
        array; only a matrix after a matrix needs a boolean matrix product, O(N^3)."""
        n = self.n
        acc = vals[0]
        for part in vals[1:]:
            if part.kind == "matrix" and acc.kind == "matrix":
                prod = _bool_matmul(_align(acc, variables), _align(part, variables))
                acc = _Val("matrix", variables, prod)
                continue
            if part.kind == "matrix":
                # after a prefix with end array e the split points are [e[i], N]: row i is
                # the OR of the part's rows from e[i] on, a suffix OR read at e[i] (O(N^2))
                m = _align(part, variables)
                tails = np.zeros((*m.shape[:-2], n + 2, n + 1), dtype=np.bool_)
                tails[..., : n + 1, :] = np.logical_or.accumulate(m[..., ::-1, :], axis=-2)[
                    ..., ::-1, :
                ]
                e = _align(self._as_end(acc), variables)[..., : n + 1, None]
                lead = np.broadcast_shapes(tails.shape[:-2], e.shape[:-2])
                rows = np.take_along_axis(
                    np.broadcast_to(tails, (*lead, n + 2, n + 1)),
                    np.broadcast_to(e, (*lead, n + 1, 1)),
                    axis=-2,
                )
                acc = _Val("matrix", variables, rows)
                continue
            r = _align(self._as_end(part), variables)
            if acc.kind == "matrix":
                # best end of [i, k) then [k, j) over the split points k of row i
                starts = _align(acc, variables)[..., :, :n]
                best = np.where(starts, r[..., None, :n], n + 1).min(axis=-1)
                acc = _Val("end", variables, self._pad_end(best))
            else:
                # after a prefix with end array e the split points are the suffix [e[i], N),
                # so the best end is the suffix minimum of r, read at e[i]
                rev_min = np.minimum.accumulate(r[..., :n][..., ::-1], axis=-1)
                suffix_min = self._pad_end(rev_min[..., ::-1])
                e = _align(self._as_end(acc), variables)
                sm, e = np.broadcast_arrays(suffix_min, e)
                acc = _Val("end", variables, np.take_along_axis(sm, e, axis=-1))
        return acc

    def _then_from_zero(self, vals: list[_Val]) -> bool:
        """Does the ``then`` of these closed parts hold on [0, N)? A sweep over the set of
        reachable split points: O(N^2) per part even when parts are matrices."""
        n = self.n
        head = vals[0]
        if head.kind == "matrix":
            reach = self._matrix(head)[0]
        else:
            reach = np.arange(n + 1) >= self._as_end(head).data[0]
        for part in vals[1:]:
            if part.kind == "matrix":
                reach = _bool_matmul(reach[None, :], self._matrix(part))[0]
            else:
                r = self._as_end(part).data
                first = int(np.where(reach[:n], r[:n], n + 1).min())
                reach = np.arange(n + 1) >= first
        return bool(reach[n])

    def _pair_segments(self, node: ast.ForPairs | ast.ForNPairs, body: _Val) -> BoolArray:
        n = self.n
        arr, need = self._pair_array(node, self._as_matrix(body), 2)  # (*outer, d1, d2, S, E)
        outer = arr.shape[:-4]
        d1, d2 = arr.shape[-4], arr.shape[-3]
        out = np.zeros((*outer, n + 1, n + 1), dtype=np.bool_)
        seen: dict[bytes, bool] = {}
        for idx in np.ndindex(*outer):
            sub = arr[idx]
            for i in range(n):  # one start at a time keeps memory at O(N * pairs)
                rows = np.moveaxis(sub[:, :, i, i + 1 :], -1, 0).reshape(n - i, d1 * d2)
                out[(*idx, i, slice(i + 1, None))] = _matchings(rows, (d1, d2), need, seen)
        return out

    # ----------------------------------------------------------------- conversions
    def _pad_end(self, first: Array) -> IntArray:
        """Append ``N + 1`` ("never") entries up to length ``N + 2`` on the last axis."""
        n = self.n
        out = np.full((*first.shape[:-1], n + 2), n + 1, dtype=np.int64)
        out[..., : first.shape[-1]] = first
        return out

    def _true_end(self) -> IntArray:
        return self._pad_end(np.arange(1, self.n + 1))

    def _false_end(self) -> IntArray:
        return np.full(self.n + 2, self.n + 1, dtype=np.int64)

    def _upper_mask(self) -> BoolArray:
        if self._upper is None:
            self._upper = np.triu(np.ones((self.n + 1, self.n + 1), dtype=np.bool_), k=1)
        return self._upper

    def _as_end(self, v: _Val) -> _Val:
        if v.kind == "end":
            return v
        if v.kind == "matrix":
            raise AssertionError("a segment matrix has no end array")  # pragma: no cover
        n = self.n
        # e[i] = 1 + first position >= i where the then-free formula holds
        w = np.where(v.data, np.arange(1, n + 1), n + 1)
        first = np.minimum.accumulate(w[..., ::-1], axis=-1)[..., ::-1]
        return _Val("end", v.vars, self._pad_end(first))

    def _as_matrix(self, v: _Val) -> _Val:
        if v.kind == "matrix":
            return v
        e = self._as_end(v).data
        cols = np.arange(self.n + 1)
        # holds on [i, j) iff e[i] <= j; e[i] > i, so only cells above the diagonal are set
        return _Val("matrix", v.vars, cols >= e[..., : self.n + 1, None])

    def _matrix(self, v: _Val) -> BoolArray:
        return np.asarray(self._as_matrix(v).data, dtype=np.bool_)


# --------------------------------------------------------------------- helpers
def _inner_scope(node: Formula, scope: _Scope) -> _Scope:
    bs = ast.binders(node)
    if not bs:
        return scope
    return {**scope, **{b.var: b.type for b in bs}}  # a later binder shadows an earlier one


def _align(v: _Val, variables: tuple[str, ...]) -> Array:
    """``v.data`` with a length-1 axis for each variable of ``variables`` it lacks, ready
    to broadcast (both tuples are sorted, so no axis moves)."""
    if v.vars == variables:
        return v.data
    lead = [v.data.shape[v.vars.index(x)] if x in v.vars else 1 for x in variables]
    return v.data.reshape((*lead, *v.data.shape[len(v.vars) :]))


def _groundings(
    atom: Atom, variables: Sequence[str], domains: Sequence[tuple[str, ...]]
) -> list[_AtomKey]:
    """Every ground instance of ``atom``, variables in row-major order of their domains."""
    if not variables:
        return [(atom.pred, tuple(t.name for t in atom.args))]
    pos = {v: i for i, v in enumerate(variables)}
    where = [pos[t.name] if isinstance(t, Var) else -1 for t in atom.args]
    consts = [t.name for t in atom.args]
    return [
        (atom.pred, tuple(values[w] if w >= 0 else c for w, c in zip(where, consts, strict=True)))
        for values in product(*domains)
    ]


def _ground(key: _AtomKey) -> Atom:
    return Atom(key[0], tuple(map(Const, key[1])))


def _match_args(
    args: tuple[ast.Term, ...],
    names: tuple[str, ...],
    where: dict[str, int],
    indices: Sequence[dict[str, int]],
) -> list[int] | None:
    """Axis indices at which an atom with these arguments equals a ground atom with these
    object names, or None if it never does."""
    if len(args) != len(names):
        return None
    idx: list[int | None] = [None] * len(where)
    for t, name in zip(args, names, strict=True):
        if isinstance(t, Const):
            if t.name != name:
                return None
            continue
        axis = where[t.name]
        i = indices[axis].get(name)
        if i is None or idx[axis] not in (None, i):
            return None
        idx[axis] = i
    return [i for i in idx if i is not None]


def _bool_matmul(a: Array, b: Array) -> BoolArray:
    """Boolean (batched) product via float32 BLAS (exact: counts stay far below 2**24)."""
    prod = np.matmul(a.astype(np.float32), b.astype(np.float32))
    return np.asarray(prod > 0.5, dtype=np.bool_)


def _matchings(
    pattern: BoolArray, shape: tuple[int, int], need: int, seen: dict[bytes, bool]
) -> BoolArray:
    """For each row (a flattened biadjacency matrix), is there a matching of size
    ``need``? Rows repeat a lot along a trace, so each distinct row is solved once, with
    scipy's Hopcroft–Karp (``scipy.sparse.csgraph.maximum_bipartite_matching``)."""
    rows = pattern.shape[0]
    if need <= 0:
        return np.ones(rows, dtype=np.bool_)
    if need > min(shape) or rows == 0:
        return np.zeros(rows, dtype=np.bool_)
    # pack each row into bytes, padded to whole 64-bit words, and unique on the words
    packed = np.packbits(pattern, axis=1)
    width = -(-packed.shape[1] // 8) * 8
    words = np.zeros((rows, width), dtype=np.uint8)
    words[:, : packed.shape[1]] = packed
    keys = words.view(np.uint64)
    if keys.shape[1] == 1:
        _, first, inverse = np.unique(keys[:, 0], return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    answers = np.zeros(len(first), dtype=np.bool_)
    for u, r in enumerate(first):
        k = words[r].tobytes()
        if k not in seen:
            seen[k] = _has_matching(pattern[r].reshape(shape), need)
        answers[u] = seen[k]
    return answers[np.asarray(inverse).reshape(-1)]


def _has_matching(biadjacency: BoolArray, need: int) -> bool:
    if int(biadjacency.sum()) < need:
        return False
    graph = csr_matrix(biadjacency.astype(np.int8))
    match = maximum_bipartite_matching(graph, perm_type="column")
    return int(np.count_nonzero(np.asarray(match) >= 0)) >= need


@dataclass(frozen=True)
class _Info:
    """Per node (by ``id``): free variables (sorted) and whether it contains ``then``."""

    free: dict[int, tuple[str, ...]]
    temporal: dict[int, bool]


def _analyse(f: Formula) -> _Info:
    """Free variables and temporality of every sub-formula, bottom-up without recursion
    (a sub-formula object shared by several parents is analysed once)."""
    free: dict[int, tuple[str, ...]] = {}
    temporal: dict[int, bool] = {}
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in free:
            continue
        kids = ast.children(node)
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in kids if id(c) not in free)
            continue
        if isinstance(node, Atom):
            fv = {t.name for t in node.args if isinstance(t, Var)}
        else:
            fv = set().union(*(free[id(c)] for c in kids))
            fv -= {b.var for b in ast.binders(node)}
        free[id(node)] = tuple(sorted(fv))
        temporal[id(node)] = isinstance(node, ast.Then) or any(temporal[id(c)] for c in kids)
    return _Info(free, temporal)
