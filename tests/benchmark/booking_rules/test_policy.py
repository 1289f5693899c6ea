"""The policy arithmetic against the manual's own worked examples and table edges."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from benchmark.domains.booking.judges.policy import (
    Account,
    cancellation_refund,
    check_in_priority,
    check_in_tag,
    compensation_rates,
    group_fee,
    group_needs_hotel,
    modification_fee,
    parse_moment,
    round_cents,
    same_day_needs_hotel,
    special_request_fees,
)

NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
B2C = Account(None)


def test_the_modification_fee_example() -> None:
    """Standard hotel, 3 days out, second modification: $25 × 1.0 + $15 = $40."""
    assert modification_fee(72, "standard", 1, "standard", B2C, 400).amount == 40.0


@pytest.mark.parametrize(
    ("hours", "tier", "previous", "fee"),
    [
        (168, "budget", 0, 0.0),
        (167.9, "premium", 0, 12.5),
        (47.9, "budget", 2, 105.0),
        (23, "premium", 1, 45.0),
    ],
)
def test_modification_fees_by_window_tier_and_count(
    hours: float, tier: str, previous: int, fee: float
) -> None:
    assert modification_fee(hours, tier, previous, "vip", B2C, 500).amount == fee


def test_modification_fee_waivers() -> None:
    assert modification_fee(30, "budget", 2, "platinum", B2C, 500).amount == 0.0
    assert modification_fee(10, "budget", 0, "platinum", B2C, 500).amount == 90.0
    assert modification_fee(30, "budget", 2, "standard", Account("enterprise"), 500).amount == 0.0
    assert modification_fee(30, "standard", 0, "standard", Account("mid_market"), 999).amount == 50.0
    assert modification_fee(30, "standard", 0, "standard", Account("mid_market"), 1000).amount == 0.0
    assert Account.of({"account_tier": "enterprise", "account_status": "expired"}) == B2C


def test_the_group_fee_example() -> None:
    """Medium group at a premium hotel, 5 of 10 rooms, 5 days out: $25 × 5 × 0.5 = $62.50."""
    assert group_fee(120, 5, 10, "premium").amount == 62.5
    assert group_fee(200, 5, 20, "premium").amount == 0.0
    assert group_fee(100, 5, 20, "standard").amount == 125.0


def test_the_cancellation_example_and_overrides() -> None:
    """$400 at a standard hotel, 36 h out: 50% − $15 = $185."""
    assert cancellation_refund(400, 36, "standard", "standard", B2C) == (185.0, 0.5)
    assert cancellation_refund(400, 36, "standard", "platinum", B2C) == (400.0, 1.0)
    assert cancellation_refund(400, 20, "premium", "platinum", B2C) == (0.0, 0.0)
    assert cancellation_refund(400, 50, "budget", "standard", Account("enterprise")) == (385.0, 1.0)
    assert cancellation_refund(400, 50, "budget", "standard", Account("mid_market")) == (285.0, 0.75)
    assert cancellation_refund(400, 168, "budget", "standard", B2C) == (385.0, 1.0)


def test_compensation_windows() -> None:
    assert compensation_rates("standard", 48) == (0.25, 0.5, 0.75)
    assert compensation_rates("vip", 49) == (0.25,)
    assert compensation_rates("standard", 7 * 24 + 1) == ()
    assert compensation_rates("platinum", 24) == (0.5, 1.0)
    assert compensation_rates("platinum", 13 * 24) == (0.5,)
    assert compensation_rates("platinum", 15 * 24) == ()


def test_special_request_fees_and_the_half_day_example() -> None:
    """$400 for 2 nights: a half-day rate of $100."""
    assert special_request_fees(["Late checkout at 4 PM"], 100, "standard", 400, 2)[0] == (30.0, 100.0)
    assert special_request_fees(["Early check-in at 11 AM"], 100, "standard", 400, 2)[0] == (25.0,)
    assert special_request_fees(["Early check-in"], 100, "platinum", 400, 2)[0] == (0.0,)
    assert special_request_fees(["early check-in today"], 5, "platinum", 400, 2)[0] == (50.0,)
    assert special_request_fees(["High floor, quiet room"], 100, "standard", 400, 2) == ((0.0,), ())


def test_priorities_and_tags_by_check_in() -> None:
    today = datetime(2025, 10, 1, 23, 0, tzinfo=UTC)
    tomorrow = datetime(2025, 10, 2, 12, 0, tzinfo=UTC)
    later = datetime(2025, 10, 3, 13, 0, tzinfo=UTC)
    assert [check_in_priority(d, NOW) for d in (today, tomorrow, later)] == ["urgent", "high", "normal"]
    assert [check_in_tag(d, NOW) for d in (today, tomorrow, later)] == [
        "check-in-today",
        "check-in-24h",
        "check-in-upcoming",
    ]


def test_escalation_triggers() -> None:
    assert same_day_needs_hotel(10, "premium", "standard")
    assert not same_day_needs_hotel(10, "premium", "vip")
    assert not same_day_needs_hotel(30, "standard", "standard")
    assert group_needs_hotel(400, 16, "standard")
    assert not group_needs_hotel(168, 16, "premium")
    assert group_needs_hotel(47, 6, "premium")
    assert not group_needs_hotel(48, 6, "premium")
    assert group_needs_hotel(100, 6, "budget")
    assert not group_needs_hotel(100, 5, "budget")


def test_rounding_and_dates() -> None:
    assert round_cents(0.125) == 0.13
    assert parse_moment("2025-10-02") == datetime(2025, 10, 2, tzinfo=UTC)
    assert parse_moment("not a date") is None
