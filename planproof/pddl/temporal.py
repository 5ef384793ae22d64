"""Temporal plans (PDDL 2.1 level 3: durative actions) checked with VAL's semantics.

A durative action is compiled into three classical operators that the sequential
validator (:mod:`planproof.pddl.validate`) already knows how to bind, evaluate and apply:
``NAME⏱start`` (the ``at start`` conditions and effects), ``NAME⏱end`` (``at end``) and
``NAME⏱inv`` (the ``over all`` conditions, no effect; ``NAME⏱cts`` holds the continuous
effects). ``?duration`` becomes the reserved 0-ary fluent ``(⏱duration)``, set to the
step's duration whenever one of its parts is evaluated. What the validator does with them
follows VAL (KCL-Planning/VAL, ``Plan.cpp``, ``Action.cpp``, ``Ownership.cpp``):

* a step ``t: (a x y) [d]`` makes a start point at ``t`` and an end point at ``t + d``;
  an ordinary ``:action`` makes one point at ``t``;
* points are sorted by time and grouped into *happenings*: a happening takes every point
  within ``tolerance / 10`` of its first one (VAL's grouping);
* a happening is checked on the state before it: every member's condition (``at start``,
  ``at end``, or an instantaneous action's precondition) and duration constraints
  (``=``: ``|d - v| < tolerance``; ``<=``: ``d - v <= tolerance``; ``>=``:
  ``v - d <= tolerance``; ``<``, ``>`` strict), then the members must not interfere (one
  adds or deletes an atom another reads or changes the other way, or changes a fluent
  another reads or assigns; two ``increase``/``decrease`` of one fluent commute), then all
  effects apply at once (deletions, additions, then numeric updates, every value read
  before the happening);
* after each happening the ``over all`` condition of every action still open (started,
  not ended) must hold: the state is constant until the next happening, so this checks
  the invariant over the open interval;
* the goal is judged after the last happening; the metric's ``total-time`` is the time of
  the last happening (the makespan), and VAL's "final value" is the metric's value, or
  without a metric the number of happenings.

Linear continuous effects (``(increase F (* #t RATE))``, ``RATE`` reading no fluent that
changes continuously) are checked exactly: the fluents move linearly between happenings,
conditions at a happening read the values reached, and an ``over all`` comparison (linear
in time, in a conjunction) is checked over the open interval from both ends. Non-linear
change and PDDL+ (``:process``, ``:event``) are refused by name (kind ``unsupported``).
Sizes are bounded: at most :data:`MAX_TEMPORAL_STEPS` steps.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from planproof.ltl import ast as la
from planproof.ltl.ast import And, Atom, Forall, Formula, Not, Or, Var
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head, sexpr_to_text
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.numeric import (
    ASSIGNMENTS,
    NUMERIC_PREFIX,
    BinOp,
    FluentRef,
    GroundFluent,
    NumericEffect,
    NumericError,
    NumExpr,
    combine,
    evaluate,
    fluent_text,
    ground_fluent,
)
from planproof.pddl.plan_io import read_plan_text
from planproof.pddl.reader import DomainFile, Problem, read_domain_file
from planproof.pddl.scanner import scan
from planproof.pddl.schema import (
    Add,
    Delete,
    Domain,
    Effect,
    ForallEffect,
    Operator,
    Param,
    When,
    all_effects,
)
from planproof.pddl.sexpr_io import read_expression
from planproof.pddl.validate import (
    GAtom,
    State,
    StepFailure,
    Task,
    Validation,
    _Bound,
    _collect,
    _Eval,
    bind,
    compile_task,
    gatom_text,
    judge,
)

DEFAULT_TOLERANCE = 0.01
"""VAL's default ``-t`` tolerance."""
MAX_TEMPORAL_STEPS = 100_000
"""Most steps of one temporal plan (each makes up to two points)."""
SNAP = "⏱"
"""Joins a durative action's name to its part (``move⏱start``): a symbol the name rule
allows (:mod:`planproof.pddl.scanner`) and no real domain uses, so no name clashes."""
DURATION = f"{SNAP}duration"
"""The reserved 0-ary fluent that stands for ``?duration``."""
_DUR_KEY: GroundFluent = (DURATION, ())
_SNAPS = ("start", "end", "inv")


class TemporalInputError(PDDLSyntaxError):
    """A temporal plan that cannot be read (a time or duration that is not a finite number)."""


@dataclass(frozen=True)
class DurationConstraint:
    """``(op ?duration value)``, checked ``at`` the start (default) or end point."""

    op: str
    value: NumExpr
    at: str
    text: str


@dataclass(frozen=True)
class DurativeAction:
    """What the snap operators do not hold: the parameters, the duration constraints."""

    name: str
    params: tuple[Param, ...]
    constraints: tuple[DurationConstraint, ...]


@dataclass(frozen=True)
class TemporalTask:
    """A temporal domain and problem compiled once (snap operators in ``task``)."""

    task: Task
    durative: Mapping[str, DurativeAction]
    changing: frozenset[str] = frozenset()
    """Functions some durative action changes continuously (``#t``)."""
    tils: tuple[TimedLiteral, ...] = ()
    """The problem's timed initial literals (PDDL 2.2)."""


@dataclass(frozen=True)
class TimedLiteral:
    """``(at TIME (p a))`` or ``(at TIME (not (p a)))`` in ``:init``."""

    time: float
    atom: Atom
    positive: bool

    @property
    def text(self) -> str:
        atom = "(" + " ".join([self.atom.pred, *(a.name for a in self.atom.args)]) + ")"
        return atom if self.positive else f"(not {atom})"


# --- reading the domain ------------------------------------------------------------------


def _err(message: str, at: SExpr | None, kind: str = "pddl") -> PDDLSyntaxError:
    line, col = (at.line, at.column) if at is not None else (1, 1)
    return PDDLSyntaxError(message, line=line, column=col, kind=kind)


def _timed(e: SExpr) -> tuple[str, SExpr] | None:
    """``(at start X)`` → ("start", X); ``(at end X)``, ``(over all X)`` likewise."""
    if not isinstance(e, SList) or len(e.items) != 3 or not isinstance(e.items[2], SList):
        return None
    a, b = e.items[0], e.items[1]
    if not isinstance(a, SAtom) or not isinstance(b, SAtom):
        return None
    key = (a.text, b.text)
    if key == ("at", "start"):
        return "start", e.items[2]
    if key == ("at", "end"):
        return "end", e.items[2]
    if key == ("over", "all"):
        return "inv", e.items[2]
    return None


