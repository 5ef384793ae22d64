"""Decide the state fragment with Z3: satisfiability, entailment and equivalence.

A ``then``-free, action-free formula talks about one state, i.e. one set of true ground
atoms. Grounding its quantifiers over a finite :class:`~planproof.ltl.trace.Universe` turns
it into propositional logic with cardinality constraints, which Z3's SAT core with native
pseudo-Boolean support (``QF_FD``) decides quickly:

* every ground atom is a Z3 Bool; ``forall``/``exists`` become ``and``/``or`` over the
  binder's domain (``universe.of_type``); ``forn n`` is ``PbEq`` (exactly n);
* ``forpairs``/``fornpairs`` hold iff the bipartite graph of pairs of *distinct* objects
  satisfying the body has a matching of size k (``min(|T1|, |T2|)``, resp. the count). Each
  ground occurrence gets a fresh Bool ``t`` and definitional side constraints:
  ``t → matching`` with matching variables ``m_xy → body(x, y)``, at most one per row and
  per column, and at least k in all (said row by row when k is the size of a side);
  ``¬t → cover``: by König's theorem no matching of size k exists iff a vertex cover of
  size k - 1 does (``body(x, y) → c_x ∨ d_y``). Both sides are existential, so the encoding
  is exact under negation and inside ``forn``; each side is only emitted for the polarity
  in which the occurrence is used.

Known limit: proving that *no* matching exists where the pairs leave no slack (e.g. that a
perfect n × n pairing entails ``forpairs``) is a pigeonhole argument, exponential for
Z3's clause learning; it takes milliseconds to 16 × 16 and exhausts a budget (``budget``)
around 32 × 32 (``benchmarks/bench_smt.py``). BEHAVIOR's pair quantifiers range over a
handful of objects.

Every query is bounded by a *resource budget*, Z3's deterministic ``rlimit`` count (the
work its solvers and tactics do), never by wall-clock time: a query that finishes in half a
second on an idle machine could time out at load 17, and a verdict must not depend on the
machine's load. The same query with the same budget gets the same answer on every machine
and under any load (same Z3 version). A query that spends its budget is reported as
``budget`` (``unknown`` is True, ``reason`` is ``"budget"``), never as a verdict. The
default, :data:`DEFAULT_RLIMIT`, is calibrated in ``benchmarks/bench_smt_budget.py``.

Z3 is imported lazily (``_z3``) so that commands which never decide anything, such as
``planproof ltl parse``, do not pay for loading it. Each thread uses its own Z3 context
and each call its own solver, so calls are independent and safe to run from several
threads.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from planproof.boundary import check_rlimit
from planproof.boundary.limits import DEFAULT_RLIMIT, RLIMIT_PER_SECOND
from planproof.boundary.options import rlimit_for_seconds
from planproof.ltl import ast
from planproof.ltl.ast import Atom, Const, Formula, Var
from planproof.ltl.errors import GroundingError, GroundingLimitError, UnsupportedFormulaError
from planproof.ltl.printer import to_text
from planproof.ltl.trace import Universe

__all__ = [
    "BUDGET",
    "DEFAULT_RLIMIT",
    "MAX_DEPTH",
    "MAX_GROUND_SIZE",
    "RLIMIT_PER_SECOND",
    "EntailResult",
    "GroundingLimitError",
    "SatResult",
    "entails",
    "equivalent",
    "ground_size",
    "rlimit_for_seconds",
    "satisfiable",
]

BUDGET = "budget"
"""``reason`` of a result whose query spent its resource budget."""


MAX_GROUND_SIZE = 200_000
"""Most ground sub-formula instances (ground atoms, connectives, matching variables) a
query may create; above it the query fails fast instead of exhausting memory."""

MAX_DEPTH = 200
"""Deepest syntax tree accepted: the parser's own bound, and safely inside Python's recursion
limit for the encoder, which recurses (up to three frames) once per level."""

HEAVY_COUNT = 20_000
"""Above this ``n · min(k, n - k)`` for some cardinality constraint, queries use Z3's SMT
core instead of its SAT core (see ``_solve``); measured in ``benchmarks/bench_smt.py``."""


def _status(unknown: bool, reason: str) -> str:
    """The status of an undecided query (``budget`` or ``unknown``); "" when decided."""
    if not unknown:
        return ""
    return BUDGET if reason == BUDGET else "unknown"


@dataclass(frozen=True)
class SatResult:
    """Outcome of :func:`satisfiable`.

    ``sat`` is True only when Z3 found a witness; ``model`` is then the set of true atoms of
    that witness state, restricted to the ground atoms the formula and axioms mention
    (every other atom may be taken false). ``unknown`` is True when Z3 gave up; then
    ``sat`` is False and ``model`` None, and nothing has been proved either way. ``reason``
    says why: :data:`BUDGET` when the query spent its resource budget, otherwise Z3's own
    reason. ``work`` is the resource units Z3 spent (its ``rlimit count``): the same on
    every run of the same query.
    """

    sat: bool
    model: frozenset[Atom] | None = None
    unknown: bool = False
    reason: str = ""
    work: int = 0

    @property
    def status(self) -> str:
        """``sat``, ``unsat``, ``budget`` (the resource budget ran out) or ``unknown``."""
        return _status(self.unknown, self.reason) or ("sat" if self.sat else "unsat")


@dataclass(frozen=True)
class EntailResult:
    """Outcome of :func:`entails` and :func:`equivalent`.

    ``holds`` is True only when proved. When it is refuted, ``counterexample`` is a state
    (its true atoms, restricted to the atoms mentioned) that satisfies the axioms and the
    premise but not the conclusion (for :func:`equivalent`: a state on which the two
    formulas differ). ``unknown`` is True when Z3 gave up (``reason``, ``work``: as in
    :class:`SatResult`); then ``holds`` is False and there is no counterexample.
    ``bool(result)`` is ``holds``, so an unknown answer never reads as a proof.
    """

    holds: bool
    counterexample: frozenset[Atom] | None = None
    unknown: bool = False
    reason: str = ""
    work: int = 0

    @property
    def status(self) -> str:
        """``holds``, ``refuted``, ``budget`` (the resource budget ran out) or ``unknown``."""
        return _status(self.unknown, self.reason) or ("holds" if self.holds else "refuted")

    def __bool__(self) -> bool:
        return self.holds


def _z3() -> Any:
    """The z3 module, imported on first use (it costs tens of milliseconds to load)."""
    import z3  # deliberately lazy, see the module docstring

    return z3


# --------------------------------------------------------------------------- checks


def _free_vars_by_node(roots: Iterable[Formula]) -> dict[int, tuple[str, ...]]:
    """Free variables of every sub-formula, keyed by node id, computed without recursion."""
    out: dict[int, tuple[str, ...]] = {}
    for root in roots:
        stack: list[tuple[Formula, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if id(node) in out:
                continue
            if isinstance(node, Atom):
                names = {t.name for t in node.args if isinstance(t, Var)}
                out[id(node)] = tuple(sorted(names))
                continue
            kids = ast.children(node)
            if not done:
                stack.append((node, True))
                stack.extend((c, False) for c in kids)
                continue
            acc: set[str] = set()
            for c in kids:
                acc.update(out[id(c)])
            acc.difference_update(b.var for b in ast.binders(node))
            out[id(node)] = tuple(sorted(acc))
    return out


def _check(
    f: Formula, role: str, action_predicates: Collection[str], fv: dict[int, tuple[str, ...]]
) -> None:
    """Reject what the state fragment cannot express, with a message a person can act on."""
    if ast.depth(f) > MAX_DEPTH:
        raise GroundingLimitError(f"{role} nests deeper than {MAX_DEPTH}")
    for node in ast.walk(f):
        if isinstance(node, ast.Then):
            raise UnsupportedFormulaError(
                f"{role} contains 'then' ({_short(node)}); Z3 decides only then-free state "
                "formulas — evaluate temporal goals on traces instead"
            )
        if isinstance(node, Atom) and node.pred in action_predicates:
            raise UnsupportedFormulaError(
                f"{role} mentions the action {_short(node)}; Z3 decides only state formulas"
            )
        if isinstance(node, ast.ForPairs | ast.ForNPairs):
            b1, b2 = ast.binders(node)
            if b1.var == b2.var:
                raise GroundingError(f"{role} binds '{b1.var}' twice in {_short(node)}")
    free = fv[id(f)]
    if free:
        names = ", ".join(free)
        raise GroundingError(f"{role} has free variable(s) {names}: {_short(f)}")


def _short(f: Formula, width: int = 80) -> str:
    text = to_text(f)
    return text if len(text) <= width else text[: width - 3] + "..."


def ground_size(
    formulas: Iterable[Formula], universe: Universe, *, limit: int | None = None
) -> int:
    """Number of ground sub-formula instances encoding ``formulas`` creates.

    A node is encoded once per assignment of its *free* variables (sub-formulas that do not
    depend on a loop variable are shared), plus one unit per quantifier iteration and three
    per candidate pair of a pair quantifier. Stops counting once ``limit`` is exceeded.
    """
    roots = tuple(formulas)
    return _ground_size(roots, universe, _free_vars_by_node(roots), limit)


def _ground_size(
    roots: Sequence[Formula],
    universe: Universe,
    fv: dict[int, tuple[str, ...]],
    limit: int | None,
) -> int:
    sizes: dict[str | None, int] = {}

    def domain(t: str | None) -> int:
        if t not in sizes:
            sizes[t] = len(universe.of_type(t))
        return sizes[t]

    total = 0
    for root in roots:
        stack: list[tuple[Formula, dict[str, int]]] = [(root, {})]
        while stack:
            node, scope = stack.pop()
            instances = 1
            for v in fv[id(node)]:
                instances *= scope.get(v, 1)
            inner = scope
            loop = 0
            match node:
                case ast.Forall(b, _) | ast.Exists(b, _) | ast.ForN(_, b, _):
                    loop = domain(b.type)
                    inner = {**scope, b.var: loop}
                case ast.ForPairs(b1, b2, _) | ast.ForNPairs(_, b1, b2, _):
                    n1, n2 = domain(b1.type), domain(b2.type)
                    loop = 3 * n1 * n2
                    inner = {**scope, b1.var: n1, b2.var: n2}
            total += instances * (1 + loop)
            if limit is not None and total > limit:
                return total
            stack.extend((c, inner) for c in ast.children(node))
    return total


# --------------------------------------------------------------------------- encoding


@dataclass
class _Encoder:
    """Grounds formulas into Z3 terms of one context; ``side`` collects the definitional
    constraints of pair quantifiers, which must be asserted alongside."""

    z3: Any
    ctx: Any
    universe: Universe
    fv: dict[int, tuple[str, ...]]
    atoms: dict[Atom, Any] = field(default_factory=dict)
    side: list[Any] = field(default_factory=list)
    _memo: dict[tuple[object, ...], Any] = field(default_factory=dict)
    _domains: dict[str | None, tuple[str, ...]] = field(default_factory=dict)
    _fresh: int = 0
    heaviest_count: int = 0
    """Largest ``n · min(k, n - k)`` of a cardinality constraint ``k of n``: roughly the
    clauses the SAT core's counting networks need for it."""

    def _weigh(self, n: int, k: int) -> None:
        self.heaviest_count = max(self.heaviest_count, n * max(0, min(k, n - k)))

    def domain(self, type_name: str | None) -> tuple[str, ...]:
        dom = self._domains.get(type_name)
        if dom is None:
            dom = self._domains[type_name] = self.universe.of_type(type_name)
        return dom

    def true(self) -> Any:
        return self.z3.BoolVal(True, self.ctx)

    def false(self) -> Any:
        return self.z3.BoolVal(False, self.ctx)

    def fresh(self, kind: str) -> Any:
        # "!" never occurs in atom variable names, so auxiliaries cannot collide with atoms
        self._fresh += 1
        return self.z3.Bool(f"!{kind}{self._fresh}", self.ctx)

    def atom(self, a: Atom) -> Any:
        var = self.atoms.get(a)
        if var is None:
            # numbered, not named after the atom: Z3 never frees a symbol, and the thread's
            # context lives as long as the thread, so names must come from a bounded set
            var = self.z3.Bool(f"a{len(self.atoms)}", self.ctx)
            self.atoms[a] = var
        return var

    # Connectives go through Z3's C API directly: z3.And/Or/Not/Implies re-check and
    # coerce every argument in Python, which dominated the encoding time.

    def conj(self, items: Sequence[Any]) -> Any:
        if not items:
            return self.true()
        return items[0] if len(items) == 1 else self._nary(self.z3.Z3_mk_and, items)

    def disj(self, items: Sequence[Any]) -> Any:
        if not items:
            return self.false()
        return items[0] if len(items) == 1 else self._nary(self.z3.Z3_mk_or, items)

    def neg(self, a: Any) -> Any:
        return self.z3.BoolRef(self.z3.Z3_mk_not(self.ctx.ref(), a.as_ast()), self.ctx)

    def implies(self, a: Any, b: Any) -> Any:
        raw = self.z3.Z3_mk_implies(self.ctx.ref(), a.as_ast(), b.as_ast())
        return self.z3.BoolRef(raw, self.ctx)

    def _nary(self, make: Any, items: Sequence[Any]) -> Any:
        args = (self.z3.Ast * len(items))(*(i.as_ast() for i in items))
        return self.z3.BoolRef(make(self.ctx.ref(), len(items), args), self.ctx)

    def encode(self, f: Formula, env: dict[str, str], pol: int) -> Any:
        """Z3 term for ``f`` under the variable assignment ``env``. ``pol`` is +1 / -1 when
        ``f`` only needs to be sound in a positive / negative position, 0 for both."""
        key = (id(f), pol, *(env.get(v) for v in self.fv[id(f)]))
        hit = self._memo.get(key)
        if hit is None:
            hit = self._encode(f, env, pol)
            self._memo[key] = hit
        return hit

    def _encode(self, f: Formula, env: dict[str, str], pol: int) -> Any:
        z3 = self.z3
        match f:
            case Atom(pred, args):
                return self.atom(Atom(pred, tuple(self._ground(t, f, env) for t in args)))
            case ast.Top():
                return self.true()
            case ast.Bottom():
                return self.false()
            case ast.Not(body):
                return self.neg(self.encode(body, env, -pol))
            case ast.And(cs):
                return self.conj([self.encode(c, env, pol) for c in cs])
            case ast.Or(cs):
                return self.disj([self.encode(c, env, pol) for c in cs])
            case ast.Implies(left, right):
                return self.implies(self.encode(left, env, -pol), self.encode(right, env, pol))
            case ast.Forall(b, body):
                return self.conj(self._instances(b, body, env, pol))
            case ast.Exists(b, body):
                return self.disj(self._instances(b, body, env, pol))
            case ast.ForN(n, b, body):
                items = self._instances(b, body, env, 0)
                if n > len(items):
                    return self.false()
                if not items:
                    return self.true()  # n == 0 over an empty domain
                self._weigh(len(items), n)
                return z3.PbEq([(e, 1) for e in items], n)
            case ast.ForPairs(b1, b2, _):
                k = min(len(self.domain(b1.type)), len(self.domain(b2.type)))
                return self._pairs(k, f, env, pol)
            case ast.ForNPairs(n, _, _, _):
                return self._pairs(n, f, env, pol)
            case ast.Then():
                raise UnsupportedFormulaError("'then' is outside the state fragment")
        raise TypeError(f"not a formula: {f!r}")

    def _ground(self, t: ast.Term, atom: Atom, env: dict[str, str]) -> Const:
        if isinstance(t, Const):
            return t
        if t.name not in env:
            raise GroundingError(f"free variable {t.name} in {to_text(atom)}")
        return Const(env[t.name])

    def _instances(self, b: ast.Binder, body: Formula, env: dict[str, str], pol: int) -> list[Any]:
        return [self.encode(body, {**env, b.var: o}, pol) for o in self.domain(b.type)]

    def _pairs(self, k: int, f: ast.ForPairs | ast.ForNPairs, env: dict[str, str], pol: int) -> Any:
        """A Bool ``t`` with ``t → a matching of size k exists`` (when needed positively) and
        ``¬t → a vertex cover of size k - 1 exists`` (when needed negatively)."""
        z3 = self.z3
        b1, b2, body = f.first, f.second, f.body
        xs, ys = self.domain(b1.type), self.domain(b2.type)
        if k == 0:
            return self.true()
        if k > min(len(xs), len(ys)):
            return self.false()
        edges: list[tuple[str, str, Any]] = []
        for x in xs:
            for y in ys:
                if x != y:
                    e = self.encode(body, {**env, b1.var: x, b2.var: y}, pol)
                    if not z3.is_false(e):
                        edges.append((x, y, e))
        t = self.fresh("pairs")
        if pol >= 0:  # t → matching of size k
            ms = [self.fresh("m") for _ in edges]
            rows: dict[str, list[Any]] = {}
            cols: dict[str, list[Any]] = {}
            for m, (x, y, e) in zip(ms, edges, strict=True):
                self.side.append(self.implies(m, e))
                rows.setdefault(x, []).append(m)
                cols.setdefault(y, []).append(m)
            for group in (*rows.values(), *cols.values()):
                if len(group) > 1:
                    self.side.append(z3.AtMost(*group, 1))
            # a matching of size k saturates every side of size k: say so row by row (and
            # column by column), which propagates far better than one big count and makes
            # "an apple in no jar" an immediate conflict instead of a pigeonhole search
            saturated = [self.disj(rows.get(x, [])) for x in xs] if k == len(xs) else []
            saturated += [self.disj(cols.get(y, [])) for y in ys] if k == len(ys) else []
            if saturated:
                enough = self.conj(saturated)
            else:
                self._weigh(len(ms), k)
                enough = z3.AtLeast(*ms, k) if len(ms) >= k else self.false()
            self.side.append(self.implies(t, enough))
        if pol <= 0 and edges:  # ¬t → vertex cover of size k - 1 (König)
            cover_x = {x: self.fresh("cx") for x in dict.fromkeys(x for x, _, _ in edges)}
            cover_y = {y: self.fresh("cy") for y in dict.fromkeys(y for _, y, _ in edges)}
            for x, y, e in edges:
                self.side.append(self.implies(e, self.disj([cover_x[x], cover_y[y]])))
            self._weigh(len(cover_x) + len(cover_y), k - 1)
            small = z3.AtMost(*cover_x.values(), *cover_y.values(), k - 1)
            self.side.append(self.implies(self.neg(t), small))
        return t


