"""The TEACh Task Definition Language: loading, ``#i`` macro expansion, subtask resolution.

A definition file is a JSON template; parameters are macros (paper, appendix F): every
``#i`` is replaced by the i-th value as text, in keys and values alike, and only then is
the result read as a task. :meth:`TaskRegistry.instantiate` does exactly that,
recursively for Task components, and returns an immutable :class:`Task` tree that the
checker and the compilers share. Keys written with spaces (``task name``, as the paper's
OCR shows them) are accepted; property names with TEACh's ``simbot`` prefix
(``simbotIsBoiled``) are read as the plain property (``isBoiled``), except
``simbotIsCooked``, which is not ``isCooked``; see docs/teach.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeAlias

from planproof.simulators.teach.errors import TDLError

Value: TypeAlias = int | str
"""A condition value: 0/1 for boolean properties, a type or class name for the others."""

TYPE_PROPERTIES = frozenset({"objectType", "objectClass"})
"""Properties tested against an object's types (its objectType and its classes)."""

RELATION_PROPERTY = "parentReceptacles"
MAX_DEPTH = 16
_NUMBER = re.compile(r"^[0-9]+$")
_PARAM = re.compile(r"#([0-9]+)")


SEPARATE_SIMBOT = frozenset({"simbotIsCooked"})
"""``simbot`` properties kept apart from their AI2-THOR namesake: TEACh's simulator sets
``simbotIsCooked`` for everything AI2-THOR cooks *and* for what is put in a running
microwave or on a hot burner, and the task definitions test them apart (Toast and
Omelette test ``isCooked``, Cooked Slice Of X tests ``simbotIsCooked``)."""


_SEPARATE_LOWER = frozenset(p.lower() for p in SEPARATE_SIMBOT)


def canonical_property(name: str) -> str:
    """``simbotIsBoiled`` → ``isBoiled``: TEACh keeps its own copy of some AI2-THOR
    properties under a ``simbot`` prefix; the symbolic state has one property per fact,
    except for :data:`SEPARATE_SIMBOT`, which is a different fact."""
    if name in SEPARATE_SIMBOT or name in _SEPARATE_LOWER:
        return name
    if name.startswith("simbot") and len(name) > len("simbot"):
        rest = name[len("simbot") :]
        return rest[0].lower() + rest[1:]
    return name


def _norm_key(key: str) -> str:
    return re.sub(r"[\s\-]+", "_", key.strip()).lower()


def _normalise_keys(d: Mapping[str, Any]) -> dict[str, Any]:
    """Structural keys only (``task name`` → ``task_name``); names of components and of
    properties inside ``conditions`` keep their spelling."""
    return {_norm_key(k): v for k, v in d.items()}


# ---------------------------------------------------------------------------------------
# The resolved task tree


@dataclass(frozen=True, slots=True)
class AtomicComponent:
    """Objects that must satisfy ``conditions``: ``determiner`` of them (``a`` = 1, ``all``
    = every object matching the primary condition). ``instance_shareable`` components are
    not multiplied when the enclosing task is needed several times (a knife for 2 toasts)."""

    key: str
    determiner: str
    primary_condition: str
    instance_shareable: bool
    conditions: tuple[tuple[str, Value], ...]
    failure_descs: tuple[tuple[str, str], ...] = ()

    @property
    def primary_value(self) -> Value:
        return dict(self.conditions)[self.primary_condition]

    def failure_desc(self, prop: str) -> str | None:
        return dict(self.failure_descs).get(prop)


@dataclass(frozen=True, slots=True)
class SubtaskComponent:
    """A Task component: ``determiner`` instances of ``task`` (checked recursively)."""

    key: str
    determiner: str
    task: Task


Component: TypeAlias = AtomicComponent | SubtaskComponent


@dataclass(frozen=True, slots=True)
class Relation:
    """``parentReceptacles`` between component objects: each head entity's objects must be
    inside a tail object; tail ``a`` = any tail object per head (∀x∃y), ``the`` = one tail
    object for all heads (∃y∀x)."""

    heads: tuple[str, ...]
    head_determiners: tuple[str, ...]
    tail: str
    tail_determiner: str
    failure_desc: str
    property: str = RELATION_PROPERTY


