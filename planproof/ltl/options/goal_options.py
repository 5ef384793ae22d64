"""The public entry points: :class:`GoalOptions` grounds and normalises a goal once, then
enumerates, counts or searches its options; the functions are one-shot shorthands."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from planproof.ltl import ground as gr
from planproof.ltl.ast import Formula
from planproof.ltl.options.best import best_of
from planproof.ltl.options.count import OptionCounter
from planproof.ltl.options.enumeration import simple_goals
from planproof.ltl.options.normal_form import AtomSets, nnf
from planproof.ltl.options.simple_goal import Element, OptionScore, SimpleGoal
from planproof.ltl.trace import Universe

__all__ = ["GoalOptions", "best_option", "count_options", "options"]


class GoalOptions:
    """The goal options of one formula over one universe; grounds and normalises once,
    so many predictions can be scored against the same goal cheaply.

    ``actions`` names the action predicates (case-insensitive). ``minimal=True`` reads
    ``forn n`` as "at least n" (BDDL's ground options) instead of "exactly n".
    Raises :class:`GroundingError` or :class:`UnsupportedFormulaError` on construction.
    """

    def __init__(
        self,
        f: Formula,
        universe: Universe,
        actions: Iterable[str],
        *,
        minimal: bool = False,
    ) -> None:
        if isinstance(actions, str):
            raise TypeError("actions must be a set of predicate names, not a string")
        self.actions = frozenset(a.lower() for a in actions)
        self.ground = gr.ground(f, universe, forn_at_least=minimal)
        self._root = nnf(self.ground, True, self.actions)
        self._counter = OptionCounter()
        self._atoms = AtomSets()

    def options(self, *, dedupe: bool = True) -> Iterator[SimpleGoal]:
        """Every option, lazily, in the formula's order. ``dedupe=False`` skips the set
        of options already seen (constant memory, possible repeats)."""
        return simple_goals(self._root, self._counter, dedupe=dedupe)

    def __iter__(self) -> Iterator[SimpleGoal]:
        return self.options()

    def count(self) -> int:
        """Number of options counted combinatorially, without enumerating them.

        An upper bound on the number of distinct options: it counts before dropping
        inconsistent merges (``p`` and ``not p``) and before removing duplicates, and
        counts every interleaving of action parts. It is exact when no ground atom
        occurs twice in the grounded formula and no pair quantifier is negated.
        """
        return self._counter.total(self._root)

    def best(self, predicted: Iterable[Element]) -> OptionScore | None:
        """The option with the highest F1 against ``predicted`` (None if the formula has
        no option), found without enumerating options (see :func:`best_of`)."""
        return best_of(self._root, self._atoms, predicted)


def options(
    f: Formula,
    universe: Universe,
    actions: Iterable[str],
    *,
    minimal: bool = False,
    dedupe: bool = True,
) -> Iterator[SimpleGoal]:
    """Lazily enumerate the goal options of ``f`` (see :class:`GoalOptions`). Errors in
    the formula are raised here, not at the first ``next``."""
    return GoalOptions(f, universe, actions, minimal=minimal).options(dedupe=dedupe)


def count_options(
    f: Formula, universe: Universe, actions: Iterable[str], *, minimal: bool = False
) -> int:
    """Number of goal options without enumerating them (see :meth:`GoalOptions.count`:
    an upper bound, exact when no ground atom repeats and no pair quantifier is
    negated)."""
    return GoalOptions(f, universe, actions, minimal=minimal).count()


def best_option(
    f: Formula,
    universe: Universe,
    actions: Iterable[str],
    predicted: Iterable[Element],
    *,
    minimal: bool = False,
) -> OptionScore | None:
    """The goal option maximising F1 against the predicted elements, found without
    enumerating options; None if ``f`` has no option (its F1 is then 0)."""
    return GoalOptions(f, universe, actions, minimal=minimal).best(predicted)
