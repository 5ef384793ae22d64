"""Align a candidate domain's vocabulary with a reference's, and rename it accordingly.

Order of the rules (docs/compare-domains.md): names fixed by the mapping file; equal
names; names equal up to case and ``-``/``_``; then, for what is left, *use*: two
predicates of one arity are alike when the same (aligned) actions read, add or delete
them at the same parameter positions; two actions of one arity when they read, add and
delete the same (aligned) predicates; two types when the same predicate and action
positions hold them. Likeness is the Jaccard index of these use sets, the pairing the
optimal assignment (scipy's ``linear_sum_assignment``), and a pair is kept only when its
likeness is at least :data:`MIN_LIKENESS`. Constants match by name or mapping only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from planproof.ltl.ast import (
    Atom,
    Binder,
    Const,
    Formula,
    Var,
    map_atoms,
    walk,
)
from planproof.pddl.compare.model import Alignment, Match
from planproof.pddl.reader import ROOT_TYPE, DomainFile
from planproof.pddl.schema import (
    Add,
    Delete,
    Derived,
    Domain,
    Effect,
    ForallEffect,
    Operator,
    Param,
    Rule,
    When,
)

KINDS = ("type", "predicate", "action", "constant")
MIN_LIKENESS = 0.5
"""Least Jaccard index of two use sets for a match by use."""


class MappingError(ValueError):
    """The mapping file is not ``{"predicates": {candidate: reference}, ...}``."""


def read_mapping(data: object) -> dict[str, dict[str, str]]:
    """Check a mapping (parsed JSON): ``{"types"|"predicates"|"actions"|"constants":
    {candidate name: reference name}}``; keys may be singular or plural."""
    if not isinstance(data, dict):
        raise MappingError("a mapping is a JSON object keyed by types/predicates/actions/constants")
    out: dict[str, dict[str, str]] = {}
    for key, table in data.items():
        kind = str(key).rstrip("s")
        if kind not in KINDS:
            raise MappingError(f"unknown mapping section {key!r}; use {', '.join(KINDS)}(s)")
        if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in table.items()
        ):
            raise MappingError(f"mapping section {key!r} maps names to names")
        out[kind] = dict(table)
    return out


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_")


@dataclass(frozen=True)
class _Vocabulary:
    """One domain's names per kind, with their arity (types and constants: 0)."""

    items: Mapping[str, Mapping[str, int]]

    @staticmethod
    def of(df: DomainFile) -> _Vocabulary:
        d = df.domain
        return _Vocabulary(
            {
                "type": {t: 0 for t in d.types if t != ROOT_TYPE and not t.startswith("(")},
                "predicate": {p: len(a) for p, a in d.predicates.items()},
                "action": {o: len(op.params) for o, op in d.operators.items()},
                "constant": dict.fromkeys(df.constants, 0),
            }
        )


