"""PARTNR evaluation functions as data: propositions, dependencies and constraints.

The JSON form is the reference code's (``{"function_name", "args"}`` propositions,
``{"type", "args"}`` constraints), read tolerantly: every alias the paper, the generation
prompts and the reference code use is accepted (``n`` for ``number``, ``arg_match`` for the
``is_same_*`` flags, argument indices or names or ``"object"`` for tie constraints,
``temporal_groups`` for DAG edges...). Predicate signatures come from the reference
``eval_predicates.json``, shipped unchanged beside this module. See ``docs/partnr.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Any, Literal, TypeAlias

from planproof.simulators.partnr.errors import EvaluationFormatError

Relation: TypeAlias = Literal[
    "while_satisfied", "after_satisfied", "after_unsatisfied", "before_satisfied"
]
Mode: TypeAlias = Literal["all", "any"]
RELATIONS: tuple[Relation, ...] = (
    "while_satisfied",
    "after_satisfied",
    "after_unsatisfied",
    "before_satisfied",
)

STATE_PREDICATES: dict[str, tuple[str, bool]] = {
    # predicate -> (state atom, positive?): negations apply per entity, before the OR
    "is_clean": ("clean", True),
    "is_dirty": ("clean", False),
    "is_filled": ("filled", True),
    "is_empty": ("filled", False),
    "is_powered_on": ("powered_on", True),
    "is_powered_off": ("powered_on", False),
}
RELATION_PREDICATES: dict[str, str] = {
    "is_on_top": "on_top",
    "is_inside": "inside",
    "is_in_room": "in_room",
    "is_next_to": "next_to",
}
UNARY_PREDICATES: dict[str, str] = {"is_on_floor": "on_floor"}

_SAME_FLAG_ALIASES = ("arg_match", "is_same", "is_same_entity_b")
_MAX_ENTITIES = 10_000


@dataclass(frozen=True, slots=True)
class Signature:
    """One predicate of ``eval_predicates.json``: its entity arguments (in order), its
    keyword arguments with defaults, and the name of its "same second argument" flag."""

    name: str
    entity_args: tuple[str, ...]
    defaults: tuple[tuple[str, Any], ...]
    same_flag: str | None

    @property
    def variadic(self) -> bool:
        return self.entity_args == ("*args",)


@cache
def signatures() -> dict[str, Signature]:
    """The predicate signatures of the reference code, read from the shipped JSON as is."""
    text = (
        resources.files("planproof.simulators.partnr")
        .joinpath("eval_predicates.json")
        .read_text(encoding="utf-8")
    )
    return signatures_from_json(json.loads(text))


def signatures_from_json(data: Mapping[str, Any]) -> dict[str, Signature]:
    """Signatures from the reference file's ``{"predicates": {name: [arg, ...]}}``."""
    try:
        preds = data["predicates"]
        out: dict[str, Signature] = {}
        for name, params in preds.items():
            entity = tuple(p["name"] for p in params if not p["is_kwarg"])
            kwargs = tuple((p["name"], p["default"]) for p in params if p["is_kwarg"])
            flag = next((k for k, _ in kwargs if k.startswith("is_same")), None)
            out[name] = Signature(name, entity, kwargs, flag)
    except (KeyError, TypeError, AttributeError) as err:
        raise EvaluationFormatError(f"malformed predicate signature file: {err!r}") from None
    for name in (*STATE_PREDICATES, *RELATION_PREDICATES, *UNARY_PREDICATES, "is_clustered"):
        if name not in out:
            raise EvaluationFormatError(f"predicate signature file lacks {name}")
    return out


