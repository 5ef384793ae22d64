"""Logic-form matching of a predicted and a gold precondition or effect (EAI §2.4).

A condition is split into its top-level clauses (the conjuncts of an outer ``and``); a
predicted clause matches a gold clause when the two match recursively: literals are
equal, ``not``/``when``/``imply`` match part by part, ``forall``/``exists`` match when the
variable types and the bodies match (bound variables are compared by position, not by
name), and an ``and``/``or`` matches when a bipartite matching pairs *every* child of one
with a child of the other ("if a sub-clause does not match, the entire clause is a
non-match"). The top level is a maximum bipartite matching: matched clauses are true
positives, unmatched predicted clauses false positives, unmatched gold clauses false
negatives.

Because every inner match is all-or-nothing, a perfect bipartite matching of children is
the same as equality of their multisets under a canonical form, so matching is done on
canonical keys (:func:`canonical`): linear-time, exact, and order-insensitive. Nested
``and``/``or`` are flattened, one-child ``and``/``or`` are unwrapped and double negation
is removed before comparison, so equivalent spellings of the same clause match.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, head, sexpr_to_text

Key = tuple[object, ...]

_QUANT = frozenset({"forall", "exists"})


def _binders(e: SExpr) -> list[tuple[str, str]]:
    """``(?a ?b - t ?c)`` → [(a, t), (b, t), (c, object)] (tolerant: stray atoms ignored)."""
    if not isinstance(e, SList):
        return []
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    items = list(e.items)
    i = 0
    while i < len(items):
        it = items[i]
        if isinstance(it, SAtom) and it.text == "-" and i + 1 < len(items):
            t = items[i + 1]
            typ = t.text.lower() if isinstance(t, SAtom) else "object"
            out.extend((v, typ) for v in pending)
            pending = []
            i += 2
            continue
        if isinstance(it, SAtom) and it.text.startswith("?"):
            pending.append(it.text.lower())
        i += 1
    out.extend((v, "object") for v in pending)
    return out


def canonical(e: SExpr, rename: Mapping[str, str] | None = None, depth: int = 0) -> Key:
    """A hashable key equal for two expressions exactly when they match (see the module
    docstring). ``rename`` maps variable names (``?obj``) to what they are compared as."""
    env = dict(rename or {})
    if isinstance(e, SAtom):
        return ("lit", env.get(e.text.lower(), e.text.lower()))
    h = head(e)
    if h is None:
        if not e.items:
            return ("and",)
        return ("raw", sexpr_to_text(e).lower())
    args = e.items[1:]
    if h in {"and", "or"}:
        kids: list[Key] = []
        for a in args:
            k = canonical(a, env, depth)
            if k[0] == h:
                kids.extend(k[1:])  # type: ignore[arg-type]
            else:
                kids.append(k)
        if len(kids) == 1:
            return kids[0]
        return (h, *sorted(kids, key=repr))
    if h == "not" and len(args) == 1:
        inner = canonical(args[0], env, depth)
        if inner[0] == "not":
            return inner[1]  # type: ignore[return-value]
        return ("not", inner)
    if h in {"when", "imply"} and len(args) == 2:
        return (h, canonical(args[0], env, depth), canonical(args[1], env, depth))
    if h in _QUANT and len(args) == 2:
        bs = _binders(args[0])
        for i, (v, _) in enumerate(bs):
            env[v] = f"#{depth + i}"
        types = tuple(t for _, t in bs)
        return (h, types, canonical(args[1], env, depth + len(bs)))
    # a literal: predicate and arguments (renamed), compared as text
    parts = [h]
    for a in args:
        if isinstance(a, SAtom):
            t = a.text.lower()
            parts.append(env.get(t, t))
        else:  # flat text: a repr per level would escape the level below's quotes, so
            parts.append(_text(canonical(a, env, depth)))  # nesting doubled the size
    return ("lit", " ".join(parts))


def _text(key: object) -> str:
    """A canonical key as flat text, linear in its size (for a literal's nested
    arguments, which only malformed answers have: Mixtral's BEHAVIOR answer for
    ``moving_boxes_to_storage`` nests them deep enough that ``repr`` per level needed
    over 20 GB)."""
    if isinstance(key, tuple):
        return "(" + " ".join(_text(k) for k in key) + ")"
    return str(key)


def clauses(e: SExpr | None) -> list[SExpr]:
    """The top-level clauses: the conjuncts of an outer ``and`` (nested ``and`` flattened);
    an empty condition ``()`` / ``(and)`` has none."""
    if e is None:
        return []
    if isinstance(e, SList) and not e.items:
        return []
    if head(e) == "and":
        assert isinstance(e, SList)
        return [c for a in e.items[1:] for c in clauses(a)]
    return [e]


def predicates_of(e: SExpr) -> frozenset[str]:
    """Predicate names a clause mentions (connectives and quantifier lists skipped)."""
    if not isinstance(e, SList) or not e.items:
        return frozenset()
    h = head(e)
    if h is None:
        return frozenset()
    if h in {"and", "or", "not", "when", "imply"}:
        return frozenset().union(*(predicates_of(a) for a in e.items[1:]))
    if h in _QUANT:
        return predicates_of(e.items[2]) if len(e.items) == 3 else frozenset()
    return frozenset({h})


@dataclass(frozen=True)
class ClauseMatch:
    """The outcome of matching one predicted against one gold condition."""

    matched: tuple[SExpr, ...]
    unmatched_predicted: tuple[SExpr, ...]
    unmatched_gold: tuple[SExpr, ...]

    @property
    def tp(self) -> int:
        return len(self.matched)

    @property
    def fp(self) -> int:
        return len(self.unmatched_predicted)

    @property
    def fn(self) -> int:
        return len(self.unmatched_gold)


def match_clauses(
    predicted: SExpr | None,
    gold: SExpr | None,
    *,
    predicted_rename: Mapping[str, str] | None = None,
) -> ClauseMatch:
    """Maximum matching of the top-level clauses of ``predicted`` and ``gold``.
    ``predicted_rename`` maps the predicted operator's parameter names to the gold ones
    (an LLM may call ``?obj`` ``?o``; parameters are compared by position)."""
    p = clauses(predicted)
    g = clauses(gold)
    gold_keys: Counter[Key] = Counter()
    for c in g:
        gold_keys[canonical(c)] += 1
    matched: list[SExpr] = []
    extra: list[SExpr] = []
    for c in p:
        k = canonical(c, predicted_rename)
        if gold_keys[k] > 0:
            gold_keys[k] -= 1
            matched.append(c)
        else:
            extra.append(c)
    missing: list[SExpr] = []
    for c in g:
        k = canonical(c)
        if gold_keys[k] > 0:
            gold_keys[k] -= 1
            missing.append(c)
    return ClauseMatch(tuple(matched), tuple(extra), tuple(missing))


def parameter_rename(predicted: Sequence[str], gold: Sequence[str]) -> dict[str, str]:
    """Predicted parameter names → gold names by position (``?o`` → ``?obj``)."""
    return {
        p.lower(): g.lower()
        for p, g in zip(predicted, gold, strict=False)
        if p.lower() != g.lower()
    }


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall, F1 (0 where undefined, as the reference code does)."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f
