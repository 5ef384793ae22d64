"""Rendering pieces of a task as prompt text: objects, states, goals, vocabulary."""

from __future__ import annotations

from collections.abc import Iterable

from planproof.ltl.ast import Atom, Formula, Literal
from planproof.ltl.printer import to_text
from planproof.pddl.schema import Domain
from planproof.simulators.core import Action, Task


def atom_text(a: Atom) -> str:
    return f"{a.pred}({', '.join(t.name for t in a.args)})"


def literal_text(lit: Literal) -> str:
    return atom_text(lit.atom) if lit.positive else f"not {atom_text(lit.atom)}"


def objects_block(task: Task) -> str:
    """One line per object: its name, its types and its properties (static facts)."""
    world = task.world
    props: dict[str, list[str]] = {}
    for a in world.static:
        if len(a.args) == 1:
            props.setdefault(a.args[0].name, []).append(a.pred)
    lines = []
    for name in world.universe.names:
        types = sorted(world.objects.get(name, ()))
        p = ", ".join(sorted(props.get(name, ()))) or "none"
        lines.append(f"- {name} (type: {', '.join(types) or 'object'}; properties: {p})")
    return "\n".join(lines)


def state_block(atoms: Iterable[Atom]) -> str:
    return "\n".join(sorted(atom_text(a) for a in atoms)) or "(nothing holds)"


def action_vocabulary(domain: Domain) -> str:
    """Each operator with its arity and description."""
    lines = []
    for name in sorted(domain.operators):
        op = domain.operators[name]
        args = ", ".join(f"{p.type}" for p in op.explicit)
        desc = op.description.strip() or name
        lines.append(f"- {name.upper()}({args}): {desc}")
    return "\n".join(lines)


def predicate_vocabulary(domain: Domain, *, arity: int | None = None) -> str:
    """The fluent predicates (the states a goal can ask for) with their argument types."""
    lines = []
    for p in sorted(domain.fluents):
        types = domain.predicates[p]
        if arity is not None and (len(types) == 1) != (arity == 1):
            continue
        lines.append(f"- {p}({', '.join(types)})")
    return "\n".join(lines)


def goal_text(f: Formula) -> str:
    return to_text(f)


def plan_lines(actions: Iterable[Action]) -> str:
    return "\n".join(f"{a.name.upper()}({', '.join(a.args)})" for a in actions)