# --------------------------------------------------------------------------- queries


def _context(z3: Any) -> Any:
    """A fresh Z3 context for each query. Reusing one (per thread) saves about a
    millisecond, but Z3's choice of a satisfying model then depends on every earlier query
    of the process: the same goal got a different witness in a worker process than in a
    serial run. A fresh context makes the answer a function of the query alone, so results
    are the same on every executor (docs/scale-out.md).

    Built so that an interrupt (Ctrl-C) landing inside ``Context.__init__`` leaves an
    object z3's ``__del__`` can collect: z3 sets ``owner`` only at the end of ``__init__``,
    and a half-built context printed ``Exception ignored in: Context.__del__ ...
    'owner'`` on every interrupted run."""
    ctx = z3.Context.__new__(z3.Context)
    ctx.owner = False
    ctx.ctx = None
    ctx.eh = None
    ctx.__init__()
    return ctx


def _interrupted(solver: Any) -> bool:
    """Z3 catches SIGINT itself while it solves (its ``ctrl_c`` parameter) and answers
    ``unknown``: the user's Ctrl-C would be swallowed and read as an inconclusive query.
    The reason tells the two apart, so the interrupt reaches Python after all."""
    try:
        reason = str(solver.reason_unknown())
    except Exception:
        return False
    return "keyboard" in reason  # z3: "interrupted from keyboard"