def _split_condition(e: SExpr, action: str) -> dict[str, list[SExpr]]:
    out: dict[str, list[SExpr]] = {s: [] for s in _SNAPS}
    if isinstance(e, SList) and not e.items:
        return out
    parts = e.items[1:] if head(e) == "and" and isinstance(e, SList) else (e,)
    for p in parts:
        t = _timed(p)
        if t is None:
            raise _err(
                f"durative action {action}: condition {sexpr_to_text(p)[:80]} is not "
                "(at start ...), (over all ...) or (at end ...)",
                p,
                "bad-action",
            )
        out[t[0]].append(t[1])
    return out


def _mentions(e: SExpr, word: str) -> bool:
    if isinstance(e, SAtom):
        return e.text == word
    return any(_mentions(i, word) for i in e.items)


def _rate(e: SList, action: str) -> SExpr:
    """The rate of a linear continuous effect ``(increase F (* #t RATE))`` (or ``#t``
    alone, or ``(* RATE #t)``); anything else is refused."""
    value = e.items[2]
    if isinstance(value, SAtom) and value.text == "#t":
        return SAtom("1")
    if isinstance(value, SList) and head(value) == "*" and len(value.items) == 3:
        a, b = value.items[1], value.items[2]
        for t, r in ((a, b), (b, a)):
            if isinstance(t, SAtom) and t.text == "#t" and not _mentions(r, "#t"):
                return r
    raise _err(
        f"durative action {action}: continuous effect {sexpr_to_text(e)[:80]} is not "
        "(increase|decrease F (* #t RATE)): only linear change is supported",
        e,
        "unsupported",
    )


def _split_effect(e: SExpr, action: str) -> dict[str, list[SExpr]]:
    out: dict[str, list[SExpr]] = {"start": [], "end": [], "cts": []}
    if isinstance(e, SList) and not e.items:
        return out
    h = head(e)
    if (
        h in ("increase", "decrease")
        and isinstance(e, SList)
        and len(e.items) == 3
        and _mentions(e, "#t")
    ):
        out["cts"].append(SList((e.items[0], e.items[1], _rate(e, action))))
        return out
    if h == "and" and isinstance(e, SList):
        for p in e.items[1:]:
            for k, v in _split_effect(p, action).items():
                out[k].extend(v)
        return out
    t = _timed(e)
    if t is not None and t[0] in out:
        if _mentions(t[1], "#t"):
            raise _err(f"durative action {action}: #t inside (at {t[0]} ...)", e, "bad-action")
        out[t[0]].append(t[1])
        return out
    if h == "forall" and isinstance(e, SList) and len(e.items) == 3:
        for k, v in _split_effect(e.items[2], action).items():
            if v:
                out[k].append(SList((e.items[0], e.items[1], SList((SAtom("and"), *v)))))
        return out
    if h == "when" and isinstance(e, SList) and len(e.items) == 3:
        cond = _split_condition(e.items[1], action)
        eff = _split_effect(e.items[2], action)
        when_cond = {k for k, v in cond.items() if v}
        when_eff = {k for k, v in eff.items() if v}
        if cond["inv"] or eff["cts"] or len(when_cond | when_eff) > 1:
            raise _err(
                f"durative action {action}: a conditional effect whose condition and "
                "effect are at different times is not supported",
                e,
                "unsupported",
            )
        if when_eff:
            k = when_eff.pop()
            out[k].append(
                SList(
                    (SAtom("when"), SList((SAtom("and"), *cond[k])), SList((SAtom("and"), *eff[k])))
                )
            )
        return out
    raise _err(
        f"durative action {action}: effect {sexpr_to_text(e)[:80]} is not (at start ...) "
        "or (at end ...)",
        e,
        "bad-action",
    )


def _replace_duration(e: SExpr) -> SExpr:
    """``?duration`` → ``(⏱duration)``; ``(increase total-fuel-used 3)`` (a 0-ary fluent
    written without parentheses, as IPC 2002's zenotravel does) → ``(increase
    (total-fuel-used) 3)``."""
    if isinstance(e, SAtom):
        return SList((SAtom(DURATION),), e.line, e.column) if e.text == "?duration" else e
    items = tuple(_replace_duration(i) for i in e.items)
    if (
        head(e) in ASSIGNMENTS
        and len(items) == 3
        and isinstance(items[1], SAtom)
        and not items[1].text.startswith("?")
    ):
        items = (items[0], SList((items[1],), items[1].line, items[1].column), items[2])
    return SList(items, e.line, e.column, e.start, e.end)


def _fields(e: SList, kind: str) -> tuple[str, dict[str, SExpr]]:
    if len(e.items) < 2 or not isinstance(e.items[1], SAtom):
        raise _err(f"({kind} NAME ...) needs a name", e, "bad-action")
    name = e.items[1].text
    rest = e.items[2:]
    if len(rest) % 2:
        raise _err(f"{kind[1:]} {name}: keywords and values must alternate", e, "bad-action")
    fields: dict[str, SExpr] = {}
    for k, v in zip(rest[::2], rest[1::2], strict=True):
        if not isinstance(k, SAtom) or not k.text.startswith(":"):
            raise _err(f"{kind[1:]} {name}: expected a :keyword", k, "bad-action")
        fields[k.text] = v
    unknown = set(fields) - {":parameters", ":duration", ":condition", ":effect"}
    if unknown:
        raise _err(f"durative action {name}: unknown field {sorted(unknown)[0]}", e, "bad-action")
    return name, fields


def _snap(name: str, params: SExpr, pre: list[SExpr], eff: list[SExpr]) -> SList:
    return SList(
        (
            SAtom(":action"),
            SAtom(name),
            SAtom(":parameters"),
            params,
            SAtom(":precondition"),
            SList((SAtom("and"), *pre)),
            SAtom(":effect"),
            SList((SAtom("and"), *eff)),
        )
    )


def _durations(e: SExpr, action: str) -> list[tuple[str, str, SExpr, SExpr]]:
    """``:duration`` → [(at, op, value, where)]; untimed constraints are ``at start``
    (VAL's parser does the same)."""
    if isinstance(e, SList) and not e.items:
        return []
    if head(e) == "and" and isinstance(e, SList):
        return [d for p in e.items[1:] for d in _durations(p, action)]
    at = "start"
    t = _timed(e)
    if t is not None and t[0] != "inv":
        at, e = t
    if (
        isinstance(e, SList)
        and len(e.items) == 3
        and head(e) in ("=", "<=", ">=", "<", ">")
        and isinstance(e.items[1], SAtom)
        and e.items[1].text == "?duration"
    ):
        op = head(e)
        assert op is not None
        return [(at, op, e.items[2], e)]
    raise _err(
        f"durative action {action}: expected (OP ?duration VALUE) in :duration, got "
        f"{sexpr_to_text(e)[:80]}",
        e,
        "bad-action",
    )