@dataclass(frozen=True, slots=True)
class Task:
    """A task with its parameters substituted and its subtasks resolved."""

    task_id: int
    name: str
    params: tuple[str, ...]
    desc: str
    anchor: str | None
    components: tuple[Component, ...]
    relations: tuple[Relation, ...]

    def component(self, key: str) -> Component:
        for c in self.components:
            if c.key == key:
                return c
        raise KeyError(key)

    def subtasks(self) -> Iterable[Task]:
        """Every task in the tree below this one, depth first."""
        for c in self.components:
            if isinstance(c, SubtaskComponent):
                yield c.task
                yield from c.task.subtasks()


# ---------------------------------------------------------------------------------------
# Definitions (templates) and the registry


@dataclass(frozen=True)
class TaskDefinition:
    """One definition file, unexpanded. ``template`` is the canonical JSON text: it is
    expanded anew for each parameter list (parameters are macros)."""

    task_id: int
    task_name: str
    nparams: int
    anchor: str | None
    desc: str
    template: str
    param_comments: tuple[tuple[str, str], ...] = ()

    @property
    def subtask_names(self) -> tuple[str, ...]:
        raw = json.loads(self.template)
        return tuple(c["task_name"] for c in raw["components"].values() if "task_name" in c)


def number(det: str, *, where: str) -> int:
    """The count of a determiner ``a`` / ``N`` (``all`` is handled by the caller)."""
    if det == "a":
        return 1
    if _NUMBER.match(det):
        return int(det)
    raise TDLError(f"{where}: determiner {det!r} is not 'a', 'all' or a number")


def _det(value: object, *, where: str, allowed: Sequence[str] = ("a", "all")) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TDLError(f"{where}: determiner must be a string or an integer, got {value!r}")
    text = str(value).strip()
    if text in allowed or _NUMBER.match(text) or _PARAM.search(text):
        return text
    raise TDLError(f"{where}: determiner {text!r} is not one of {list(allowed)} or a number")


def parse_definition(raw: object, *, source: str = "<definition>") -> TaskDefinition:
    """Validate one definition file's JSON (before expansion) and keep it as a template."""
    if not isinstance(raw, dict):
        raise TDLError(f"{source}: a task definition must be a JSON object")
    d = _normalise_keys(raw)
    required = ("task_id", "task_name", "task_nparams", "desc", "components", "relations")
    missing = [k for k in required if k not in d]
    if missing:
        raise TDLError(f"{source}: missing key(s) {missing}")
    if "task_anchor_object" not in d:
        raise TDLError(f"{source}: missing key 'task_anchor_object' (use null for none)")
    tid, name, nparams = d["task_id"], d["task_name"], d["task_nparams"]
    if isinstance(tid, bool) or not isinstance(tid, int):
        raise TDLError(f"{source}: task_id must be an integer")
    if not isinstance(name, str) or not name.strip():
        raise TDLError(f"{source}: task_name must be a non-empty string")
    if isinstance(nparams, bool) or not isinstance(nparams, int) or nparams < 0:
        raise TDLError(f"{source}: task_nparams must be a non-negative integer")
    anchor = d["task_anchor_object"]
    if anchor is not None and not isinstance(anchor, str):
        raise TDLError(f"{source}: task_anchor_object must be a string or null")
    if not isinstance(d["desc"], str):
        raise TDLError(f"{source}: desc must be a string")
    comps = d["components"]
    if not isinstance(comps, dict) or not comps:
        raise TDLError(f"{source}: components must be a non-empty object")
    components = {}
    for key, comp in comps.items():
        if not isinstance(comp, dict):
            raise TDLError(f"{source}: component {key!r} must be an object")
        components[key] = _normalise_keys(comp)
    rels = d["relations"]
    if not isinstance(rels, list) or not all(isinstance(r, dict) for r in rels):
        raise TDLError(f"{source}: relations must be a list of objects")
    relations = [_normalise_keys(r) for r in rels]
    if anchor is not None and anchor not in components:
        raise TDLError(f"{source}: anchor {anchor!r} is not a component")
    comments = d.get("comments_task_params", {})
    template = {
        "task_id": tid,
        "task_name": name,
        "task_nparams": nparams,
        "task_anchor_object": anchor,
        "desc": d["desc"],
        "components": components,
        "relations": relations,
    }
    out = TaskDefinition(
        task_id=tid,
        task_name=name,
        nparams=nparams,
        anchor=anchor,
        desc=d["desc"],
        template=json.dumps(template),
        param_comments=tuple(
            sorted((str(k), str(v)) for k, v in comments.items())
            if isinstance(comments, dict)
            else ()
        ),
    )
    # A template must already read as a task once placeholders stand for themselves.
    _read_task(out, tuple(f"#{i}" for i in range(nparams)), check_values=False)
    return out