def _work(solver: Any) -> int:
    """Resource units the last check spent (Z3's ``rlimit count`` statistic)."""
    try:
        return int(solver.statistics().get_key_value("rlimit count"))
    except Exception:  # z3 raises its own exception for a key it lacks
        return 0


def _reason(solver: Any, rlimit: int | None, work: int) -> str:
    """Why an ``unknown``: :data:`BUDGET` when the resource budget is spent (Z3 then says
    ``canceled``; no time limit is ever set, so nothing else cancels a query), else Z3's
    own reason."""
    try:
        reason = str(solver.reason_unknown())
    except Exception:
        reason = ""
    if rlimit is not None and (work >= rlimit or "cancel" in reason or "resource" in reason):
        return BUDGET
    return reason or "unknown"


@dataclass(frozen=True)
class _Outcome:
    status: str  # "sat" | "unsat" | "unknown"
    model: frozenset[Atom] | None
    reason: str = ""
    work: int = 0


def _budget(rlimit: int | None, timeout: float | None) -> int | None:
    """The resource budget of a query: a legacy ``timeout`` in nominal seconds turned into
    units (:func:`rlimit_for_seconds`) when one is given, else ``rlimit`` (units; None:
    unbounded)."""
    if timeout is not None:
        return rlimit_for_seconds(timeout)
    return None if rlimit is None else check_rlimit(rlimit)


