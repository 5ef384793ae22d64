"""The published reference's transition-modeling logic-form counting, as
:mod:`planproof.pddl.reference_logic_form` reproduces it: equal to the reference's own
figures on all 15 published files (stored by ``benchmarks/differential_published.py
--write-figures``), and each way it departs from planproof's clause score shown on a
minimal example (``docs/reference-differences.md``, "Transition modeling")."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planproof.data import DataUnavailableError
from planproof.data.published import published_files
from planproof.data.reference_figures import reference_figures
from planproof.ltl.bddl.reader import read_sexpr
from planproof.pddl.eai import load_eai_pddl
from planproof.pddl.logic_form import match_clauses
from planproof.pddl.reference_logic_form import (
    logic_score,
    reference_logic_form_counts,
    reference_logic_form_figures,
)
from tests.helpers import needed_resource


def _planproof(predicted: str, gold: str, rename: dict[str, str] | None = None) -> tuple[int, ...]:
    m = match_clauses(read_sexpr(predicted), read_sexpr(gold), predicted_rename=rename)
    return m.tp, m.fp, m.fn


@pytest.mark.data
def test_equals_the_reference_on_every_published_file() -> None:
    """75 F1, 75 precision and 75 recall figures (15 models x 5 categories), each equal to
    the reference's own to the fourth decimal."""
    files = needed_resource(
        lambda: published_files("transition-modeling", "virtualhome"),
        DataUnavailableError,
        "published outputs",
    )
    data = load_eai_pddl("virtualhome")
    stored = reference_figures()["modules"]["transition-modeling"]
    compared = 0
    for f in files:
        cell = stored[f.model]
        assert cell["planner"] is False and "sample" not in cell  # whole file, F1 only
        ours = reference_logic_form_figures(data, json.loads(f.path.read_text(encoding="utf-8")))
        cats = sorted({name.rsplit("_", 1)[0] for name in ours})
        assert list(ours) == [f"{c}_{k}" for c in cats for k in ("precision", "recall", "f1")]
        for name, value in cell["figures"].items():
            if name.endswith("_planner_success_rate"):
                continue  # from the run with the planner, on a sample (planner_sample)
            assert ours[name] == pytest.approx(value, abs=1e-4), (f.model, name)
            compared += 1
    assert compared == 15 * 5 * 3


def test_and_of_one_atom_is_not_the_atom() -> None:
    """GPT-4o's ``turn_to`` effect (13 tasks, e.g. 960_2): ``(and (facing ?char ?obj))``
    against the gold ``(facing ?char ?obj)``. The reference compares a conjunction with
    an atom: no match, a false positive and a miss, which is most of GPT-4o's gap in
    object orientation (52.8 against planproof's 88.9). planproof reads both as one
    clause and matches it."""
    ref = logic_score("(and (facing ?char ?obj))", "(facing ?char ?obj)")
    assert not ref.matched and ref.predicted == ref.gold == {"facing"}
    assert _planproof("(and (facing ?char ?obj))", "(facing ?char ?obj)") == (1, 0, 0)


def test_atoms_match_only_as_identical_text() -> None:
    """Parameters named differently (``?o`` for ``?obj``) never match in the reference;
    planproof compares parameters by position."""
    pred, gold = "(and (next_to ?char ?o))", "(and (next_to ?char ?obj))"
    ref = logic_score(pred, gold)
    assert ref.matched == set() and ref.predicted == ref.gold == {"next_to"}
    assert _planproof(pred, gold, {"?o": "?obj"}) == (1, 0, 0)


def test_a_predicate_counts_once_per_operator_part() -> None:
    """Two matched ``inside`` clauses are one true positive for the reference (a set of
    predicate names), two for planproof (clauses)."""
    text = "(and (inside ?char ?a) (inside ?char ?b))"
    assert logic_score(text, text).matched == {"inside"}
    assert _planproof(text, text) == (2, 0, 0)


def test_a_member_that_fails_as_a_whole_misses_all_its_predicates() -> None:
    """A ``when`` with one wrong atom puts every predicate in it among the false positives
    and the misses (``on`` too, which is right)."""
    ref = logic_score("(and (when (on ?o) (off ?o)))", "(and (when (on ?o) (closed ?o)))")
    assert ref.matched == set()
    assert ref.predicted == {"on", "off"} and ref.gold == {"on", "closed"}


def test_a_matched_member_can_also_be_a_false_positive() -> None:
    """The reference calls predicted member ``i`` unmatched when no member is matched to
    gold *position* ``i``: here ``off`` (predicted 2nd) matches the gold's 1st member, so
    gold position 2 is unused and ``off`` is counted matched *and* a false positive."""
    ref = logic_score("(and (plugged_in ?o) (off ?o))", "(and (off ?o))")
    assert ref.matched == {"off"} and ref.predicted == {"plugged_in", "off"}
    assert _planproof("(and (plugged_in ?o) (off ?o))", "(and (off ?o))") == (1, 1, 0)


def test_a_missing_operator_adds_no_miss() -> None:
    """An answer with no operator for a task's gold operators counts nothing for the
    reference; planproof counts their clauses as missed (its recall is lower there)."""
    data = needed_resource(
        lambda: load_eai_pddl("virtualhome"), DataUnavailableError, "eai-eval wheel"
    )
    ident = data.solved[0]
    assert reference_logic_form_counts(data, [{"identifier": ident, "llm_output": ""}]) == {}


def test_unparsable_part_counts_nothing() -> None:
    ref = logic_score("(and (on ?o)", "(and (on ?o))")
    assert not (ref.matched or ref.predicted or ref.gold)


ATOMS = st.lists(
    st.tuples(
        st.sampled_from(["on", "off", "open", "closed", "inside", "facing"]),
        st.sampled_from(["?o", "?char", "?obj"]),
    ),
    min_size=1,
    max_size=6,
    unique=True,
)


def _conjunction(atoms: list[tuple[str, str]]) -> str:
    return "(and " + " ".join(f"({p} {v})" for p, v in atoms) + ")"


@given(ATOMS, st.randoms(use_true_random=False))
def test_a_conjunction_matches_any_reordering_of_itself(
    atoms: list[tuple[str, str]], rnd: random.Random
) -> None:
    """Distinct atoms in any order: every predicate matched, nothing left over."""
    shuffled = list(atoms)
    rnd.shuffle(shuffled)
    ref = logic_score(_conjunction(shuffled), _conjunction(atoms))
    assert ref.matched == {p for p, _ in atoms}
    assert not (ref.predicted or ref.gold)
