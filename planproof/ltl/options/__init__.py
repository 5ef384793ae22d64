"""Goal options: the simple goals a goal formula can be satisfied by, and the one that
best matches a prediction.

EAI scores goal interpretation against the *goal options* of the ground-truth goal: simple
goals ``a1 then ... then ak then (p1 and ... and pl)`` that each entail it, and takes
F1 = max over options of F1(set(option), set(prediction)) (spec §1.4, §2.1). BEHAVIOR
goals have thousands of options, so this package never needs them all at once:

* :meth:`GoalOptions.options` enumerates them lazily;
* :meth:`GoalOptions.count` counts them combinatorially;
* :meth:`GoalOptions.best` finds the best-scoring option directly (see :mod:`.best`).

The reading is the final-state one of :func:`planproof.ltl.evaluate.evaluate_final`:
state atoms are read in the final state, action atoms where the action happens, ``then``
orders the actions. Options are derived from the negation normal form of the grounded
formula:

* ``or``/``exists``: union; ``and``/``forall``: product, where literal sets are merged
  (a merge holding ``p`` and ``not p`` is dropped) and action sequences are merged by
  every interleaving that may identify equal actions (the two children hold on the same
  segment, so a single occurrence can serve both). Inside a ``then``-free node, which
  holds at one position, the actions of the children must be the same action;
* ``then``: action sequences concatenated, state parts all go to the final literals;
* ``forn n`` (exact): n instances hold and the others do not; with ``minimal=True`` only n
  instances hold (BDDL's ground options);
* ``forpairs``/``fornpairs n``: one option per matching of the required size;
* ``not`` is pushed to the atoms; over an action atom or a ``then`` it raises
  :class:`UnsupportedFormulaError` (an option cannot require an action not to happen).
  ``not forpairs`` uses König's theorem: no matching of size s iff some s - 1 objects
  cover every pair that holds.

Each option entails the formula on traces with room for its state-only ``then`` parts
(a ``then`` part needs a non-empty segment), and the disjunction of the options is
equivalent to it on such traces; ``tests/ltl/test_options.py`` checks both with the
evaluator.

Modules: :mod:`.simple_goal` (options and their score), :mod:`.normal_form` (the NNF the
algorithms share), :mod:`.merge` (merging partial options), :mod:`.count`,
:mod:`.enumeration`, :mod:`.best` (with :mod:`.scorer`, :mod:`.table`, :mod:`.assignment`),
and :mod:`.goal_options` (the entry points re-exported here).
"""

from planproof.ltl.options.enumeration import CACHE_LIMIT as CACHE_LIMIT
from planproof.ltl.options.goal_options import GoalOptions, best_option, count_options, options
from planproof.ltl.options.normal_form import MAX_COVERS as MAX_COVERS
from planproof.ltl.options.normal_form import MAX_MASK_SIDE as MAX_MASK_SIDE
from planproof.ltl.options.simple_goal import Element, OptionScore, SimpleGoal, score

__all__ = [
    "Element",
    "GoalOptions",
    "OptionScore",
    "SimpleGoal",
    "best_option",
    "count_options",
    "options",
    "score",
]
