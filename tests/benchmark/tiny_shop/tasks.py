"""Tiny Shop's tasks, given in memory, and wrong trajectories an agent could take on them.

Each task has a golden trajectory (its expected end state is that
trajectory's); a :class:`~benchmark.dataset.Trajectory` in :data:`WRONG`
makes one mistake the policy forbids: its rule is named with it.
"""

from __future__ import annotations

from benchmark.dataset import GoldenCall, Task, Trajectory, TrajectoryCall

__all__ = ["CANCEL", "REFUND", "TASKS", "WRONG"]

_FILE = "tiny_shop_group1.py"

CANCEL = Task(
    id=f"{_FILE}:test_cancel_recent_order",
    domain="tiny_shop",
    file=_FILE,
    test="test_cancel_recent_order",
    query="Hi, I'm Ada (C-1). Please cancel my order O-1 and give me my money back.",
    user_context="You are Ada Lane, customer C-1; you changed your mind about order O-1.",
    data_patch={},
    golden=(
        GoldenCall("get_order", {"order_id": "O-1"}),
        GoldenCall("cancel_order", {"order_id": "O-1", "reason": "customer_request"}),
        GoldenCall("refund_order", {"order_id": "O-1", "amount": 40.0, "reason": "order cancelled"}),
    ),
)

REFUND = Task(
    id=f"{_FILE}:test_refund_damaged_item",
    domain="tiny_shop",
    file=_FILE,
    test="test_refund_damaged_item",
    query="Ben here (C-2, a VIP). One item of order O-2 arrived broken; it cost 30.",
    user_context="You are Ben Okafor, customer C-2; a 30.00 item of order O-2 arrived damaged.",
    # the patch rows replace seed rows by key, under the benchmark's table names
    data_patch={
        "tiny_shop_crm_customers": [
            {"id": "C-2", "name": "Ben Okafor", "email": "ben@example.com", "tier": "vip"}
        ]
    },
    golden=(
        GoldenCall("get_customer", {"customer_id": "C-2"}),
        GoldenCall("get_order", {"order_id": "O-2"}),
        GoldenCall("refund_order", {"order_id": "O-2", "amount": 30.0, "reason": "damaged item"}),
    ),
)

TASKS = (CANCEL, REFUND)


def _calls(*calls: tuple[str, dict[str, object]]) -> tuple[TrajectoryCall, ...]:
    return tuple(TrajectoryCall(tool, arguments) for tool, arguments in calls)


WRONG: dict[str, tuple[Trajectory, str]] = {
    "the whole order refunded for one broken item": (
        Trajectory(
            id="wrong:refund-too-much",
            task=REFUND.id,
            calls=_calls(
                ("get_customer", {"customer_id": "C-2"}),
                ("refund_order", {"order_id": "O-2", "amount": 300.0, "reason": "damaged item"}),
            ),
            final_message="I refunded your order.",
        ),
        "refund-within-total",
    ),
    "an old order cancelled instead of the recent one": (
        Trajectory(
            id="wrong:cancel-old-order",
            task=CANCEL.id,
            calls=_calls(
                ("get_order", {"order_id": "O-3"}),
                ("cancel_order", {"order_id": "O-3", "reason": "customer_request"}),
                ("refund_order", {"order_id": "O-3", "amount": 15.0, "reason": "order cancelled"}),
            ),
            final_message="Your order is cancelled and refunded.",
        ),
        "order-cancel-window",
    ),
}
"""Wrong trajectories by what goes wrong, each with the rule that must block its commit."""
