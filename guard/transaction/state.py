"""The transaction state machine: pure data and pure transitions.

::

    open ──call──▶ open
    open ──commit: allow──▶ committed
    open ──commit: block──▶ open              (blocked < max_blocked)
    open ──commit: block──▶ rolled_back       (the max_blocked-th block)
    open ──commit: escalate──▶ pending_approval ──approve──▶ committed
                                              ──reject / timeout──▶ rolled_back
    open ──rollback / idle timeout──▶ rolled_back
    open / pending_approval ──allowed, committed──▶ committed
                            ──allowed, the upstream applied only part of it──▶ partial   (mcp backends)
                            ──allowed, COMMIT failed and was not applied──▶ aborted
                            ──allowed, COMMIT failed, outcome unknown──▶ committing
    any live state ──its connection died, or crash (found at restart)──▶ aborted

An allowed commit (by the gate or a reviewer) does not change the status at
once: the transaction keeps it, with the state the commit leads to in
``allowed``, until the system of record has answered (:func:`after_outcome`,
:func:`after_failed_commit`) or the decision could not be recorded
(:func:`undecided`). Between the decision and the answer the audit log holds
the transaction as ``committing`` (:data:`Status.COMMITTING`); a live
transaction is ``committing`` only when the answer never came.

:mod:`guard.transaction.protocol` orders the I/O each transition calls for;
this module only says which transitions are legal and what they lead to.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from guard.errors import TransactionClosed, TransactionError
from judges import Decision

__all__ = [
    "LIVE",
    "CommitStatus",
    "Status",
    "TxnState",
    "Via",
    "after_call",
    "after_commit",
    "after_failed_commit",
    "after_outcome",
    "after_review",
    "allowing",
    "closed",
    "idle_expired",
    "require_allowed",
    "require_open",
    "undecided",
    "undone",
]


class Status(StrEnum):
    OPEN = "open"
    PENDING_APPROVAL = "pending_approval"
    COMMITTED = "committed"
    ROLLED_BACK = "rolled_back"
    ABORTED = "aborted"
    PARTIAL = "partial"
    COMMITTING = "committing"


LIVE = frozenset({Status.OPEN, Status.PENDING_APPROVAL})


class Via(StrEnum):
    """Who asked for a commit or a rollback, or what ended a transaction (the commit log's ``via``)."""

    TOOL = "tool"
    """The agent, through the MCP tools."""
    ADMIN = "admin"
    """An operator or a harness, through the admin API."""
    REVIEW = "review"
    RECOVERY = "recovery"
    SESSION = "session"
    """The agent's MCP session ended."""
    REAPER = "reaper"
    SHUTDOWN = "shutdown"
    AUDIT = "audit"
    """The audit log could not record a call."""
    BACKEND = "backend"
    """The backend lost the transaction."""
    OPERATOR = "operator"
    """An operator finishing a partial commit (``guard transactions resume`` or ``resolve``)."""


class CommitStatus(StrEnum):
    """What one commit attempt came to, in the commit reply, the admin API and the audit log.

    ``committing`` is the log's status between the decision to commit and the
    system of record's answer; a reply that cannot wait for the answer says
    ``unknown``.
    """

    COMMITTED = "committed"
    BLOCKED = "blocked"
    PENDING_APPROVAL = "pending_approval"
    ROLLED_BACK = "rolled_back"
    PARTIAL = "partial"
    ABORTED = "aborted"
    COMMITTING = "committing"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, status: Status) -> CommitStatus:
        """The attempt's status for the transaction state it led to (an open one was blocked)."""
        if status is Status.OPEN:
            return cls.BLOCKED
        return cls(status.value)

    @property
    def ended(self) -> bool:
        """The transaction is over once an attempt comes to this (no more calls or commits)."""
        return self in _ENDED

    @property
    def failed(self) -> bool:
        """Nothing, or not all, of the transaction was committed, and the agent must act."""
        return self in _FAILED


_ENDED = frozenset(
    {
        CommitStatus.COMMITTED,
        CommitStatus.ROLLED_BACK,
        CommitStatus.PARTIAL,
        CommitStatus.ABORTED,
        CommitStatus.UNKNOWN,
    }
)
_FAILED = frozenset(
    {
        CommitStatus.BLOCKED,
        CommitStatus.ROLLED_BACK,
        CommitStatus.PARTIAL,
        CommitStatus.ABORTED,
        CommitStatus.UNKNOWN,
    }
)


@dataclass(frozen=True, slots=True)
class TxnState:
    id: str
    principal: str
    status: Status = Status.OPEN
    opened_at: float = 0.0
    last_activity: float = 0.0
    calls: int = 0
    blocked: int = 0
    close_reason: str | None = None
    allowed: TxnState | None = None
    """The state an allowed commit leads to once the system of record has committed it (set from the
    decision until the answer)."""

    @property
    def live(self) -> bool:
        return self.status in LIVE


