"""Running an evaluation function over a state trace: first-satisfaction times, dependency
gating, constraint invalidation, percent complete, success and failure explanations.

The algorithm is the reference code's (seed §1.6), step for step:

* number-``n`` propositions are unrolled into ``n`` propositions (partial credit);
* at step ``t`` a proposition is evaluated only if every dependency that lists it holds
  of the *recorded* results of steps ``0 .. t-1`` (an unevaluated proposition records
  False); its first satisfied step is latched;
* each constraint marks propositions invalid; a proposition counts iff it was satisfied
  and no constraint invalidates it; percent complete is the fraction that count, success
  is percent complete = 1.

Where planproof departs from the reference code (counting, tie values) it says so in
docs/partnr.md §3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from planproof.ltl.trace import State
from planproof.simulators.partnr.errors import TraceFormatError
from planproof.simulators.partnr.model import (
    Dependency,
    EvaluationFunction,
    Proposition,
    TemporalConstraint,
    TerminalConstraint,
    TieConstraint,
    dag_ancestors,
    signatures,
)
from planproof.simulators.partnr.predicates import Checker, Result, checker, evaluate_proposition

FailureKind = Literal["missing", "out_of_order", "undone", "wrong_entity", "same_entity"]


@dataclass(frozen=True, slots=True)
class Failure:
    """One reason a proposition does not count, in words a person can act on."""

    kind: FailureKind
    proposition: int
    message: str
    related: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "proposition": self.proposition,
            "message": self.message,
            "related": list(self.related),
        }


@dataclass(frozen=True)
class EvaluationResult:
    """The outcome of one episode trace (over the unrolled propositions)."""

    function: EvaluationFunction  # unrolled
    satisfied_at: tuple[int, ...]
    valid: tuple[tuple[bool, ...], ...]  # one row per constraint
    final: tuple[bool, ...]  # recorded results in the final state
    failures: tuple[Failure, ...] = field(default=())
    steps: int = 0

    @property
    def counted(self) -> tuple[bool, ...]:
        """Satisfied and not invalidated by any constraint."""
        return tuple(
            s != -1 and all(row[i] for row in self.valid) for i, s in enumerate(self.satisfied_at)
        )

    @property
    def percent_complete(self) -> float:
        c = self.counted
        return sum(c) / len(c) if c else 0.0

    @property
    def success(self) -> bool:
        return bool(self.counted) and all(self.counted)

    @property
    def explanation(self) -> str:
        """The reference code's failure text: missing steps first, else broken
        constraints; the empty string on success."""
        if self.success:
            return ""
        missing = _unique(f.message for f in self.failures if f.kind == "missing")
        broken = _unique(f.message for f in self.failures if f.kind != "missing")
        if not self.satisfied_at:
            return "Episode failed. The evaluation function has no propositions."
        if missing:
            text = "Episode failed. Missing steps:\n" + "\n".join(f" - {m}" for m in missing)
            if broken:
                text += "\nConstraints were also broken:\n" + "\n".join(f" - {m}" for m in broken)
            return text
        return "Episode failed. All steps were completed, but constraints were broken:\n" + (
            "\n".join(f" - {m}" for m in broken)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "percent_complete": self.percent_complete,
            "satisfied_at": list(self.satisfied_at),
            "counted": list(self.counted),
            "steps": self.steps,
            "failures": [f.to_dict() for f in self.failures],
            "explanation": self.explanation,
        }


def _unique(items: Any) -> list[str]:
    out: list[str] = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


class Evaluator:
    """Evaluates one evaluation function on many traces; the unrolled function, the
    dependency index and the temporal ancestors are computed once."""

    def __init__(self, function: EvaluationFunction, *, unroll: bool = True) -> None:
        self.function = function.unrolled() if unroll else function
        ev = self.function
        self.n = len(ev.propositions)
        gates: list[list[int]] = [[] for _ in range(self.n)]
        for j, d in enumerate(ev.dependencies):
            for i in d.proposition_indices:
                gates[i].append(j)
        self.gates = tuple(tuple(g) for g in gates)
        self.ancestors = tuple(
            dag_ancestors(c.edges) if isinstance(c, TemporalConstraint) else {}
            for c in ev.constraints
        )

    def run(self, states: Sequence[State], *, explain: bool = True) -> EvaluationResult:
        if not states:
            raise TraceFormatError("a trace needs at least the initial state")
        ev = self.function
        props = ev.propositions
        deps = ev.dependencies
        n = self.n
        sat_at = [-1] * n
        first_values: list[tuple[frozenset[str], ...]] = [()] * n
        ever = [False] * n
        fell = [False] * n
        last = [False] * n
        checks: list[Checker] = [checker(p) for p in props]
        cache: list[dict[State, Result]] = [{} for _ in range(n)]
        for t, s in enumerate(states):
            ok = [_dependency_holds(d, last, ever, fell) for d in deps]
            rec = [False] * n
            for i in range(n):
                if not all(ok[j] for j in self.gates[i]):
                    continue
                r = cache[i].get(s)
                if r is None:
                    r = cache[i][s] = checks[i](s)
                if r.satisfied:
                    rec[i] = True
                    if sat_at[i] == -1:
                        sat_at[i] = t
                        first_values[i] = r.values
            for i in range(n):
                if last[i] and not rec[i]:
                    fell[i] = True
                if rec[i]:
                    ever[i] = True
            last = rec
        valid, failures = self._constraints(sat_at, first_values, last, explain)
        result = EvaluationResult(ev, tuple(sat_at), valid, tuple(last), (), len(states))
        if explain:
            failures = self._missing(result, states) + failures
            result = EvaluationResult(
                ev, tuple(sat_at), valid, tuple(last), tuple(failures), len(states)
            )
        return result

    def _constraints(
        self,
        sat_at: list[int],
        values: list[tuple[frozenset[str], ...]],
        final: list[bool],
        explain: bool,
    ) -> tuple[tuple[tuple[bool, ...], ...], list[Failure]]:
        """One validity row per constraint, and the failures it explains."""
        rows: list[tuple[bool, ...]] = []
        failures: list[Failure] = []
        for c, anc in zip(self.function.constraints, self.ancestors, strict=True):
            row = [True] * self.n
            match c:
                case TemporalConstraint():
                    self._temporal(anc, sat_at, row, failures)
                case TerminalConstraint(ix):
                    self._terminal(ix, sat_at, final, row, failures)
                case TieConstraint():
                    self._tie(c, sat_at, values, row, failures)
            rows.append(tuple(row))
        return tuple(rows), failures if explain else []

    def _temporal(
        self,
        ancestors: dict[int, frozenset[int]],
        sat_at: list[int],
        row: list[bool],
        out: list[Failure],
    ) -> None:
        """Invalid: an ancestor never satisfied, or first satisfied at the same step or
        later (strict comparison, as the reference code)."""
        ev, d = self.function, describe
        for node, before in ancestors.items():
            if not before:
                continue
            never = sorted(a for a in before if sat_at[a] == -1)
            if never:
                row[node] = False
                if sat_at[node] != -1:
                    out.append(Failure(
                        "out_of_order", node,
                        f"Steps were completed out of order: {d(ev, node)} was done, but "
                        "what must come before it never was: " + "; ".join(d(ev, a) for a in never),
                        tuple(never),
                    ))  # fmt: skip
                continue
            if sat_at[node] <= max(sat_at[a] for a in before):
                row[node] = False
                late = sorted(a for a in before if sat_at[a] >= sat_at[node])
                after = "; ".join(f"{d(ev, a)} (step {sat_at[a]})" for a in late)
                out.append(Failure(
                    "out_of_order", node,
                    f"Steps were completed out of order: {d(ev, node)} (step {sat_at[node]}) "
                    f"should have been completed after: {after}",
                    tuple(late),
                ))  # fmt: skip

    def _terminal(
        self,
        ix: tuple[int, ...],
        sat_at: list[int],
        final: list[bool],
        row: list[bool],
        out: list[Failure],
    ) -> None:
        """Invalid: satisfied at some point, but not recorded true in the final state."""
        for i in ix:
            if sat_at[i] != -1 and not final[i]:
                row[i] = False
                out.append(Failure(
                    "undone", i,
                    f"Completed steps were later undone: {describe(self.function, i)} held at "
                    f"step {sat_at[i]} but no longer holds at the end",
                ))  # fmt: skip

    def _tie(
        self,
        c: TieConstraint,
        sat_at: list[int],
        values: list[tuple[frozenset[str], ...]],
        row: list[bool],
        out: list[Failure],
    ) -> None:
        """Satisfied members in order of first satisfaction; the first one's entities are
        the pivot. Same: a later member sharing no entity with the pivot is invalid.
        Different: a later member sharing one with any earlier member is invalid."""
        ev, d = self.function, describe
        ix, args = c.proposition_indices, c.arg_indices
        done = sorted((sat_at[i], k) for k, i in enumerate(ix) if sat_at[i] != -1)
        if len(done) < 2:
            return
        header = tie_header(ev, c)
        k0 = done[0][1]
        pivot = values[ix[k0]][args[k0]]
        seen: list[tuple[int, frozenset[str]]] = [(ix[k0], pivot)]
        for _, k in done[1:]:
            i = ix[k]
            v = values[i][args[k]]
            if c.different:
                clash = [(j, w) for j, w in seen if v & w]
                if clash:
                    row[i] = False
                    j, w = clash[0]
                    out.append(Failure(
                        "same_entity", i,
                        f"{header}: {d(ev, i)} used {_names(v & w)}, already used by {d(ev, j)}",
                        (j,),
                    ))  # fmt: skip
                seen.append((i, v))
            elif not v & pivot:
                row[i] = False
                out.append(Failure(
                    "wrong_entity", i,
                    f"{header}: {d(ev, i)} used {_names(v)}, "
                    f"but {d(ev, ix[k0])} used {_names(pivot)}",
                    (ix[k0],),
                ))  # fmt: skip

    def _missing(self, result: EvaluationResult, states: Sequence[State]) -> list[Failure]:
        ev = self.function
        out: list[Failure] = []
        for i, s in enumerate(result.satisfied_at):
            if s != -1:
                continue
            msg = describe_proposition(ev.propositions[i], "should be")
            if self.gates[i]:
                held = next(
                    (
                        t
                        for t, st in enumerate(states)
                        if evaluate_proposition(ev.propositions[i], st).satisfied
                    ),
                    -1,
                )
                if held != -1:
                    conds = "; ".join(
                        _dependency_words(ev, ev.dependencies[j]) for j in self.gates[i]
                    )
                    msg += f" (it held at step {held}, but it only counts {conds})"
            out.append(Failure("missing", i, msg))
        return out


def _dependency_holds(d: Dependency, last: list[bool], ever: list[bool], fell: list[bool]) -> bool:
    match d.relation:
        case "while_satisfied":
            vals = [last[k] for k in d.depends_on]
        case "after_satisfied":
            vals = [ever[k] for k in d.depends_on]
        case "after_unsatisfied":
            vals = [fell[k] for k in d.depends_on]
        case _:
            vals = [not ever[k] for k in d.depends_on]
    return all(vals) if d.mode == "all" else any(vals)


def evaluate_trace(
    function: EvaluationFunction, states: Sequence[State], *, explain: bool = True
) -> EvaluationResult:
    """Evaluate ``function`` on the states ``s_0 .. s_n`` of one episode."""
    return Evaluator(function).run(states, explain=explain)


# --- words -----------------------------------------------------------------------------

_PHRASES = {
    "is_on_top": "on top of",
    "is_inside": "inside",
    "is_in_room": "in",
    "is_next_to": "next to",
}
_STATE_WORDS = {
    "is_clean": "clean",
    "is_dirty": "dirty",
    "is_filled": "filled",
    "is_empty": "empty",
    "is_powered_on": "powered on",
    "is_powered_off": "powered off",
    "is_on_floor": "on the floor",
}


def _choice(group: Sequence[str]) -> str:
    return group[0] if len(group) == 1 else "one of (" + ", ".join(group) + ")"


def _names(vals: frozenset[str]) -> str:
    return ", ".join(sorted(vals)) or "nothing"


_OBJECT_ARGS = frozenset({"object_handles", "entity_handles_a", "*args"})


def tie_header(ev: EvaluationFunction, c: TieConstraint) -> str:
    """The reference's heading for a broken same- or different-argument constraint
    (``failure_explanations.arg_msg``): *object* wording when any member constrains an
    object argument, else *room* for ``room_ids``, else *furniture*. planproof also counts
    ``is_clustered``'s ``*args`` as objects (the reference says "furniture" there)."""
    names = set()
    for i, k in zip(c.proposition_indices, c.arg_indices, strict=True):
        sig = signatures()[ev.propositions[i].function]
        names.add(sig.entity_args[0] if sig.variadic else sig.entity_args[k])
    if names & _OBJECT_ARGS:
        if c.different:
            return "Different objects should have been used for the following placements"
        return "The same object should have been used for the following placements"
    room = "room_ids" in names
    if c.different:
        return f"Placements should have been made with different {'rooms' if room else 'furniture'}"
    return f"Placements should have been made with the same {'room' if room else 'furniture'}"


