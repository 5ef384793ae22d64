"""Derived predicates (PDDL 2.2 axioms): which predicate reads which, and in what order
they can be evaluated.

PDDL 2.2 gives a set of ``:derived`` rules the meaning of the *stratified least
fixpoint*: predicates are split into strata such that a predicate reads the predicates of
its own stratum only positively and the negation of lower strata only; each stratum is
then the least fixpoint of its rules over the strata below. Here the strata are the
strongly connected components of the dependency graph, in dependency order; a component
that reads one of its own predicates negatively (under ``not``, in the antecedent of an
``imply``) has no such reading: the program is unstratifiable, and the message names the
cycle.

Everything is iterative (a 5,000-long chain of rules is read and ordered without
recursion); the graph is small, so strongly connected components are computed here
(Tarjan's algorithm, iterative) instead of importing networkx on ``verify``'s start-up
path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from planproof.ltl.ast import And, Atom, Exists, Forall, Formula, Implies, Not, Or
from planproof.pddl.schema import Derived


class UnstratifiableError(ValueError):
    """Derived predicates that read each other through a negation (no stratified
    reading exists); ``cycle`` lists the predicates around one such cycle, the first
    repeated at the end."""

    def __init__(self, message: str, cycle: tuple[str, ...]) -> None:
        super().__init__(message)
        self.cycle = cycle


@dataclass(frozen=True)
class Strata:
    """The components of the derived predicates in evaluation order (each one reads
    only itself and earlier ones); ``recursive`` maps each predicate of a component that
    needs a fixpoint (more than one predicate, or one reading itself) to its index."""

    components: tuple[tuple[str, ...], ...]
    recursive: Mapping[str, int]


def dependencies(derived: Mapping[str, Derived]) -> dict[str, dict[str, bool]]:
    """For each derived predicate, the derived predicates its rules read, with ``True``
    when some reading is negative."""
    out: dict[str, dict[str, bool]] = {}
    for name, d in derived.items():
        uses: dict[str, bool] = {}
        for rule in d.rules:
            for pred, negative in _polar_atoms(rule.condition):
                if pred in derived:
                    uses[pred] = uses.get(pred, False) or negative
        out[name] = uses
    return out


def _polar_atoms(f: Formula) -> list[tuple[str, bool]]:
    """Every atom's predicate in ``f`` with ``True`` when it occurs negatively."""
    out: list[tuple[str, bool]] = []
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        x, neg = stack.pop()
        match x:
            case Atom(pred, _):
                out.append((pred, neg))
            case Not(body):
                stack.append((body, not neg))
            case And(cs) | Or(cs):
                stack.extend((c, neg) for c in cs)
            case Implies(a, b):
                stack.extend(((a, not neg), (b, neg)))
            case Exists(_, body) | Forall(_, body):
                stack.append((body, neg))
    return out


def stratify(derived: Mapping[str, Derived]) -> Strata:
    """The evaluation order of ``derived``; raises :class:`UnstratifiableError` when a
    component reads one of its own predicates negatively."""
    deps = dependencies(derived)
    components = _components(deps)
    recursive: dict[str, int] = {}
    for i, comp in enumerate(components):
        members = set(comp)
        for p in comp:
            for q, negative in deps[p].items():
                if q in members and negative:
                    cycle = _cycle(deps, members, p, q)
                    shown = " -> ".join(cycle)
                    raise UnstratifiableError(
                        f"derived predicates cannot be stratified: {p} reads (not {q}) and "
                        f"{q} depends on {p} (cycle {shown}); PDDL 2.2 allows negation of "
                        "lower strata only",
                        cycle,
                    )
        if len(comp) > 1 or comp[0] in deps[comp[0]]:
            recursive.update(dict.fromkeys(comp, i))
    return Strata(tuple(components), recursive)


def _cycle(
    deps: Mapping[str, Mapping[str, bool]], members: set[str], p: str, q: str
) -> tuple[str, ...]:
    """A cycle ``p -> q -> ... -> p`` inside one component (breadth-first from q)."""
    if p == q:
        return (p, p)
    back: dict[str, str] = {q: p}
    frontier = [q]
    while frontier and p not in back:
        nxt: list[str] = []
        for x in frontier:
            for y in sorted(deps[x]):
                if y in members and y not in back:
                    back[y] = x
                    nxt.append(y)
        frontier = nxt
    path = [p]
    x = back[p]
    while x != q:
        path.append(x)
        x = back[x]
    path.extend((q, p))
    path.reverse()
    return tuple(path)


def _components(deps: Mapping[str, Mapping[str, bool]]) -> list[tuple[str, ...]]:
    """Strongly connected components in dependency order (a component after every
    component it reads): Tarjan's algorithm with an explicit stack."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[tuple[str, ...]] = []
    counter = 0
    for root in sorted(deps):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(deps[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, todo = work[-1]
            if todo:
                w = todo.pop()
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, sorted(deps[w])))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(tuple(sorted(comp)))
    return out