@dataclass(frozen=True, slots=True)
class Proposition:
    """A predicate over OR-lists of entities: ``groups[k]`` are the candidates for entity
    argument ``k``. ``number`` is the subset count (one count per group for
    ``is_clustered``); ``same`` asks the counted entities to share the second argument."""

    function: str
    groups: tuple[tuple[str, ...], ...]
    number: int | tuple[int, ...] = 1
    same: bool = False
    extra: tuple[tuple[str, Any], ...] = ()  # other keyword arguments (l2_threshold), kept

    @property
    def count(self) -> int:
        """The subset count (the largest one for ``is_clustered``)."""
        return self.number if isinstance(self.number, int) else max(self.number, default=1)

    def entities(self) -> frozenset[str]:
        return frozenset(e for g in self.groups for e in g)

    def to_json(self) -> dict[str, Any]:
        sig = signatures()[self.function]
        args: dict[str, Any] = {}
        if sig.variadic:
            args["*args"] = [list(g) for g in self.groups]
            args["number"] = (
                list(self.number)
                if isinstance(self.number, tuple)
                else [self.number] * len(self.groups)
            )
        else:
            for name, g in zip(sig.entity_args, self.groups, strict=True):
                args[name] = list(g)
            args["number"] = self.number
            if sig.same_flag is not None:
                args[sig.same_flag] = self.same
        args.update(dict(self.extra))
        return {"function_name": self.function, "args": args}


@dataclass(frozen=True, slots=True)
class Dependency:
    """``proposition_indices`` are evaluated only when ``relation`` holds of ``depends_on``
    (all or any of them) in the states *before* the current one (reference semantics)."""

    proposition_indices: tuple[int, ...]
    depends_on: tuple[int, ...]
    relation: Relation
    mode: Mode = "all"

    def to_json(self) -> dict[str, Any]:
        return {
            "proposition_indices": list(self.proposition_indices),
            "depends_on": list(self.depends_on),
            "relation_type": self.relation,
            "dependency_mode": self.mode,
        }


@dataclass(frozen=True, slots=True)
class TemporalConstraint:
    """DAG edges ``(i, j)``: proposition ``i`` first satisfied strictly before ``j``."""

    edges: tuple[tuple[int, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "TemporalConstraint", "args": {"dag_edges": [list(e) for e in self.edges]}}


@dataclass(frozen=True, slots=True)
class TerminalConstraint:
    """These propositions, once satisfied, must still hold in the final state."""

    proposition_indices: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "TerminalSatisfactionConstraint",
            "args": {"proposition_indices": list(self.proposition_indices)},
        }


@dataclass(frozen=True, slots=True)
class TieConstraint:
    """Same-argument (``different=False``) or different-argument constraint: the entity
    that satisfies argument ``arg_indices[k]`` of proposition ``proposition_indices[k]``
    must be shared by (resp. unique within) the set."""

    proposition_indices: tuple[int, ...]
    arg_indices: tuple[int, ...]
    different: bool = False

    @property
    def type_name(self) -> str:
        return "DifferentArgConstraint" if self.different else "SameArgConstraint"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "args": {
                "proposition_indices": list(self.proposition_indices),
                "arg_indices": list(self.arg_indices),
            },
        }


Constraint: TypeAlias = TemporalConstraint | TerminalConstraint | TieConstraint


