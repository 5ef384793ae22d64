"""PDDL domain and problem files → :class:`~planproof.pddl.schema.Domain` and
:class:`Problem`.

The reader is the bounded s-expression scanner (:mod:`planproof.pddl.scanner`) plus the condition
and effect readers of :mod:`planproof.pddl.sexpr_io`, so a malformed file fails with a
positioned :class:`PDDLSyntaxError` rather than a crash. It reads classical PDDL 2.1 levels
1-2 and the parts of PDDL 2.2 a sequential plan needs: typing (with ``either``),
negative and disjunctive conditions, quantifiers, conditional effects, equality, numeric
fluents and action costs (``:functions``, ``increase`` ..., ``:metric``) and derived
predicates (several rules per predicate, recursion through positive readings: the
stratified least fixpoint). Durative actions, processes, events, timed initial literals
and constraints are refused by name (kind ``unsupported``); so are unstratifiable
derived predicates (kind ``unstratifiable``, the cycle named).

PDDL is case-insensitive: with ``fold_case`` every name is read lower-cased (what VAL
and the planners do; ``planproof verify`` reads that way), so an upper-case problem
meets a lower-case plan. A ``?`` glued to a name (``(aircraft?a)``) starts a variable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from planproof.boundary.limits import MAX_PDDL_CHARS
from planproof.ltl.ast import Atom, Const, Formula, walk
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head, sexpr_to_text
from planproof.pddl.axioms import UnstratifiableError, stratify
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.numeric import (
    FluentRef,
    GroundFluent,
    Metric,
    NumericEffect,
    expr_text,
)
from planproof.pddl.scanner import NAME_RULE, is_name, scan
from planproof.pddl.schema import (
    Derived,
    Domain,
    Operator,
    Param,
    Rule,
    all_effects,
    effect_atoms,
    too_many_parameters,
)
from planproof.pddl.sexpr_io import (
    NumericTable,
    read_condition,
    read_effect,
    read_expression,
    read_number,
    type_name,
)

ROOT_TYPE = "object"

MAX_TYPE_DEPTH = 100
"""Deepest type hierarchy read (``t1 - t0``, ``t2 - t1``, ...): every object's ancestors
are listed once per object, so depth × objects bounds that work. Real domains nest fewer
than 10 levels."""

MAX_LENGTH = MAX_PDDL_CHARS
"""Longest PDDL file accepted, in characters (see planproof.boundary.limits)."""


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
    numeric_init: Mapping[GroundFluent, float] = field(default_factory=dict)
    numeric: NumericTable = field(default_factory=dict)
    metric: Metric | None = None

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


_GLUED_VARIABLE = re.compile(r"(?<=[^\s()?;])\?")


def _read_one(text: str, what: str) -> SList:
    if "?" in text:
        text = _GLUED_VARIABLE.sub(" ?", text)
    items = scan(text, max_length=MAX_LENGTH)
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
            t = type_name(items[i + 1]) if i + 1 < len(items) else None
            if t is None or not pending:
                raise _err("'-' must follow names and precede a type", it, "typed-list", text)
            out.extend((n, t) for n in pending)
            pending = []
            i += 2
            continue
        _check_name(it, text)
        pending.append(it.text)
        i += 1
    out.extend((n, ROOT_TYPE) for n in pending)
    return out


def _check_name(atom: SExpr, text: str) -> None:
    """A declared name (``?x`` for a variable) under the one name rule of
    :mod:`planproof.pddl.scanner`, which the plan reader applies too: a domain can never
    declare an action or object that no plan could name."""
    if isinstance(atom, SAtom) and not is_name(atom.text.removeprefix("?")):
        raise _err(f"{atom.text!r} is not a PDDL name ({NAME_RULE})", atom, "bad-name", text)


def _sections(define: SList, text: str) -> dict[str, list[SList]]:
    out: dict[str, list[SList]] = {}
    for e in define.items[2:]:
        h = head(e)
        if h is None or not h.startswith(":") or not isinstance(e, SList):
            raise _err("expected a (:section ...)", e, "bad-section", text)
        out.setdefault(h, []).append(e)
    return out


_UNSUPPORTED = {
    ":durative-action": "durative actions (PDDL 2.1 level 3) are not supported here: "
    "`planproof verify` checks temporal plans; planning and --lenient take classical domains",
    ":process": "processes (PDDL+) are not supported",
    ":event": "events (PDDL+) are not supported",
    ":constraints": "constraints (PDDL3) are not supported",
}


_TEMPORAL_SECTION = re.compile(r"\(\s*:(durative-action|process|event)\b", re.IGNORECASE)


def is_temporal_domain(text: str) -> bool:
    """Whether a domain text declares durative actions, processes or events (comments
    aside): the cheap test that routes ``verify`` to :mod:`planproof.pddl.temporal`, here
    so that a classical domain never imports that module."""
    return any(_TEMPORAL_SECTION.search(line.split(";", 1)[0]) for line in text.splitlines())


def read_domain_file(text: str, *, fold_case: bool = False) -> DomainFile:
    """Read a PDDL domain (``(define (domain NAME) ...)``); ``fold_case`` reads every
    name lower-cased (see the module docstring)."""
    if fold_case:
        text = text.lower()
    define = _read_one(text, "domain")
    name = _name_of(define, "domain", text)
    sec = _sections(define, text)
    for s, why in _UNSUPPORTED.items():
        if s in sec:
            raise _err(why, sec[s][0], "unsupported", text)
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
    _check_type_depth(types, sec[":types"][0] if ":types" in sec else define, text)
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
            _check_name(p.items[0], text)
            params = _typed_names(p.items[1:], text)
            for v, _ in params:
                if not v.startswith("?"):
                    raise _err(f"expected a ?variable, got {v!r}", p, "bad-predicate", text)
            if pname in predicates:
                raise _err(f"predicate {pname} declared twice", p, "duplicate", text)
            predicates[pname] = tuple(t for _, t in params)
            for _, t in params:
                types.setdefault(t, ROOT_TYPE)
    functions = _functions(sec.get(":functions", []), text)
    numeric: NumericTable = {}
    operators: dict[str, Operator] = {}
    lowered: set[str] = set()
    for e in sec.get(":action", []):
        op = _read_action(e, text, numeric)
        if op.name.lower() in lowered:
            raise _err(f"action {op.name} declared twice", e, "duplicate", text)
        lowered.add(op.name.lower())
        for param in op.params:
            types.setdefault(param.type, ROOT_TYPE)
        operators[op.name] = op
    derived = _derived(sec.get(":derived", []), predicates, numeric, text)
    _derived_in_effects(operators, derived, define, text)
    for t in [t for t in types if t.startswith("(either ")]:
        types.update({m: ROOT_TYPE for m in t[len("(either ") : -1].split() if m not in types})
    try:
        domain = Domain(
            name,
            types,
            predicates,
            operators,
            functions=functions,
            numeric=numeric,
            derived=derived,
        )
    except ValueError as exc:
        raise _err(str(exc), define, "inconsistent-domain", text) from None
    _check_functions(domain, numeric, define, text)
    return DomainFile(domain, requirements, constants)


def _check_type_depth(types: Mapping[str, str | None], at: SExpr, text: str) -> None:
    """Refuse a hierarchy deeper than :data:`MAX_TYPE_DEPTH`, measured in one pass over
    the types (each walk stops at a type whose depth is known, or at a cycle)."""
    depth: dict[str, int] = {}
    for start in types:
        chain: list[str] = []
        t: str | None = start
        while t is not None and t not in depth and t not in chain:
            chain.append(t)
            t = types.get(t)
        d = depth.get(t, -1) if t is not None else -1  # the root type is level 0
        for name in reversed(chain):
            d += 1
            depth[name] = d
            if d > MAX_TYPE_DEPTH:
                raise _err(
                    f"type {name} is {d} levels below the root type, over the limit of "
                    f"{MAX_TYPE_DEPTH} (docs/limits.md)",
                    at,
                    "too-deep",
                    text,
                )


def _functions(sections: list[SList], text: str) -> dict[str, tuple[str, ...]]:
    """``(:functions (f ?x - t) - number (g))`` → {f: (t,), g: ()}; only ``number``
    functions (PDDL 3.1 object fluents are refused)."""
    out: dict[str, tuple[str, ...]] = {}
    for e in sections:
        items = e.items[1:]
        i = 0
        while i < len(items):
            it = items[i]
            if isinstance(it, SAtom) and it.text == "-":
                t = items[i + 1] if i + 1 < len(items) else None
                if not isinstance(t, SAtom) or t.text.lower() not in ("number", "int", "float"):
                    raise _err("only numeric functions are supported", t or it, "unsupported", text)
                i += 2
                continue
            if not isinstance(it, SList) or head(it) is None:
                raise _err("expected (function ?x - type ...)", it, "bad-function", text)
            fname = head(it)
            assert fname is not None
            params = _typed_names(it.items[1:], text)
            if any(not v.startswith("?") for v, _ in params):
                raise _err("function parameters are ?variables", it, "bad-function", text)
            if fname in out:
                raise _err(f"function {fname} declared twice", it, "duplicate", text)
            out[fname] = tuple(t for _, t in params)
            i += 1
    return out


def _derived(
    sections: list[SList],
    predicates: dict[str, tuple[str, ...]],
    numeric: NumericTable,
    text: str,
) -> dict[str, Derived]:
    """``(:derived (p ?x - t) condition)`` rules, several per predicate allowed; a
    predicate the rules define but ``:predicates`` omits is declared from its first rule.
    Every predicate a rule reads must be declared, with its arity; the rules must be
    stratifiable (:mod:`planproof.pddl.axioms`), else the cycle is named."""
    rules: dict[str, list[Rule]] = {}
    for e in sections:
        if len(e.items) != 3 or not isinstance(e.items[1], SList) or head(e.items[1]) is None:
            raise _err("expected (:derived (p ?x ...) CONDITION)", e, "bad-derived", text)
        p = e.items[1]
        pname = head(p)
        assert pname is not None and isinstance(p, SList)
        typed = _typed_names(p.items[1:], text)
        if any(not v.startswith("?") or len(v) < 2 for v, _ in typed):
            raise _err(f"derived {pname}: parameters are ?variables", p, "bad-derived", text)
        params = tuple(Param(v[1:], t) for v, t in typed)
        if len({q.name for q in params}) != len(params):
            raise _err(f"derived {pname}: a parameter is repeated", p, "bad-derived", text)
        declared = predicates.get(pname)
        if declared is not None and len(declared) != len(params):
            raise _err(
                f"derived {pname}: the rule has {len(params)} parameters, the predicate "
                f"takes {len(declared)}",
                p,
                "bad-derived",
                text,
            )
        try:
            cond = read_condition(e.items[2], {q.name for q in params}, numeric)
        except PDDLSyntaxError as exc:
            raise PDDLSyntaxError(
                f"derived {pname}: {exc.message}", line=exc.line, column=exc.column,
                kind=exc.kind, text=text,
            ) from None  # fmt: skip
        predicates.setdefault(pname, tuple(q.type for q in params))
        rules.setdefault(pname, []).append(Rule(params, cond))
    out = {
        k: Derived(
            tuple(Param(q.name, t) for q, t in zip(rs[0].params, predicates[k], strict=True)),
            tuple(rs),
        )
        for k, rs in rules.items()
    }
    at = sections[0] if sections else None
    for k, d in out.items():
        for rule in d.rules:
            for f in walk(rule.condition):
                if not isinstance(f, Atom) or f.pred == "=" or f.pred.startswith("#"):
                    continue
                if f.pred not in predicates:
                    raise _err(
                        f"derived {k}: unknown predicate {f.pred}", at, "unknown-predicate", text
                    )
                if len(f.args) != len(predicates[f.pred]):
                    raise _err(
                        f"derived {k}: {f.pred} takes {len(predicates[f.pred])} arguments, "
                        f"got {len(f.args)}",
                        at,
                        "unknown-predicate",
                        text,
                    )
    try:
        stratify(out)
    except UnstratifiableError as exc:
        raise _err(str(exc), at, "unstratifiable", text) from None
    return out


def _derived_in_effects(
    operators: Mapping[str, Operator], derived: Mapping[str, Derived], at: SExpr, text: str
) -> None:
    """A derived predicate is defined by its rules only: no action may change it."""
    for op in operators.values():
        for a, _ in effect_atoms(op.effects):
            if a.pred in derived:
                raise _err(
                    f"action {op.name}: its effect changes the derived predicate {a.pred} "
                    "(derived predicates are defined by their rules only)",
                    at,
                    "derived-effect",
                    text,
                )


def _check_functions(domain: Domain, numeric: NumericTable, at: SExpr, text: str) -> None:
    refs: list[FluentRef] = []
    for c in numeric.values():
        refs.extend(_refs(c.left) + _refs(c.right))
    for op in domain.operators.values():
        for e in all_effects(op.effects):
            if isinstance(e, NumericEffect):
                refs.extend([e.fluent, *_refs(e.value)])
    for r in refs:
        if r.name not in domain.functions:
            raise _err(f"unknown function {r.name}", at, "unknown-function", text)
        if len(r.args) != len(domain.functions[r.name]):
            raise _err(
                f"function {r.name} takes {len(domain.functions[r.name])} arguments, "
                f"got {len(r.args)}",
                at,
                "unknown-function",
                text,
            )


def _refs(e: object) -> list[FluentRef]:
    from planproof.pddl.numeric import BinOp

    if isinstance(e, FluentRef):
        return [e]
    if isinstance(e, BinOp):
        return _refs(e.left) + _refs(e.right)
    return []


def read_domain(text: str, *, fold_case: bool = False) -> Domain:
    """The :class:`Domain` of a PDDL domain file."""
    return read_domain_file(text, fold_case=fold_case).domain


def _read_action(e: SList, text: str, numeric: NumericTable | None = None) -> Operator:
    if len(e.items) < 2 or not isinstance(e.items[1], SAtom):
        raise _err("(:action NAME ...) needs a name", e, "bad-action", text)
    name = e.items[1].text
    _check_name(e.items[1], text)
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
        return Operator(
            name, params, read_condition(pre, scope, numeric), read_effect(eff, scope, numeric)
        )
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
    too_many = too_many_parameters(action, len(out))
    if too_many:
        raise _err(too_many, e, "too-large", text)
    if len({p.name for p in out}) != len(out):
        raise _err(f"action {action}: a parameter is declared twice", e, "parameters", text)
    return tuple(out)


def read_problem(text: str, *, fold_case: bool = False) -> Problem:
    """Read a PDDL problem (``(define (problem NAME) (:domain D) ...)``)."""
    if fold_case:
        text = text.lower()
    define = _read_one(text, "problem")
    name = _name_of(define, "problem", text)
    sec = _sections(define, text)
    for s, why in _UNSUPPORTED.items():
        if s in sec:
            raise _err(why, sec[s][0], "unsupported", text)
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
    values: dict[GroundFluent, float] = {}
    negative = 0
    for e in sec.get(":init", []):
        for f in e.items[1:]:
            h = head(f)
            if h is None or not isinstance(f, SList):
                raise _err("expected an atom in :init", f, "bad-init", text)
            if h == "not":
                negative += 1
                continue
            if h == "at" and len(f.items) == 3 and read_number(f.items[1]) is not None:
                raise _err(
                    "timed initial literals (at TIME fact) are not supported",
                    f,
                    "unsupported",
                    text,
                )
            if h == "=" and len(f.items) == 3 and isinstance(f.items[1], SList):
                g, v = _numeric_fact(f, text)
                if g in values and values[g] != v:
                    raise _err(
                        f"{sexpr_to_text(f.items[1])} given two values", f, "duplicate", text
                    )
                values[g] = v
                continue
            if h in {"=", "and", "or", "forall", "exists", "when"}:
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
    numeric: NumericTable = {}
    try:
        goal = read_condition(goals[0].items[1], (), numeric)
    except PDDLSyntaxError as exc:
        raise PDDLSyntaxError(
            f"goal: {exc.message}", line=exc.line, column=exc.column, kind=exc.kind, text=text
        ) from None
    return Problem(
        name,
        domain_name,
        objects,
        frozenset(init),
        goal,
        negative,
        numeric_init=values,
        numeric=numeric,
        metric=_metric(sec.get(":metric", []), text),
    )


def _numeric_fact(f: SList, text: str) -> tuple[GroundFluent, float]:
    """``(= (f a b) 3)`` in ``:init``."""
    term, value = f.items[1], read_number(f.items[2])
    assert isinstance(term, SList)
    name = head(term)
    if name is None or value is None or not all(isinstance(a, SAtom) for a in term.items[1:]):
        raise _err("expected (= (function object ...) NUMBER)", f, "bad-init", text)
    return (name, tuple(a.text for a in term.items[1:] if isinstance(a, SAtom))), value


def _metric(sections: list[SList], text: str) -> Metric | None:
    if not sections:
        return None
    e = sections[0]
    if len(sections) > 1 or len(e.items) != 3 or not isinstance(e.items[1], SAtom):
        raise _err("expected (:metric minimize|maximize EXPRESSION)", e, "bad-metric", text)
    direction = e.items[1].text.lower()
    if direction not in ("minimize", "maximize"):
        raise _err("a metric is minimize or maximize", e.items[1], "bad-metric", text)
    try:
        expr = read_expression(e.items[2], frozenset())
    except PDDLSyntaxError as exc:
        raise PDDLSyntaxError(
            f"metric: {exc.message}", line=exc.line, column=exc.column, kind=exc.kind, text=text
        ) from None
    return Metric(direction, expr, f"({direction} {expr_text(expr)})")


def check_problem(domain: Domain, problem: Problem) -> list[str]:
    """Mismatches between a problem and its domain: unknown predicates, wrong arities,
    undeclared objects and types. Empty when the problem fits the domain."""
    out: list[str] = []
    known = {**problem.constants, **problem.objects}
    for o, t in known.items():
        if t not in domain.types:
            out.append(f"object {o} has unknown type {t}")
    for o, t in problem.objects.items():
        if o in problem.constants and problem.constants[o] != t:
            out.append(
                f"object {o} is declared as {t} in the problem but as {problem.constants[o]} "
                "among the domain's constants"
            )
    from planproof.ltl.ast import walk

    atoms = list(problem.init) + [f for f in walk(problem.goal) if isinstance(f, Atom)]
    for a in atoms:
        if a.pred == "=" or a.pred.startswith("#"):
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
    for (f, args), _ in problem.numeric_init.items():
        if f not in domain.functions:
            out.append(f"unknown function {f}")
        elif len(args) != len(domain.functions[f]):
            out.append(f"{f} takes {len(domain.functions[f])} arguments, got {len(args)}")
        out.extend(f"undeclared object {o}" for o in args if o not in known)
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
