"""Helpers for the wrong consulting trajectories: tool names and the arguments several cases share.

A case (a :class:`~tests.benchmark.wrong_cases.WrongCase`) names the task
(``csa_001`` for ``sandbox_consulting_group1.py:test_csa_001``), the edit,
the rule that must decide the commit and words its finding must contain.
"""

from __future__ import annotations

__all__ = [
    "APPROVAL",
    "ASSETS",
    "CLIENT",
    "CONCUR",
    "DEGREED",
    "LICENSES",
    "approval_item",
    "enroll_item",
]

ASSETS, DEGREED, CLIENT = "asset_management_api", "degreed_api", "client_access_api"
APPROVAL, LICENSES, CONCUR = "approval_create_request", "license_management_api", "concur_api"


def approval_item(kind: str, requester: str, approver: str, **fields: object) -> dict[str, object]:
    """The arguments of an ``approval_create_request`` call."""
    return {
        "request_type": kind,
        "requester_email": requester,
        "approver_email": approver,
        "amount": None,
        "engagement_code": None,
    } | fields


def enroll_item(email: str, course: str) -> dict[str, object]:
    """The arguments of a ``degreed_api`` enrollment."""
    return {"action": "enroll_employee", "email": email, "course_id": course}
