"""PDDL domain and problem files → :class:`~planproof.pddl.schema.Domain` and
:class:`Problem`.

The reader is the bounded s-expression reader of ``planproof.ltl.bddl`` plus the condition
and effect readers of :mod:`planproof.pddl.sexpr_io`, so a malformed file fails with a
positioned :class:`PDDLSyntaxError` rather than a crash. It reads the PDDL the EAI data
uses (typing, negative and disjunctive conditions, quantifiers, conditional effects,
equality); numeric fluents and durative actions are rejected by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from planproof.ltl.ast import Atom, Const, Formula
from planproof.ltl.bddl.reader import read_sexprs
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.schema import Domain, Operator, Param
from planproof.pddl.sexpr_io import read_condition, read_effect

ROOT_TYPE = "object"

MAX_LENGTH = 5_000_000
"""Longest PDDL file accepted, in characters (the largest EAI problem has 7 kB)."""


@dataclass(frozen=True)
class Problem:
    """A planning problem: typed objects, the initial facts (closed world: only the true
    atoms) and the goal. ``negative_init`` counts ``(not ...)`` facts of the file, which
    the closed-world reading drops (BEHAVIOR problems list them)."""

    name: str
    domain: str
    objects: Mapping[str, str]
    init: frozenset[Atom]
    goal: Formula
    negative_init: int = 0
    constants: Mapping[str, str] = field(default_factory=dict)

    def objects_with_types(self) -> dict[str, frozenset[str]]:
        return {o: frozenset({t}) for o, t in {**self.constants, **self.objects}.items()}


@dataclass(frozen=True)
class DomainFile:
    """A domain read from PDDL: the schema plus what the schema does not hold."""

    domain: Domain
    requirements: tuple[str, ...] = ()
    constants: Mapping[str, str] = field(default_factory=dict)


def _err(message: str, at: SExpr | None, kind: str = "pddl", text: str = "") -> PDDLSyntaxError:
    line, col = (at.line, at.column) if at is not None else (1, 1)
    return PDDLSyntaxError(message, line=line, column=col, kind=kind, text=text)


def _read_one(text: str, what: str) -> SList:
    try:
        items = read_sexprs(text, max_length=MAX_LENGTH)
    except PDDLSyntaxError:
        raise
    except Exception as exc:  # BDDLSyntaxError and the length guard carry a position
        raise PDDLSyntaxError(
            getattr(exc, "message", str(exc)),
            line=getattr(exc, "line", 1),
            column=getattr(exc, "column", 1),
            kind=getattr(exc, "kind", "pddl"),
            text=text,
        ) from None
    if len(items) != 1 or head(items[0]) != "define":
        at = items[1] if len(items) > 1 else (items[0] if items else None)
        raise _err(f"a PDDL {what} is one (define ...) expression", at, "not-define", text)
    e = items[0]
    assert isinstance(e, SList)
    return e


def _name_of(define: SList, keyword: str, text: str) -> str:
    if len(define.items) < 2:
        raise _err(f"(define ...) needs ({keyword} NAME)", define, "bad-define", text)
    e = define.items[1]
    if (
        head(e) != keyword
        or not isinstance(e, SList)
        or len(e.items) != 2
        or not isinstance(e.items[1], SAtom)
    ):
        raise _err(f"expected ({keyword} NAME)", e, "bad-define", text)
    return e.items[1].text


def _typed_names(items: tuple[SExpr, ...], text: str) -> list[tuple[str, str]]:
    """``a b - t c`` → [(a, t), (b, t), (c, object)] (object names keep their case)."""
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    i = 0
    while i < len(items):
        it = items[i]
        if not isinstance(it, SAtom):
            raise _err("expected a name", it, "typed-list", text)
        if it.text == "-":
            typ = items[i + 1] if i + 1 < len(items) else None
            if not isinstance(typ, SAtom) or not pending:
                raise _err("'-' must follow names and precede a type", it, "typed-list", text)
            if typ.text.lower() == "either":
                raise _err("(either ...) types are not supported", typ, "unsupported", text)
            out.extend((n, typ.text.lower()) for n in pending)
            pending = []
            i += 2
            continue
        pending.append(it.text)
        i += 1
    out.extend((n, ROOT_TYPE) for n in pending)
    return out


def _sections(define: SList, text: str) -> dict[str, list[SList]]:
    out: dict[str, list[SList]] = {}
    for e in define.items[2:]:
        h = head(e)
        if h is None or not h.startswith(":") or not isinstance(e, SList):
            raise _err("expected a (:section ...)", e, "bad-section", text)
        out.setdefault(h, []).append(e)
    return out


_UNSUPPORTED = (":functions", ":durative-action", ":derived", ":process", ":event")


def read_domain_file(text: str) -> DomainFile:
    """Read a PDDL domain (``(define (domain NAME) ...)``)."""
    define = _read_one(text, "domain")
    name = _name_of(define, "domain", text)
    sec = _sections(define, text)
    for s in _UNSUPPORTED:
        if s in sec:
            raise _err(f"{s} is not supported", sec[s][0], "unsupported", text)
    requirements = tuple(
        a.text.lower()
        for e in sec.get(":requirements", [])
        for a in e.items[1:]
        if isinstance(a, SAtom)
    )
    types: dict[str, str | None] = {ROOT_TYPE: None}
    for e in sec.get(":types", []):
        for name, parent in _typed_names(e.items[1:], text):
            if name.lower() != ROOT_TYPE:
                types[name.lower()] = parent
    for up in list(types.values()):
        if up is not None and up not in types:
            types[up] = ROOT_TYPE
    constants = {
        c: t for e in sec.get(":constants", []) for c, t in _typed_names(e.items[1:], text)
    }
    predicates: dict[str, tuple[str, ...]] = {}
    for e in sec.get(":predicates", []):
        for p in e.items[1:]:
            if not isinstance(p, SList) or head(p) is None:
                raise _err("expected (predicate ?x - type ...)", p, "bad-predicate", text)
            pname = head(p)
            assert pname is not None
            params = _typed_names(p.items[1:], text)
            for v, _ in params:
                if not v.startswith("?"):
                    raise _err(f"expected a ?variable, got {v!r}", p, "bad-predicate", text)
            if pname in predicates:
                raise _err(f"predicate {pname} declared twice", p, "duplicate", text)
            predicates[pname] = tuple(t for _, t in params)
            for _, t in params:
                types.setdefault(t, ROOT_TYPE)
    operators: dict[str, Operator] = {}
    for e in sec.get(":action", []):
        op = _read_action(e, text)
        if op.name.lower() in {k.lower() for k in operators}:
            raise _err(f"action {op.name} declared twice", e, "duplicate", text)
        for param in op.params:
            types.setdefault(param.type, ROOT_TYPE)
        operators[op.name] = op
    try:
        domain = Domain(name, types, predicates, operators)
    except ValueError as exc:
        raise _err(str(exc), define, "inconsistent-domain", text) from None
    return DomainFile(domain, requirements, constants)


def read_domain(text: str) -> Domain:
    """The :class:`Domain` of a PDDL domain file."""
    return read_domain_file(text).domain


def _read_action(e: SList, text: str) -> Operator:
    if len(e.items) < 2 or not isinstance(e.items[1], SAtom):
        raise _err("(:action NAME ...) needs a name", e, "bad-action", text)
    name = e.items[1].text
    fields: dict[str, SExpr] = {}
    rest = e.items[2:]
    if len(rest) % 2:
        raise _err(f"action {name}: keywords and values must alternate", e, "bad-action", text)
    for k, v in zip(rest[::2], rest[1::2], strict=True):
        if not isinstance(k, SAtom) or not k.text.startswith(":"):
            raise _err(f"action {name}: expected a :keyword", k, "bad-action", text)
        fields[k.text.lower()] = v
    unknown = set(fields) - {":parameters", ":precondition", ":effect"}
    if unknown:
        raise _err(f"action {name}: unknown field {sorted(unknown)[0]}", e, "bad-action", text)
    params = _params(fields.get(":parameters", SList(())), name, text)
    scope = {p.name for p in params}
    pre = fields.get(":precondition", SList(()))
    eff = fields.get(":effect", SList(()))
    try:
        return Operator(name, params, read_condition(pre, scope), read_effect(eff, scope))
    except PDDLSyntaxError as exc:
        raise PDDLSyntaxError(
            f"action {name}: {exc.message}",
            line=exc.line,
            column=exc.column,
            kind=exc.kind,
            text=text,
        ) from None
    except ValueError as exc:
        raise _err(f"action {name}: {exc}", e, "bad-action", text) from None


def _params(e: SExpr, action: str, text: str) -> tuple[Param, ...]:
    if not isinstance(e, SList):
        raise _err(f"action {action}: :parameters must be a list", e, "parameters", text)
    out: list[Param] = []
    for v, t in _typed_names(e.items, text):
        if not v.startswith("?") or len(v) < 2:
            raise _err(f"action {action}: expected a ?variable, got {v!r}", e, "parameters", text)
        out.append(Param(v[1:], t))
    if len({p.name for p in out}) != len(out):
        raise _err(f"action {action}: a parameter is declared twice", e, "parameters", text)
    return tuple(out)


def read_problem(text: str) -> Problem:
    """Read a PDDL problem (``(define (problem NAME) (:domain D) ...)``)."""
    define = _read_one(text, "problem")
    name = _name_of(define, "problem", text)
    sec = _sections(define, text)
    dom = sec.get(":domain")
    if not dom or len(dom[0].items) != 2 or not isinstance(dom[0].items[1], SAtom):
        raise _err("a problem needs (:domain NAME)", define, "bad-problem", text)
    domain_name = dom[0].items[1].text
    objects: dict[str, str] = {}
    for e in sec.get(":objects", []):
        for o, t in _typed_names(e.items[1:], text):
            if o in objects and objects[o] != t:
                raise _err(f"object {o} declared with two types", e, "duplicate", text)
            objects[o] = t
    init: set[Atom] = set()
    negative = 0
    for e in sec.get(":init", []):
        for f in e.items[1:]:
            h = head(f)
            if h is None or not isinstance(f, SList):
                raise _err("expected an atom in :init", f, "bad-init", text)
            if h == "not":
                negative += 1
                continue
            if h in {"=", "and", "or", "forall", "exists", "when", "at"}:
                raise _err(f"({h} ...) is not supported in :init", f, "unsupported", text)
            args: list[Const] = []
            for a in f.items[1:]:
                if not isinstance(a, SAtom) or a.text.startswith("?"):
                    raise _err("an :init atom takes object names", a, "bad-init", text)
                args.append(Const(a.text))
            init.add(Atom(h, tuple(args)))
    goals = sec.get(":goal", [])
    if len(goals) != 1 or len(goals[0].items) != 2:
        raise _err("a problem needs one (:goal CONDITION)", define, "bad-goal", text)
    try:
        goal = read_condition(goals[0].items[1])
    except PDDLSyntaxError as exc:
        raise PDDLSyntaxError(
            f"goal: {exc.message}", line=exc.line, column=exc.column, kind=exc.kind, text=text
        ) from None
    return Problem(name, domain_name, objects, frozenset(init), goal, negative)


def check_problem(domain: Domain, problem: Problem) -> list[str]:
    """Mismatches between a problem and its domain: unknown predicates, wrong arities,
    undeclared objects and types. Empty when the problem fits the domain."""
    out: list[str] = []
    known = {**problem.constants, **problem.objects}
    for o, t in known.items():
        if t not in domain.types:
            out.append(f"object {o} has unknown type {t}")
    from planproof.ltl.ast import walk

    atoms = list(problem.init) + [f for f in walk(problem.goal) if isinstance(f, Atom)]
    for a in atoms:
        if a.pred == "=":
            continue
        if a.pred not in domain.predicates:
            out.append(f"unknown predicate {a.pred}")
        elif len(a.args) != len(domain.predicates[a.pred]):
            out.append(
                f"{a.pred} takes {len(domain.predicates[a.pred])} arguments, got {len(a.args)}"
            )
        for arg in a.args:
            if isinstance(arg, Const) and arg.name not in known:
                out.append(f"undeclared object {arg.name}")
    return sorted(set(out))


def declare_missing_objects(domain: Domain, problem: Problem) -> Problem:
    """``problem`` with every object its facts or goal mention but ``:objects`` omits
    declared as ``object`` (one BEHAVIOR problem forgets ``cleansing_agent_n_01_1``);
    unchanged when nothing is missing. A repair for benchmark sweeps, never applied by
    ``planproof verify``, which reports the omission as bad input."""
    from dataclasses import replace

    from planproof.ltl.ast import walk

    known = {**problem.constants, **problem.objects}
    mentioned = {
        t.name
        for a in [*problem.init, *(f for f in walk(problem.goal) if isinstance(f, Atom))]
        for t in a.args
        if isinstance(t, Const)
    }
    missing = sorted(mentioned - set(known))
    if not missing:
        return problem
    return replace(problem, objects={**problem.objects, **dict.fromkeys(missing, ROOT_TYPE)})
