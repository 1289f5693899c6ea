"""Wrong trajectories of the auto insurance tasks, graded against their golden states.

A trajectory with one argument changed, one call dropped or one call added
fails, and its diff names exactly the fields that differ; changes the graded
state cannot see still pass. (The checks every domain shares, such as stable
golden hashes on SQLite and PostgreSQL, are in ``tests/benchmark/test_goldens.py``.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmark.dataset import load_task
from benchmark.domains import Domain
from tests.benchmark.auto_insurance.conftest import AUTO
from tests.benchmark.regrade import Edit, add, change, change_item, drop, regrade


@dataclass(frozen=True)
class Wrong:
    task: str
    edit: Edit
    diff: tuple[tuple[str, str], ...]
    """(path, kind) of every diff entry; empty when the edit must still pass."""


ACCOUNT = "billing_billing_accounts[BILL-847291856]"
WRONG: dict[str, Wrong] = {
    "extension to the wrong date": Wrong(
        "test_bil_001",
        change("billing_grant_extension", new_due_date="2025-10-21"),
        ((f"{ACCOUNT}.current_due_date", "changed"), (f"{ACCOUNT}.new_due_date", "changed")),
    ),
    "extension never granted": Wrong(
        "test_bil_001",
        drop("billing_grant_extension"),
        (
            (f"{ACCOUNT}.arrangement_type", "changed"),
            (f"{ACCOUNT}.arrangements_12_months", "changed"),
            (f"{ACCOUNT}.current_due_date", "changed"),
            (f"{ACCOUNT}.new_due_date", "missing"),
        ),
    ),
    "account reset as well": Wrong(
        "test_bil_001",
        add("billing_reset_account_status", {"policy_id": "POL-3847291856"}),
        (
            (f"{ACCOUNT}.arrangement_type", "changed"),
            (f"{ACCOUNT}.new_due_date", "missing"),
            (f"{ACCOUNT}.past_due_amount", "changed"),
            (f"{ACCOUNT}.status", "changed"),
        ),
    ),
    "ticket left pending": Wrong(
        "test_bil_001",
        change_item("zendesk_update_item", status="pending"),
        (("zendesk_tickets[6].status", "changed"),),
    ),
    "ticket created as new, solved later": Wrong(
        "test_bil_001",
        change_item("zendesk_create_item", status="new"),
        (("zendesk_ticket_status_violations[VIOLATION-6]", "unexpected"),),
    ),
    "wrong custom field": Wrong(
        "test_bil_001",
        change_item("zendesk_update_item", outcome_summary="Denied"),
        (("zendesk_tickets[6].outcome_summary", "changed"),),
    ),
    "three installments instead of two": Wrong(
        "test_bil_004",
        change("billing_create_installment_plan", installment_count=3),
        (("billing_billing_accounts[BILL-847291].installment_count", "changed"),),
    ),
    "document for the wrong ticket": Wrong(
        "test_doc_002",
        change("policy_generate_document_link", ticket_id="6"),
        (
            ("policy_policy_documents[DOC-2-2539E23D]", "unexpected"),
            ("policy_policy_documents[DOC-2-643FA446]", "missing"),
        ),
    ),
    "driver excluded instead of rated": Wrong(
        "test_drv_001",
        change("policy_add_driver", status="Excluded"),
        (("policy_drivers[DRV-2-F5970EE7].status", "changed"),),
    ),
    "driver with a mistyped birth date": Wrong(
        "test_drv_001",
        change("policy_add_driver", date_of_birth="2006-03-12"),
        (("policy_drivers[DRV-2-94E4E7B9]", "unexpected"), ("policy_drivers[DRV-2-F5970EE7]", "missing")),
    ),
    "driver excluded instead of removed": Wrong(
        "test_drv_019",
        change("policy_update_driver_status", new_status="Excluded"),
        (
            ("policy_drivers[DRV-847291-003].removal_date", "missing"),
            ("policy_drivers[DRV-847291-003].status", "changed"),
        ),
    ),
    "claim of the wrong severity": Wrong(
        "test_fnol_001",
        change("claims_create_fnol", severity="Moderate"),
        (("claims_claims[CLM-2F5730F495].severity", "changed"),),
    ),
    "claim for the wrong day": Wrong(
        "test_fnol_001",
        change("claims_create_fnol", date_of_loss="2025-09-29"),
        (("claims_claims[CLM-221512EF96]", "unexpected"), ("claims_claims[CLM-2F5730F495]", "missing")),
    ),
    "cancellation for the wrong reason": Wrong(
        "test_lif_001",
        change("policy_schedule_cancellation", cancellation_reason="Non-Payment"),
        (("policy_policies[POL-4729183847].cancellation_reason", "changed"),),
    ),
    "reinstated without recording the lapse": Wrong(
        "test_lif_011",
        change("policy_reinstate_policy", lapse_flag=False),
        (
            ("policy_policies[POL-3847291856].lapse_end", "missing"),
            ("policy_policies[POL-3847291856].lapse_flag", "changed"),
        ),
    ),
    "vehicle sent to underwriting": Wrong(
        "test_mul_001",
        change("policy_add_vehicle", uw_pending=True),
        (("policy_vehicles[VEH-2-E80D6850].uw_pending", "changed"),),
    ),
    "vehicle removed on the wrong day": Wrong(
        "test_veh_013",
        change("policy_update_vehicle_status", effective_date="2025-10-15"),
        (("policy_vehicles[VEH-847291-01].removal_date", "changed"),),
    ),
    "ticket subject and description reworded": Wrong(
        "test_bil_001",
        change_item("zendesk_update_item", subject="Other words", description="Other text"),
        (),
    ),
    "identity check and reads left out": Wrong(
        "test_bil_001",
        lambda calls: [c for c in calls if not c[0].startswith(("crm_", "claims_get", "zendesk_get"))],
        (),
    ),
    "same claim reported twice": Wrong(
        "test_fnol_001",
        lambda calls: [*calls, next(c for c in calls if c[0] == "claims_create_fnol")],
        (),
    ),
}


@pytest.mark.parametrize("case", list(WRONG))
async def test_wrong_trajectories_name_exactly_the_wrong_fields(
    case: str, data_dir: Path, auto: Domain
) -> None:
    wrong = WRONG[case]
    task = load_task(data_dir, f"{AUTO}_group1.py:{wrong.task}")
    result = await regrade(task, wrong.edit, data_dir=data_dir, domain=auto)
    assert [(e.path, e.kind) for e in result.diff] == list(wrong.diff)
    assert result.passed is (not wrong.diff)