def expand(value: Any, params: Sequence[str]) -> Any:
    """Replace every ``#i`` by ``params[i]`` in strings, dictionary keys and lists; the
    highest index first, so that ``#1`` does not eat the start of ``#13``."""
    if isinstance(value, str):
        for i in range(len(params) - 1, -1, -1):
            value = value.replace(f"#{i}", params[i])
        return value
    if isinstance(value, list):
        return [expand(v, params) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            nk = expand(k, params)
            if nk in out:
                raise TDLError(f"parameters {list(params)} make two keys equal to {nk!r}")
            out[nk] = expand(v, params)
        return out
    return value


def _condition_value(prop: str, value: object, *, where: str, check: bool) -> Value:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if check and prop not in TYPE_PROPERTIES | {RELATION_PROPERTY} and value not in (0, 1):
            raise TDLError(f"{where}: condition {prop} = {value} must be 0 or 1")
        return value
    if isinstance(value, str):
        text = value.strip()
        if _NUMBER.match(text) and prop not in TYPE_PROPERTIES | {RELATION_PROPERTY}:
            return _condition_value(prop, int(text), where=where, check=check)
        if check and prop not in TYPE_PROPERTIES | {RELATION_PROPERTY}:
            raise TDLError(f"{where}: condition {prop} = {text!r} must be 0 or 1")
        return text
    raise TDLError(f"{where}: condition {prop} has an unsupported value {value!r}")


def _read_atomic(key: str, c: Mapping[str, Any], *, where: str, check: bool) -> AtomicComponent:
    need = ("determiner", "primary_condition", "instance_shareable", "conditions")
    missing = [k for k in need if k not in c]
    if missing:
        raise TDLError(f"{where}: atomic component needs key(s) {missing}")
    conds_raw = c["conditions"]
    if not isinstance(conds_raw, dict) or not conds_raw:
        raise TDLError(f"{where}: conditions must be a non-empty object")
    conds: dict[str, Value] = {}
    for prop, value in conds_raw.items():
        p = canonical_property(str(prop))
        conds[p] = _condition_value(p, value, where=where, check=check)
    primary = canonical_property(str(c["primary_condition"]))
    if primary not in conds:
        raise TDLError(f"{where}: primary condition {primary!r} is not among its conditions")
    descs_raw = c.get("condition_failure_descs") or {}
    if not isinstance(descs_raw, dict):
        raise TDLError(f"{where}: condition_failure_descs must be an object")
    shareable = c["instance_shareable"]
    if not isinstance(shareable, bool | int):
        raise TDLError(f"{where}: instance_shareable must be a boolean")
    return AtomicComponent(
        key=key,
        determiner=_det(c["determiner"], where=where),
        primary_condition=primary,
        instance_shareable=bool(shareable),
        conditions=tuple(conds.items()),
        failure_descs=tuple((canonical_property(str(k)), str(v)) for k, v in descs_raw.items()),
    )


def _read_relation(r: Mapping[str, Any], keys: set[str], *, where: str) -> Relation:
    need = ("property", "head_entity_list", "head_determiner_list", "tail_entity_list")
    missing = [k for k in need if k not in r]
    if missing:
        raise TDLError(f"{where}: relation needs key(s) {missing}")
    prop = canonical_property(str(r["property"]))
    if prop != RELATION_PROPERTY:
        raise TDLError(f"{where}: only {RELATION_PROPERTY} relations are supported, got {prop}")
    heads, hdets, tails = r["head_entity_list"], r["head_determiner_list"], r["tail_entity_list"]
    tdets = r.get("tail_determiner_list", ["a"] * len(tails) if isinstance(tails, list) else [])
    for name, lst in (("head_entity_list", heads), ("head_determiner_list", hdets)):
        if not isinstance(lst, list) or not lst:
            raise TDLError(f"{where}: {name} must be a non-empty list")
    if len(heads) != len(hdets):
        raise TDLError(f"{where}: head_entity_list and head_determiner_list differ in length")
    if not isinstance(tails, list) or len(tails) != 1 or not isinstance(tdets, list):
        raise TDLError(f"{where}: exactly one tail entity is supported (as in TEACh)")
    if len(tdets) != 1:
        raise TDLError(f"{where}: tail_determiner_list must have one entry")
    for e in [*heads, *tails]:
        if e not in keys:
            raise TDLError(f"{where}: relation entity {e!r} is not a component")
    tdet = str(tdets[0]).strip()
    if tdet not in ("a", "the"):
        raise TDLError(f"{where}: tail determiner {tdet!r} must be 'a' or 'the'")
    return Relation(
        heads=tuple(str(h) for h in heads),
        head_determiners=tuple(_det(h, where=where) for h in hdets),
        tail=str(tails[0]),
        tail_determiner=tdet,
        failure_desc=str(r.get("failure_desc", "")),
    )


def _read_task(
    definition: TaskDefinition,
    params: tuple[str, ...],
    *,
    check_values: bool,
) -> tuple[Task, dict[str, tuple[str, str, tuple[str, ...]]], tuple[str, ...]]:
    """Expand ``definition`` with ``params`` and read it. Task components are returned
    separately as ``key -> (determiner, task name, params)`` for ``resolve`` to fill."""
    where = f"task {definition.task_name!r}"
    raw = expand(json.loads(definition.template), params)
    components: list[Component] = []
    pending: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    for key, c in raw["components"].items():
        cw = f"{where}, component {key!r}"
        if "task_name" in c:
            tparams = c.get("task_params", [])
            if not isinstance(tparams, list) or not all(isinstance(p, str) for p in tparams):
                raise TDLError(f"{cw}: task_params must be a list of strings")
            det = _det(c.get("determiner", "a"), where=cw)
            if det == "all":
                raise TDLError(f"{cw}: determiner 'all' is not supported for Task components")
            pending[key] = (det, str(c["task_name"]), tuple(tparams))
        else:
            components.append(_read_atomic(key, c, where=cw, check=check_values))
    keys = set(raw["components"])
    relations = tuple(_read_relation(r, keys, where=where) for r in raw["relations"])
    task = Task(
        task_id=definition.task_id,
        name=definition.task_name,
        params=params,
        desc=raw["desc"],
        anchor=raw["task_anchor_object"],
        components=tuple(components),
        relations=relations,
    )
    return task, pending, tuple(raw["components"])


class TaskRegistry:
    """Every known task definition, by name (case-insensitive) and by id."""

    def __init__(self, definitions: Iterable[TaskDefinition]) -> None:
        self._by_name: dict[str, TaskDefinition] = {}
        self._by_id: dict[int, TaskDefinition] = {}
        for d in definitions:
            k = d.task_name.strip().lower()
            if k in self._by_name:
                raise TDLError(f"duplicate task_name {d.task_name!r}")
            if d.task_id in self._by_id:
                raise TDLError(f"duplicate task_id {d.task_id}")
            self._by_name[k] = d
            self._by_id[d.task_id] = d
        for d in self._by_name.values():
            for sub in d.subtask_names:
                if sub.strip().lower() not in self._by_name and "#" not in sub:
                    raise TDLError(f"task {d.task_name!r}: unknown subtask {sub!r}")

    @classmethod
    def from_dir(cls, path: Path) -> TaskRegistry:
        """Read every ``*.json`` file in ``path`` (the layout of TEACh's repository)."""
        defs = []
        for f in sorted(path.glob("*.json")):
            try:
                raw = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise TDLError(f"{f.name}: not readable JSON: {exc}") from exc
            defs.append(parse_definition(raw, source=f.name))
        return cls(defs)

    @property
    def definitions(self) -> tuple[TaskDefinition, ...]:
        return tuple(sorted(self._by_name.values(), key=lambda d: d.task_id))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self._by_name

    def __len__(self) -> int:
        return len(self._by_name)

    def get(self, name: str | int) -> TaskDefinition:
        if isinstance(name, int):
            if name in self._by_id:
                return self._by_id[name]
            raise TDLError(f"unknown task id {name}")
        d = self._by_name.get(name.strip().lower())
        if d is None:
            known = ", ".join(x.task_name for x in self.definitions)
            raise TDLError(f"unknown task {name!r}; known tasks: {known}")
        return d

    def instantiate(self, name: str | int, params: Sequence[str] = ()) -> Task:
        """The task ``name`` with ``params`` substituted and every subtask resolved."""
        return self._instantiate(self.get(name), tuple(params), ())

    def _instantiate(
        self, d: TaskDefinition, params: tuple[str, ...], stack: tuple[str, ...]
    ) -> Task:
        where = " > ".join((*stack, d.task_name))
        if d.task_name in stack:
            raise TDLError(f"task definitions are cyclic: {where}")
        if len(stack) >= MAX_DEPTH:
            raise TDLError(f"subtasks nested deeper than {MAX_DEPTH}: {where}")
        if len(params) != d.nparams:
            raise TDLError(
                f"task {d.task_name!r} takes {d.nparams} parameter(s), got {len(params)}"
                + (f" ({', '.join(v for _, v in d.param_comments)})" if d.param_comments else "")
            )
        for p in params:
            if not isinstance(p, str):
                raise TDLError(f"task {d.task_name!r}: parameters must be strings, got {p!r}")
        task, pending, raw_keys = _read_task(d, params, check_values=True)
        subs: dict[str, SubtaskComponent] = {}
        for key, (det, sub_name, sub_params) in pending.items():
            if _PARAM.search(det) or any(_PARAM.search(p) for p in sub_params):
                raise TDLError(f"{where}: component {key!r} still has a '#i' placeholder")
            number(det, where=f"{where}, component {key!r}")
            sub = self._instantiate(self.get(sub_name), sub_params, (*stack, d.task_name))
            subs[key] = SubtaskComponent(key=key, determiner=det, task=sub)
        atomic = {c.key: c for c in task.components}
        ordered = tuple(subs[k] if k in subs else atomic[k] for k in raw_keys)
        for c in ordered:
            if isinstance(c, AtomicComponent) and c.determiner != "all":
                number(c.determiner, where=f"{where}, component {c.key!r}")
        for r in task.relations:
            for h in r.head_determiners:
                if h != "all":
                    number(h, where=f"{where}, relation")
            for e in (*r.heads, r.tail):
                sc = subs.get(e)
                if sc is not None and sc.task.anchor is None:
                    raise TDLError(
                        f"{where}: relation uses component {e!r}, but its task "
                        f"{sc.task.name!r} has no anchor object"
                    )
        return Task(
            task_id=task.task_id,
            name=task.name,
            params=task.params,
            desc=task.desc,
            anchor=task.anchor,
            components=ordered,
            relations=task.relations,
        )


def data_dir() -> Path:
    """The shipped copy of TEACh's definitions (licences beside them)."""
    return Path(str(resources.files("planproof.simulators.teach").joinpath("data")))


@cache
def default_registry() -> TaskRegistry:
    """The 25 task definitions of TEACh (alexa/teach @ 903191e), loaded once."""
    return TaskRegistry.from_dir(data_dir() / "task_definitions")


def load_task(name: str | int, params: Sequence[str] = ()) -> Task:
    """``default_registry().instantiate(name, params)``."""
    return default_registry().instantiate(name, params)
