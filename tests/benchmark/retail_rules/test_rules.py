"""The CEL rule pack on hand-made changes, in memory: edges the golden trajectories do not reach."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from benchmark.domains.retail.judges import retail_rule_pack
from judges import CommitContext, Effect, EffectKind, MemoryState, RulePack, diff_fields

Row = dict[str, Any]


@pytest.fixture(scope="module")
def pack() -> RulePack:
    return retail_rule_pack()


def _update(table: str, key: str, before: Row, **changes: Any) -> Effect:
    after = {**before, **changes}
    return Effect(table, (key,), EffectKind.UPDATE, before, after, diff_fields(before, after))


def _insert(table: str, key: str, **row: Any) -> Effect:
    return Effect(table, (key,), EffectKind.INSERT, None, row, diff_fields(None, row))


def fired(
    pack: RulePack, effects: Sequence[Effect], tables: Mapping[str, list[Row]] | None = None
) -> list[str]:
    state = MemoryState(
        {name: [] for name in ("zendesk_users", "installation_jobs", "shipments")} | dict(tables or {})
    )
    snapshot = state.snapshot(pack.queries(tuple(effects)))
    verdict = pack(CommitContext("t", tuple(effects), (), "", snapshot))
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


def test_the_return_window_counts_from_the_latest_delivery(pack: RulePack) -> None:
    rma = _insert(
        "rma_records",
        "RMA-1",
        id="RMA-1",
        order_id="ORD-1",
        line_item_id="LIN-1",
        customer_id="CUS-1",
        return_reason="changed_mind",
        is_defective=False,
        created_date="2025-10-01T13:00:05Z",
        refund_amount=100.0,
        restocking_fee=0.0,
        return_shipping_cost=0.0,
        removal_fee=0.0,
    )
    shipments = [
        {"id": "S1", "order_id": "ORD-1", "actual_delivery_date": "2025-06-01T10:00:00Z"},
        {"id": "S2", "order_id": "ORD-1", "actual_delivery_date": "2025-09-20T10:00:00Z"},
    ]
    tables = {
        "customer_profiles": [
            {"id": "CUS-1", "customer_tier": "vip", "customer_score": 80, "total_orders": 3}
        ],
        "orders": [
            {"id": "ORD-1", "customer_id": "CUS-1", "status": "delivered", "installation_service_id": None}
        ],
        "order_line_items": [{"id": "LIN-1", "order_id": "ORD-1", "final_price": 100.0}],
        "rma_records": [],
    }
    assert fired(pack, [rma], {**tables, "shipments": shipments}) == []
    assert fired(pack, [rma], {**tables, "shipments": shipments[:1]}) == ["rma-return-window"]