@dataclass(frozen=True)
class EvaluationFunction:
    """An episode's evaluation: what (propositions), when (dependencies), how
    (constraints). ``origin[i]`` is the proposition an unrolled copy came from."""

    propositions: tuple[Proposition, ...]
    dependencies: tuple[Dependency, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    origin: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.origin:
            object.__setattr__(self, "origin", tuple(range(len(self.propositions))))
        _validate(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "propositions": [p.to_json() for p in self.propositions],
            "dependencies": [d.to_json() for d in self.dependencies],
            "constraints": [c.to_json() for c in self.constraints],
        }

    def ancestors(self) -> dict[int, frozenset[int]]:
        """For every node of the temporal DAGs, its ancestors (one entry per constraint
        is merged: each temporal constraint is checked on its own, see the engine)."""
        out: dict[int, set[int]] = {}
        for c in self.constraints:
            if isinstance(c, TemporalConstraint):
                for node, anc in dag_ancestors(c.edges).items():
                    out.setdefault(node, set()).update(anc)
        return {k: frozenset(v) for k, v in out.items()}

    def unrolled(self) -> EvaluationFunction:
        """``number = n`` becomes the proposition plus copies with ``number = 1 .. n-1``, so
        percent complete gives partial credit (reference ``unroll_propositions_with_number``,
        with its dependency-index slip fixed: copies join their original's dependencies)."""
        props = list(self.propositions)
        origin = list(self.origin)
        deps = [list(d.proposition_indices) for d in self.dependencies]
        cons: list[Constraint] = list(self.constraints)
        for idx in range(len(self.propositions)):
            p = props[idx]
            if not isinstance(p.number, int) or p.number <= 1:
                continue
            for k in range(1, p.number):
                new = len(props)
                props.append(replace(p, number=k))
                origin.append(origin[idx])
                for j in range(len(cons)):  # new constraints are visited from the next copy
                    cons[j], spawned = _unroll_constraint(cons[j], idx, new)
                    cons.extend(spawned)
                for d in deps:
                    if idx in d:
                        d.append(new)
        return EvaluationFunction(
            tuple(props),
            tuple(
                replace(d, proposition_indices=tuple(ix))
                for d, ix in zip(self.dependencies, deps, strict=True)
            ),
            tuple(cons),
            tuple(origin),
        )


def _unroll_constraint(c: Constraint, orig: int, new: int) -> tuple[Constraint, list[Constraint]]:
    match c:
        case TemporalConstraint(edges):
            more = [(new, b) for a, b in edges if a == orig] + [
                (a, new) for a, b in edges if b == orig
            ]
            return TemporalConstraint(edges + tuple(more)), []
        case TerminalConstraint(ix) if orig in ix:
            return TerminalConstraint((*ix, new)), []
        case TieConstraint(ix, args, different) if orig in ix:
            pos = ix.index(orig)
            if not different:
                return TieConstraint((*ix, new), (*args, args[pos]), False), []
            rest = [(i, a) for i, a in zip(ix, args, strict=True) if i != orig]
            spawned = TieConstraint(
                (new, *(i for i, _ in rest)), (args[pos], *(a for _, a in rest)), True
            )
            return c, [spawned]
    return c, []


def dag_ancestors(edges: Sequence[tuple[int, int]]) -> dict[int, frozenset[int]]:
    """Ancestors of every node of a DAG; raises on a cycle."""
    preds: dict[int, set[int]] = {}
    for a, b in edges:
        preds.setdefault(a, set())
        preds.setdefault(b, set()).add(a)
    order = _topological(preds)
    anc: dict[int, frozenset[int]] = {}
    for node in order:
        acc: set[int] = set()
        for p in preds[node]:
            acc.add(p)
            acc |= anc[p]
        anc[node] = frozenset(acc)
    return anc


def _topological(preds: Mapping[int, set[int]]) -> list[int]:
    indeg = {n: len(ps) for n, ps in preds.items()}
    succ: dict[int, list[int]] = {n: [] for n in preds}
    for n, ps in preds.items():
        for p in ps:
            succ[p].append(n)
    ready = sorted(n for n, d in indeg.items() if d == 0)
    out: list[int] = []
    while ready:
        n = ready.pop()
        out.append(n)
        for m in succ[n]:
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    if len(out) != len(preds):
        cyc = sorted(n for n, d in indeg.items() if d > 0)
        raise EvaluationFormatError(f"temporal constraint is not a DAG: cycle through {cyc}")
    return out


def _validate(ev: EvaluationFunction) -> None:
    n = len(ev.propositions)

    def check(ix: Sequence[int], what: str) -> None:
        for i in ix:
            if not 0 <= i < n:
                raise EvaluationFormatError(
                    f"{what}: proposition index {i} out of range 0..{n - 1}"
                )

    if len(ev.origin) != n:
        raise EvaluationFormatError("origin must have one entry per proposition")
    for d in ev.dependencies:
        check(d.proposition_indices, "dependency")
        check(d.depends_on, "dependency depends_on")
    for c in ev.constraints:
        match c:
            case TemporalConstraint(edges):
                check([x for e in edges for x in e], "TemporalConstraint")
                dag_ancestors(edges)
            case TerminalConstraint(ix):
                check(ix, "TerminalSatisfactionConstraint")
            case TieConstraint(ix, args, _):
                check(ix, c.type_name)
                for i, a in zip(ix, args, strict=True):
                    if not 0 <= a < len(ev.propositions[i].groups):
                        raise EvaluationFormatError(
                            f"{c.type_name}: proposition {i} ({ev.propositions[i].function}) "
                            f"has no argument {a}"
                        )


def task_types(ev: EvaluationFunction) -> tuple[str, ...]:
    """The paper's task types an evaluation function exhibits: *spatial* (next to,
    clusters), *temporal* (temporal edges or dependencies other than ``while_satisfied``),
    *heterogeneous* (object states only a human can change), else *constraint_free*."""
    fns = {p.function for p in ev.propositions}
    out: list[str] = []
    if fns & {"is_next_to", "is_clustered"}:
        out.append("spatial")
    edges = any(isinstance(c, TemporalConstraint) and c.edges for c in ev.constraints)
    if edges or any(d.relation != "while_satisfied" for d in ev.dependencies):
        out.append("temporal")
    if fns & set(STATE_PREDICATES):
        out.append("heterogeneous")
    return tuple(out) or ("constraint_free",)


# --- reading JSON ----------------------------------------------------------------------


def _entity_list(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        items = [s.strip() for s in value.split(" or ")]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise EvaluationFormatError(f"{what}: expected a list of entity names, got {value!r}")
    out: list[str] = []
    for x in items:
        if not isinstance(x, str) or not x.strip():
            raise EvaluationFormatError(f"{what}: entity names must be non-empty strings: {x!r}")
        if x not in out:
            out.append(x.strip())
    if not out:
        raise EvaluationFormatError(f"{what}: empty entity list")
    if len(out) > _MAX_ENTITIES:
        raise EvaluationFormatError(f"{what}: more than {_MAX_ENTITIES} entities")
    return tuple(out)


def _int(value: Any, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise EvaluationFormatError(f"{what}: expected an integer >= {minimum}, got {value!r}")
    return value


def _indices(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        raise EvaluationFormatError(f"{what}: expected a list of proposition indices")
    return tuple(_int(v, what) for v in value)


def parse_proposition(data: Any) -> Proposition:
    """One proposition from ``{"function_name": ..., "args": {...}}`` (or ``args`` as a
    positional list of entity lists)."""
    if not isinstance(data, Mapping):
        raise EvaluationFormatError(f"a proposition must be an object, got {data!r}")
    name = data.get("function_name", data.get("function", data.get("predicate")))
    sigs = signatures()
    if not isinstance(name, str) or name not in sigs:
        raise EvaluationFormatError(
            f"unknown predicate {name!r}; expected one of {', '.join(sorted(sigs))}"
        )
    sig = sigs[name]
    raw = data.get("args", {})
    if isinstance(raw, list | tuple):
        raw = {"*positional": list(raw)}
    if not isinstance(raw, Mapping):
        raise EvaluationFormatError(f"{name}: args must be an object or a list")
    args = dict(raw)
    if "n" in args:
        args.setdefault("number", args.pop("n"))
    same: bool = False
    for alias in (*_SAME_FLAG_ALIASES, *([sig.same_flag] if sig.same_flag else [])):
        if alias in args:
            v = args.pop(alias)
            if not isinstance(v, bool):
                raise EvaluationFormatError(f"{name}: {alias} must be true or false")
            if sig.same_flag is None:
                raise EvaluationFormatError(f"{name} has no same-argument option ({alias})")
            same = same or v
    positional = args.pop("*positional", None)
    groups: list[tuple[str, ...]] = []
    if sig.variadic:
        star = args.pop("*args", positional)
        if not isinstance(star, list | tuple) or len(star) < 2:
            raise EvaluationFormatError(f"{name}: *args must list at least two entity lists")
        groups = [_entity_list(g, f"{name} *args[{k}]") for k, g in enumerate(star)]
    else:
        pos = list(positional or [])
        for k, arg in enumerate(sig.entity_args):
            if arg in args:
                groups.append(_entity_list(args.pop(arg), f"{name} {arg}"))
            elif pos:
                groups.append(_entity_list(pos.pop(0), f"{name} {arg}"))
            else:
                raise EvaluationFormatError(f"{name}: missing argument {arg} (#{k})")
        if pos:
            raise EvaluationFormatError(f"{name}: too many positional arguments")
    defaults = dict(sig.defaults)
    number: int | tuple[int, ...]
    raw_number = args.pop("number", defaults.get("number", 1))
    if sig.variadic:
        if isinstance(raw_number, int) and not isinstance(raw_number, bool):
            raw_number = [raw_number] * len(groups)
        if not isinstance(raw_number, list | tuple) or len(raw_number) != len(groups):
            raise EvaluationFormatError(f"{name}: number must give one count per entity list")
        number = tuple(_int(x, f"{name} number", 1) for x in raw_number)
    else:
        number = _int(raw_number, f"{name} number", 1)
    extra: list[tuple[str, Any]] = []
    for key, value in sorted(args.items()):
        if key not in defaults:
            raise EvaluationFormatError(
                f"{name}: unknown argument {key!r}; it takes "
                f"{', '.join((*sig.entity_args, *defaults))}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EvaluationFormatError(f"{name}: {key} must be a number")
        extra.append((key, value))
    return Proposition(name, tuple(groups), number, same, tuple(extra))


_DEPENDENCY_FIELDS = (
    "proposition_indices",
    "depends_on",
    "relation_type",
    "relation",
    "dependency_mode",
    "mode",
)
_CONSTRAINT_FIELDS = (
    "type",
    "dag_edges",
    "graph_edges",
    "edges",
    "temporal_groups",
    "proposition_order",
    "proposition_indices",
    "arg_names",
    "arg_indices",
    "arg_index",
    "arg",
    "n_propositions",  # the reference's size of the constraint's table, checked
)


def _known(data: Mapping[str, Any], fields: Sequence[str], what: str) -> None:
    """Refuse keys planproof does not read: silently ignoring one changes the verdict."""
    unknown = sorted(str(k) for k in data if k not in fields)
    if unknown:
        raise EvaluationFormatError(
            f"{what}: unknown key(s) {', '.join(unknown)}; expected {', '.join(fields)}"
        )


def parse_dependency(data: Any) -> Dependency:
    if isinstance(data, list | tuple) and 3 <= len(data) <= 4:
        data = dict(
            zip(
                ("proposition_indices", "depends_on", "relation_type", "dependency_mode"),
                data,
                strict=False,
            )
        )
    if not isinstance(data, Mapping):
        raise EvaluationFormatError(f"a dependency must be an object, got {data!r}")
    _known(data, _DEPENDENCY_FIELDS, "dependency")
    rel = data.get("relation_type", data.get("relation"))
    mode = data.get("dependency_mode", data.get("mode", "all"))
    if rel not in RELATIONS:
        raise EvaluationFormatError(
            f"dependency relation {rel!r}; expected one of {', '.join(RELATIONS)}"
        )
    if mode not in ("all", "any"):
        raise EvaluationFormatError(f"dependency mode {mode!r}; expected all or any")
    return Dependency(
        _indices(data.get("proposition_indices"), "dependency proposition_indices"),
        _indices(data.get("depends_on"), "dependency depends_on"),
        rel,
        mode,
    )


def _groups_to_edges(groups: Any) -> tuple[tuple[int, int], ...]:
    if not isinstance(groups, list | tuple):
        raise EvaluationFormatError("temporal groups must be a list of lists of indices")
    gs = [_indices(g, "temporal group") for g in groups]
    return tuple((a, b) for g1, g2 in pairwise(gs) for a in g1 for b in g2)


def _arg_index(prop: Proposition | None, arg: Any, what: str) -> int:
    if isinstance(arg, int) and not isinstance(arg, bool):
        return arg
    if not isinstance(arg, str):
        raise EvaluationFormatError(f"{what}: argument reference {arg!r} is not a name or index")
    if prop is None:
        raise EvaluationFormatError(f"{what}: proposition index out of range")
    sig = signatures()[prop.function]
    key = arg.strip().lower()
    if key.startswith("*args_"):
        try:
            return int(key.removeprefix("*args_"))
        except ValueError:
            raise EvaluationFormatError(f"{what}: bad variadic reference {arg!r}") from None
    if arg in sig.entity_args:
        return sig.entity_args.index(arg)
    first = {"object", "objects", "object_handles", "entity_a", "entity_handles_a", "a"}
    second = {
        "receptacle",
        "receptacles",
        "receptacle_handles",
        "furniture",
        "room",
        "rooms",
        "room_ids",
        "entity_b",
        "entity_handles_b",
        "b",
    }
    if key in first:
        return 0
    if key in second and len(prop.groups) >= 2:
        return 1
    raise EvaluationFormatError(f"{what}: {prop.function} has no argument {arg!r}")


def parse_constraint(data: Any, props: Sequence[Proposition]) -> Constraint:
    if not isinstance(data, Mapping):
        raise EvaluationFormatError(f"a constraint must be an object, got {data!r}")
    kind = str(data.get("type", "")).replace("_", "").lower().removesuffix("constraint")
    args = data.get("args", {k: v for k, v in data.items() if k != "type"})
    if not isinstance(args, Mapping):
        raise EvaluationFormatError(f"constraint {kind}: args must be an object")
    if "args" in data:
        _known(data, ("type", "args"), f"constraint {kind}")
    _known(args, _CONSTRAINT_FIELDS, f"constraint {kind}")
    size = args.get("n_propositions", len(props))
    if size != len(props):
        raise EvaluationFormatError(
            f"constraint {kind}: n_propositions is {size!r} but there are {len(props)} propositions"
        )
    if kind == "temporal":
        if "dag_edges" in args or "graph_edges" in args or "edges" in args:
            raw = args.get("dag_edges", args.get("graph_edges", args.get("edges")))
            if not isinstance(raw, list | tuple) or not all(
                isinstance(e, list | tuple) and len(e) == 2 for e in raw
            ):
                raise EvaluationFormatError("TemporalConstraint: edges must be [i, j] pairs")
            return TemporalConstraint(tuple((_int(a, "edge"), _int(b, "edge")) for a, b in raw))
        groups = args.get("temporal_groups", args.get("proposition_order"))
        return TemporalConstraint(_groups_to_edges(groups))
    if kind in {"terminalsatisfaction", "terminal"}:
        return TerminalConstraint(_indices(args.get("proposition_indices"), "Terminal"))
    if kind in ("samearg", "differentarg"):
        ix = _indices(args.get("proposition_indices"), kind)
        refs = args.get("arg_names", args.get("arg_indices", args.get("arg_index")))
        if refs is None and "arg" in args:
            refs = [args["arg"]] * len(ix)
        if isinstance(refs, str | int):
            refs = [refs] * len(ix)
        if not isinstance(refs, list | tuple) or len(refs) != len(ix):
            raise EvaluationFormatError(
                f"{kind}: give one argument reference per proposition index"
            )
        arg_ix = tuple(
            _arg_index(props[i] if 0 <= i < len(props) else None, r, kind)
            for i, r in zip(ix, refs, strict=True)
        )
        return TieConstraint(ix, arg_ix, kind == "differentarg")
    raise EvaluationFormatError(
        f"unknown constraint type {data.get('type')!r}; expected TemporalConstraint, "
        "TerminalSatisfactionConstraint, SameArgConstraint or DifferentArgConstraint"
    )


# The keys an evaluation function may use, by what they hold: planproof's own, then the
# dataset's (``evaluation_proposition_dependencies`` in real episodes, see the reference
# ``dataset.py``), then the aliases older planproof files and the paper's prompts use.
_PROPOSITION_KEYS = ("propositions", "evaluation_propositions")
_DEPENDENCY_KEYS = (
    "dependencies",
    "evaluation_proposition_dependencies",
    "evaluation_dependencies",
)
_CONSTRAINT_KEYS = ("constraints", "evaluation_constraints")
_CORRECTION_KEYS = ("temporal_groups", "tie_constraints", "exclude_final_constraint")
EVALUATION_KEYS: frozenset[str] = frozenset(
    (*_PROPOSITION_KEYS, *_DEPENDENCY_KEYS, *_CONSTRAINT_KEYS, *_CORRECTION_KEYS)
)


def _one_of(data: Mapping[str, Any], keys: Sequence[str], default: Any) -> Any:
    """The value under whichever of ``keys`` is present; two of them is ambiguous."""
    present = [k for k in keys if k in data]
    if len(present) > 1:
        raise EvaluationFormatError(
            f"evaluation function: give one of {', '.join(present)}, not several"
        )
    return data[present[0]] if present else default


def parse_evaluation(data: Any) -> EvaluationFunction:
    """An evaluation function from JSON: ``{"propositions", "dependencies", "constraints"}``
    (also the dataset's ``evaluation_propositions`` / ``evaluation_proposition_dependencies``
    / ``evaluation_constraints`` keys, and the correction-file keys ``temporal_groups``,
    ``tie_constraints`` and ``exclude_final_constraint``). Any other key is an error: a
    misspelt key would otherwise drop, say, every dependency without a word."""
    if not isinstance(data, Mapping):
        raise EvaluationFormatError("an evaluation function must be a JSON object")
    unknown = sorted(str(k) for k in data if k not in EVALUATION_KEYS)
    if unknown:
        raise EvaluationFormatError(
            f"evaluation function: unknown key(s) {', '.join(unknown)}; expected "
            f"{', '.join(sorted(EVALUATION_KEYS))}"
        )
    raw_props = _one_of(data, _PROPOSITION_KEYS, None)
    if not isinstance(raw_props, list):
        raise EvaluationFormatError("evaluation function: 'propositions' must be a list")
    props = [parse_proposition(p) for p in raw_props]
    raw_deps = _one_of(data, _DEPENDENCY_KEYS, [])
    if not isinstance(raw_deps, list):
        raise EvaluationFormatError("evaluation function: 'dependencies' must be a list")
    raw_cons = _one_of(data, _CONSTRAINT_KEYS, [])
    if not isinstance(raw_cons, list):
        raise EvaluationFormatError("evaluation function: 'constraints' must be a list")
    cons = [parse_constraint(c, props) for c in raw_cons]
    if "temporal_groups" in data:
        cons.append(TemporalConstraint(_groups_to_edges(data["temporal_groups"])))
    ties = data.get("tie_constraints", [])
    if not isinstance(ties, list):
        raise EvaluationFormatError("'tie_constraints' must be a list")
    cons.extend(parse_constraint(c, props) for c in ties)
    if "exclude_final_constraint" in data:
        excluded = set(_indices(data["exclude_final_constraint"], "exclude_final_constraint"))
        cons.append(TerminalConstraint(tuple(i for i in range(len(props)) if i not in excluded)))
    return EvaluationFunction(
        tuple(props), tuple(parse_dependency(d) for d in raw_deps), tuple(cons)
    )
