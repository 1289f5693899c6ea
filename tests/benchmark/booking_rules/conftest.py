"""Fixtures for the booking rules: the guarded arm with the booking judges, and the edit helpers.

The edit helpers (from :mod:`tests.benchmark.regrade`) change a golden
trajectory the way an agent gets it wrong (one argument changed or removed
with :data:`GONE`, a call dropped, repeated or added, the trajectory stopped
early). The wrong trajectories of :mod:`.cases` are replayed by
:mod:`tests.benchmark.test_wrong`.
"""

from __future__ import annotations

from tests.benchmark.regrade import (
    GONE,
    Calls,
    Edit,
    add,
    chain,
    change,
    change_item,
    drop,
    guarded_fixtures,
    repeat,
    stop_before,
)

__all__ = [
    "BOOKING",
    "CHARGE",
    "CREATE",
    "CRM",
    "ESCALATE",
    "GONE",
    "MODIFY",
    "REFUND",
    "UPDATE",
    "Calls",
    "Edit",
    "add",
    "chain",
    "change",
    "change_item",
    "drop",
    "repeat",
    "stop_before",
    "task_id",
]

BOOKING = "external_booking_v1"
GROUP = f"{BOOKING}_group1.py"
CREATE, UPDATE = "zendesk_create_item", "zendesk_update_item"
MODIFY, CHARGE, REFUND = (
    "booking_api_modify_booking",
    "payment_api_process_charge",
    "payment_api_process_refund",
)
ESCALATE, CRM = "hotel_partner_api_escalate_to_hotel", "crm_api_update_customer_info"


def task_id(test: str) -> str:
    """``crf_003`` → ``external_booking_v1_group1.py:test_crf_003``."""
    return f"{GROUP}:test_{test}"


booking, gate, trial_context = guarded_fixtures(BOOKING, "booking", task_id)