def read_temporal_domain(text: str) -> tuple[DomainFile, dict[str, DurativeAction]]:
    """A domain with durative actions, read lower-cased: the classical domain with the
    snap operators of each durative action, and the durative actions' constraints.
    Processes, events and continuous effects raise :class:`PDDLSyntaxError` with kind
    ``unsupported``."""
    text = text.lower()
    items = scan(text)
    if len(items) != 1 or head(items[0]) != "define" or not isinstance(items[0], SList):
        raise _err("a PDDL domain is one (define ...) expression", None, "not-define")
    define = items[0]
    kept: list[SExpr] = []
    durations: dict[str, list[tuple[str, str, SExpr, SExpr]]] = {}
    has_functions = False
    for e in define.items:
        h = head(e)
        if h in (":process", ":event"):
            raise _err(
                f"{h} (PDDL+) is not supported: planproof validates durative actions "
                "(PDDL 2.1 level 3) but not processes or events",
                e,
                "unsupported",
            )
        if h == ":functions" and isinstance(e, SList):
            has_functions = True
            kept.append(SList((*e.items, SList((SAtom(DURATION),)))))
            continue
        if h != ":durative-action" or not isinstance(e, SList):
            kept.append(e)
            continue
        name, f = _fields(e, ":durative-action")
        if name in durations:
            raise _err(f"durative action {name} declared twice", e, "duplicate")
        params = f.get(":parameters", SList(()))
        cond = _split_condition(_replace_duration(f.get(":condition", SList(()))), name)
        eff = _split_effect(_replace_duration(f.get(":effect", SList(()))), name)
        if ":duration" not in f:
            raise _err(f"durative action {name}: :duration is missing", e, "bad-action")
        durations[name] = _durations(f[":duration"], name)
        kept.append(_snap(f"{name}{SNAP}start", params, cond["start"], eff["start"]))
        kept.append(_snap(f"{name}{SNAP}end", params, cond["end"], eff["end"]))
        kept.append(_snap(f"{name}{SNAP}inv", params, cond["inv"], []))
        kept.append(_snap(f"{name}{SNAP}cts", params, [], eff["cts"]))
    if not has_functions:
        kept.append(SList((SAtom(":functions"), SList((SAtom(DURATION),)))))
    df = read_domain_file(sexpr_to_text(SList(tuple(kept))))
    _check_linear(df.domain, durations)
    out: dict[str, DurativeAction] = {}
    for name, cons in durations.items():
        op = df.domain.operators[f"{name}{SNAP}start"]
        scope = frozenset(p.name for p in op.params)
        constraints = tuple(
            DurationConstraint(op_, read_expression(value, scope), at, sexpr_to_text(where))
            for at, op_, value, where in cons
        )
        out[name] = DurativeAction(name, op.params, constraints)
    return df, out


def compile_temporal(
    df: DomainFile,
    durative: Mapping[str, DurativeAction],
    problem: Problem,
    tils: Sequence[TimedLiteral] = (),
) -> TemporalTask:
    """Index a problem under a temporal domain (see :func:`validate.compile_task`)."""
    from dataclasses import replace

    if df.constants:
        problem = replace(problem, constants={**df.constants, **problem.constants})
    return TemporalTask(
        compile_task(df.domain, problem),
        dict(durative),
        _changing(df.domain, durative),
        tuple(sorted(tils, key=lambda t: t.time)),
    )


_TIL = re.compile(r"\(\s*at\s+[-+.\d]", re.IGNORECASE)


def split_timed_literals(text: str) -> tuple[str, tuple[TimedLiteral, ...]]:
    """A problem text without its timed initial literals, and the literals: the classical
    reader refuses them, the temporal check executes them at their times. Unchanged
    (and no literal) when there is none."""
    if not _TIL.search(text):
        return text, ()
    text = text.lower()
    items = scan(text)
    if len(items) != 1 or not isinstance(items[0], SList):
        return text, ()  # the problem reader names what is wrong
    out: list[TimedLiteral] = []
    sections: list[SExpr] = []
    for sec in items[0].items:
        if head(sec) != ":init" or not isinstance(sec, SList):
            sections.append(sec)
            continue
        kept: list[SExpr] = [sec.items[0]]
        for f in sec.items[1:]:
            til = _timed_literal(f)
            if til is None:
                kept.append(f)
            else:
                out.append(til)
        sections.append(SList(tuple(kept), sec.line, sec.column))
    return sexpr_to_text(SList(tuple(sections))), tuple(out)


def _timed_literal(f: SExpr) -> TimedLiteral | None:
    if not (isinstance(f, SList) and len(f.items) == 3 and head(f) == "at"):
        return None
    t, lit = f.items[1], f.items[2]
    if not isinstance(t, SAtom):
        return None
    try:
        time = float(t.text)
    except ValueError:
        return None
    if not math.isfinite(time) or time < 0:
        raise _err(f"timed initial literal at {t.text}: a time is a finite number >= 0", f,
                   "bad-init")  # fmt: skip
    positive = head(lit) != "not"
    if not positive and isinstance(lit, SList) and len(lit.items) == 2:
        lit = lit.items[1]
    if (
        not isinstance(lit, SList)
        or head(lit) is None
        or not all(isinstance(a, SAtom) for a in lit.items[1:])
    ):
        raise _err("expected (at TIME (p a ...)) or (at TIME (not (p a ...)))", f, "bad-init")
    pred = head(lit)
    assert pred is not None
    args = tuple(la.Const(a.text) for a in lit.items[1:] if isinstance(a, SAtom))
    return TimedLiteral(time, Atom(pred, args), positive)


def _changing(domain: Domain, durative: Iterable[str]) -> frozenset[str]:
    return frozenset(
        e.fluent.name
        for name in durative
        for e in all_effects(domain.operators[f"{name}{SNAP}cts"].effects)
        if isinstance(e, NumericEffect)
    )


