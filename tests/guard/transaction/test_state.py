"""The transaction state machine (pure)."""

from __future__ import annotations

import pytest

from guard.errors import TransactionClosed, TransactionError
from guard.transaction.state import (
    Status,
    TxnState,
    after_call,
    after_commit,
    after_review,
    closed,
    idle_expired,
    undone,
)
from judges import Decision


def fresh() -> TxnState:
    return TxnState("t1", "agent", Status.OPEN, 0.0, 0.0)


def test_calls_count_and_refresh_activity() -> None:
    state = after_call(after_call(fresh(), 1.0), 5.0)
    assert state.calls == 2
    assert state.last_activity == 5.0


def test_allow_commits() -> None:
    assert after_commit(fresh(), Decision.ALLOW, 1.0, 3).status is Status.COMMITTED


def test_blocks_keep_it_open_until_the_limit_then_roll_back() -> None:
    """Requirement G9: after commit.max_blocked blocked attempts the transaction is rolled back."""
    state = after_commit(fresh(), Decision.BLOCK, 1.0, 3)
    state = after_commit(state, Decision.BLOCK, 2.0, 3)
    assert state.status is Status.OPEN
    assert state.blocked == 2
    state = after_commit(state, Decision.BLOCK, 3.0, 3)
    assert state.status is Status.ROLLED_BACK
    assert state.close_reason == "blocked 3 times (limit 3)"


def test_escalation_waits_for_review() -> None:
    pending = after_commit(fresh(), Decision.ESCALATE, 1.0, 3)
    assert pending.status is Status.PENDING_APPROVAL
    with pytest.raises(TransactionError):
        after_call(pending, 2.0)
    assert after_review(pending, True, 2.0, "ops").status is Status.COMMITTED
    rejected = after_review(pending, False, 2.0, "ops")
    assert rejected.status is Status.ROLLED_BACK
    assert rejected.close_reason == "rejected by ops"


def test_closed_transactions_refuse_everything() -> None:
    done = after_commit(fresh(), Decision.ALLOW, 1.0, 3)
    with pytest.raises(TransactionClosed, match="is committed; use a new transaction key"):
        after_call(done, 2.0)
    with pytest.raises(TransactionClosed):
        closed(done, Status.ROLLED_BACK, "late", 3.0)


def test_idle_expiry() -> None:
    """Requirement G8: an idle transaction expires after commit.idle_timeout_s."""
    state = fresh()
    assert not idle_expired(state, 59.9, 60, 3600)
    assert idle_expired(state, 60.0, 60, 3600)
    pending = after_commit(state, Decision.ESCALATE, 0.0, 3)
    assert not idle_expired(pending, 600, 60, 3600)
    assert idle_expired(pending, 3600, 60, 3600)


def test_a_rollback_report_joins_the_close_reason() -> None:
    done = closed(fresh(), Status.ROLLED_BACK, "changed my mind", 1.0)
    assert undone(done, None) == done
    assert (
        undone(done, "discarded 2 held write(s)").close_reason == "changed my mind; discarded 2 held write(s)"
    )
