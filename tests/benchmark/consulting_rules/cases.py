"""Wrong consulting trajectories, and what the gate says about each.

:data:`WRONG` must be blocked by the named rule (:mod:`.cases_tickets`,
:mod:`.cases_actions`). :data:`WARNED` are mistakes the gate reports without
blocking (nothing in the transaction can undo them, or the policy leaves
room); :data:`MISSED` are real mistakes the gate cannot see, each with the
reason. Both are replayed too, to keep the counts honest.
"""

from __future__ import annotations

from tests.benchmark.consulting_rules.case import APPROVAL, CONCUR
from tests.benchmark.consulting_rules.cases_actions import ACTION_CASES
from tests.benchmark.consulting_rules.cases_tickets import TICKET_CASES
from tests.benchmark.consulting_rules.conftest import CONSULTING, CREATE, UPDATE, chain, change, change_item
from tests.benchmark.wrong_cases import Catalogue, WrongCase, WrongDomain, by_name, missed, warned

__all__ = ["CASES", "WRONG_DOMAIN"]

WRONG: dict[str, WrongCase] = by_name(TICKET_CASES, ACTION_CASES)

WARNED: dict[str, WrongCase] = {
    "ticket created as pending": warned(
        "exp_001",
        change_item(CREATE, status="pending"),
        "ticket-created-open",
        ("ticket 6", "created with status 'pending'", "allowed at creation: open"),
        "the audit row is written with the ticket and nothing the agent can call removes it",
    ),
    "approval routed to a partner on leave": warned(
        "swa_007",
        chain(
            change(APPROVAL, approver_email="jennifer.davis@msg.com"),
            change_item(CREATE, approver_id="jennifer.davis@msg.com"),
            change_item(UPDATE, -1, approver_id="jennifer.davis@msg.com"),
        ),
        "approval-approver-available",
        ("approval APR-2-000000", "jennifer.davis@msg.com", "on leave", "allowed: an available approver"),
        "a leave may be known to end before the request is read, so the gate warns",
    ),
}

MISSED: dict[str, WrongCase] = {
    "provisioning request filed as a question": missed(
        "doc_001",
        change_item(CREATE, type="question"),
        "",
        why="whether the employee asked for information or for access is in the conversation, not the state",
    ),
    "dead phone at normal priority": missed(
        "hwa_005",
        change_item(UPDATE, -1, priority="normal"),
        "",
        why="how broken the device is comes from the employee's words; no record holds it",
    ),
    "missing receipt overridden as a justified exception": missed(
        "exp_008",
        change(CONCUR, action="override_expense_rejection", override_reason="justified_exception"),
        "",
        why="justified_exception also covers per diem and late submissions, which a report can have"
        " together with a missing receipt; the per diem limits are in a knowledge-base article",
    ),
}

CASES = by_name(WRONG, WARNED, MISSED)

WRONG_DOMAIN = WrongDomain(
    name="consulting",
    domain=CONSULTING,
    cases=CASES,
    catalogue=Catalogue(
        blocked=70,
        families=frozenset(
            {"ticket", "approval", "license", "okta", "device", "expense", "enrollment", "folder"}
        ),
        named=frozenset({"nda-after-clearance", "clearance-not-restarted", "client-access-approved"}),
    ),
)
