"""The CEL rule pack on hand-made changes, in memory: edges the golden trajectories do not reach."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from benchmark.domains import get_domain
from benchmark.domains.retail import SPEC
from judges import CommitContext, Effect, EffectKind, MemoryState, RulePack, diff_fields, gather_memory

Row = dict[str, Any]


@pytest.fixture(scope="module")
def pack() -> RulePack:
    return SPEC.rule_pack()


def test_every_lookup_reads_by_a_key_or_an_index(pack: RulePack) -> None:
    """The pack's equality reads are served by the table's primary key or a declared index (a prefix)."""
    sql = get_domain("sandbox_external_retail").sql
    for name, lookup in pack.lookups.items():
        table = sql[lookup.table]
        columns = {column for column, _ in lookup.where}
        orders = [[c.name for c in table.primary_key.columns]]
        orders += [[c.name for c in index.columns] for index in table.indexes]
        assert any(set(order[: len(columns)]) == columns for order in orders), (name, lookup.table, columns)


def _update(table: str, key: str, before: Row, **changes: Any) -> Effect:
    after = {**before, **changes}
    return Effect(table, (key,), EffectKind.UPDATE, before, after, diff_fields(before, after))


def _insert(table: str, key: str, **row: Any) -> Effect:
    return Effect(table, (key,), EffectKind.INSERT, None, row, diff_fields(None, row))


def fired(
    pack: RulePack, effects: Sequence[Effect], tables: Mapping[str, list[Row]] | None = None
) -> list[str]:
    empty = ("zendesk_users", "installation_jobs", "shipments", "customer_profiles", "products")
    state = MemoryState({name: [] for name in empty} | dict(tables or {}))
    gathered = gather_memory([pack], tuple(effects), state)
    assert gathered.failures == {}
    verdict = pack(CommitContext("t", tuple(effects), (), "", gathered.snapshot))
    return [str(finding.rule) for finding in verdict.findings]


TICKET: Row = {
    "id": "20",
    "status": "open",
    "priority": "high",
    "type": "incident",
    "assignee_id": "2",
    "requester_id": "10",
    "tags": [],
    "organization_id": None,
    "due_at": None,
    "description": "Customer reports a delayed order.",
    "updated_at": "2025-10-01T12:00:00Z",
}


@pytest.mark.parametrize(
    ("description", "rules"),
    [
        ("Initiated carrier investigation with UPS", ["ticket-carrier-investigation-on-hold"]),
        ("Carrier investigation was opened on the lost parcel", ["ticket-carrier-investigation-on-hold"]),
        ("Carrier investigation initiated earlier has concluded; package found", []),
        ("No investigation needed, package delivered", []),
    ],
)
def test_a_ticket_recording_a_carrier_investigation_is_on_hold(
    pack: RulePack, description: str, rules: list[str]
) -> None:
    effect = _update(
        "zendesk_tickets",
        "20",
        TICKET,
        status="solved",
        description=description,
        updated_at="2025-10-01T13:00:10Z",
    )
    assert fired(pack, [effect]) == rules


def test_a_priority_cleared_on_update_is_a_finding(pack: RulePack) -> None:
    effect = _update("zendesk_tickets", "20", TICKET, status="solved", priority=None)
    assert fired(pack, [effect]) == ["ticket-priority-set"]


def test_a_ticket_solved_long_ago_is_not_reopened(pack: RulePack) -> None:
    old = {**TICKET, "status": "solved", "updated_at": "2025-09-20T10:00:00Z"}
    effect = _update("zendesk_tickets", "20", old, updated_at="2025-10-01T13:00:10Z", priority="normal")
    assert fired(pack, [effect]) == ["ticket-reopen-window"]


def _rma(**row: Any) -> Effect:
    fields: Row = {
        "id": "RMA-1",
        "order_id": "ORD-1",
        "line_item_id": "LIN-1",
        "customer_id": "CUS-1",
        "return_reason": "changed_mind",
        "is_defective": False,
        "created_date": "2025-10-01T13:00:05Z",
        "refund_amount": 100.0,
        "restocking_fee": 0.0,
        "return_shipping_cost": 0.0,
        "removal_fee": 0.0,
    }
    return _insert("rma_records", "RMA-1", **{**fields, **row})


def _returns(
    tier: str = "vip", delivered: str = "2025-09-20T10:00:00Z", **product: Any
) -> dict[str, list[Row]]:
    """An order of one line item, delivered once, of a customer of ``tier``; ``product`` fields of its SKU."""
    return {
        "customer_profiles": [
            {"id": "CUS-1", "customer_tier": tier, "customer_score": 80, "total_orders": 3}
        ],
        "orders": [
            {"id": "ORD-1", "customer_id": "CUS-1", "status": "delivered", "installation_service_id": None}
        ],
        "order_line_items": [{"id": "LIN-1", "order_id": "ORD-1", "sku": "SKU-1", "final_price": 100.0}],
        "products": [
            {"sku": "SKU-1", "category": "audio_video", "weight_lbs": 3.0, "is_refurbished": False} | product
        ],
        "shipments": [{"id": "S1", "order_id": "ORD-1", "actual_delivery_date": delivered}],
        "rma_records": [],
    }


def test_the_return_window_counts_from_the_latest_delivery(pack: RulePack) -> None:
    tables = _returns()
    earlier = {"id": "S0", "order_id": "ORD-1", "actual_delivery_date": "2025-06-01T10:00:00Z"}
    assert fired(pack, [_rma()], {**tables, "shipments": [earlier, *tables["shipments"]]}) == []
    assert fired(pack, [_rma()], {**tables, "shipments": [earlier]}) == ["rma-return-window"]


@pytest.mark.parametrize(
    ("tier", "category", "defective", "delivered", "rules"),
    [
        ("standard", "computing", False, "2025-09-02T10:00:00Z", []),
        ("standard", "gaming", False, "2025-08-30T10:00:00Z", ["rma-return-window"]),
        ("standard", "wearables", True, "2025-08-30T10:00:00Z", []),
        ("standard", "audio_video", False, "2025-08-30T10:00:00Z", []),
        ("plus_member", "computing", False, "2025-08-30T10:00:00Z", []),
    ],
)
def test_computing_gaming_and_wearables_have_half_the_standard_window(
    pack: RulePack, tier: str, category: str, defective: bool, delivered: str, rules: list[str]
) -> None:
    """The product is the returned line item's: RMA, line item, then product (a chained lookup)."""
    reason = "defective" if defective else "changed_mind"
    rma = _rma(is_defective=defective, return_reason=reason)
    found = fired(pack, [rma], _returns(tier, delivered, category=category))
    assert [rule for rule in found if rule == "rma-return-window"] == rules


