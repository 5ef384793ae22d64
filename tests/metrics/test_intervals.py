"""The intervals and paired tests of planproof.metrics.intervals against scipy's
reference computations (scipy is a dependency; planproof avoids importing scipy.stats
at run time only for start-up speed)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from planproof.metrics.intervals import (
    Interval,
    binomial_two_sided,
    bootstrap,
    bootstrap_mean,
    bootstrap_micro_f1,
    mcnemar,
    paired_bootstrap,
    rate_text,
    wilson,
)


@given(
    st.integers(min_value=1, max_value=600).flatmap(
        lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
    ),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_wilson_matches_scipy(case: tuple[int, int], level: float) -> None:
    k, n = case
    ours = wilson(k, n, level)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    assert ours.low == pytest.approx(ref.low, abs=1e-12)
    assert ours.high == pytest.approx(ref.high, abs=1e-12)
    assert 0.0 <= ours.low <= k / n <= ours.high <= 1.0


def test_wilson_of_nothing_is_the_whole_range_and_bad_counts_are_refused() -> None:
    assert wilson(0, 0) == Interval(0.0, 1.0, 0.95, "wilson")
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(1, 2, level=1.0)


@given(
    st.integers(min_value=0, max_value=300).flatmap(
        lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
    )
)
def test_exact_binomial_p_matches_scipy(case: tuple[int, int]) -> None:
    k, n = case
    ours = binomial_two_sided(k, n)
    ref = stats.binomtest(k, n, 0.5, alternative="two-sided").pvalue if n else 1.0
    assert ours == pytest.approx(ref, rel=1e-9, abs=1e-300)


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=0, max_size=200))
def test_mcnemar_is_the_binomial_test_on_the_discordant_pairs(
    pairs: list[tuple[bool, bool]],
) -> None:
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    result = mcnemar(a, b)
    assert result.both + result.a_only + result.b_only + result.neither == len(pairs)
    discordant = result.a_only + result.b_only
    ref = stats.binomtest(result.a_only, discordant, 0.5).pvalue if discordant else 1.0
    assert result.p_value == pytest.approx(ref, rel=1e-9)
    # Swapping the runs changes nothing but the labels.
    assert mcnemar(b, a).p_value == result.p_value


def test_mcnemar_on_a_clear_difference() -> None:
    a = [True] * 30 + [False] * 10
    b = [False] * 30 + [False] * 10
    result = mcnemar(a, b)
    assert (result.a_only, result.b_only) == (30, 0)
    assert result.p_value == pytest.approx(2 * 0.5**30)
    with pytest.raises(ValueError):
        mcnemar([True], [True, False])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bootstrap_mean_agrees_with_scipy_percentile_bootstrap(seed: int) -> None:
    data = np.random.default_rng(seed).beta(2, 3, size=150)
    ours = bootstrap_mean(list(data), resamples=4000, seed=seed)
    ref = stats.bootstrap(
        (data,),
        np.mean,
        confidence_level=0.95,
        n_resamples=4000,
        method="percentile",
        random_state=seed,
    ).confidence_interval
    # Two independent Monte-Carlo estimates of the same quantiles.
    width = ref.high - ref.low
    assert ours.low == pytest.approx(ref.low, abs=0.08 * width)
    assert ours.high == pytest.approx(ref.high, abs=0.08 * width)
    assert ours.low < float(np.mean(data)) < ours.high


def test_bootstrap_is_seeded_and_general() -> None:
    values = [0.0, 1.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.75]
    assert bootstrap_mean(values, seed=7) == bootstrap_mean(values, seed=7)
    assert bootstrap_mean([0.4]) == Interval(0.4, 0.4, 0.95, "bootstrap")
    # A ratio of sums (micro F1's shape): the generic form on the means equals bootstrap_mean.
    rows = [(v, 1.0) for v in values]
    general = bootstrap(rows, lambda rs: sum(r[0] for r in rs) / sum(r[1] for r in rs), seed=7)
    assert general.low == pytest.approx(bootstrap_mean(values, seed=7).low)
    assert general.high == pytest.approx(bootstrap_mean(values, seed=7).high)


def test_paired_bootstrap_finds_a_real_difference_and_not_a_null_one() -> None:
    rng = np.random.default_rng(5)
    base = rng.uniform(0, 1, size=120)
    better = np.clip(base + 0.2, 0, 1)
    result = paired_bootstrap(list(better), list(base), seed=3)
    assert result.difference > 0.15
    assert result.interval.low > 0.0
    assert result.p_value < 0.01
    same = paired_bootstrap(list(base), list(base))
    assert same.p_value == 1.0 and same.difference == 0.0
    ref = stats.bootstrap(
        (better - base,),
        np.mean,
        n_resamples=4000,
        method="percentile",
        random_state=3,
    ).confidence_interval
    width = ref.high - ref.low
    assert result.interval.low == pytest.approx(ref.low, abs=0.1 * width)
    assert result.interval.high == pytest.approx(ref.high, abs=0.1 * width)


def test_rate_text() -> None:
    assert rate_text(0, 0) == "–"
    text = rate_text(57, 100)
    assert text.startswith("57.0 % [")
    assert text == f"57.0 % {wilson(57, 100).text()}"


def test_micro_f1_bootstrap_is_the_generic_bootstrap_of_the_ratio_of_sums() -> None:
    rng = np.random.default_rng(11)
    tp, fp, fn = (list(rng.integers(0, 6, size=80)) for _ in range(3))
    fast = bootstrap_micro_f1(tp, fp, fn, seed=4)
    rows = list(zip(tp, fp, fn, strict=True))

    def f1(rs: Sequence[tuple[int, int, int]]) -> float:
        t, p, n = (sum(r[i] for r in rs) for i in range(3))
        return 2 * t / (2 * t + p + n) if 2 * t + p + n else 0.0

    slow = bootstrap(rows, f1, seed=4)
    assert fast.low == pytest.approx(slow.low) and fast.high == pytest.approx(slow.high)
    assert fast.low <= f1(rows) <= fast.high