def _names(e: NumExpr) -> set[str]:
    out: set[str] = set()
    _expr_fluents(e, _Any(), out)  # type: ignore[arg-type]
    return {g[0] for g in out}


class _Any(dict[str, str]):
    """An environment that binds every variable (to its own name): for reading which
    functions an expression names."""

    def __missing__(self, key: str) -> str:
        return key


def _degree(e: NumExpr, changing: frozenset[str]) -> int:
    """The degree in time of ``e`` when the ``changing`` functions change linearly."""
    if isinstance(e, FluentRef):
        return 1 if e.name in changing else 0
    if isinstance(e, BinOp):
        a, b = _degree(e.left, changing), _degree(e.right, changing)
        if e.op in "+-":
            return max(a, b)
        if e.op == "*":
            return a + b
        return a if b == 0 else 99
    return 0


def _check_linear(domain: Domain, durative: Iterable[str]) -> None:
    """Refuse what the exact linear treatment cannot check: a rate that reads a
    continuously changing function, an ``over all`` comparison that is not linear in
    time, or one under ``or`` / ``imply`` / ``exists`` / a negated formula."""
    changing = _changing(domain, durative)
    if not changing:
        return
    for name in durative:
        for e in all_effects(domain.operators[f"{name}{SNAP}cts"].effects):
            if isinstance(e, NumericEffect) and _names(e.value) & changing:
                raise _err(
                    f"durative action {name}: the rate of {e.fluent.name} reads a function "
                    "that changes continuously: non-linear change is not supported",
                    None,
                    "unsupported",
                )
        stack: list[tuple[Formula, bool]] = [
            (domain.operators[f"{name}{SNAP}inv"].precondition, True)
        ]
        while stack:
            f, plain = stack.pop()
            match f:
                case And(cs):
                    stack.extend((c, plain) for c in cs)
                case Forall(_, body):
                    stack.append((body, plain))
                case Not(Atom() as a):
                    stack.append((a, plain))
                case Atom() if f.pred.startswith(NUMERIC_PREFIX):
                    c = domain.numeric[f.pred]
                    both = BinOp("-", c.left, c.right)
                    if not _names(both) & changing:
                        continue
                    if not plain or _degree(both, changing) > 1:
                        raise _err(
                            f"durative action {name}: over all {f.pred[1:]} is not a linear "
                            "condition in a conjunction: not supported with continuous change",
                            None,
                            "unsupported",
                        )
                case Not(body) | la.Exists(_, body):
                    stack.append((body, False))
                case Or(cs):
                    stack.extend((c, False) for c in cs)
                case la.Implies(a, b):
                    stack.extend(((a, False), (b, False)))


# --- reading the plan --------------------------------------------------------------------


@dataclass(frozen=True)
class TimedStep:
    """One plan line: ``time: (name args) [duration]`` (1-based ``index`` in the plan)."""

    index: int
    time: float
    name: str
    args: tuple[str, ...]
    duration: float | None
    line: int


_NUMBER = r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|nan|inf(?:inity)?)"
_TIME = re.compile(
    rf"^\s*(?:(?:[*_>•]+|-(?=\s))\s*)*(?:step\s*)?({_NUMBER})\s*[*_]*\s*:", re.IGNORECASE
)
"""A time before the step: ``0.000:``, ``Step 0.5:``, markdown ``**0.5:**`` or ``- 0.5:``
(a bullet's dash is followed by a space; ``-1.0:`` is a negative time)."""
_DURATION = re.compile(r"\)\s*\[([^\]]*)\]")


def _number(text: str, what: str, line: int) -> float:
    try:
        v = float(text)
    except ValueError:
        raise TemporalInputError(
            f"{what} {text.strip()!r} is not a number", line=line, column=1, kind=f"bad-{what}"
        ) from None
    if not math.isfinite(v):
        raise TemporalInputError(
            f"{what} {text.strip()} is not a finite number", line=line, column=1, kind=f"bad-{what}"
        )
    return v


def read_temporal_plan(text: str) -> tuple[tuple[TimedStep, ...], tuple[str, ...]]:
    """The timed steps of a plan and the notes of the tolerant reading (prose, fences,
    markers skipped as in :func:`plan_io.read_plan_text`). A step without a time gets
    VAL's default (1, 2, 3, ... over the untimed steps); a time or duration that is not a
    finite number raises :class:`TemporalInputError`; steps are bounded by
    :data:`MAX_TEMPORAL_STEPS`."""
    pt = read_plan_text(text)
    if len(pt.steps) > MAX_TEMPORAL_STEPS:
        raise TemporalInputError(
            f"{len(pt.steps):,} steps, over the limit of {MAX_TEMPORAL_STEPS:,}",
            line=1,
            column=1,
            kind="too-large",
        )
    raw = text.splitlines()
    is_json = _is_json(text)
    per_line: dict[int, int] = {}
    for ln in pt.lines:
        per_line[ln] = per_line.get(ln, 0) + 1
    default = 1.0
    notes = list(pt.notes)
    out: list[TimedStep] = []
    for i, ((name, args), ln) in enumerate(zip(pt.steps, pt.lines, strict=True), start=1):
        source = "" if is_json or ln > len(raw) else raw[ln - 1].split(";", 1)[0]
        m = _TIME.match(source)
        if m and per_line[ln] > 1:
            raise TemporalInputError(
                "a timed plan has one step per line", line=ln, column=1, kind="bad-plan"
            )
        if m:
            time = _number(m.group(1), "time", ln)
        else:
            time, default = default, default + 1
            if not is_json:
                notes.append(f"line {ln}: no time before the step: time {time:g} (VAL's default)")
        d = _DURATION.search(source)
        duration = _number(d.group(1), "duration", ln) if d else None
        out.append(TimedStep(i, time, name.lower(), tuple(a.lower() for a in args), duration, ln))
    return tuple(out), tuple(notes)


def _is_json(text: str) -> bool:
    """Whether the plan is JSON (then it has no times), read as the plan reader does."""
    import json

    stripped = text.strip()
    if not stripped.startswith(("[", "{")):
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


