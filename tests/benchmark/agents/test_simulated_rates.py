"""Fault rates: defaults, the command-line syntax and its errors."""

from __future__ import annotations

import pytest

from benchmark.agents import FaultRatesError
from benchmark.agents.simulated import FaultClass, FaultRates
from benchmark.errors import BenchmarkError


def test_defaults_are_documented_values() -> None:
    rates = FaultRates()
    assert str(rates) == "wrong_value=0.1,extra_effect=0.05,missing_effect=0.05,stop_early=0.05,give_up=0.5"
    assert FaultRates.parse("") == rates


def test_items_apply_left_to_right_over_the_defaults() -> None:
    assert FaultRates.parse("wrong_value=0.3") == FaultRates(wrong_value=0.3)
    assert FaultRates.parse("0.2") == FaultRates(0.2, 0.2, 0.2, 0.2, 0.2)
    only = FaultRates.parse(" 0 , missing-effect = 1 ")
    assert [only.rate(kind) for kind in FaultClass] == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert FaultRates.parse("give_up=1,0") == FaultRates.zero()


def test_the_text_form_parses_back() -> None:
    rates = FaultRates(0.125, 0.0, 1.0, 0.25, 0.75)
    assert FaultRates.parse(str(rates)) == rates


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wrong=0.1", "unknown fault class 'wrong'"),
        ("wrong_value=high", "'high' is not a number"),
        ("1.5", "between 0 and 1"),
        ("stop_early=-0.1", "between 0 and 1"),
        ("give_up=nan", "between 0 and 1"),
    ],
)
def test_bad_items_are_errors_that_name_them(text: str, message: str) -> None:
    with pytest.raises(FaultRatesError, match=message) as caught:
        FaultRates.parse(text)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, BenchmarkError)


def test_a_rate_out_of_range_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="extra_effect"):
        FaultRates(extra_effect=2.0)
