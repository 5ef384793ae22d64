"""BEHAVIOR's BDDL ↔ planproof's goal logic.

BEHAVIOR states goals in BDDL, a PDDL-like s-expression language with typed quantifiers
(``(forall (?jar.n.01 - jar.n.01) ...)``), counting (``forn``) and pair quantifiers
(``forpairs``/``fornpairs``). This module reads BDDL text into positioned s-expressions
(lark, LALR, bounded in length and nesting), converts a goal into a typed
:class:`~planproof.ltl.ast.Formula`, writes formulas back as BDDL, and reproduces the
untyped string format of the EAI reference implementation for comparison.

Names (documented in ``docs/data.md``): a BDDL category ``jar.n.01`` becomes the LTL type
``jar_n_01`` (``.``/``-`` → ``_``); an object ``jar.n.01_1`` (category + ``_`` + instance)
becomes ``jar_n_01.1``; any other object name is mapped like a category. The reverse maps
``lemma_p_NN`` back to the WordNet form ``lemma.p.NN``.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError

from planproof.ltl import ast
from planproof.ltl.errors import LTLSyntaxError, UnsupportedFormulaError
from planproof.ltl.trace import Universe

MAX_LENGTH = 1_000_000
"""Longest BDDL text accepted, in characters."""
MAX_DEPTH = 100
"""Deepest parenthesis nesting accepted (keeps every later recursion shallow)."""
MAX_COUNT_DIGITS = 9

REFERENCE_PREDICATES = {"toggled_on": "toggledon"}
"""Predicate renames the EAI reference applies when it writes BDDL goals as strings."""

_LTL_KEYWORDS = frozenset({
    "then", "implies", "or", "and", "not", "forall", "exists", "forn", "forpairs",
    "fornpairs", "true", "false",
})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INSTANCE = re.compile(r"(?P<base>.+)_(?P<idx>[0-9]+)")
_LTL_INSTANCE = re.compile(r"(?P<base>[A-Za-z_][A-Za-z0-9_]*)\.(?P<idx>[0-9]+)")
_SYNSET = re.compile(r"(?P<lemma>.+)_(?P<pos>[nvasr])_(?P<sense>[0-9]{2})")


class BDDLSyntaxError(LTLSyntaxError):
    """BDDL text that cannot be read or converted; carries the 1-based line and column."""


# --------------------------------------------------------------------------- s-expressions


@dataclass(frozen=True, slots=True)
class SAtom:
    """A symbol or number, with where it starts in the source (positions are not part
    of equality, so equal text means equal expressions)."""

    text: str
    line: int = field(default=1, compare=False)
    column: int = field(default=1, compare=False)


@dataclass(frozen=True, slots=True)
class SList:
    """A parenthesised list; ``start``/``end`` are source offsets of its parentheses."""

    items: tuple[SExpr, ...]
    line: int = field(default=1, compare=False)
    column: int = field(default=1, compare=False)
    start: int = field(default=0, compare=False)
    end: int = field(default=0, compare=False)


SExpr = SAtom | SList

_GRAMMAR = r"""
start: _item*
_item: group | ATOM
group: LPAR _item* RPAR
LPAR: "("
RPAR: ")"
ATOM: /[^\s();]+/
COMMENT: /;[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""


def _sx(item: Any) -> SExpr:
    if isinstance(item, Token):
        return SAtom(str(item), item.line or 1, item.column or 1)
    assert isinstance(item, SList)
    return item


class _Build(Transformer[Token, Any]):
    """Builds :class:`SList` nodes during the LALR parse (no recursion, no parse tree)."""

    def group(self, items: list[Any]) -> SList:
        lpar, rpar = items[0], items[-1]
        return SList(
            tuple(_sx(i) for i in items[1:-1]), lpar.line or 1, lpar.column or 1,
            lpar.start_pos or 0, rpar.end_pos or 0,
        )

    def start(self, items: list[Any]) -> tuple[SExpr, ...]:
        return tuple(_sx(i) for i in items)


_lock = threading.Lock()


@functools.cache
def _get_parser() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", lexer="contextual", transformer=_Build())


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _check_parens(text: str, max_depth: int) -> None:
    """Reject unbalanced or too deeply nested parentheses with an exact position (a
    linear scan that skips ``;`` comments), so the parser only sees well-formed input."""
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == ";":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if ch == "(":
            opened.append(i)
            if len(opened) > max_depth:
                line, col = _position(text, i)
                raise BDDLSyntaxError(
                    f"parentheses nest deeper than {max_depth}", line=line, column=col,
                    kind="too-deep", text=text,
                )
        elif ch == ")":
            if not opened:
                line, col = _position(text, i)
                raise BDDLSyntaxError(
                    "unmatched ')'", line=line, column=col, expected=("'('", "a symbol"),
                    kind="unmatched-paren", text=text,
                )
            opened.pop()
        i += 1
    if opened:
        line, col = _position(text, opened[-1])
        raise BDDLSyntaxError(
            "'(' is never closed", line=line, column=col, expected=("')'",),
            kind="unclosed-paren", text=text,
        )


def read_sexprs(
    text: str, *, max_depth: int = MAX_DEPTH, max_length: int = MAX_LENGTH
) -> tuple[SExpr, ...]:
    """Read every top-level s-expression in ``text`` (``;`` starts a comment)."""
    if not isinstance(text, str):
        raise TypeError(f"read_sexprs() takes a str, not {type(text).__name__}")
    if len(text) > max_length:
        raise BDDLSyntaxError(
            f"BDDL text is {len(text)} characters long, over the limit of {max_length}",
            line=1, column=1, kind="too-long", text=text[:200],
        )
    _check_parens(text, max_depth)
    with _lock:
        try:
            result: tuple[SExpr, ...] = _get_parser().parse(text)  # type: ignore[assignment]
        except LarkError as exc:  # pragma: no cover - balanced input always parses
            raise BDDLSyntaxError(str(exc), line=1, column=1, text=text) from None
    return result


def read_sexpr(text: str, *, max_depth: int = MAX_DEPTH, max_length: int = MAX_LENGTH) -> SExpr:
    """Read exactly one s-expression."""
    items = read_sexprs(text, max_depth=max_depth, max_length=max_length)
    if len(items) != 1:
        where = items[1] if len(items) > 1 else None
        line, col = (where.line, where.column) if where else _position(text, len(text))
        raise BDDLSyntaxError(
            f"expected one s-expression, found {len(items)}", line=line, column=col,
            kind="not-one-expression", text=text,
        )
    return items[0]


def sexpr_to_text(e: SExpr) -> str:
    """Compact one-line rendering of an s-expression."""
    if isinstance(e, SAtom):
        return e.text
    return "(" + " ".join(sexpr_to_text(i) for i in e.items) + ")"


# --------------------------------------------------------------------------- names


def _check_name(name: str, what: str, at: SExpr | None, text: str) -> str:
    if not _NAME.fullmatch(name) or name.lower() in _LTL_KEYWORDS:
        raise _error(f"{what} {name!r} cannot be written as an LTL name", at, text, "bad-name")
    return name


def ltl_category(bddl_category: str) -> str:
    """``jar.n.01`` → ``jar_n_01`` (``.`` and ``-`` become ``_``)."""
    return bddl_category.replace(".", "_").replace("-", "_")


def ltl_object(bddl_object: str) -> str:
    """``jar.n.01_1`` → ``jar_n_01.1``; a name without a ``_<digits>`` instance suffix is
    mapped like a category (``kitchen`` → ``kitchen``)."""
    m = _INSTANCE.fullmatch(bddl_object)
    if m:
        return f"{ltl_category(m['base'])}.{m['idx']}"
    return ltl_category(bddl_object)


def bddl_category(ltl_type: str) -> str:
    """Inverse of :func:`ltl_category` for WordNet-shaped names: ``jar_n_01`` →
    ``jar.n.01``; other names are kept."""
    m = _SYNSET.fullmatch(ltl_type)
    return f"{m['lemma']}.{m['pos']}.{m['sense']}" if m else ltl_type


def bddl_object(ltl_name: str) -> str:
    """Inverse of :func:`ltl_object`: ``jar_n_01.1`` → ``jar.n.01_1``."""
    m = _LTL_INSTANCE.fullmatch(ltl_name)
    if m:
        return f"{bddl_category(m['base'])}_{m['idx']}"
    return bddl_category(ltl_name)


def _error(message: str, at: SExpr | None, text: str, kind: str) -> BDDLSyntaxError:
    line, col = (at.line, at.column) if at is not None else (1, 1)
    return BDDLSyntaxError(message, line=line, column=col, kind=kind, text=text)


# --------------------------------------------------------------------------- problems


@dataclass(frozen=True)
class BDDLProblem:
    """The parts of a BDDL problem planproof uses. ``objects`` maps BDDL object names to
    BDDL categories in declaration order; ``goal_text`` is the goal's source text."""

    name: str
    domain: str | None
    objects: Mapping[str, str]
    init: tuple[SExpr, ...]
    goal: SExpr
    goal_text: str


def _head(e: SExpr) -> str | None:
    if isinstance(e, SList) and e.items and isinstance(e.items[0], SAtom):
        return e.items[0].text.lower()
    return None


def _parse_objects(section: SList, text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    pending: list[SAtom] = []
    items = section.items[1:]
    i = 0
    while i < len(items):
        it = items[i]
        if not isinstance(it, SAtom):
            raise _error("expected an object name", it, text, "bad-objects")
        if it.text == "-":
            if not pending or i + 1 >= len(items) or not isinstance(items[i + 1], SAtom):
                raise _error("'-' must follow object names and precede a type", it, text,
                             "bad-objects")
            cat = items[i + 1]
            assert isinstance(cat, SAtom)
            for obj in pending:
                out[obj.text] = cat.text
            pending = []
            i += 2
            continue
        pending.append(it)
        i += 1
    for obj in pending:  # untyped: category from the instance name, as BDDL names them
        m = _INSTANCE.fullmatch(obj.text)
        if not m:
            raise _error(f"object {obj.text!r} has no type", obj, text, "bad-objects")
        out[obj.text] = m["base"]
    return out


def parse_problem(text: str) -> BDDLProblem:
    """Read a BDDL ``(define (problem ...) ...)`` text."""
    top = read_sexpr(text)
    if _head(top) != "define":
        raise _error("a BDDL problem starts with (define ...)", top, text, "not-a-problem")
    assert isinstance(top, SList)
    name, domain, goal_text = "", None, ""
    objects: dict[str, str] = {}
    init: tuple[SExpr, ...] = ()
    goal: SExpr | None = None
    for section in top.items[1:]:
        head = _head(section)
        if not isinstance(section, SList) or head is None:
            raise _error("expected a (section ...)", section, text, "bad-section")
        args = section.items[1:]
        if head in ("problem", ":domain"):
            if len(args) != 1 or not isinstance(args[0], SAtom):
                raise _error(f"({head} NAME) expected", section, text, "bad-section")
            if head == "problem":
                name = args[0].text
            else:
                domain = args[0].text
        elif head == ":objects":
            objects = _parse_objects(section, text)
        elif head == ":init":
            init = tuple(args)
        elif head == ":goal":
            if len(args) != 1:
                raise _error(f"(:goal ...) must hold one formula, found {len(args)}",
                             section, text, "bad-goal")
            goal = args[0]
            goal_text = text[section.start : section.end]
    if goal is None:
        raise _error("the problem has no (:goal ...)", top, text, "no-goal")
    return BDDLProblem(name, domain, MappingProxyType(objects), init, goal, goal_text)


def bddl_problem_objects(text: str) -> dict[str, str]:
    """BDDL object name → BDDL category, from a problem's ``:objects``."""
    return dict(parse_problem(text).objects)


def problem_universe(problem: BDDLProblem | str) -> Universe:
    """The typed universe of a problem in LTL names (``jar_n_01.1`` of type ``jar_n_01``),
    over which its goal's typed quantifiers are grounded."""
    p = parse_problem(problem) if isinstance(problem, str) else problem
    out: dict[str, set[str]] = {}
    for obj, cat in p.objects.items():
        name = ltl_object(obj)
        if name in out:
            raise BDDLSyntaxError(
                f"objects collide on the LTL name {name!r}", line=1, column=1,
                kind="name-collision",
            )
        out[name] = {ltl_category(cat)}
    return Universe.of(out)


# --------------------------------------------------------------------------- BDDL → LTL


VariableNaming = Literal["indexed", "bddl"]


class _ToLTL:
    """One conversion: source text for error positions, objects, variable naming."""

    def __init__(
        self, text: str, objects: Mapping[str, str] | None, naming: VariableNaming,
        prefix: str,
    ) -> None:
        self.text = text
        self.objects = objects
        self.naming = naming
        self.prefix = prefix

    def err(self, message: str, at: SExpr, kind: str = "bad-goal") -> BDDLSyntaxError:
        return _error(message, at, self.text, kind)

    def count(self, e: SExpr) -> int:
        items = e.items if isinstance(e, SList) else (e,)
        if len(items) != 1 or not isinstance(items[0], SAtom):
            raise self.err("a count is written (N)", e)
        digits = items[0].text
        if not digits.isdigit() or not digits.isascii() or len(digits) > MAX_COUNT_DIGITS:
            raise self.err(f"count {digits!r} is not a small non-negative integer", e)
        return int(digits)

    def binder(self, e: SExpr, scope: dict[str, str], k: int) -> tuple[ast.Binder, str]:
        """Parse ``(?v - type)`` or ``(?v)``; returns the binder and the BDDL name."""
        if not isinstance(e, SList) or not all(isinstance(i, SAtom) for i in e.items):
            raise self.err("a variable is declared as (?name - type)", e)
        parts = [i.text for i in e.items if isinstance(i, SAtom)]
        if not (len(parts) == 1 or (len(parts) == 3 and parts[1] == "-")):
            raise self.err("a variable is declared as (?name - type)", e)
        if not parts[0].startswith("?") or len(parts[0]) < 2:
            raise self.err(f"variable {parts[0]!r} must start with '?'", e)
        bddl_name = parts[0]
        if self.naming == "indexed":
            var = f"{self.prefix}{k}"
        else:
            var = _check_name(ltl_category(bddl_name[1:]), "variable", e, self.text)
        typ = None
        if len(parts) == 3:
            typ = _check_name(ltl_category(parts[2]), "type", e, self.text)
        return ast.Binder(var, typ), bddl_name

    def term(self, a: SExpr, scope: dict[str, str]) -> ast.Term:
        if not isinstance(a, SAtom):
            raise self.err("an argument must be a name, not a list", a)
        if a.text in scope:
            return ast.Var(scope[a.text])
        raw = a.text[1:] if a.text.startswith("?") else a.text
        if self.objects is not None and raw not in self.objects:
            raise self.err(f"unknown object {raw!r}", a, "unknown-object")
        name = ltl_object(raw)
        m = _LTL_INSTANCE.fullmatch(name)
        _check_name(m["base"] if m else name, "object", a, self.text)
        if name in scope.values():
            raise self.err(f"object {name!r} has the name of a bound variable", a,
                           "name-collision")
        return ast.Const(name)

    def convert(self, e: SExpr, scope: dict[str, str], k: int, depth: int) -> ast.Formula:
        if depth > MAX_DEPTH:
            raise self.err(f"goal nests deeper than {MAX_DEPTH}", e, "too-deep")
        if not isinstance(e, SList) or not e.items:
            raise self.err("expected a formula (...)", e)
        head_e = e.items[0]
        if not isinstance(head_e, SAtom):
            raise self.err("a formula starts with a connective or predicate name", e)
        head = head_e.text.lower()
        args = e.items[1:]
        d = depth + 1

        def need(n: int, shape: str) -> None:
            if len(args) != n:
                raise self.err(f"({head} ...) takes {shape}", e)

        match head:
            case "and" | "or":
                parts = tuple(self.convert(a, scope, k, d) for a in args)
                if len(parts) == 1:
                    return parts[0]
                if not parts:
                    return ast.TRUE if head == "and" else ast.FALSE
                return ast.And(parts) if head == "and" else ast.Or(parts)
            case "not":
                need(1, "one formula")
                return ast.Not(self.convert(args[0], scope, k, d))
            case "imply":
                need(2, "two formulas")
                return ast.Implies(
                    self.convert(args[0], scope, k, d), self.convert(args[1], scope, k, d)
                )
            case "forall" | "exists":
                need(2, "a variable (?x - type) and a formula")
                b, name = self.binder(args[0], scope, k)
                body = self.convert(args[1], {**scope, name: b.var}, k + 1, d)
                return ast.Forall(b, body) if head == "forall" else ast.Exists(b, body)
            case "forn":
                need(3, "a count (N), a variable (?x - type) and a formula")
                n = self.count(args[0])
                b, name = self.binder(args[1], scope, k)
                return ast.ForN(n, b, self.convert(args[2], {**scope, name: b.var}, k + 1, d))
            case "forpairs" | "fornpairs":
                offset = 1 if head == "fornpairs" else 0
                shape = ("a count (N), " if offset else "") + "two variables and a formula"
                need(3 + offset, shape)
                b1, n1 = self.binder(args[offset], scope, k)
                b2, n2 = self.binder(args[offset + 1], scope, k + 1)
                if n1 == n2:
                    raise self.err("the two variables of a pair quantifier must differ", e)
                inner = {**scope, n1: b1.var, n2: b2.var}
                body = self.convert(args[offset + 2], inner, k + 2, d)
                if offset:
                    return ast.ForNPairs(self.count(args[0]), b1, b2, body)
                return ast.ForPairs(b1, b2, body)
        pred = _check_name(head_e.text, "predicate", head_e, self.text)
        return ast.Atom(pred, tuple(self.term(a, scope) for a in args))


def _goal_sexpr(goal: SExpr | str) -> tuple[SExpr, str]:
    """Accept a formula or a whole ``(:goal F)`` section, as text or s-expression."""
    text = goal if isinstance(goal, str) else ""
    e = read_sexpr(goal) if isinstance(goal, str) else goal
    if _head(e) == ":goal":
        assert isinstance(e, SList)
        if len(e.items) != 2:
            raise _error("(:goal ...) must hold one formula", e, text, "bad-goal")
        e = e.items[1]
    return e, text


def _fresh_prefix(e: SExpr) -> str:
    """``x`` unless an object is literally named ``x<digits>``; then ``_x``, ``__x``...
    (declared variables, the lists starting with ``?name``, are not objects)."""
    declared: set[str] = set()
    names: set[str] = set()
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, SAtom):
            names.add(node.text)
            continue
        first = node.items[0] if node.items else None
        if isinstance(first, SAtom) and first.text.startswith("?"):
            declared.add(first.text)
        stack.extend(node.items)
    objects = {ltl_object(n.lstrip("?")) for n in names - declared}
    prefix = "x"
    while any(re.fullmatch(re.escape(prefix) + r"[0-9]+", n) for n in objects):
        prefix = "_" + prefix
    return prefix


def bddl_goal_to_ltl(
    goal: SExpr | str,
    *,
    objects: Mapping[str, str] | None = None,
    variables: VariableNaming = "indexed",
) -> ast.Formula:
    """Convert a BDDL goal to a typed formula.

    ``(forall (?j - jar.n.01) F)`` → ``Forall(Binder("x0", "jar_n_01"), F')``. With
    ``variables="indexed"`` variables are named ``x0, x1, ...`` by nesting depth, as the
    EAI data writes them; ``"bddl"`` keeps the BDDL names (``?jar.n.01`` → ``jar_n_01``).
    ``?name`` not bound by an enclosing quantifier is an object, as in BEHAVIOR's files.
    If ``objects`` (BDDL name → category) is given, unknown objects are errors.
    ``(and)``/``(or)`` with no operand are true/false; with one operand, that operand.
    """
    e, text = _goal_sexpr(goal)
    return _ToLTL(text, objects, variables, _fresh_prefix(e)).convert(e, {}, 0, 0)


# --------------------------------------------------------------------------- LTL → BDDL


def _bddl_term(t: ast.Term) -> str:
    return f"?{t.name}" if isinstance(t, ast.Var) else bddl_object(t.name)


def _bddl_binder(b: ast.Binder) -> str:
    return f"(?{b.var})" if b.type is None else f"(?{b.var} - {bddl_category(b.type)})"


def ltl_to_bddl(f: ast.Formula) -> str:
    """Write a ``then``-free formula as a BDDL goal (one line). True and false become
    ``(and)`` and ``(or)``; an untyped binder is written ``(?x)``."""
    match f:
        case ast.Atom(pred, args):
            return "(" + " ".join([pred, *(_bddl_term(a) for a in args)]) + ")"
        case ast.Top():
            return "(and)"
        case ast.Bottom():
            return "(or)"
        case ast.Not(body):
            return f"(not {ltl_to_bddl(body)})"
        case ast.And(cs) | ast.Or(cs):
            word = "and" if isinstance(f, ast.And) else "or"
            return f"({word} " + " ".join(ltl_to_bddl(c) for c in cs) + ")"
        case ast.Implies(left, right):
            return f"(imply {ltl_to_bddl(left)} {ltl_to_bddl(right)})"
        case ast.Forall(b, body):
            return f"(forall {_bddl_binder(b)} {ltl_to_bddl(body)})"
        case ast.Exists(b, body):
            return f"(exists {_bddl_binder(b)} {ltl_to_bddl(body)})"
        case ast.ForN(n, b, body):
            return f"(forn ({n}) {_bddl_binder(b)} {ltl_to_bddl(body)})"
        case ast.ForPairs(b1, b2, body):
            return f"(forpairs {_bddl_binder(b1)} {_bddl_binder(b2)} {ltl_to_bddl(body)})"
        case ast.ForNPairs(n, b1, b2, body):
            return (
                f"(fornpairs ({n}) {_bddl_binder(b1)} {_bddl_binder(b2)} "
                f"{ltl_to_bddl(body)})"
            )
        case ast.Then():
            raise UnsupportedFormulaError("BDDL goals have no 'then'")
    raise TypeError(f"not a formula: {f!r}")


# --------------------------------------------------------------------------- reference format


class _Reference:
    """Writes the EAI reference's untyped goal strings (see :func:`reference_tl_string`)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def render(self, e: SExpr, scope: dict[str, str], k: int, level: int) -> str:
        if level > MAX_DEPTH or not isinstance(e, SList) or not e.items:
            raise _error("expected a formula (...)", e, self.text, "bad-goal")
        head_e, args = e.items[0], e.items[1:]
        if not isinstance(head_e, SAtom):
            raise _error("a formula starts with a name", e, self.text, "bad-goal")
        head = head_e.text.lower()
        sub = level + 1

        def wrap(s: str) -> str:
            return f"({s})" if level > 0 else s

        def bind(b: SExpr) -> tuple[str, str]:
            if not (isinstance(b, SList) and len(b.items) == 3
                    and all(isinstance(i, SAtom) for i in b.items)):
                raise _error("a variable is declared as (?name - type)", b, self.text, "bad-goal")
            name, dash, typ = (i.text for i in b.items if isinstance(i, SAtom))
            if dash != "-" or not name.startswith("?"):
                raise _error("a variable is declared as (?name - type)", b, self.text, "bad-goal")
            return name, _check_name(ltl_category(typ), "type", b, self.text)

        def guarded(q: str, var: str, cat: str, body: str) -> str:
            return f"{q} {var}. (not {cat}({var}) or {body})"

        def count(c: SExpr) -> str:
            n = c.items[0] if isinstance(c, SList) and len(c.items) == 1 else c
            if not isinstance(n, SAtom) or not n.text.isdigit():
                raise _error("a count is written (N)", c, self.text, "bad-goal")
            return str(int(n.text))

        match head:
            case "and" | "or" if args:
                return wrap(f" {head} ".join(self.render(a, scope, k, sub) for a in args))
            case "not" if len(args) == 1:
                return wrap("not " + self.render(args[0], scope, k, sub))
            case "imply" if len(args) == 2:
                return wrap(
                    f"not {self.render(args[0], scope, k, sub)} or "
                    f"{self.render(args[1], scope, k, sub)}"
                )
            case "forall" | "exists" if len(args) == 2:
                v = f"x{k}"
                name, cat = bind(args[0])
                body = self.render(args[1], {**scope, name: v}, k + 1, sub)
                return wrap(guarded(head, v, cat, body))
            case "forn" if len(args) == 3:
                v = f"x{k}"
                name, cat = bind(args[1])
                body = self.render(args[2], {**scope, name: v}, k + 1, sub)
                return wrap(guarded(f"forn {count(args[0])}.", v, cat, body))
            case "forpairs" | "fornpairs" if len(args) == (4 if head == "fornpairs" else 3):
                off = 1 if head == "fornpairs" else 0
                outer = f"forn {count(args[0])}." if off else "forall"
                v1, v2 = f"x{k}", f"x{k + 1}"
                n1, c1 = bind(args[off])
                n2, c2 = bind(args[off + 1])
                body = self.render(args[off + 2], {**scope, n1: v1, n2: v2}, k + 2, sub)
                one = guarded(outer, v1, c1, guarded("forn 1.", v2, c2, body))
                two = guarded(outer, v2, c2, guarded("forn 1.", v1, c1, body))
                return wrap(f"{one} and {two}")
            case "and" | "or" | "not" | "imply" | "forall" | "exists" | "forn" | "forpairs" \
                    | "fornpairs":
                raise UnsupportedFormulaError(
                    f"the reference format cannot write ({head} ...) with {len(args)} operands"
                )
        pred = REFERENCE_PREDICATES.get(head_e.text, head_e.text)
        _check_name(pred, "predicate", head_e, self.text)
        terms = []
        for a in args:
            if not isinstance(a, SAtom):
                raise _error("an argument must be a name", a, self.text, "bad-goal")
            term = scope.get(a.text) or ltl_object(a.text.lstrip("?"))
            m = _LTL_INSTANCE.fullmatch(term)
            _check_name(m["base"] if m else term, "object", a, self.text)
            terms.append(term)
        return f"{pred}({', '.join(terms)})"


def reference_tl_string(goal: SExpr | str) -> str:
    """The goal as the EAI reference writes BEHAVIOR ``tl_goal`` strings: untyped
    quantifiers whose category is a unary guard (``forall x0. (not jar_n_01(x0) or
    ...)``), ``forpairs`` expanded into two ``forall ... forn 1.`` conjuncts,
    ``toggled_on`` written ``toggledon``. Each top-level conjunct is rendered on its own
    (as the reference does per goal condition) and joined with ``and``; ``imply`` (absent
    from the reference) is written ``not A or B``.

    Kept for comparison only: the guard is right for ``forall`` but makes ``exists`` and
    ``forn`` also count objects *outside* the category (see ``docs/data.md``)."""
    e, text = _goal_sexpr(goal)
    r = _Reference(text)
    conjuncts = e.items[1:] if _head(e) == "and" and isinstance(e, SList) else (e,)
    if not conjuncts:
        raise UnsupportedFormulaError("the reference format cannot write an empty (and)")
    parts = []
    for c in conjuncts:
        s = r.render(c, {}, 0, 0)
        parts.append(f"({s})" if _head(c) in ("or", "imply") and len(conjuncts) > 1 else s)
    return " and ".join(parts)
