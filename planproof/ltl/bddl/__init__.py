"""BEHAVIOR's BDDL ↔ planproof's goal logic.

BEHAVIOR states goals in BDDL, a PDDL-like s-expression language with typed quantifiers
(``(forall (?jar.n.01 - jar.n.01) ...)``), counting (``forn``) and pair quantifiers
(``forpairs``/``fornpairs``). This package reads BDDL text into positioned s-expressions
(lark, LALR, bounded in length and nesting), converts a goal into a typed
:class:`~planproof.ltl.ast.Formula`, writes formulas back as BDDL, and reproduces the
untyped string format of the EAI reference implementation for comparison.

Modules: :mod:`.sexpr` (positioned s-expressions), :mod:`.errors` (:class:`BDDLSyntaxError`),
:mod:`.reader` (the bounded reader), :mod:`.names` (BDDL ↔ LTL names, documented in
``docs/data.md``), :mod:`.problem` (problems and their universes), :mod:`.to_ltl` and
:mod:`.to_bddl` (the two directions of goal conversion), :mod:`.reference` (the EAI
reference's string format). Everything public is re-exported here, imported on first
use.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planproof.ltl.bddl.errors import BDDLSyntaxError
    from planproof.ltl.bddl.names import bddl_category, bddl_object, ltl_category, ltl_object
    from planproof.ltl.bddl.problem import (
        BDDLProblem,
        bddl_problem_objects,
        parse_problem,
        problem_universe,
    )
    from planproof.ltl.bddl.reader import MAX_DEPTH, MAX_LENGTH, read_sexpr, read_sexprs
    from planproof.ltl.bddl.reference import REFERENCE_PREDICATES, reference_tl_string
    from planproof.ltl.bddl.sexpr import SAtom, SExpr, SList, sexpr_to_text
    from planproof.ltl.bddl.to_bddl import ltl_to_bddl
    from planproof.ltl.bddl.to_ltl import MAX_COUNT_DIGITS, VariableNaming, bddl_goal_to_ltl

_HOME = {
    "BDDLSyntaxError": "errors",
    "bddl_category": "names",
    "bddl_object": "names",
    "ltl_category": "names",
    "ltl_object": "names",
    "BDDLProblem": "problem",
    "bddl_problem_objects": "problem",
    "parse_problem": "problem",
    "problem_universe": "problem",
    "MAX_DEPTH": "reader",
    "MAX_LENGTH": "reader",
    "read_sexpr": "reader",
    "read_sexprs": "reader",
    "REFERENCE_PREDICATES": "reference",
    "reference_tl_string": "reference",
    "SAtom": "sexpr",
    "SExpr": "sexpr",
    "SList": "sexpr",
    "sexpr_to_text": "sexpr",
    "ltl_to_bddl": "to_bddl",
    "MAX_COUNT_DIGITS": "to_ltl",
    "VariableNaming": "to_ltl",
    "bddl_goal_to_ltl": "to_ltl",
}
"""Where each public name lives: imported on first use (PEP 562), so that importing
:mod:`.sexpr` alone (the PDDL reader does) does not load lark for the BDDL reader."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "MAX_COUNT_DIGITS",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "REFERENCE_PREDICATES",
    "BDDLProblem",
    "BDDLSyntaxError",
    "SAtom",
    "SExpr",
    "SList",
    "VariableNaming",
    "bddl_category",
    "bddl_goal_to_ltl",
    "bddl_object",
    "bddl_problem_objects",
    "ltl_category",
    "ltl_object",
    "ltl_to_bddl",
    "parse_problem",
    "problem_universe",
    "read_sexpr",
    "read_sexprs",
    "reference_tl_string",
    "sexpr_to_text",
]