@pytest.mark.parametrize(("weight", "rules"), [(29.9, []), (30.0, ["rma-return-shipping"])])
def test_return_shipping_is_for_items_under_30_pounds(
    pack: RulePack, weight: float, rules: list[str]
) -> None:
    rma = _rma(return_shipping_cost=8.99, refund_amount=91.01)
    assert fired(pack, [rma], _returns("standard", weight_lbs=weight)) == rules


@pytest.mark.parametrize(
    ("reason", "defective", "rules"),
    [
        ("changed_mind", False, ["rma-refurbished-defective-only"]),
        ("not_as_expected", False, ["rma-refurbished-defective-only"]),
        ("wrong_item_received", False, []),
        ("defective", True, []),
    ],
)
def test_a_refurbished_product_is_returned_only_when_defective(
    pack: RulePack, reason: str, defective: bool, rules: list[str]
) -> None:
    rma = _rma(return_reason=reason, is_defective=defective)
    assert fired(pack, [rma], _returns(is_refurbished=True)) == rules


def _refund(reason: str, amount: float) -> Effect:
    return _insert(
        "refunds",
        "RFD-1",
        id="RFD-1",
        order_id="ORD-1",
        amount=amount,
        refund_reason=reason,
        refund_date="2025-10-01T13:00:05Z",
    )


def _order_of(score: int | None) -> dict[str, list[Row]]:
    """An order of 1,000.00 delayed 10 days, one line item of 1,000.00, of a customer scoring ``score``."""
    customers = (
        [] if score is None else [{"id": "CUS-1", "customer_tier": "standard", "customer_score": score}]
    )
    return {
        "customer_profiles": customers,
        "orders": [{"id": "ORD-1", "customer_id": "CUS-1", "status": "shipped", "total_amount": 1000.0}],
        "order_line_items": [{"id": "LIN-1", "order_id": "ORD-1", "final_price": 1000.0}],
        "shipments": [{"id": "S1", "order_id": "ORD-1", "estimated_delivery_date": "2025-09-21T17:00:00Z"}],
    }


@pytest.mark.parametrize(
    ("score", "allowed"),
    [(85, [100.0]), (70, [100.0]), (69, [50.0]), (40, [50.0]), (39, []), (None, [100.0, 50.0])],
)
def test_late_delivery_compensation_follows_the_order_customers_score(
    pack: RulePack, score: int | None, allowed: list[float]
) -> None:
    """The customer is the order's (a refund names only its order): refund, order, then its customer."""
    for amount in (100.0, 50.0, 25.0):
        found = fired(pack, [_refund("late_delivery_compensation", amount)], _order_of(score))
        assert found == ([] if amount in allowed else ["refund-late-delivery-amount"]), amount


@pytest.mark.parametrize(("score", "allowed"), [(90, 200.0), (55, 100.0), (10, 50.0)])
def test_a_minor_defect_refund_follows_the_order_customers_score(
    pack: RulePack, score: int, allowed: float
) -> None:
    for amount in (200.0, 100.0, 50.0):
        found = fired(pack, [_refund("partial_refund_minor_defect", amount)], _order_of(score))
        assert found == ([] if amount == allowed else ["refund-minor-defect-amount"]), amount