def describe_proposition(p: Proposition, verb: str = "") -> str:
    """``plate_1 on top of table_1``, ``2 of (cup_1, cup_2, cup_3) filled`` ...; with
    ``verb="should be"``: ``plate_1 should be on top of table_1``."""
    first = p.groups[0]
    n = p.count
    v = f" {verb}" if verb else ""
    subject = _choice(first) if n == 1 else f"{n} of ({', '.join(first)})"
    if p.function in _STATE_WORDS:
        return f"{subject}{v} {_STATE_WORDS[p.function]}"
    if p.function in _PHRASES:
        where = _choice(p.groups[1])
        same = " (all the same one)" if p.same and n > 1 else ""
        return f"{subject}{v} {_PHRASES[p.function]} {where}{same}"
    counts = p.number if isinstance(p.number, tuple) else (p.number,) * len(p.groups)
    parts = [
        (_choice(g) if k == 1 else f"{k} of ({', '.join(g)})")
        for g, k in zip(p.groups, counts, strict=True)
    ]
    return ", ".join(parts) + f"{v} next to each other"


def describe(ev: EvaluationFunction, i: int) -> str:
    return describe_proposition(ev.propositions[i])


def _dependency_words(ev: EvaluationFunction, d: Dependency) -> str:
    what = (" and " if d.mode == "all" else " or ").join(describe(ev, k) for k in d.depends_on)
    return {
        "while_satisfied": f"while {what} holds",
        "after_satisfied": f"after {what} has held",
        "after_unsatisfied": f"after {what} held and stopped holding",
        "before_satisfied": f"before {what} has held",
    }[d.relation]
