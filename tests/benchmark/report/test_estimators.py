"""The per-task estimators and the percentile, against values computed by hand."""

from __future__ import annotations

import pytest

from benchmark.metrics import bin_of, pass_at_k, pass_hat_k_plugin, pass_hat_k_unbiased, percentile


def test_pass_at_k_by_hand() -> None:
    assert pass_at_k(5, 3, 1) == pytest.approx(0.6)
    assert pass_at_k(5, 3, 2) == pytest.approx(1 - 1 / 10)  # 1 − C(2,2)/C(5,2)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 − C(3,2)/C(5,2)
    assert pass_at_k(5, 3, 5) == 1.0  # C(2,5) = 0
    assert pass_at_k(5, 0, 3) == 0.0


def test_pass_hat_k_unbiased_by_hand() -> None:
    assert pass_hat_k_unbiased(5, 3, 2) == pytest.approx(3 / 10)  # C(3,2)/C(5,2)
    assert pass_hat_k_unbiased(5, 4, 3) == pytest.approx(4 / 10)  # C(4,3)/C(5,3)
    assert pass_hat_k_unbiased(5, 5, 5) == 1.0
    assert pass_hat_k_unbiased(5, 3, 1) == pytest.approx(0.6)


def test_pass_hat_k_plugin_by_hand() -> None:
    assert pass_hat_k_plugin(5, 3, 2) == pytest.approx(0.36)
    assert pass_hat_k_plugin(5, 3, 5) == pytest.approx(0.07776)
    assert pass_hat_k_plugin(4, 0, 2) == 0.0


def test_fewer_passes_than_k_gives_unbiased_zero_and_plugin_positive() -> None:
    for n, c, k in [(5, 3, 5), (5, 1, 2), (10, 4, 5), (3, 2, 3)]:
        assert pass_hat_k_unbiased(n, c, k) == 0.0
        assert pass_hat_k_plugin(n, c, k) == pytest.approx((c / n) ** k)
        assert pass_hat_k_plugin(n, c, k) > 0.0


def test_both_estimators_are_pass_at_1_at_k_1() -> None:
    for c in range(6):
        assert pass_hat_k_unbiased(5, c, 1) == pytest.approx(c / 5)
        assert pass_hat_k_plugin(5, c, 1) == pytest.approx(c / 5)
        assert pass_at_k(5, c, 1) == pytest.approx(c / 5)


def test_bins() -> None:
    assert [bin_of(3, c) for c in range(4)] == ["never", "sometimes", "sometimes", "always"]
    assert bin_of(1, 1) == "always"
    assert bin_of(1, 0) == "never"


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (5, 6, 1), (5, -1, 1), (5, 3, 0), (5, 3, 6)])
def test_out_of_range_arguments_raise(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="need"):
        pass_hat_k_unbiased(n, c, k)


def test_percentile_interpolates_linearly() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile(values, 0.0) == 1.0
    assert percentile(values, 1.0) == 4.0
    assert percentile(values, 0.5) == 2.5
    assert percentile(values, 0.25) == pytest.approx(1.75)
    assert percentile([7.0], 0.975) == 7.0
    with pytest.raises(ValueError, match="quantile"):
        percentile(values, 1.5)
