"""The retail Python judges on hand-made commits, in memory: the cases no golden trajectory exercises."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from benchmark.domains.retail.judges import ReturnsJudge, TicketClaimsJudge, TicketOutcomeJudge, WorkflowJudge
from benchmark.domains.retail.judges.claims import reported
from judges import (
    CallRecord,
    CommitContext,
    Effect,
    EffectKind,
    Judge,
    MemoryState,
    Severity,
    diff_fields,
    gather_memory,
)

NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)

Row = dict[str, Any]


def insert(table: str, key: str, **row: Any) -> Effect:
    return Effect(table, (key,), EffectKind.INSERT, None, row, diff_fields(None, row))


def update(table: str, key: str, before: Row, **changes: Any) -> Effect:
    after = {**before, **changes}
    return Effect(table, (key,), EffectKind.UPDATE, before, after, diff_fields(before, after))


def ticket(key: str, status: str, priority: str, requester: str = "10") -> Effect:
    return insert("zendesk_tickets", key, id=key, status=status, priority=priority, requester_id=requester)


def rma(key: str, reason: str = "changed_mind", customer: str = "CUS-1", **row: Any) -> Effect:
    fields: Row = {
        "id": key,
        "order_id": "ORD-1",
        "line_item_id": "LIN-1",
        "customer_id": customer,
        "return_reason": reason,
        "is_defective": False,
        "refund_amount": 100.0,
        "return_shipping_cost": 0.0,
    }
    return insert("rma_records", key, **{**fields, **row})


def profile(tier: str, score: int = 80, customer: str = "CUS-1", email: str = "ann@example.com") -> Row:
    return {"id": customer, "email": email, "customer_tier": tier, "customer_score": score}


def judge_commit(
    judge: Judge,
    effects: Sequence[Effect],
    tables: Mapping[str, list[Row]],
    calls: Sequence[CallRecord] = (),
) -> list[tuple[str | None, Severity, str]]:
    state = MemoryState({"zendesk_users": [], "customer_profiles": [], **tables})
    gathered = gather_memory([judge], tuple(effects), state)
    assert gathered.failures == {}
    verdict = judge(CommitContext("t", tuple(effects), tuple(calls), "", gathered.snapshot, NOW))
    return [(f.rule, f.severity, f.message) for f in verdict.findings]


USERS = {
    "zendesk_users": [{"id": "10", "email": "Ann@Example.com"}, {"id": "11", "email": "bob@example.com"}]
}


def test_a_customer_with_two_tickets_needs_one_on_hold_and_the_tier_on_both() -> None:
    effects = [
        ticket("6", "hold", "urgent"),
        ticket("7", "solved", "urgent"),
        rma("RMA-1", "wrong_item_received"),
    ]
    tables = {**USERS, "customer_profiles": [profile("vip")]}
    assert judge_commit(TicketOutcomeJudge(), effects, tables) == []
    effects[1] = ticket("7", "solved", "high")
    assert judge_commit(TicketOutcomeJudge(), effects, tables) == [
        ("ticket-priority", Severity.BLOCK, "ticket 7: priority 'high' for a vip customer (CUS-1)")
    ]


def test_with_two_tickets_the_issue_rules_step_aside() -> None:
    effects = [
        ticket("6", "hold", "normal"),
        ticket("7", "hold", "normal"),
        rma("RMA-1", "wrong_item_received"),
    ]
    tables = {**USERS, "customer_profiles": [profile("standard")]}
    assert judge_commit(TicketOutcomeJudge(), effects, tables) == []
    alone = judge_commit(TicketOutcomeJudge(), effects[1:], tables)
    assert [rule for rule, *_ in alone] == ["ticket-priority"]


def test_the_priority_follows_the_tier_from_before_a_membership_change() -> None:
    before = profile("standard", customer="CUS-1")
    effects = [
        ticket("6", "solved", "normal"),
        update("customer_profiles", "CUS-1", before, customer_tier="plus_member"),
    ]
    tables = {**USERS, "customer_profiles": [{**before, "customer_tier": "plus_member"}]}
    assert judge_commit(TicketOutcomeJudge(), effects, tables) == []


def test_tickets_of_other_requesters_do_not_document_the_work() -> None:
    effects = [ticket("6", "hold", "normal", requester="11"), rma("RMA-1")]
    tables = {**USERS, "customer_profiles": [profile("standard")]}
    (finding,) = judge_commit(TicketOutcomeJudge(), effects, tables)
    assert finding[0] == "ticket-documents-work"
    assert "no ticket requested by ann@example.com" in finding[2]


@pytest.mark.parametrize(
    ("profiles", "priority", "allowed"),
    [
        ([profile("vip", email="Ann@Example.com")], "high", "allowed: urgent"),
        ([profile("vip", email="Ann@Example.com")], "urgent", None),
        ([profile("plus_member", email="Ann@Example.com")], "normal", "allowed: urgent, high"),
        ([profile("plus_member", email="Ann@Example.com")], "high", None),
        ([profile("standard", email="Ann@Example.com")], "low", None),
        ([profile("vip", email="ann@example.com")], "high", None),
        (
            [
                profile("vip", email="Ann@Example.com"),
                profile("plus_member", customer="CUS-2", email="Ann@Example.com"),
            ],
            "high",
            None,
        ),
    ],
)
def test_a_ticket_alone_has_its_requesters_tier_priority(
    profiles: list[Row], priority: str, allowed: str | None
) -> None:
    """Nothing else changed: the customer is the requester's profile, read in a second round by email.

    The email is matched exactly (an equality read): a profile that spells it differently is not found.
    """
    found = judge_commit(
        TicketOutcomeJudge(), [ticket("6", "solved", priority)], {**USERS, "customer_profiles": profiles}
    )
    if allowed is None:
        assert found == []
    else:
        ((rule, severity, message),) = found
        assert (rule, severity) == ("ticket-priority", Severity.BLOCK)
        assert message.startswith(f"ticket 6: priority '{priority}' for a {profiles[0]['customer_tier']}")


def test_an_unknown_customer_is_left_to_the_rule_pack() -> None:
    assert judge_commit(TicketOutcomeJudge(), [ticket("6", "solved", "low"), rma("RMA-1")], USERS) == []


def test_a_ticket_created_in_another_status_than_open_is_a_warning() -> None:
    calls = [
        CallRecord("zendesk_create_item", {"table": "tickets", "item": {"status": "solved"}}, True, True),
        CallRecord("zendesk_create_item", {"table": "tickets", "item": {"status": "open"}}, True, True),
    ]
    assert judge_commit(TicketOutcomeJudge(), [ticket("6", "solved", "low")], USERS, calls) == [
        ("ticket-created-open", Severity.WARN, "a ticket was created with status 'solved'")
    ]


def test_a_conversation_with_no_ticket_is_blocked_even_with_nothing_changed() -> None:
    assert judge_commit(TicketOutcomeJudge(), [], USERS) == [
        (
            "ticket-documents-conversation",
            Severity.BLOCK,
            "no ticket was created or updated and nothing changed",
        )
    ]


def _order(status: str, placed: str) -> Row:
    return {
        "id": "ORD-1",
        "customer_id": "CUS-1",
        "status": status,
        "order_date": placed,
        "shipping_speed": "standard",
    }


@pytest.mark.parametrize(
    ("status", "placed", "rules"),
    [
        ("processing", "2025-10-01T11:30:00Z", []),
        ("processing", "2025-10-01T10:30:00Z", ["order-modification-window"]),
        ("pending_payment", "2025-10-01T12:30:00Z", ["order-modification-window"]),
    ],
)
def test_orders_change_within_two_hours_of_being_placed(status: str, placed: str, rules: list[str]) -> None:
    effect = update("orders", "ORD-1", _order(status, placed), shipping_speed="expedited")
    found = judge_commit(WorkflowJudge(), [effect], {})
    assert [rule for rule, *_ in found] == rules


def test_return_shipping_is_charged_on_the_first_line_item_only() -> None:
    effects = [
        rma("RMA-2", line_item_id="LIN-10", return_shipping_cost=8.99),
        rma("RMA-1", line_item_id="LIN-9", return_shipping_cost=8.99),
    ]
    tables = {"order_line_items": [], "orders": [], "installation_jobs": []}
    found = judge_commit(ReturnsJudge(), effects, tables)
    assert found == [
        (
            "rma-return-shipping-once",
            Severity.BLOCK,
            "RMA-2: return_shipping_cost 8.99 besides RMA-1 of the same return",
        )
    ]


@pytest.mark.parametrize(("ends", "rules"), [("2025-12-01T00:00:00Z", []), ("2025-09-30T23:59:59Z", ["w"])])
def test_corrective_service_only_within_the_workmanship_warranty(ends: str, rules: list[str]) -> None:
    job = {
        "id": "JOB-1",
        "order_id": "ORD-1",
        "customer_id": "CUS-1",
        "status": "completed",
        "scheduled_date": "2025-08-01T10:00:00Z",
        "workmanship_warranty_end": ends,
        "service_cost": 129.0,
    }
    effect = update(
        "installation_jobs", "JOB-1", job, status="scheduled", scheduled_date="2025-10-03T10:00:00Z"
    )
    found = judge_commit(WorkflowJudge(), [effect], {"customer_profiles": [profile("standard")]})
    assert [rule for rule, *_ in found] == ["workmanship-warranty-window" for _ in rules]


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("RMA created for return of the soundbar. Refund after receipt.", ["an RMA"]),
        ("Return (RMA) initiated; label emailed", ["an RMA"]),
        ("Customer asked about returns; no RMA created yet", []),
        ("Order cannot be cancelled, but return (RMA) initiated", []),
        ("Customer says the order was cancelled by the system", []),
        ("Refund will be processed once the order is cancelled", []),
        ("Warranty claim WCL-20000001 has been filed for the shutter", ["a warranty claim"]),
        ("Courtesy replacement to be issued per VIP policy", []),
        ("Replacement order has been issued and will ship tomorrow", ["a replacement order"]),
        ("Order ORD-1 and its installation JOB-1 successfully cancelled", ["an installation cancellation"]),
        ("Both order and installation have been canceled", ["an installation cancellation"]),
        ("Installation rescheduled to 2025-10-12 (weather)", ["an installation reschedule"]),
        ("Membership upgrade processed and the fee will be charged", ["a membership change"]),
    ],
)
def test_what_a_ticket_reports_as_done(text: str, claims: list[str]) -> None:
    assert [claim.what for claim, _ in reported(text)] == claims


def test_a_reported_action_needs_its_record_in_the_transaction() -> None:
    written = insert("zendesk_tickets", "6", id="6", subject="Return", description="RMA created for the TV.")
    assert [rule for rule, *_ in judge_commit(TicketClaimsJudge(), [written], {})] == [
        "ticket-claims-match-records"
    ]
    assert judge_commit(TicketClaimsJudge(), [written, rma("RMA-1")], {}) == []
    untouched = update("zendesk_tickets", "6", {"id": "6", "description": "RMA created."}, status="hold")
    assert judge_commit(TicketClaimsJudge(), [untouched], {}) == []


@pytest.mark.parametrize(
    "text",
    [
        "Order ORD-1 was cancelled on 28 Sep; customer asks about the refund",
        "Installation was rescheduled last week because of the weather",
        "Customer's membership was cancelled earlier this year",
        "Carrier investigation concluded: package found",
    ],
)
def test_history_reports_nothing_done_now(text: str) -> None:
    assert reported(text) == []
