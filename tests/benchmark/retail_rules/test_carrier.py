"""The carrier judge on hand-made commits, in memory: solved tickets while the carrier has the package."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.domains.retail.judges import CarrierJudge
from tests.benchmark.retail_rules.test_judges import USERS, Row, insert, judge_commit, profile, update

_TICKET: Row = {
    "id": "6",
    "requester_id": "10",
    "priority": "high",
    "status": "open",
    "subject": "Order status",
}


def _ticket(description: str, status: str = "solved", **row: Any) -> Any:
    return insert("zendesk_tickets", "6", **{**_TICKET, "description": description, "status": status, **row})


def _tables(tracking: str, customer: str = "CUS-1", score: int = 80) -> dict[str, list[Row]]:
    return {
        **USERS,
        "customer_profiles": [profile("plus_member", score, email="Ann@Example.com")],
        "orders": [{"id": "ORD-1", "customer_id": customer, "total_amount": 262.48}],
        "shipments": [
            {
                "id": "SHP-1",
                "order_id": "ORD-1",
                "tracking_number": "TRK-1",
                "estimated_delivery_date": "2025-09-21T17:00:00Z",
            }
        ],
        "carrier_tracking": [
            {
                "tracking_number": "TRK-1",
                "carrier": "UPS",
                "status": tracking,
                "last_update": "2025-09-22T14:20:00Z",
            }
        ],
    }


def _rules(effects: list[Any], tables: dict[str, list[Row]]) -> list[str | None]:
    return [rule for rule, *_ in judge_commit(CarrierJudge(), effects, tables)]


def test_a_ticket_naming_an_order_in_carrier_exception_is_not_solved() -> None:
    """Ticket, its order (named in the description), the order's shipment, then the tracking: two rounds."""
    effects = [_ticket("Customer asks about order ORD-1.")]
    ((rule, _, message),) = judge_commit(CarrierJudge(), effects, _tables("exception"))
    assert rule == "ticket-hold-for-carrier-exception"
    assert message.startswith("ticket 6: status 'solved' while shipment SHP-1 of order ORD-1 (UPS TRK-1)")
    assert _rules([_ticket("Customer asks about order ORD-1.", status="hold")], _tables("exception")) == []
    assert _rules(effects, _tables("delayed")) == []


def test_the_tracking_decides_for_the_requesters_own_orders_only() -> None:
    effects = [_ticket("Customer asks about order ORD-1.")]
    assert _rules(effects, _tables("exception", customer="CUS-2")) == []
    assert _rules([_ticket("Customer asks about a delayed parcel.")], _tables("exception")) == []


def test_an_order_the_commit_names_links_without_the_ticket_naming_it() -> None:
    goodwill = insert(
        "refunds", "RFD-1", id="RFD-1", order_id="ORD-1", refund_reason="discount_correction", amount=5.0
    )
    effects = [_ticket("Customer compensated."), goodwill]
    assert _rules(effects, _tables("exception")) == ["ticket-hold-for-carrier-exception"]
    compensation = insert(
        "refunds",
        "RFD-1",
        id="RFD-1",
        order_id="ORD-1",
        refund_reason="late_delivery_compensation",
        amount=26.0,
    )
    assert _rules([_ticket("Customer compensated."), compensation], _tables("exception")) == []


@pytest.mark.parametrize(
    ("subject", "score", "rules"),
    [
        ("Package marked delivered but not received", 45, ["ticket-hold-for-carrier-investigation"]),
        ("Customer reports non-receipt of order", 45, ["ticket-hold-for-carrier-investigation"]),
        ("Package marked delivered but not received", 75, []),
        ("Package marked delivered but not received; found by a neighbour", 45, []),
        ("Order not received yet, tracking shows in transit", 45, []),
    ],
)
def test_a_missing_package_outside_the_courtesy_segment_waits_for_the_carrier(
    subject: str, score: int, rules: list[str]
) -> None:
    effects = [_ticket("Customer informed.", subject=subject)]
    assert _rules(effects, _tables("delivered", score=score)) == rules


def test_an_investigation_concluded_later_is_not_reopened_by_its_old_words() -> None:
    before = {**_TICKET, "status": "hold", "subject": "Package marked delivered but not received"}
    concluded = update("zendesk_tickets", "6", before, status="solved")
    assert _rules([concluded], _tables("delivered", score=45)) == []
    reworded = update("zendesk_tickets", "6", {**before, "status": "open"}, status="solved")
    assert _rules([reworded], _tables("delivered", score=45)) == ["ticket-hold-for-carrier-investigation"]