# --- checking ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TemporalFailure:
    """Why the plan failed: the classical failure (step 1-based in plan order, action,
    kind, message, unmet parts) plus at which happening (time, 1-based number), which
    condition (``at start``, ``at end``, ``over all``, ``duration``, ``precondition``)
    and, for a ``mutex``, the other step."""

    base: StepFailure
    time: float | None = None
    happening: int | None = None
    condition: str = ""
    other_step: int | None = None
    other_action: str = ""

    @property
    def step(self) -> int:
        return self.base.step

    @property
    def action(self) -> str:
        return self.base.action

    @property
    def kind(self) -> str:
        return self.base.kind

    @property
    def message(self) -> str:
        return self.base.message

    def to_dict(self) -> dict[str, object]:
        return {
            **self.base.to_dict(),
            "time": self.time,
            "happening": self.happening,
            "condition": self.condition or None,
            "other_step": self.other_step,
            "other_action": self.other_action or None,
        }


def _fail(  # noqa: PLR0917 - one positional order for every call site
    step: int,
    action: str,
    kind: str,
    message: str,
    time: float | None = None,
    happening: int | None = None,
    condition: str = "",
    unmet: tuple[str, ...] = (),
    other_step: int | None = None,
    other_action: str = "",
) -> TemporalFailure:
    return TemporalFailure(
        StepFailure(step, action, kind, message, unmet),
        time, happening, condition, other_step, other_action,
    )  # fmt: skip


@dataclass(frozen=True)
class TemporalValidation:
    """The verdict on a temporal plan: the classical verdict's fields (``goal_holds`` is
    judged on the state the executed happenings reach) plus the happenings, the makespan,
    the tolerance and VAL's final value."""

    result: Validation
    failure: TemporalFailure | None
    happenings: int
    executed: int
    trace: tuple[dict[str, Any], ...]
    makespan: float
    tolerance: float
    final_value: float | None = None

    @property
    def valid(self) -> bool:
        return self.result.valid

    @property
    def goal_holds(self) -> bool:
        return self.result.goal_holds

    @property
    def unmet_goal(self) -> tuple[str, ...]:
        return self.result.unmet_goal

    def to_dict(self) -> dict[str, object]:
        return {
            **self.result.to_dict(),
            "executed": self.executed,
            "error": self.failure.to_dict() if self.failure else None,
            "final_value": self.final_value,
            "makespan": self.makespan,
            "happenings": self.happenings,
            "tolerance": self.tolerance,
            "temporal": True,
            "trace": list(self.trace),
        }


@dataclass(frozen=True)
class _Point:
    """A snap point: ``snap`` is ``start``, ``end`` or ``at`` (an instantaneous action)."""

    time: float
    snap: str
    step: TimedStep
    bound: _Bound
    text: str


def _step_text(s: TimedStep) -> str:
    return "(" + " ".join([s.name, *s.args]) + ")"


def _with_duration(state: State, d: float | None) -> State:
    if d is None:
        return state
    return State(state.atoms, {**state.values, _DUR_KEY: d})


_COND_NAME = {"start": "at start", "end": "at end", "at": "precondition", "til": "timed literal"}


def _check_duration(ev: _Eval, p: _Point, da: DurativeAction, tol: float) -> str | None:
    """The first duration constraint of ``da`` checked at ``p`` that fails, as text."""
    d = p.step.duration
    assert d is not None
    at = p.snap
    for c in da.constraints:
        if c.at != at:
            continue
        v = evaluate(c.value, p.bound.env, ev.state.values)
        ok = {
            "=": abs(d - v) < tol,
            "<=": d - v <= tol,
            ">=": v - d <= tol,
            "<": d < v,
            ">": d > v,
        }[c.op]
        if not ok:
            return f"{c.text} with ?duration = {d:g} (the bound is {v:g}, tolerance {tol:g})"
    return None


def _condition_failure(
    tt: TemporalTask, state: State, p: _Point, tol: float, where: tuple[float, int]
) -> TemporalFailure | None:
    s = p.step
    ev = _Eval(tt.task, _with_duration(state, s.duration))
    name = _step_text(s)
    time, number = where
    try:
        if p.snap in ("start", "end"):
            bad = _check_duration(ev, p, tt.durative[s.name], tol)
            if bad is not None:
                return _fail(
                    s.index, name, "duration", f"duration constraint of {name} unmet: {bad}",
                    time, number, "duration", (bad,),
                )  # fmt: skip
        pre = p.bound.op.precondition
        if ev.holds(pre, p.bound.env):
            return None
        unmet = tuple(ev.unmet(pre, p.bound.env))
    except NumericError as exc:
        kind = "undefined-value" if exc.kind == "undefined-fluent" else "arithmetic"
        return _fail(
            s.index, name, kind, f"{_COND_NAME[p.snap]} of {name}: {exc}", time, number,
            _COND_NAME[p.snap],
        )  # fmt: skip
    cond = _COND_NAME[p.snap]
    return _fail(
        s.index, name, cond.replace(" ", "-") if p.snap != "at" else "precondition",
        f"{cond if p.snap == 'at' else cond + ' condition'} of {name} unmet at time {time:g}: "
        f"{', '.join(unmet)}",
        time, number, cond, unmet,
    )  # fmt: skip


@dataclass
class _Use:
    """What one member of a happening reads and writes (VAL's ownership marks)."""

    reads: set[GAtom] = field(default_factory=set)
    adds: set[GAtom] = field(default_factory=set)
    dels: set[GAtom] = field(default_factory=set)
    fluent_reads: set[GroundFluent] = field(default_factory=set)
    fluent_writes: dict[GroundFluent, set[str]] = field(default_factory=dict)


def _expr_fluents(e: NumExpr, env: Mapping[str, str], out: set[GroundFluent]) -> None:
    stack: list[NumExpr] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, FluentRef):
            g = ground_fluent(x, env)
            if g != _DUR_KEY:
                out.add(g)
        elif isinstance(x, BinOp):
            stack.extend((x.left, x.right))


def _formula_reads(ev: _Eval, f: Formula, env: Mapping[str, str], use: _Use) -> None:
    stack: list[tuple[Formula, Mapping[str, str]]] = [(f, env)]
    while stack:
        x, e = stack.pop()
        match x:
            case Atom():
                if x.pred == "=":
                    continue
                if x.pred.startswith(NUMERIC_PREFIX):
                    c = ev.task.numeric[x.pred]
                    cenv = {
                        p: e[t.name] if isinstance(t, Var) else t.name
                        for p, t in zip(c.params, x.args, strict=True)
                    }
                    _expr_fluents(c.left, cenv, use.fluent_reads)
                    _expr_fluents(c.right, cenv, use.fluent_reads)
                else:
                    use.reads.add(ev.ground(x, e))
            case Not(body):
                stack.append((body, e))
            case And(cs) | Or(cs):
                stack.extend((c, e) for c in cs)
            case la.Implies(a, b):
                stack.extend(((a, e), (b, e)))
            case la.Exists(b, body) | Forall(b, body):
                stack.extend((body, {**e, b.var: o}) for o in ev.task.of_type(b.type))
            case la.Top() | la.Bottom():
                pass