def _solve(
    goal: Formula,
    universe: Universe,
    axioms: Sequence[Formula],
    *,
    rlimit: int | None,
    max_ground_size: int,
    action_predicates: Collection[str],
    roles: Sequence[tuple[str, Formula]],
) -> _Outcome:
    """Is ``goal`` (a combination of the caller's formulas) satisfiable with the axioms,
    within ``rlimit`` resource units (None: unbounded)?"""
    everything = (goal, *axioms)
    fv = _free_vars_by_node(everything)
    for role, f in (*roles, *((f"axiom {i}", ax) for i, ax in enumerate(axioms))):
        _check(f, role, action_predicates, fv)
    if _ground_size(everything, universe, fv, max_ground_size) > max_ground_size:
        raise GroundingLimitError(
            f"grounding over {len(universe)} objects needs more than {max_ground_size} "
            "instances; shrink the universe or the quantifier nesting, or raise max_ground_size"
        )
    z3 = _z3()
    ctx = _context(z3)
    enc = _Encoder(z3, ctx, universe, fv)
    assertions = [enc.encode(goal, {}, 1)]
    assertions += [enc.encode(ax, {}, 1) for ax in axioms]
    assertions += enc.side
    # Z3's finite-domain (SAT) core is 2-3x faster on typical goals, but compiles counts
    # into networks that grow with n·k; huge counts (forn 500 of 1000) go to the SMT core
    if enc.heaviest_count > HEAVY_COUNT:
        solver = z3.Solver(ctx=ctx)
    else:
        solver = z3.SolverFor("QF_FD", ctx=ctx)
    if rlimit is not None:  # a fresh context per query: the count starts at zero
        solver.set("rlimit", rlimit)
    solver.add(*assertions)
    verdict = solver.check()
    if verdict == z3.unknown and _interrupted(solver):
        raise KeyboardInterrupt
    work = _work(solver)
    if verdict == z3.unsat:
        return _Outcome("unsat", None, work=work)
    if verdict != z3.sat:
        return _Outcome("unknown", None, _reason(solver, rlimit, work), work)
    model = solver.model()
    true_atoms = frozenset(
        a for a, var in enc.atoms.items() if z3.is_true(model.eval(var, model_completion=True))
    )
    return _Outcome("sat", true_atoms, work=work)


