"""A tolerant reader for operators written by an LLM.

LLM answers wrap PDDL in code fences, JSON (``{"output": "..."}``, often with single
quotes), prose before and after, and sometimes drop closing parentheses. This reader
finds every ``(:action NAME ...)`` block (or bare ``:parameters`` / ``:precondition`` /
``:effect`` fragments), closes parentheses left open at the end of a fragment (noting the
repair), and reads each part. What still cannot be read raises
:class:`OperatorParseError` with the line and column in the cleaned answer.

Reading is in two stages: the raw s-expressions (enough for logic-form matching, which
must also score operators with unknown predicates) and, when possible, an
:class:`~planproof.pddl.schema.Operator` for planning and simulation. Problems that stop
the second stage (a variable that is not a parameter, a malformed effect) are listed in
``problems`` rather than raised, so one bad operator never hides the others.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from planproof.boundary import InputError, loads
from planproof.boundary.limits import MAX_TEXT_CHARS
from planproof.ltl.bddl.reader import read_sexpr
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList
from planproof.ltl.errors import check_text_length
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.schema import Domain, Operator, Param, too_many_parameters
from planproof.pddl.sexpr_io import read_condition, read_effect, read_parameters

MAX_LENGTH = MAX_TEXT_CHARS


class OperatorParseError(PDDLSyntaxError):
    """An LLM answer from which no operator can be read; positions refer to the answer
    after fences and JSON quoting are removed (``text``)."""


@dataclass(frozen=True)
class ParsedOperator:
    """One operator read from an answer. ``operator`` is None when the text is readable
    as s-expressions but not as a PDDL operator (see ``problems``)."""

    name: str
    parameters: tuple[Param, ...] | None
    precondition: SExpr | None
    effect: SExpr | None
    operator: Operator | None
    problems: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()
    unknown_variables: tuple[str, ...] = field(default=())


_FENCE = re.compile(r"```[a-zA-Z]*\n?|```")
_ACTION = re.compile(r"\(\s*:action\s+([^\s()]+)", re.IGNORECASE)
_KEYWORD = re.compile(r":(parameters|precondition|effect)\b", re.IGNORECASE)
_OUTPUT_OPEN = re.compile(r"""["']output["']\s*:\s*(["'])""")
"""The opening of a JSON answer's ``output`` string, for answers that are no JSON: their
escapes (``\\n`` between the PDDL's words) must still be read as the characters they
stand for, or ``(:action open\\n`` names an operator ``open\\n``."""


_LEFT_ESCAPE = re.compile(r"\\[nrt]")
_ESCAPE = re.compile(
    r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|[\\'\"abfnrtv\n])"
)


def _unescape(text: str) -> str:
    """Read the backslash escapes of a JSON or Python string literal, one escape at a
    time: ``str.encode().decode("unicode_escape")`` would also re-read every non-ASCII
    character as Latin-1 (``é`` → ``Ã©``). An escape that means nothing stays as written."""

    def one(m: re.Match[str]) -> str:
        try:
            return codecs.decode(m.group().encode("ascii"), "unicode_escape")
        except (UnicodeError, ValueError):
            return m.group()

    return _ESCAPE.sub(one, text)


def clean_answer(text: str) -> str:
    """Strip code fences and unwrap a JSON answer (``{"output": "..."}``, single quotes
    tolerated); what is left is the PDDL text with whatever prose surrounds it. A ``\\n``
    (``\\t``, ``\\r``) still written out in it (an answer that escaped its newlines twice)
    is the whitespace it stands for: PDDL has no backslash. Not so in the text of a
    broken JSON string, whose escapes were read one by one already: a backslash left
    there was written as ``\\\\`` and is kept as written (``\\r`` in a comment stays)."""
    unwrapped, escapes_read = _unwrap(text)
    if escapes_read or "\\" not in unwrapped:
        return unwrapped
    return _LEFT_ESCAPE.sub(lambda m: {"n": "\n", "r": "\r", "t": "\t"}[m.group()[1]], unwrapped)


def _unwrap(text: str) -> tuple[str, bool]:
    """The answer's PDDL text, and whether its escapes were read here already."""
    check_text_length(
        text, caller="clean_answer", what="answer", max_length=MAX_LENGTH, error=OperatorParseError
    )
    s = _FENCE.sub("", text).strip()
    if s.startswith("{"):
        for candidate in (s, s.replace("'", '"')):
            try:  # the boundary's reading: bounded depth, huge numbers refused, typed
                doc = loads(candidate, source="<answer>", allow_surrogates=True)
            except InputError:
                continue
            if isinstance(doc, dict):
                out = doc.get("output", doc.get("actions"))
                if isinstance(out, str):
                    return _FENCE.sub("", out).strip(), False
                if isinstance(out, list) and all(isinstance(x, str) for x in out):
                    return "\n".join(out), False
            break
        m = re.search(r"""["']output["']\s*:\s*["'](.*)["']\s*}\s*$""", s, re.DOTALL)
        if m:
            return _unescape(m.group(1)), True
        m = _OUTPUT_OPEN.search(s)
        if m:  # a JSON string never closed, or closed before stray text: ``...)")}``
            body = s[m.end() :]
            close = body.rfind(m.group(1))
            body = body[:close] if close >= 0 else body.rstrip().removesuffix("}")
            return _unescape(body), True
    return s, False


def _balanced_end(text: str, start: int) -> tuple[int, int]:
    """(end offset, parentheses left open) of the group opening at ``start``; stops at the
    next ``(:action`` when the group is never closed."""
    depth = 0
    stop = len(text)
    nxt = _ACTION.search(text, start + 1)
    if nxt:
        stop = nxt.start()
    for i in range(start, stop):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1, 0
    return stop, depth


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _fragment(text: str, start: int, limit: int) -> tuple[str, int, int]:
    """The s-expression (or atom) that starts at or after ``start``, closing parentheses
    left open; returns (text, offset, parentheses added)."""
    i = start
    while i < limit and text[i].isspace():
        i += 1
    if i >= limit:
        return "", i, 0
    if text[i] != "(":
        m = re.match(r"[^\s()]+", text[i:limit])
        return (m.group(0) if m else ""), i, 0
    depth = 0
    for j in range(i, limit):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return text[i : j + 1], i, 0
    return text[i:limit].rstrip() + ")" * depth, i, depth


def _read(frag: str, offset: int, text: str, what: str) -> SExpr:
    try:
        return read_sexpr(frag)
    except Exception as exc:
        line0, col0 = _position(text, offset)
        line = getattr(exc, "line", 1)
        col = getattr(exc, "column", 1)
        raise OperatorParseError(
            f"{what}: {getattr(exc, 'message', str(exc))}",
            line=line0 + line - 1,
            column=col0 + col - 1 if line == 1 else col,
            kind=getattr(exc, "kind", "operator"),
            text=text,
        ) from None


def _variables(e: SExpr | None) -> set[str]:
    if e is None:
        return set()
    if isinstance(e, SAtom):
        return {e.text[1:].lower()} if e.text.startswith("?") else set()
    return set().union(*(_variables(i) for i in e.items)) if e.items else set()


def _bound(e: SExpr | None) -> set[str]:
    """Variables a quantifier inside ``e`` binds."""
    if not isinstance(e, SList) or not e.items:
        return set()
    out: set[str] = set()
    first = e.items[0]
    if (
        isinstance(first, SAtom)
        and first.text.lower() in {"forall", "exists"}
        and len(e.items) > 1
        and isinstance(e.items[1], SList)
    ):
        out |= {
            a.text[1:].lower()
            for a in e.items[1].items
            if isinstance(a, SAtom) and a.text.startswith("?")
        }
    for i in e.items:
        out |= _bound(i)
    return out


def _operator(
    name: str, params: SExpr | None, pre: SExpr | None, eff: SExpr | None
) -> tuple[tuple[Param, ...] | None, Operator | None, list[str], list[str]]:
    problems: list[str] = []
    ps: tuple[Param, ...] | None = None
    if params is None:
        problems.append("no :parameters")
    else:
        try:
            ps = read_parameters(params)
        except PDDLSyntaxError as exc:
            problems.append(f":parameters: {exc.message}")
    too_many = too_many_parameters(name, len(ps or ()))
    if too_many:  # refused before its conditions are read, checked or grounded
        return ps, None, [*problems, too_many], []
    declared = {p.name.lower() for p in ps or ()}
    unknown = sorted((_variables(pre) | _variables(eff)) - declared - _bound(pre) - _bound(eff))
    if unknown:
        problems.append("unknown variables: " + ", ".join("?" + u for u in unknown))
    op: Operator | None = None
    if ps is not None and not unknown:
        scope = {p.name for p in ps}
        try:
            op = Operator(
                name,
                ps,
                read_condition(pre if pre is not None else SList(()), scope),
                read_effect(eff if eff is not None else SList(()), scope),
            )
        except (PDDLSyntaxError, ValueError) as exc:
            problems.append(getattr(exc, "message", str(exc)))
    return ps, op, problems, unknown


def read_operators(
    answer: str,
    *,
    default_name: str | None = None,
    parameters: Mapping[str, str] | None = None,
) -> dict[str, ParsedOperator]:
    """Every operator in an LLM answer, by lower-cased name. Bare fragments without an
    ``(:action NAME`` header are read as one operator named ``default_name``; an operator
    without ``:parameters`` takes them from ``parameters`` (name → PDDL text, the ones the
    prompt gave) when present there.

    Raises :class:`OperatorParseError` when nothing can be read: no action and no
    fragment, or a fragment whose parentheses are wrong beyond closing them."""
    text = clean_answer(answer)
    blocks: list[tuple[str, int, int, int]] = []
    for m in _ACTION.finditer(text):
        end, open_left = _balanced_end(text, m.start())
        blocks.append((m.group(1), m.end(), end, open_left))
    if not blocks:
        if default_name is None or not _KEYWORD.search(text):
            line, col = _position(text, 0)
            raise OperatorParseError(
                "no (:action NAME ...) block and no :precondition/:effect fragment found",
                line=line,
                column=col,
                kind="no-operator",
                text=text,
            )
        blocks.append((default_name, 0, len(text), 0))
    out: dict[str, ParsedOperator] = {}
    for name, body_start, end, open_left in blocks:
        repairs: list[str] = []
        if open_left:
            repairs.append(f"closed {open_left} parenthes{'is' if open_left == 1 else 'es'}")
        parts: dict[str, SExpr | None] = {}
        kws = list(_KEYWORD.finditer(text, body_start, end))
        for idx, k in enumerate(kws):
            limit = kws[idx + 1].start() if idx + 1 < len(kws) else end
            frag, off, added = _fragment(text, k.end(), limit)
            if added:
                word = "parenthesis" if added == 1 else "parentheses"
                repairs.append(f"closed {added} {word} in :{k.group(1).lower()}")
            key = k.group(1).lower()
            parts[key] = _read(frag, off, text, f"{name} :{key}") if frag else None
        pre = parts.get("precondition")
        eff = parts.get("effect")
        given = parts.get("parameters")
        if given is None and parameters and name.lower() in parameters:
            given = _read(parameters[name.lower()], 0, parameters[name.lower()], "parameters")
            repairs.append("took :parameters from the prompt")
        ps, op, problems, unknown = _operator(name, given, pre, eff)
        out[name.lower()] = ParsedOperator(
            name, ps, pre, eff, op, tuple(problems), tuple(repairs), tuple(unknown)
        )
    return out


def replace_operators(domain: Domain, answer: str) -> tuple[Domain, dict[str, str]]:
    """``domain`` with the operators written in ``answer`` (PDDL, tolerant reading) in
    place of the ones of the same name: how a simulator runs an LLM's transition model.
    An operator keeps its ``implicit`` parameters (the acting agent) when the new one has
    parameters of those names. Returns the new domain and, per operator that could not be
    used, why (those keep their old definition)."""
    parsed = read_operators(answer)
    ops = dict(domain.operators)
    rejected: dict[str, str] = {}
    for p in parsed.values():
        old = domain.lookup(p.name)
        if old is None:
            rejected[p.name] = "no operator of that name in the domain"
            continue
        if p.operator is None:
            rejected[p.name] = "; ".join(p.problems)
            continue
        names = {q.name for q in p.operator.params}
        implicit = tuple(i for i in old.implicit if i in names)
        new = replace(p.operator, name=old.name, implicit=implicit, description=old.description)
        ops[old.name] = new
    try:
        return replace(domain, operators=ops), rejected
    except ValueError as exc:
        # an operator uses an unknown predicate or type: drop the offenders one by one
        for name, op in list(ops.items()):
            if op is not domain.operators.get(name):
                try:
                    replace(domain, operators={**domain.operators, name: op})
                except ValueError as one:
                    rejected[name] = str(one)
                    ops[name] = domain.operators[name]
        if not rejected:
            rejected["domain"] = str(exc)
        return replace(domain, operators=ops), rejected