def _require(state: TxnState, *allowed: Status) -> None:
    if state.status in allowed:
        return
    if not state.live:
        raise TransactionClosed(
            f"transaction {state.id} is {state.status.value}; use a new transaction key",
            transaction_id=state.id,
        )
    if state.status is Status.PENDING_APPROVAL:
        raise TransactionError(
            f"transaction {state.id} is waiting for a reviewer to approve or reject its commit; nothing "
            "can run in it until then. Wait for the decision (calling the commit tool again says where it "
            "stands), or roll the transaction back to discard it.",
            transaction_id=state.id,
        )
    raise TransactionError(
        f"transaction {state.id} is {state.status.value}; this request needs it {' or '.join(allowed)}",
        transaction_id=state.id,
    )


def require_open(state: TxnState) -> None:
    """Raise unless the transaction accepts calls and commits."""
    _require(state, Status.OPEN)


def after_call(state: TxnState, at: float) -> TxnState:
    _require(state, Status.OPEN)
    return replace(state, calls=state.calls + 1, last_activity=at)


def after_commit(state: TxnState, decision: Decision, at: float, max_blocked: int) -> TxnState:
    """The state after the gate decided; a block past the limit rolls the transaction back."""
    _require(state, Status.OPEN)
    if decision is Decision.ALLOW:
        return replace(state, status=Status.COMMITTED, last_activity=at, close_reason="committed")
    if decision is Decision.ESCALATE:
        return replace(state, status=Status.PENDING_APPROVAL, last_activity=at)
    blocked = state.blocked + 1
    if blocked >= max_blocked:
        return replace(
            state,
            status=Status.ROLLED_BACK,
            blocked=blocked,
            last_activity=at,
            close_reason=f"blocked {blocked} times (limit {max_blocked})",
        )
    return replace(state, blocked=blocked, last_activity=at)


def after_review(state: TxnState, approved: bool, at: float, reviewer: str) -> TxnState:
    _require(state, Status.PENDING_APPROVAL)
    if approved:
        return replace(
            state, status=Status.COMMITTED, last_activity=at, close_reason=f"approved by {reviewer}"
        )
    return replace(state, status=Status.ROLLED_BACK, last_activity=at, close_reason=f"rejected by {reviewer}")


def closed(state: TxnState, status: Status, reason: str, at: float) -> TxnState:
    """Rolled back or aborted from any live state."""
    if status not in (Status.ROLLED_BACK, Status.ABORTED):
        raise ValueError(f"not a closing status: {status}")
    _require(state, *LIVE)
    return replace(state, status=status, last_activity=at, close_reason=reason)


def idle_expired(state: TxnState, now: float, idle_timeout_s: float, approval_timeout_s: float) -> bool:
    if state.status is Status.OPEN:
        return now - state.last_activity >= idle_timeout_s
    if state.status is Status.PENDING_APPROVAL:
        return now - state.last_activity >= approval_timeout_s
    return False


def allowing(state: TxnState, allowed: TxnState) -> TxnState:
    """``state`` while its allowed commit (leading to ``allowed``) is recorded and carried out."""
    return replace(state, allowed=allowed)


def undecided(state: TxnState) -> TxnState:
    """``state`` after a decision to commit the audit log could not record: as before the decision."""
    return replace(state, allowed=None)


def require_allowed(state: TxnState) -> TxnState:
    """The state ``state``'s allowed commit leads to; raises unless a commit was allowed."""
    if state.allowed is None:
        _require(state, *LIVE)
        raise TransactionError(f"transaction {state.id} has no commit allowed", transaction_id=state.id)
    return state.allowed


def after_outcome(state: TxnState, partial: str | None = None) -> TxnState:
    """The state once the system of record committed the allowed commit; ``partial`` says what an upstream
    could not apply (the transaction ends ``partial``)."""
    done = require_allowed(state)
    if partial is None:
        return done
    return replace(done, status=Status.PARTIAL, close_reason=partial)


def after_failed_commit(state: TxnState, error: BaseException, applied: bool | None) -> TxnState:
    """The state after the allowed commit's COMMIT raised ``error``: the system of record says whether it
    ``applied`` it (None: it cannot say yet, so the outcome stays ``committing``)."""
    done = require_allowed(state)
    if applied:
        return done
    if applied is False:
        return replace(done, status=Status.ABORTED, close_reason=f"COMMIT failed: {error}")
    reason = f"COMMIT failed ({type(error).__name__}) and whether it was applied is not known yet"
    return replace(done, status=Status.COMMITTING, close_reason=reason)


def undone(state: TxnState, report: str | None) -> TxnState:
    """The state with ``report``, what its rollback did upstream (None: nothing to say), added to its close
    reason."""
    if report is None:
        return state
    return replace(state, close_reason=f"{state.close_reason}; {report}")