def align(
    reference: DomainFile,
    candidate: DomainFile,
    mapping: Mapping[str, Mapping[str, str]] | None = None,
) -> Alignment:
    """Match the candidate's names to the reference's (see the module docstring)."""
    ref, cand = _Vocabulary.of(reference), _Vocabulary.of(candidate)
    matches: dict[str, dict[str, Match]] = {k: {} for k in KINDS}  # kind → cand → match
    notes: list[str] = []

    def free(kind: str) -> tuple[list[str], list[str]]:
        taken = {m.reference for m in matches[kind].values()}
        return (
            [n for n in ref.items[kind] if n not in taken],
            [n for n in cand.items[kind] if n not in matches[kind]],
        )

    for kind, table in (mapping or {}).items():
        for c, r in table.items():
            if c not in cand.items[kind] or r not in ref.items[kind]:
                notes.append(f"mapping {kind} {c} -> {r} ignored: no such {kind} on one side")
            elif r in {m.reference for m in matches[kind].values()}:
                notes.append(f"mapping {kind} {c} -> {r} ignored: {r} is already mapped")
            else:
                matches[kind][c] = Match(kind, r, c, "mapping")
    for kind in KINDS:
        for how, key in (("name", str), ("spelling", _key)):
            refs, cands = free(kind)
            by_key: dict[str, list[str]] = {}
            for r in refs:
                by_key.setdefault(key(r), []).append(r)
            for c in cands:
                hit = by_key.get(key(c), [])
                if len(hit) == 1:
                    matches[kind][c] = Match(kind, hit.pop(), c, how)
    rd, cd = reference.domain, candidate.domain

    def by_use(kind: str, profile: Callable[[Domain, str, Mapping[str, str]], set[object]]) -> None:
        refs, cands = free(kind)
        if not refs or not cands:
            return
        maps = {k: {c: m.reference for c, m in matches[k].items()} for k in KINDS}
        identity = {k: {r: r for r in ref.items[k]} for k in KINDS}
        rp = [profile(rd, r, _flat(identity)) for r in refs]
        cp = [profile(cd, c, _flat(maps)) for c in cands]
        for r, c, score in _assign(
            refs, cands, rp, cp, r_arity=ref.items[kind], c_arity=cand.items[kind]
        ):
            matches[kind][c] = Match(kind, r, c, "use", score)

    by_use("predicate", _predicate_use)
    by_use("action", _action_use)
    by_use("predicate", _predicate_use)
    by_use("type", _type_use)
    flat = [m for kind in KINDS for m in matches[kind].values()]
    ref_only = tuple(
        (k, n)
        for k in KINDS
        for n in ref.items[k]
        if n not in {m.reference for m in matches[k].values()}
    )
    cand_only = tuple((k, n) for k in KINDS for n in cand.items[k] if n not in matches[k])
    for m in flat:
        if ref.items[m.kind][m.reference] != cand.items[m.kind][m.candidate]:
            notes.append(
                f"{m.kind} {m.candidate} takes {cand.items[m.kind][m.candidate]} arguments, "
                f"the reference's {m.reference} {ref.items[m.kind][m.reference]}"
            )
    return Alignment(tuple(flat), ref_only, cand_only, tuple(notes))


