"""Simple goals (``a1 then ... then ak then (p1 and ... and pl)``) and their EAI score: the
elements a goal is scored on and the P/R/F1 counts of one goal against a prediction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from planproof.ltl.ast import Atom, Formula, Literal
from planproof.ltl.printer import to_text
from planproof.ltl.simplify import conj, seq

__all__ = ["Element", "OptionScore", "SimpleGoal", "score"]


Element: TypeAlias = Literal | tuple[Atom, ...]
"""One element of a goal's F1 set: a final-state literal, or the whole action sequence."""


def _lit_key(lit: Literal) -> tuple[str, tuple[str, ...], bool]:
    return (lit.atom.pred, tuple(a.name for a in lit.atom.args), not lit.positive)


@dataclass(frozen=True)
class SimpleGoal:
    """``a1 then ... then ak then (p1 and ... and pl)``: ordered ground action atoms and
    the ground literals that must hold in the final state."""

    actions: tuple[Atom, ...] = ()
    literals: frozenset[Literal] = frozenset()

    def elements(self) -> frozenset[Element]:
        """EAI's F1 set: the literals, plus the whole action sequence as ONE element."""
        if self.actions:
            return frozenset((self.actions, *self.literals))
        return frozenset(self.literals)

    def to_formula(self) -> Formula:
        """The goal as a formula (literals in a fixed order)."""
        state = conj(*(lit.as_formula() for lit in sorted(self.literals, key=_lit_key)))
        if not self.actions:
            return state
        return seq(*self.actions, state) if self.literals else seq(*self.actions)

    def holds(self, actions_taken: Sequence[Atom], final: Set[Atom]) -> bool:
        """Final-state reading: the actions occur in order (not necessarily contiguously)
        in ``actions_taken`` and every literal holds in ``final``."""
        it = iter(actions_taken)
        if not all(any(x == a for x in it) for a in self.actions):
            return False
        return all((lit.atom in final) == lit.positive for lit in self.literals)

    def __str__(self) -> str:
        return to_text(self.to_formula())


@dataclass(frozen=True)
class OptionScore:
    """An option scored against a prediction: ``tp`` = elements in both, ``fp`` =
    predicted elements not in the option, ``fn`` = option elements not predicted.
    0/0 reads as 1 (an empty prediction of an empty goal is perfect)."""

    option: SimpleGoal
    tp: int
    fp: int
    fn: int

    @property
    def f1_exact(self) -> Fraction:
        d = 2 * self.tp + self.fp + self.fn
        return Fraction(1) if d == 0 else Fraction(2 * self.tp, d)

    @property
    def f1(self) -> float:
        return float(self.f1_exact)

    @property
    def precision(self) -> float:
        d = self.tp + self.fp
        return 1.0 if d == 0 else self.tp / d

    @property
    def recall(self) -> float:
        d = self.tp + self.fn
        return 1.0 if d == 0 else self.tp / d


def score(option: SimpleGoal, predicted: Iterable[Element]) -> OptionScore:
    """P/R/F1 counts of ``option`` against a predicted element set."""
    pred = frozenset(predicted)
    el = option.elements()
    tp = len(el & pred)
    return OptionScore(option, tp, len(pred) - tp, len(el) - tp)
