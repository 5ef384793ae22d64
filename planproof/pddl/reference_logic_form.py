"""The published reference's logic-form counting for transition modeling (virtualhome-eval
0.1.1, the code behind the paper's Tables 13-14), re-implemented from its behaviour.

planproof's own score (:mod:`planproof.pddl.logic_form`) counts top-level *clauses*,
matches them up to renaming of the operator's parameters and counts a missing operator's
gold clauses as missed. The reference counts differently, and the paper's figures are its
counts; this module reproduces them so that the two figures can be shown side by side and
every departure named (``docs/reference-differences.md``, "Transition modeling"):

* **unit**: per operator part (precondition or effect), the *set of predicate names* in
  the matched, the unmatched predicted and the unmatched gold sub-expressions: a
  predicate counts at most once per slot, and may count as matched and missed at once;
* **literal text**: an atom matches only the identical text (``facing ?char ?obj`` never
  matches ``facing ?c ?o``); only a quantifier's variable is renamed, and by substring;
* **positional structure**: conjunctions are paired by a maximum bipartite matching of
  their members (scipy's, as the reference), but a member that fails to match as a whole
  (a ``when`` with one wrong atom) puts all its predicates among the misses; every member
  pair that matches contributes its predicates to the matched set, not only the pairs the
  matching keeps; a predicted member is "unmatched" when its *position* is not among the
  matched columns (the reference tests ``i not in match_result``);
* **missing operators** add nothing (only predicted operators named as a gold operator of
  the task are scored), an unparsable part adds nothing, a predicate the domain lacks is
  never a false positive;
* **answer reading**: the reference's clean-up (fence, newlines removed, ``'`` to ``"``,
  ``json.loads(...)["output"]``), then its operator extraction (``(:action name`` with a
  ``\\w+`` name, blocks by balanced parentheses, comments dropped).

Nothing here is used by planproof's own scoring; it exists to reproduce and explain.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planproof.pddl.eai import EaiPddl

Tree = str | tuple[Any, ...]
"""The reference's first parse: an atom's text, ``"()"``, or ``(op, *children)``."""


@dataclass(frozen=True)
class Expr:
    """The reference's second parse: ``kind`` is ``lit`` (``text`` the atom), ``not``,
    ``when`` (condition, consequence), ``exists`` / ``forall`` (``text`` the variable
    list), ``and`` / ``or``."""

    kind: str
    text: str = ""
    args: tuple[Expr, ...] = ()


class ReferenceParseError(ValueError):
    """An operator part the reference cannot parse: it then counts nothing for it."""


# ------------------------------------------------------------------------- answer reading
def answer_text(answer: str) -> Any:
    """The reference's clean-up of one answer: the operators' text (or whatever
    ``json.loads`` found under ``output``, which then fails to extract). Text that
    ``json.loads`` reads but that has no ``output`` (an object without that key, e.g. one
    whose keys an LLM wrote in capitals, a list, a number) stays what ``json.loads`` made
    of it: the reference assigns before it indexes, so its extraction then fails on a
    non-string (format-wrong) or, for a JSON string, reads that string."""
    text = answer
    if text.startswith("```json"):
        text = text[7:].strip("`")
    text = text.strip().replace("\n", "").replace("'", '"')
    try:
        loaded = json.loads(text)
    except Exception:  # the reference keeps the text as it is
        return text
    try:
        return loaded["output"]
    except Exception:  # it keeps what json.loads gave (``loaded-without-output``)
        return loaded


def _block(content: str, start: int) -> str:
    """The text from ``start`` to the parenthesis that closes an opening one just before
    it (IndexError when unbalanced, as the reference's loop)."""
    if content[start] == ")":
        return ")"
    depth, i = 1, start
    while depth > 0:
        i += 1
        if content[i] == "(":
            depth += 1
        elif content[i] == ")":
            depth -= 1
    return content[start : i + 1]


_ACTION = re.compile(r"\(:action\s+(\w+)")
_SPACE = re.compile(r"\s")
"""The reference's whitespace test of a character, compiled once: it runs for every
character of every answer."""


def extract_operators(content: Any) -> dict[str, tuple[str, str]]:
    """Operator name → (precondition, effect) text as the reference extracts them.
    Raises (TypeError, IndexError) where the reference's extraction fails: the answer then
    counts as format-wrong and adds nothing."""
    return {name: (pre, eff) for name, (_, pre, eff) in extract_operator_texts(content).items()}


def extract_operator_texts(content: Any) -> dict[str, tuple[str, str, str]]:
    """Operator name → (parameters, precondition, effect) text as the reference extracts
    them (``extract_action_details``): the text it writes into its planner's domain.
    Raises as :func:`extract_operators`."""
    content = re.sub(r";.*$", "", content, flags=re.MULTILINE)
    content = " ".join(content.split())
    out: dict[str, tuple[str, str, str]] = {}
    idx = 0
    while (m := _ACTION.search(content, idx)) is not None:
        start = m.end()
        par = content.find(":parameters", start)
        pre = content.find(":precondition", start)
        eff = content.find(":effect", start)
        if -1 in (par, pre, eff):
            break
        raw = [_block(content, content.find("(", par) + 1)]
        for at in (pre, eff):
            try:
                raw.append(_block(content, content.find("(", at) + 1))
            except IndexError:
                raw.append("()")
        par_text, pre_text, eff_text = (
            ("(" + " ".join(b.split())).replace(") )", "))") for b in raw
        )
        out[m.group(1)] = (par_text, pre_text, eff_text)
        idx = raw[2].find(")") + eff + 1  # the reference's resume point, as it computes it
    return out


# ----------------------------------------------------------------------------- parsing
def tokens(text: str) -> list[str]:
    """Parentheses, and the text between them stripped (inner spacing kept)."""
    out: list[str] = []
    buf = ""
    for ch in text:
        if ch in "()":
            if buf:
                out.append(buf.strip())
                buf = ""
            out.append(ch)
        elif _SPACE.match(ch):
            if buf:
                buf += ch
        else:
            buf += ch
    if buf:
        out.append(buf.strip())
    return out


def tree(toks: Sequence[str]) -> Tree:
    """The reference's stack parse (:class:`ReferenceParseError` where it raises)."""
    stack: list[Any] = []
    for tok in toks:
        if tok != ")":
            stack.append(tok)
            continue
        if not stack:
            raise ReferenceParseError("unbalanced ')'")
        if stack[-1] == "(":
            stack[-1] = "()"
            continue
        sub: list[Any] = []
        while stack and stack[-1] != "(":
            sub.append(stack.pop())
        if not stack:
            raise ReferenceParseError("unbalanced ')'")
        stack.pop()
        sub.reverse()
        head = sub[0]
        if head in ("and", "or"):
            stack.append((head, *sub[1:]))
        elif head == "not":
            if len(sub) != 2:
                raise ReferenceParseError("not with other than one argument")
            stack.append(("not", sub[1]))
        elif head in ("exists", "forall", "when"):
            if len(sub) != 3:
                raise ReferenceParseError(f"{head} with other than two arguments")
            stack.append((head, sub[1], sub[2]))
        else:
            if not all(isinstance(s, str) for s in sub):
                raise ReferenceParseError("an atom holding an expression")
            stack.append(" ".join(sub))
    if len(stack) != 1:
        raise ReferenceParseError("not one expression")
    return stack[0]  # type: ignore[no-any-return]


def _rename(t: Tree, old: str, new: str) -> Tree:
    if isinstance(t, str):
        return t.replace(old, new)
    return tuple(_rename(x, old, new) for x in t)


def align(a: Tree, b: Tree) -> tuple[Tree, Tree]:
    """Pad conjunctions to equal length with ``"()"`` (member by member, recursively) and
    give a quantifier of ``b`` the variable name of ``a``'s at the same place."""
    if isinstance(a, str) or isinstance(b, str):
        return a, b
    op1, *args1 = a
    op2, *args2 = b
    if op1 == op2 and op1 in ("exists", "forall"):
        (v1, body1), (v2, body2) = args1, args2
        n1 = v1.split("-")[0].strip() if isinstance(v1, str) else v1
        n2 = v2.split("-")[0].strip() if isinstance(v2, str) else v2
        if isinstance(n1, str) and isinstance(n2, str):
            v2, body2 = _rename(v2, n2, n1), _rename(body2, n2, n1)
        return (op1, v1, body1), (op2, v2, body2)
    if op1 in ("and", "or") and op2 in ("and", "or"):
        n = max(len(args1), len(args2))
        pairs = [
            align(args1[i] if i < len(args1) else "()", args2[i] if i < len(args2) else "()")
            for i in range(n)
        ]
        return (op1, *(p[0] for p in pairs)), (op2, *(p[1] for p in pairs))
    return a, b


def expr(t: Tree) -> Expr:
    if isinstance(t, str):
        return Expr("lit", t)
    op, *args = t
    if op in ("exists", "forall"):
        return Expr(op, str(args[0]), (expr(args[1]),))
    return Expr(op, "", tuple(expr(x) for x in args))


# ----------------------------------------------------------------------------- matching
Match = tuple[float, list[Expr], list[Expr], list[Expr]]


def match(a: Expr, b: Expr) -> Match:
    """(score, matched, unmatched of ``a``, unmatched of ``b``) as the reference computes."""
    if a.kind == "lit" and b.kind == "lit":
        return (1.0, [a], [], []) if a.text == b.text else (0.0, [], [a], [b])
    if a.kind != b.kind:
        return 0.0, [], [a], [b]
    if a.kind == "not":
        score = match(a.args[0], b.args[0])[0]
        return (score, [a], [], []) if score > 0 else (score, [], [a], [b])
    if a.kind == "when":
        ok = match(a.args[0], b.args[0])[0] == 1 and match(a.args[1], b.args[1])[0] == 1
        return (1.0, [a], [], []) if ok else (0.0, [], [a], [b])
    if a.kind in ("exists", "forall"):
        if a.text != b.text:
            return 0.0, [], [a], [b]
        score = match(a.args[0], b.args[0])[0]
        return (score, [a], [], []) if score > 0 else (score, [], [a], [b])
    return _match_junction(a.args, b.args)


def _match_junction(xs: Sequence[Expr], ys: Sequence[Expr]) -> Match:
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    adj = np.zeros((len(xs), len(ys)), dtype=int)
    matched: list[Expr] = []
    for i, x in enumerate(xs):
        for j, y in enumerate(ys):
            score, sub, _, _ = match(x, y)
            adj[i, j] = int(score)  # the reference's integer matrix truncates a partial score
            if adj[i, j] > 0:
                matched.extend(sub)
    cols = maximum_bipartite_matching(csr_matrix(adj), perm_type="column")
    used = {int(c) for c in cols}
    total = sum(int(adj[i, cols[i]]) for i in range(len(xs)) if cols[i] != -1)
    least = min(len(xs), len(ys))
    unmatched_x = [x for i, x in enumerate(xs) if i not in used or cols[i] == -1]
    unmatched_y = [y for j, y in enumerate(ys) if j not in used]
    return (total / least if least > 0 else 0.0), matched, unmatched_x, unmatched_y


def predicates(exprs: Iterable[Expr]) -> set[str]:
    """The predicate names (first word of each atom) in these expressions."""
    out: set[str] = set()
    for e in exprs:
        if e.kind == "lit":
            out.add(e.text.split(" ")[0])
        else:
            out |= predicates(e.args)
    return out


@dataclass(frozen=True)
class PartCount:
    """Predicate names matched, predicted but unmatched, and gold but unmatched, for one
    operator part."""

    matched: frozenset[str]
    predicted: frozenset[str]
    gold: frozenset[str]


@functools.lru_cache(maxsize=16384)
def logic_score(predicted: str, gold: str) -> PartCount:
    """One operator part, as the reference's ``calculate_logic_score``: an unparsable
    side yields no predicate at all. Memoised (a pure function of two texts): a BEHAVIOR
    cell counts each answer three times (the file's figures, the reference reading and
    the corrections table's per-task counts), and answers recur across models."""
    try:
        a, b = align(tree(tokens(predicted)), tree(tokens(gold)))
        _, m, u1, u2 = match(expr(a), expr(b))
    except (ReferenceParseError, IndexError, ValueError, TypeError):
        return PartCount(frozenset(), frozenset(), frozenset())
    return PartCount(frozenset(predicates(m)), frozenset(predicates(u1)), frozenset(predicates(u2)))


# ----------------------------------------------------------------------------- a file
def reference_logic_form_counts(
    data: EaiPddl, rows: Iterable[Mapping[str, Any]]
) -> dict[str, list[int]]:
    """Category → [TP, FP, FN] over one responses file, precondition and effect summed,
    counted as the reference counts (see the module docstring)."""
    cats = data.predicate_categories
    counts: dict[str, list[int]] = {}
    solved = set(data.solved)
    for row in rows:
        ident = str(row.get("identifier"))
        if ident not in solved:
            continue
        try:
            operators = extract_operators(answer_text(str(row.get("llm_output", ""))))
        except (TypeError, IndexError):
            continue
        gold_names = data.task_actions.get(ident, ())
        for name, (pre, eff) in operators.items():
            if name not in gold_names:
                continue
            gold = data.gold_operators[name]
            for mine, theirs in ((pre, gold.precondition), (eff, gold.effect)):
                part = logic_score(mine, theirs)
                for slot, preds in enumerate((part.matched, part.predicted, part.gold)):
                    for p in preds:
                        if p == "()" or p not in cats:  # unknown: skipped (only
                            continue  # predicted ones occur; the reference skips those)
                        counts.setdefault(cats[p], [0, 0, 0])[slot] += 1
    return counts


def reference_logic_form_figures(
    data: EaiPddl, rows: Iterable[Mapping[str, Any]]
) -> dict[str, float]:
    """``{category}_{precision|recall|f1}`` in percent, as the reference's summary, in
    category order (the counts' order follows set iteration, which varies by process)."""
    out: dict[str, float] = {}
    for cat, (tp, fp, fn) in sorted(reference_logic_form_counts(data, rows).items()):
        if (tp, fp, fn) == (0, 0, 0):
            continue
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        out |= {
            f"{cat}_precision": round(100 * p, 4),
            f"{cat}_recall": round(100 * r, 4),
            f"{cat}_f1": round(100 * f1, 4),
        }
    return out
