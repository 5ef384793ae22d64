"""The best-scoring option of a goal, found without enumerating options: Dinkelbach's
method over the exact linear-score DP of :class:`~planproof.ltl.options.scorer.Scorer`."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from planproof.ltl.ast import Atom, Literal
from planproof.ltl.options.normal_form import AtomSets, Node
from planproof.ltl.options.scorer import Scorer
from planproof.ltl.options.simple_goal import Element, OptionScore, SimpleGoal, score
from planproof.ltl.options.table import Tree, materialise

__all__ = ["best_of"]


def best_of(root: Node, atoms_of: AtomSets, predicted: Iterable[Element]) -> OptionScore | None:
    """The option of ``root`` with the highest F1 against ``predicted`` (None if it has no
    option). Exact: each round of Dinkelbach's method strictly raises F1, and it stops
    when no option beats the last."""
    pred = frozenset(predicted)
    p_lits = frozenset(e for e in pred if isinstance(e, Literal))
    p_acts = frozenset(e for e in pred if isinstance(e, tuple))
    if not pred:  # every non-empty option scores 0; an empty one scores 1
        opt = _argmax(root, Scorer(atoms_of, p_lits, p_acts, 1, 0))
        return None if opt is None else score(opt, pred)
    best: OptionScore | None = None
    lam = Fraction(0)
    while True:
        opt = _argmax(root, Scorer(atoms_of, p_lits, p_acts, lam.numerator, lam.denominator))
        if opt is None:
            return None
        sc = score(opt, pred)
        if best is not None and sc.f1_exact <= lam:
            return best
        best, lam = sc, sc.f1_exact


def _argmax(root: Node, scorer: Scorer) -> SimpleGoal | None:
    """The option of ``root`` with the highest linear score of ``scorer``."""
    table = scorer.solve(root, frozenset())
    best: tuple[int, tuple[Atom, ...], Tree] | None = None
    for (lits, key), (v, acts, tree) in table.items():
        assert not lits, "every literal is scored at the root"
        total = v + scorer.act_value(key, acts)
        if best is None or total > best[0]:
            best = (total, acts, tree)
    if best is None:
        return None
    return SimpleGoal(best[1], materialise(best[2]))