def _interference(uses: Sequence[_Use]) -> tuple[int, int, str] | None:
    """The first pair of members that interfere (VAL's ownership rules): (the one that
    changes something, the other one, what each does with it). Work is linear in the
    members' marks: each atom and fluent is looked at once, with who touches it how."""
    marks: dict[GAtom, list[tuple[int, str]]] = {}
    fmarks: dict[GroundFluent, list[tuple[int, str]]] = {}
    for i, u in enumerate(uses):
        for g in u.reads:
            marks.setdefault(g, []).append((i, "reads"))
        for g in u.adds:
            marks.setdefault(g, []).append((i, "adds"))
        for g in u.dels:
            marks.setdefault(g, []).append((i, "deletes"))
        for f in u.fluent_reads:
            fmarks.setdefault(f, []).append((i, "reads"))
        for f, ops in u.fluent_writes.items():
            fmarks.setdefault(f, []).extend((i, op) for op in sorted(ops))
    best: tuple[int, int, str] | None = None

    def consider(x: int, y: int, what: str) -> None:
        nonlocal best
        if best is None or (max(x, y), min(x, y)) < (max(best[:2]), min(best[:2])):
            best = (x, y, what)

    def partner(i: int, among: dict[str, list[int]], roles: Sequence[str]) -> tuple[int, str]:
        """Another member than ``i`` in one of ``roles`` (-1 if none): the first two
        members of each role suffice, so this is constant work."""
        for r in roles:
            for j in among.get(r, [])[:2]:
                if j != i:
                    return j, r
        return -1, ""

    for g, ms in marks.items():
        by: dict[str, list[int]] = {}
        for i, did in ms:
            by.setdefault(did, []).append(i)
        for did, clash in (("adds", ("reads", "deletes")), ("deletes", ("reads", "adds"))):
            for i in by.get(did, [])[:2]:
                j, r = partner(i, by, clash)
                if j >= 0:
                    consider(i, j, f"{did} {gatom_text(g)}, which the other {r}")
    for f, ms in fmarks.items():
        by = {}
        for i, op in ms:
            by.setdefault(op, []).append(i)
        for op in ("assign", "scale-up", "scale-down", "increase", "decrease"):
            for i in by.get(op, [])[:2]:
                j, r = partner(i, by, ("reads",))
                if j >= 0:
                    consider(i, j, f"changes {fluent_text(f)}, which the other reads")
                others = [x for x in ("assign", "scale-up", "scale-down", "increase", "decrease")
                          if not {op, x} <= {"increase", "decrease"}]  # fmt: skip
                j, r = partner(i, by, others)
                if j >= 0:
                    consider(i, j, f"{op} {fluent_text(f)}, which the other also changes ({r})")
    return best


def _group(points: list[_Point], tol: float) -> list[list[_Point]]:
    out: list[list[_Point]] = []
    i = 0
    while i < len(points):
        first = points[i].time
        j = i
        while j < len(points) and points[j].time <= first + tol / 10:
            j += 1
        out.append(points[i:j])
        i = j
    return out


