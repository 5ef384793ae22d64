"""Numbers from the command line: finite and in range, or refused with the option named."""

from __future__ import annotations

import argparse
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.boundary import InputError, check_seconds
from planproof.boundary.limits import MAX_SECONDS
from planproof.boundary.options import count, number_between, positive_count, seconds


@settings(deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_seconds_accepts_exactly_finite_positive_bounded_values(value: float) -> None:
    ok = math.isfinite(value) and 0 < value <= MAX_SECONDS
    if ok:
        assert seconds(repr(value)) == value
        assert check_seconds(value) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError, match="not a time limit"):
            seconds(repr(value))
        with pytest.raises(InputError) as info:
            check_seconds(value)
        assert info.value.kind == "bad-number"


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e308", "0", "-1", "ten", ""])
def test_seconds_refuses(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        seconds(text)


@settings(deadline=None)
@given(st.integers())
def test_counts(value: int) -> None:
    for parse, minimum in ((count, 0), (positive_count, 1)):
        if value >= minimum:
            assert parse(str(value)) == value
        else:
            with pytest.raises(argparse.ArgumentTypeError, match=f"below {minimum}"):
                parse(str(value))


def test_number_between() -> None:
    top_p = number_between(0.0, 1.0)
    assert top_p("0.5") == 0.5
    for bad in ("nan", "inf", "1.5", "-0.1", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            top_p(bad)


def test_check_seconds_refuses_non_numbers() -> None:
    with pytest.raises(InputError, match="expected a number"):
        check_seconds(True)
