"""Helpers for the wrong booking trajectories: the edits several cases share.

A case (a :class:`~tests.benchmark.wrong_cases.WrongCase`) names the task
(``crf_003`` for ``external_booking_v1_group1.py:test_crf_003``), the edit,
the rule that must decide the commit and words its finding must contain.
The helpers build the edits several cases share: a booking modification's
arguments, a different modification, a dispute opened instead of a refund.
"""

from __future__ import annotations

from tests.benchmark.booking_rules.conftest import (
    GONE,
    MODIFY,
    REFUND,
    UPDATE,
    Edit,
    add,
    chain,
    change_item,
    drop,
)

__all__ = ["dispute_instead_of_refund", "modify_args", "replace_modify"]


def modify_args(reference: str, **fields: object) -> dict[str, object]:
    """The arguments of a ``booking_api_modify_booking`` call."""
    return {"booking_reference": reference, **fields}


_DISPUTE = {
    "transaction_id": "TXN-18699938",
    "dispute_reason": "charged_above_booking",
    "dispute_amount": "65.00",
}


def dispute_instead_of_refund(resolution: str) -> Edit:
    """bpy_007 with a dispute case opened instead of the overcharge refund."""
    return chain(
        add("payment_api_process_charge_dispute", _DISPUTE, before=REFUND),
        drop(REFUND),
        change_item(
            UPDATE,
            -1,
            resolution_action=resolution,
            refund_amount=0.0,
            escalation_reason=GONE,
            tags=["b2c-customer"],
        ),
    )


def replace_modify(reference: str, **fields: object) -> Edit:
    """Replace the first booking modification's arguments (a different change to the same booking)."""

    def apply(calls: list[tuple[str, dict[str, object]]]) -> list[tuple[str, dict[str, object]]]:
        i = next(i for i, (tool, _) in enumerate(calls) if tool == MODIFY)
        calls[i] = (MODIFY, modify_args(reference, **fields))
        return calls

    return apply