def validate_temporal(
    tt: TemporalTask, steps: Sequence[TimedStep], *, tolerance: float = DEFAULT_TOLERANCE
) -> TemporalValidation:
    """Check a temporal plan with VAL's semantics (see the module docstring)."""
    if not (math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance must be a positive finite number, got {tolerance}")
    task = tt.task
    points: list[_Point] = []
    failure: TemporalFailure | None = None
    for s in steps:
        text = _step_text(s)
        if s.time < 0:
            failure = _fail(s.index, text, "bad-time", f"step {s.index} starts at "
                                      f"{s.time:g}: a plan starts at time 0")  # fmt: skip
            break
        if s.name in tt.durative:
            if s.duration is None:
                failure = _fail(
                    s.index, text, "missing-duration",
                    f"{s.name} is a durative action: give its duration, [d] after the step",
                )  # fmt: skip
                break
            if s.duration < 0:
                failure = _fail(
                    s.index, text, "bad-duration", f"duration {s.duration:g} is negative"
                )
                break
            bs = [bind(task, s.index, (f"{s.name}{SNAP}{k}", s.args)) for k in _SNAPS[:2]]
            b0, b1 = bs
            if not isinstance(b0, _Bound) or not isinstance(b1, _Bound):
                bad = b0 if not isinstance(b0, _Bound) else b1
                assert not isinstance(bad, _Bound)
                failure = _fail(
                    s.index,
                    text,
                    bad.kind,
                    bad.message.replace(f"{SNAP}start", "").replace(f"{SNAP}end", ""),
                )
                break
            points.append(_Point(s.time, "start", s, b0, f"start {text}"))
            points.append(_Point(s.time + s.duration, "end", s, b1, f"end {text}"))
            continue
        if SNAP in s.name:
            b: _Bound | Any = None
        else:
            b = bind(task, s.index, (s.name, s.args))
        if not isinstance(b, _Bound):
            if b is None or b.kind == "unknown-action":
                failure = _fail(
                    s.index, text, "unknown-action", f"the domain has no action {s.name}"
                )
            else:
                failure = _fail(s.index, text, b.kind, b.message)
            break
        points.append(_Point(s.time, "at", s, b, text))
    if failure is not None:
        return _finish(tt, steps, task.initial_state(), failure=failure, tolerance=tolerance)
    plan_end = max((p.time for p in points), default=0.0)
    for k, til in enumerate(tt.tils, start=1):
        op = Operator(
            f"{SNAP}til{k}", (), la.TRUE, (Add(til.atom) if til.positive else Delete(til.atom),)
        )
        text = f"timed initial literal {til.text}"
        pseudo = TimedStep(0, til.time, f"{SNAP}til", (), None, 0)
        points.append(_Point(til.time, "til", pseudo, _Bound(op, {}, text), text))
    points.sort(key=lambda p: (p.time, p.step.index, p.snap != "start"))
    happenings = _group(points, tolerance)
    at_plan_end: State | None = None
    state = task.initial_state()
    open_: dict[int, _Point] = {}
    watch = _Watch()
    trace: list[dict[str, Any]] = []
    done = 0
    for n, members in enumerate(happenings, start=1):
        time = members[0].time
        if at_plan_end is None and time > plan_end:
            at_plan_end = state  # VAL's metric reads the state the plan's last point leaves
        for p in members:
            failure = _condition_failure(tt, state, p, tolerance, (time, n))
            if failure is not None:
                break
        if failure is not None:
            break
        try:
            after, uses, changes = _apply(tt, state, members)
        except NumericError as exc:
            p = members[0]
            failure = _fail(p.step.index, _step_text(p.step), "arithmetic",
                                      f"effect at time {time:g}: {exc}", time, n)  # fmt: skip
            break
        clash = _interference(uses) if len(members) > 1 else None
        if clash is not None:
            i, j, what = clash
            a, b2 = members[i], members[j]
            actor, other = (b2, a) if a.snap == "til" else (a, b2)
            failure = _fail(
                actor.step.index, _step_text(actor.step), "mutex",
                f"mutex at time {time:g}: {a.text} {what} ({b2.text}, at "
                f"{b2.time:g}: points within {tolerance / 10:g} of each other are one "
                "happening)",
                time, n, "", (), other.step.index or None,
                other.text if other.snap == "til" else _step_text(other.step),
            )  # fmt: skip
            break
        state = after
        touched: set[GAtom | GroundFluent] = set()
        for u in uses:
            touched |= u.adds | u.dels | set(u.fluent_writes)
        due = watch.due(touched)
        for p, ch in zip(members, changes, strict=True):
            trace.append({"step": p.step.index, "action": f"{time:g}: {p.text}",
                          "time": time, **ch})  # fmt: skip
            if p.snap == "start":
                open_[p.step.index] = p
                watch.add(tt, state, p)
                due.add(p.step.index)
            elif p.snap == "end":
                open_.pop(p.step.index, None)
                watch.drop(p.step.index)
            if p.snap in ("end", "at"):
                done += 1
        nxt = happenings[n][0].time if n < len(happenings) else time
        try:
            later = _advance(tt, state, open_, watch.flowing, nxt - time)
        except NumericError as exc:
            p = members[0]
            failure = _fail(p.step.index, _step_text(p.step), "arithmetic",
                            f"continuous change after time {time:g}: {exc}", time, n)  # fmt: skip
            break
        due |= watch.always if later is state else watch.always | watch.moving
        failure = _invariant_failure(
            tt, state, later, [open_[i] for i in sorted(due) if i in open_], (time, n, nxt)
        )
        if failure is not None:
            break
        state = later
    return _finish(
        tt, steps, state, trace=tuple(trace), failure=failure, happenings=len(happenings),
        done=done, makespan=plan_end, tolerance=tolerance, at_plan_end=at_plan_end,
    )  # fmt: skip


def _advance(
    tt: TemporalTask, state: State, open_: Mapping[int, _Point], flowing: set[int], dt: float
) -> State:
    """The state ``dt`` later under the continuous effects of the open actions (rates read
    in ``state``: they are constant until the next happening, as checked on reading)."""
    if not flowing or dt <= 0:
        return state
    values = dict(state.values)
    for index in sorted(flowing):
        p = open_[index]
        view = _with_duration(state, p.step.duration)
        numbers: list[tuple[NumericEffect, Mapping[str, str]]] = []
        op = tt.task.operators[f"{p.step.name}{SNAP}cts"]
        _collect(_Eval(tt.task, view), op.effects, p.bound.env, set(), set(), numbers)
        for e, env in numbers:
            g = ground_fluent(e.fluent, env)
            values[g] = combine(e.op, g, values.get(g), evaluate(e.value, env, view.values) * dt)
    return State(state.atoms, values)


_FLIP = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "=": "!="}


def _holds_over(ev0: _Eval, ev1: _Eval, f: Formula, env: Mapping[str, str]) -> bool:
    """Whether ``f`` holds at every time strictly between two happenings, its numbers
    moving linearly from ``ev0``'s values to ``ev1``'s (the reader refused what is not a
    conjunction of such conditions)."""
    match f:
        case And(cs):
            return all(_holds_over(ev0, ev1, c, env) for c in cs)
        case Forall(b, body):
            return all(
                _holds_over(ev0, ev1, body, {**env, b.var: o}) for o in ev0.task.of_type(b.type)
            )
        case Atom() if f.pred.startswith(NUMERIC_PREFIX):
            return _compare_over(ev0, ev1, f, env, negated=False)
        case Not(Atom() as a) if a.pred.startswith(NUMERIC_PREFIX):
            return _compare_over(ev0, ev1, a, env, negated=True)
    return ev0.holds(f, env)


def _compare_over(
    ev0: _Eval, ev1: _Eval, a: Atom, env: Mapping[str, str], *, negated: bool
) -> bool:
    c = ev0.task.numeric[a.pred]
    cenv = {
        p: env[t.name] if isinstance(t, Var) else t.name
        for p, t in zip(c.params, a.args, strict=True)
    }
    g0, g1 = (
        evaluate(c.left, cenv, ev.state.values) - evaluate(c.right, cenv, ev.state.values)
        for ev in (ev0, ev1)
    )
    op = _FLIP[c.op] if negated else c.op
    # g moves linearly from g0 to g1 over the open interval
    if op == ">=":
        return g0 >= 0 and g1 >= 0
    if op == "<=":
        return g0 <= 0 and g1 <= 0
    if op == ">":
        return g0 >= 0 and g1 >= 0 and (g0 > 0 or g1 > 0)
    if op == "<":
        return g0 <= 0 and g1 <= 0 and (g0 < 0 or g1 < 0)
    if op == "=":
        return g0 == 0 and g1 == 0
    # "!=" (a negated "="): g is 0 somewhere strictly inside when it changes sign or is 0
    return not ((g0 < 0 < g1) or (g1 < 0 < g0) or (g0 == 0 and g1 == 0))


