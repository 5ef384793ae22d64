"""Property tests: every accepted rendering of a random plan reads back to the plan, and
no text, however malformed, makes the parser raise or do unbounded work. The work is
bounded, not timed (a wall-clock limit fails on a loaded machine): every parse stays
within the reader's budgets — candidate values tried, characters handed to ``ast``,
steps of the bracket scanner — which are what keep it fast. Timings are in benchmarks/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.interface import responses as responses_module
from planproof.interface.responses import (
    MAX_RESPONSE_CHARS,
    ParsedResponse,
    parse_actions,
    render_behavior,
    render_virtualhome,
)
from planproof.interface.strategies import (
    behavior_plans,
    behavior_responses,
    virtualhome_plans,
    virtualhome_responses,
)
from planproof.simulators.core import Action, ErrorKind

FAST = settings(max_examples=100, deadline=None)
FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(virtualhome_responses())
def test_virtualhome_round_trip(case: tuple[list[Action], str]) -> None:
    plan, text = case
    r = parse_actions(text, "virtualhome")
    assert r.error is None, (text, r.error)
    assert list(r.actions) == plan


@FAST
@given(behavior_responses())
def test_behavior_round_trip(case: tuple[list[Action], str]) -> None:
    plan, text = case
    r = parse_actions(text, "behavior")
    assert r.error is None, (text, r.error)
    assert list(r.actions) == plan


@FAST
@given(virtualhome_plans(), behavior_plans())
def test_plain_renderings_need_no_repair(vh: list[Action], bh: list[Action]) -> None:
    for text, dataset, plan in (
        (render_virtualhome(vh), "virtualhome", vh),
        (render_behavior(bh), "behavior", bh),
    ):
        r = parse_actions(text, dataset)  # type: ignore[arg-type]
        assert (list(r.actions), r.notes, r.form) == (plan, (), "json")


@contextmanager
def _work() -> Iterator[dict[str, int]]:
    """Count the parser's work while the block runs: values tried (``value_at``), and
    the scanner steps and literal characters each reader spent of its budgets."""
    reader = responses_module._Reader
    value_at, read = reader.value_at, reader.read
    spent = {"values": 0, "scan": 0, "literal": 0, "readers": 0}

    def counting_value_at(self: object, start: int) -> object:
        spent["values"] += 1
        return value_at(self, start)  # type: ignore[arg-type]

    def budget_read(self: object) -> ParsedResponse:
        out = read(self)  # type: ignore[arg-type]
        spent["readers"] += 1
        spent["scan"] = max(spent["scan"], responses_module._SCAN_BUDGET - self.scan_budget)  # type: ignore[attr-defined]
        spent["literal"] = max(
            spent["literal"],
            responses_module._LITERAL_BUDGET - self.literal_budget,  # type: ignore[attr-defined]
        )
        return out

    reader.value_at, reader.read = counting_value_at, budget_read  # type: ignore[assignment,method-assign]
    try:
        yield spent
    finally:
        reader.value_at, reader.read = value_at, read  # type: ignore[method-assign]


def _check(result: ParsedResponse, text: str, spent: dict[str, int]) -> None:
    assert isinstance(result, ParsedResponse)
    # bounded work: a fixed number of candidate starts plus one per object joined into
    # the plan (each consumes text), and each reader within its scan and literal budgets
    assert spent["values"] <= responses_module._MAX_CANDIDATES + 1 + text.count("{"), spent
    assert spent["scan"] <= responses_module._SCAN_BUDGET + 1, spent
    assert spent["literal"] <= responses_module._LITERAL_BUDGET, spent
    if result.error is None:
        assert result.actions, "success without actions"
        assert all(
            isinstance(a, Action) and all(isinstance(x, str) for x in a.args)
            for a in result.actions
        )
    else:
        assert result.actions == ()
        assert result.error.kind in (ErrorKind.PARSING, ErrorKind.ARGUMENT_COUNT)
        assert result.error.message
        pos = result.error.position
        assert pos is None or 0 <= pos <= MAX_RESPONSE_CHARS


def _both(text: str) -> None:
    for dataset in ("virtualhome", "behavior"):
        with _work() as spent:
            r = parse_actions(text, dataset)  # type: ignore[arg-type]
        _check(r, text, spent)


@FUZZ
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text(text: str) -> None:
    _both(text)


@FUZZ
@given(st.text(alphabet="[]{}()\"',:\n 01aWALK<>._`\\#-TrueNn", max_size=400))
def test_fuzz_json_alphabet(text: str) -> None:
    _both(text)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


@FUZZ
@given(_JSON, st.sampled_from(["", "```json\n", "Plan: "]), st.booleans())
def test_fuzz_arbitrary_json(value: object, prefix: str, single: bool) -> None:
    text = prefix + json.dumps(value)
    _both(text.replace('"', "'") if single else text)


@FUZZ
@given(virtualhome_responses(), st.data())
def test_fuzz_mutated_responses(case: tuple[list[Action], str], data: st.DataObject) -> None:
    _, text = case
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, min(len(text), i + 5)))
    junk = data.draw(st.text(alphabet="[]{}\"',:0a ", max_size=4))
    _both(text[:i] + junk + text[j:])


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 40_000), st.sampled_from(["[", "{", "[{", '{"a": [', "['", "(", "[1,"]))
def test_fuzz_deeply_nested_brackets(n: int, opener: str) -> None:
    _both(opener * n)
    _both(opener * n + "x" + "]}" * n)


def test_adversarial_inputs_at_the_length_limit() -> None:
    m = MAX_RESPONSE_CHARS
    for text in (
        "[" * m,
        "[]" * (m // 2),
        "[" + "1," * (m // 2 - 1),
        "[" + "'a'," * (m // 4 - 1) + "]",
        '["' * (m // 2),
        "```\n[\n" * (m // 6),
        ("[" * 30 + "]" * 30) * (m // 60),
        "{" + ",".join(f'"k{i}": [' for i in range(m // 8)),
        "\\" * m,
        "x" * (m + 1),
        "x" * 1_000_000,
    ):
        _both(text)


def test_many_consecutive_objects_are_all_read() -> None:
    n = 5000
    r = parse_actions('{"WALK": ["a", 1]}\n' * n, "virtualhome")
    assert len(r.actions) == n