def _flat(maps: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """One table keyed ``kind:name`` (names of different kinds may coincide)."""
    return {f"{k}:{n}": r for k, table in maps.items() for n, r in table.items()}


def _assign(
    refs: list[str],
    cands: list[str],
    rp: list[set[object]],
    cp: list[set[object]],
    *,
    r_arity: Mapping[str, int],
    c_arity: Mapping[str, int],
) -> Iterable[tuple[str, str, float]]:
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    like = np.zeros((len(refs), len(cands)))
    for i, r in enumerate(refs):
        for j, c in enumerate(cands):
            if r_arity[r] == c_arity[c] and (rp[i] or cp[j]):
                like[i, j] = len(rp[i] & cp[j]) / len(rp[i] | cp[j])
    rows, cols = linear_sum_assignment(-like)
    for i, j in zip(rows, cols, strict=True):
        if like[i, j] >= MIN_LIKENESS:
            yield refs[i], cands[j], float(like[i, j])


def _pattern(atom: Atom, params: list[str]) -> tuple[object, ...]:
    return tuple(
        params.index(t.name) if isinstance(t, Var) and t.name in params else "*" for t in atom.args
    )


def _uses(op: Operator) -> Iterable[tuple[str, Atom]]:
    """(role, atom) for every atom ``op`` mentions: pre, add, del or cond."""
    for f in walk(op.precondition):
        if isinstance(f, Atom):
            yield "pre", f
    stack: list[Effect] = list(op.effects)
    while stack:
        e = stack.pop()
        match e:
            case Add(atom):
                yield "add", atom
            case Delete(atom):
                yield "del", atom
            case When(c, inner):
                yield from (("cond", f) for f in walk(c) if isinstance(f, Atom))
                stack.extend(inner)
            case ForallEffect(_, inner):
                stack.extend(inner)


def _predicate_use(d: Domain, pred: str, names: Mapping[str, str]) -> set[object]:
    out: set[object] = set()
    for name, op in d.operators.items():
        action = names.get(f"action:{name}")
        if action is None:
            continue
        params = [p.name for p in op.params]
        for role, a in _uses(op):
            if a.pred == pred:
                out.add((action, role, _pattern(a, params)))
    return out


def _action_use(d: Domain, action: str, names: Mapping[str, str]) -> set[object]:
    op = d.operators[action]
    params = [p.name for p in op.params]
    out: set[object] = set()
    for role, a in _uses(op):
        pred = names.get(f"predicate:{a.pred}")
        if pred is not None:
            out.add((pred, role, _pattern(a, params)))
    return out


def _type_use(d: Domain, t: str, names: Mapping[str, str]) -> set[object]:
    out: set[object] = set()
    for p, types in d.predicates.items():
        if f"predicate:{p}" in names:
            out |= {("p", names[f"predicate:{p}"], i) for i, x in enumerate(types) if x == t}
    for a, op in d.operators.items():
        if f"action:{a}" in names:
            out |= {("a", names[f"action:{a}"], i) for i, x in enumerate(op.params) if x.type == t}
    return out


# --------------------------------------------------------------------------- renaming


def translate(candidate: DomainFile, reference: DomainFile, alignment: Alignment) -> DomainFile:
    """The candidate in the reference's names: matched names take the reference's,
    unmatched ones keep theirs (suffixed ``_candidate`` if that name is the reference's)."""
    names = {
        kind: _renaming(alignment.of(kind), _Vocabulary.of(candidate).items[kind],
                        _Vocabulary.of(reference).items[kind])
        for kind in KINDS
    }  # fmt: skip
    r = _Renamer(names["predicate"], names["constant"], names["type"])
    d = candidate.domain
    types: dict[str, str | None] = {
        r.type(t): (r.type(p) if p else None) for t, p in d.types.items()
    }
    ops = {}
    for op in d.operators.values():
        new = dataclasses.replace(
            op,
            name=names["action"].get(op.name, op.name),
            params=tuple(Param(p.name, r.type(p.type)) for p in op.params),
            precondition=r.formula(op.precondition),
            effects=tuple(r.effect(e) for e in op.effects),
        )
        ops[new.name] = new
    domain = dataclasses.replace(
        d,
        types=types,
        predicates={r.pred(p): tuple(r.type(t) for t in a) for p, a in d.predicates.items()},
        operators=ops,
        derived={
            r.pred(k): Derived(
                tuple(Param(p.name, r.type(p.type)) for p in v.params),
                tuple(
                    Rule(
                        tuple(Param(p.name, r.type(p.type)) for p in u.params),
                        r.formula(u.condition),
                    )
                    for u in v.rules
                ),
            )
            for k, v in d.derived.items()
        },
    )  # fmt: skip
    constants = {r.const(c): r.type(t) for c, t in candidate.constants.items()}
    return DomainFile(domain, candidate.requirements, constants)


def _renaming(
    matched: Mapping[str, str], cand: Iterable[str], ref: Iterable[str]
) -> dict[str, str]:
    taken = set(ref)
    out = dict(matched)
    for c in cand:
        if c not in out:
            out[c] = c + "_candidate" if c in taken else c
    return out


@dataclass(frozen=True)
class _Renamer:
    preds: Mapping[str, str]
    consts: Mapping[str, str]
    types: Mapping[str, str]

    def pred(self, p: str) -> str:
        return self.preds.get(p, p)

    def const(self, c: str) -> str:
        return self.consts.get(c, c)

    def type(self, t: str) -> str:
        if t.startswith("(either "):
            return "(either " + " ".join(self.type(m) for m in t[8:-1].split()) + ")"
        return self.types.get(t, t)

    def atom(self, a: Atom) -> Atom:
        args = tuple(Const(self.const(t.name)) if isinstance(t, Const) else t for t in a.args)
        return Atom(self.pred(a.pred), args)

    def binder(self, b: Binder) -> Binder:
        return Binder(b.var, self.type(b.type) if b.type else None)

    def formula(self, f: Formula) -> Formula:
        return map_atoms(f, self.atom, self.binder)

    def effect(self, e: Effect) -> Effect:
        match e:
            case Add(atom):
                return Add(self.atom(atom))
            case Delete(atom):
                return Delete(self.atom(atom))
            case When(c, inner):
                return When(self.formula(c), tuple(self.effect(x) for x in inner))
            case ForallEffect(b, inner):
                return ForallEffect(self.binder(b), tuple(self.effect(x) for x in inner))
        return e