@dataclass
class _Watch:
    """Which open actions' ``over all`` conditions a happening may have broken: each is
    checked when it opens, then only when a happening changes an atom or fluent it reads
    (``keys``), every time when it reads a derived predicate (``always``), and over every
    interval in which a fluent it reads moves (``moving``). ``flowing`` holds the open
    actions with continuous effects. Without it, a plan of many long overlapping actions
    costs (open actions) x (happenings) checks."""

    keys: dict[GAtom | GroundFluent, set[int]] = field(default_factory=dict)
    always: set[int] = field(default_factory=set)
    moving: set[int] = field(default_factory=set)
    flowing: set[int] = field(default_factory=set)

    def add(self, tt: TemporalTask, state: State, p: _Point) -> None:
        index = p.step.index
        inv = tt.task.operators[f"{p.step.name}{SNAP}inv"]
        use = _Use()
        _formula_reads(_Eval(tt.task, state), inv.precondition, p.bound.env, use)
        if any(g[0] in tt.task.domain.derived for g in use.reads):
            self.always.add(index)
        if any(f[0] in tt.changing for f in use.fluent_reads):
            self.moving.add(index)
        keys: list[GAtom | GroundFluent] = [*use.reads, *use.fluent_reads]
        for k in keys:
            self.keys.setdefault(k, set()).add(index)
        if tt.task.operators[f"{p.step.name}{SNAP}cts"].effects:
            self.flowing.add(index)

    def drop(self, index: int) -> None:
        self.always.discard(index)
        self.moving.discard(index)
        self.flowing.discard(index)

    def due(self, touched: set[GAtom | GroundFluent]) -> set[int]:
        out: set[int] = set()
        for k in touched:
            out |= self.keys.get(k, set())
        return out


def _invariant_failure(
    tt: TemporalTask,
    state: State,
    later: State,
    due: Sequence[_Point],
    where: tuple[float, int, float],
) -> TemporalFailure | None:
    """The first of the open actions ``due`` whose ``over all`` condition fails between
    this happening (``state``) and the next (``later``: the same atoms, numbers moved
    on)."""
    time, n, nxt = where
    for p in due:
        index = p.step.index
        inv = tt.task.operators[f"{p.step.name}{SNAP}inv"]
        ev = _Eval(tt.task, _with_duration(state, p.step.duration))
        name = _step_text(p.step)
        try:
            if later is state:
                if ev.holds(inv.precondition, p.bound.env):
                    continue
            else:
                ev1 = _Eval(tt.task, _with_duration(later, p.step.duration))
                if _holds_over(ev, ev1, inv.precondition, p.bound.env):
                    continue
                ev = ev1 if ev.holds(inv.precondition, p.bound.env) else ev
            unmet = tuple(ev.unmet(inv.precondition, p.bound.env))
        except NumericError as exc:
            return _fail(index, name, "undefined-value", f"over all of {name}: {exc}",
                         time, n, "over all")  # fmt: skip
        return _fail(
            index, name, "over-all",
            f"over all condition of {name} (started at {p.time:g}) unmet between "
            f"{time:g} and {nxt:g}: {', '.join(unmet) or 'at some time in between'}",
            time, n, "over all", unmet,
        )  # fmt: skip
    return None


def _when_reads(ev: _Eval, effects: Sequence[Effect], env: Mapping[str, str], use: _Use) -> None:
    """The conditions of the conditional effects that fire count as read (VAL marks them
    as preconditions)."""
    for e in effects:
        match e:
            case When(c, inner) if ev.holds(c, env):
                _formula_reads(ev, c, env, use)
                _when_reads(ev, inner, env, use)
            case ForallEffect(b, inner):
                for o in ev.task.of_type(b.type):
                    _when_reads(ev, inner, {**env, b.var: o}, use)


def _apply(
    tt: TemporalTask, state: State, members: Sequence[_Point]
) -> tuple[State, list[_Use], list[dict[str, Any]]]:
    """Every member's effects read in ``state``, applied together: deletions, additions,
    then the numeric updates in plan order. What each member reads for the mutex check:
    its condition, the conditions of its conditional effects that fire, the values its
    numeric effects and its duration constraints read."""
    task = tt.task
    adds: set[GAtom] = set()
    dels: set[GAtom] = set()
    updates: list[tuple[str, GroundFluent, float]] = []
    uses: list[_Use] = []
    per: list[tuple[set[GAtom], set[GAtom], list[GroundFluent]]] = []
    for p in members:
        view = _with_duration(state, p.step.duration)
        ev = _Eval(task, view)
        use = _Use()
        _formula_reads(ev, p.bound.op.precondition, p.bound.env, use)
        _when_reads(ev, p.bound.op.effects, p.bound.env, use)
        if p.snap in ("start", "end"):
            for c in tt.durative[p.step.name].constraints:
                if c.at == p.snap:
                    _expr_fluents(c.value, p.bound.env, use.fluent_reads)
        a: set[GAtom] = set()
        d: set[GAtom] = set()
        numbers: list[tuple[NumericEffect, Mapping[str, str]]] = []
        _collect(ev, p.bound.op.effects, p.bound.env, a, d, numbers)
        use.adds, use.dels = a, d
        touched: list[GroundFluent] = []
        for e, env in numbers:
            g = ground_fluent(e.fluent, env)
            _expr_fluents(e.value, env, use.fluent_reads)
            use.fluent_writes.setdefault(g, set()).add(e.op)
            updates.append((e.op, g, evaluate(e.value, env, view.values)))
            touched.append(g)
        adds |= a
        dels |= d
        uses.append(use)
        per.append((a, d, touched))
    atoms = (state.atoms - dels) | adds
    values = dict(state.values)
    for op, g, v in updates:
        values[g] = combine(op, g, values.get(g), v)
    changes = [
        {
            "added": sorted(gatom_text(x) for x in a - state.atoms),
            "deleted": sorted(gatom_text(x) for x in d & state.atoms if x not in adds),
            "changed": {fluent_text(g): values[g] for g in touched},
        }
        for a, d, touched in per
    ]
    return State(atoms, values), uses, changes


def _finish(
    tt: TemporalTask,
    steps: Sequence[TimedStep],
    state: State,
    *,
    failure: TemporalFailure | None,
    tolerance: float,
    trace: tuple[dict[str, Any], ...] = (),
    happenings: int = 0,
    done: int = 0,
    makespan: float = 0.0,
    at_plan_end: State | None = None,
) -> TemporalValidation:
    """The goal on the final state (after every timed literal), the metric on the state
    the plan's last point leaves (they differ when timed literals come later, as in
    VAL)."""
    from dataclasses import replace

    base = failure.base if failure is not None else None
    result = judge(tt.task, state, len(steps), (), base, makespan)
    if at_plan_end is not None and at_plan_end is not state:
        m = judge(tt.task, at_plan_end, len(steps), (), base, makespan)
        result = replace(result, metric=m.metric)
    final = None
    if failure is None:
        final = result.metric if tt.task.problem.metric is not None else float(happenings)
    return TemporalValidation(result, failure, happenings, done, trace, makespan, tolerance, final)
