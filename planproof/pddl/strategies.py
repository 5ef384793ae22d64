"""Hypothesis strategies for PDDL text: conditions and effects over a small vocabulary,
and LLM-style answers wrapping operators in fences, JSON and prose, so that users can
property-test their own operator readers and matchers. Needs hypothesis (the ``testing``
extra)."""

from __future__ import annotations

import json

from hypothesis import strategies as st

_ATOMS = ("(p ?a)", "(q ?a ?b)", "(r ?b)", "(s)", "(p ?b)")


def conditions(depth: int = 2, *, when: bool = True) -> st.SearchStrategy[str]:
    """PDDL text with ``and``/``or``/``not``/``forall`` (and ``when`` unless
    ``when=False``, which makes it a valid precondition) over the predicates p/1, q/2,
    r/1, s/0 and the variables ?a, ?b."""
    atoms = st.sampled_from(_ATOMS)
    if depth <= 0:
        return atoms
    sub = conditions(depth - 1, when=when)
    options = [
        atoms,
        sub.map(lambda x: f"(not {x})"),
        st.lists(sub, min_size=2, max_size=3).map(lambda xs: f"(and {' '.join(xs)})"),
        st.lists(sub, min_size=2, max_size=3).map(lambda xs: f"(or {' '.join(xs)})"),
        sub.map(lambda x: f"(forall (?z - object) (and (p ?z) {x}))"),
    ]
    if when:
        options.append(st.tuples(sub, sub).map(lambda t: f"(when {t[0]} {t[1]})"))
    return st.one_of(*options)


def clause_lists(max_size: int = 5) -> st.SearchStrategy[list[str]]:
    """Lists of top-level clauses (join them under ``(and ...)``)."""
    return st.lists(conditions(2), max_size=max_size)


def effects() -> st.SearchStrategy[str]:
    """Executable PDDL effects: literals, ``when`` with a condition, ``forall``."""
    lit = st.sampled_from(_ATOMS).flatmap(lambda a: st.sampled_from([a, f"(not {a})"]))
    one = st.one_of(
        lit,
        st.tuples(conditions(1, when=False), lit).map(lambda t: f"(when {t[0]} {t[1]})"),
        lit.map(lambda x: f"(forall (?z - object) (when (p ?z) {x}))"),
    )
    return st.lists(one, min_size=1, max_size=4).map(lambda xs: f"(and {' '.join(xs)})")


def operator_answers() -> st.SearchStrategy[tuple[str, str, str]]:
    """(answer, precondition, effect): one operator ``act(?a ?b)`` as an LLM might wrap
    it (bare, fenced, in JSON, inside prose); the reader must recover the two parts."""

    def wrap(t: tuple[str, str, int]) -> tuple[str, str, str]:
        pre, eff, style = t
        op = f"(:action act :parameters (?a ?b) :precondition {pre} :effect {eff})"
        answer = [
            op,
            f"```pddl\n{op}\n```",
            json.dumps({"output": op}),
            f"Here is the operator you asked for:\n{op}\nThat is all.",
        ][style]
        return answer, pre, eff

    return st.tuples(conditions(2), effects(), st.integers(0, 3)).map(wrap)
