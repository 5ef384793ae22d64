"""BDDL problems: ``(define (problem ...) ...)`` read into the parts planproof uses, and
the typed universe their goals are grounded over."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from planproof.ltl.bddl.errors import BDDLSyntaxError, error_at
from planproof.ltl.bddl.names import INSTANCE, ltl_category, ltl_object
from planproof.ltl.bddl.reader import read_sexpr
from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head
from planproof.ltl.trace import Universe


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


def _parse_objects(section: SList, text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    pending: list[SAtom] = []
    items = section.items[1:]
    i = 0
    while i < len(items):
        it = items[i]
        if not isinstance(it, SAtom):
            raise error_at("expected an object name", it, text, "bad-objects")
        if it.text == "-":
            if not pending or i + 1 >= len(items) or not isinstance(items[i + 1], SAtom):
                raise error_at(
                    "'-' must follow object names and precede a type", it, text, "bad-objects"
                )
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
        m = INSTANCE.fullmatch(obj.text)
        if not m:
            raise error_at(f"object {obj.text!r} has no type", obj, text, "bad-objects")
        out[obj.text] = m["base"]
    return out


def parse_problem(text: str) -> BDDLProblem:
    """Read a BDDL ``(define (problem ...) ...)`` text."""
    top = read_sexpr(text)
    if head(top) != "define":
        raise error_at("a BDDL problem starts with (define ...)", top, text, "not-a-problem")
    assert isinstance(top, SList)
    name, domain, goal_text = "", None, ""
    objects: dict[str, str] = {}
    init: tuple[SExpr, ...] = ()
    goal: SExpr | None = None
    for section in top.items[1:]:
        section_head = head(section)
        if not isinstance(section, SList) or section_head is None:
            raise error_at("expected a (section ...)", section, text, "bad-section")
        args = section.items[1:]
        if section_head in ("problem", ":domain"):
            if len(args) != 1 or not isinstance(args[0], SAtom):
                raise error_at(f"({section_head} NAME) expected", section, text, "bad-section")
            if section_head == "problem":
                name = args[0].text
            else:
                domain = args[0].text
        elif section_head == ":objects":
            objects = _parse_objects(section, text)
        elif section_head == ":init":
            init = tuple(args)
        elif section_head == ":goal":
            if len(args) != 1:
                raise error_at(
                    f"(:goal ...) must hold one formula, found {len(args)}",
                    section,
                    text,
                    "bad-goal",
                )
            goal = args[0]
            goal_text = text[section.start : section.end]
    if goal is None:
        raise error_at("the problem has no (:goal ...)", top, text, "no-goal")
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
                f"objects collide on the LTL name {name!r}",
                line=1,
                column=1,
                kind="name-collision",
            )
        out[name] = {ltl_category(cat)}
    return Universe.of(out)