def satisfiable(
    f: Formula,
    universe: Universe,
    axioms: Sequence[Formula] = (),
    *,
    rlimit: int | None = DEFAULT_RLIMIT,
    timeout: float | None = None,
    max_ground_size: int = MAX_GROUND_SIZE,
    action_predicates: Collection[str] = (),
) -> SatResult:
    """Is there a state in which ``f`` and every axiom hold?

    Quantifiers range over ``universe``; atoms naming objects outside it are still free
    propositions. Raises :class:`UnsupportedFormulaError` for ``then`` or for atoms whose
    predicate is in ``action_predicates``, :class:`GroundingError` for free variables and
    :class:`GroundingLimitError` when grounding exceeds ``max_ground_size``.

    ``rlimit`` is the query's resource budget in Z3 units (None: unbounded); ``timeout``,
    kept for old callers, is a budget given in nominal seconds (:func:`rlimit_for_seconds`)
    and replaces ``rlimit`` when given. Never a wall-clock limit.
    """
    out = _solve(
        f,
        universe,
        axioms,
        rlimit=_budget(rlimit, timeout),
        max_ground_size=max_ground_size,
        action_predicates=action_predicates,
        roles=(("formula", f),),
    )
    undecided = out.status == "unknown"
    return SatResult(out.status == "sat", out.model, undecided, out.reason, out.work)


def entails(
    f: Formula,
    g: Formula,
    universe: Universe,
    axioms: Sequence[Formula] = (),
    *,
    rlimit: int | None = DEFAULT_RLIMIT,
    timeout: float | None = None,
    max_ground_size: int = MAX_GROUND_SIZE,
    action_predicates: Collection[str] = (),
) -> EntailResult:
    """Does every state satisfying ``f`` and the axioms satisfy ``g``? Decided as the
    unsatisfiability of ``f ∧ ¬g``; a model of that is the counterexample."""
    return _valid_unless(
        ast.And((f, ast.Not(g))),
        universe,
        axioms,
        roles=(("premise", f), ("conclusion", g)),
        rlimit=_budget(rlimit, timeout),
        max_ground_size=max_ground_size,
        action_predicates=action_predicates,
    )


def equivalent(
    f: Formula,
    g: Formula,
    universe: Universe,
    axioms: Sequence[Formula] = (),
    *,
    rlimit: int | None = DEFAULT_RLIMIT,
    timeout: float | None = None,
    max_ground_size: int = MAX_GROUND_SIZE,
    action_predicates: Collection[str] = (),
) -> EntailResult:
    """Do ``f`` and ``g`` agree on every state satisfying the axioms? One query, for a
    state on which exactly one of them holds (the counterexample)."""
    return _valid_unless(
        ast.Or((ast.And((f, ast.Not(g))), ast.And((ast.Not(f), g)))),
        universe,
        axioms,
        roles=(("left formula", f), ("right formula", g)),
        rlimit=_budget(rlimit, timeout),
        max_ground_size=max_ground_size,
        action_predicates=action_predicates,
    )


def _valid_unless(
    counter: Formula,
    universe: Universe,
    axioms: Sequence[Formula],
    *,
    roles: tuple[tuple[str, Formula], ...],
    rlimit: int | None,
    max_ground_size: int,
    action_predicates: Collection[str],
) -> EntailResult:
    """The relation holds iff ``counter`` (a description of a counterexample) is unsat."""
    out = _solve(
        counter,
        universe,
        axioms,
        rlimit=rlimit,
        max_ground_size=max_ground_size,
        action_predicates=action_predicates,
        roles=roles,
    )
    undecided = out.status == "unknown"
    return EntailResult(out.status == "unsat", out.model, undecided, out.reason, out.work)
