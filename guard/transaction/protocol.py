"""The transaction's life as a protocol: ``step(txn, event) -> (txn, commands)``, no I/O, no clock.

The manager (:mod:`guard.transaction.manager`) is its driver: it tells
:func:`step` what happened (an :data:`Event`), carries out the
:data:`Command` s it gets back in their order, and tells the outcome of the
last one as the next event. A command whose outcome decides what comes next
(:class:`RunCall`, :class:`RecordCall`, :class:`Judge`,
:class:`RecordDecision`, :class:`Commit`) is always the last of its step.
Status changes are :mod:`guard.transaction.state`'s transitions; this module
orders the I/O around them, and that order is what keeps the audit log
truthful after a crash (:mod:`guard.audit.log`):

* a call: :class:`CallArrived` runs it, :class:`CallDone` records it, and
  only :class:`CallRecorded` replies (Requirement G17); a call the log could
  not record (:class:`CallUnrecorded`) aborts its transaction; a call
  refused before it ran (:class:`CallRefused`) is recorded whatever the
  status, as it changed nothing;
* a commit: :class:`CommitAsked` judges; an allowed :class:`GateDecided`
  (or an approving :class:`Reviewed`) records the decision as ``committing``,
  and only :class:`DecisionRecorded` commits (Requirement G16); the outcome
  (:class:`Committed`, :class:`CommitFailed`) is recorded before the reply;
* an end: the backend is rolled back (:class:`RollBack`) before the end is
  recorded (:class:`RecordEnd`), and the reply (when a request waits for
  one) comes last.

A lost transaction (the backend lost its connection) is told with the event
that finds it (``lost`` on :class:`CallRecorded`, :class:`CommitAsked`,
:class:`GateDecided`): it is aborted.

An event the transaction's status does not allow raises
:class:`~guard.errors.TransactionClosed` (it has ended) or
:class:`~guard.errors.TransactionError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from guard.transaction.state import (
    LIVE,
    CommitStatus,
    Status,
    TxnState,
    after_call,
    after_commit,
    after_failed_commit,
    after_outcome,
    after_review,
    allowing,
    closed,
    require_allowed,
    require_open,
    undecided,
)
from judges import Decision

__all__ = [
    "CallArrived",
    "CallDone",
    "CallRecorded",
    "CallRefused",
    "CallUnrecorded",
    "Command",
    "Commit",
    "CommitAsked",
    "CommitFailed",
    "Committed",
    "DecisionRecorded",
    "DecisionUnrecorded",
    "Event",
    "GateDecided",
    "IdleExpired",
    "Judge",
    "RecordAttempt",
    "RecordCall",
    "RecordDecision",
    "RecordEnd",
    "Reply",
    "Reviewed",
    "RollBack",
    "RollbackAsked",
    "RunCall",
    "ShutDown",
    "replied",
    "step",
]

# -- events ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CallArrived:
    """A call passed its checks and limits; ``at`` is the monotonic clock's reading."""

    at: float


@dataclass(frozen=True, slots=True)
class CallRefused:
    """A call was refused before it ran (its arguments, a limit): it changed nothing, and is recorded."""


@dataclass(frozen=True, slots=True)
class CallDone:
    """The call ran (with its retries), or failed for good."""


@dataclass(frozen=True, slots=True)
class CallRecorded:
    """The audit log holds the call; ``lost``: why the backend lost the transaction meanwhile (None: not)."""

    at: float
    lost: str | None = None


@dataclass(frozen=True, slots=True)
class CallUnrecorded:
    """The audit log could not record the call; ``reason`` closes the transaction."""

    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class CommitAsked:
    """The agent or an operator asked to commit; ``lost`` as in :class:`CallRecorded`."""

    at: float
    lost: str | None = None


@dataclass(frozen=True, slots=True)
class GateDecided:
    """The gate judged the commit; ``lost`` as in :class:`CallRecorded` (read after judging)."""

    decision: Decision
    at: float
    max_blocked: int
    lost: str | None = None


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A reviewer approved or rejected an escalated commit."""

    approve: bool
    reviewer: str
    at: float


@dataclass(frozen=True, slots=True)
class DecisionRecorded:
    """The audit log holds the decision to commit (``committing``)."""


@dataclass(frozen=True, slots=True)
class DecisionUnrecorded:
    """The audit log could not record the decision to commit: nothing is committed."""


@dataclass(frozen=True, slots=True)
class Committed:
    """The system of record committed; ``partial`` says what an upstream could not apply (None: all)."""

    partial: str | None = None


@dataclass(frozen=True, slots=True)
class CommitFailed:
    """COMMIT raised ``error``; ``applied`` is the system of record's answer (None: it cannot say yet)."""

    error: BaseException
    applied: bool | None


@dataclass(frozen=True, slots=True)
class RollbackAsked:
    """The agent, an operator or the MCP session's end asked to roll back."""

    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class IdleExpired:
    """The reaper found the transaction idle (or waiting for review) past its timeout."""

    at: float


@dataclass(frozen=True, slots=True)
class ShutDown:
    """The guard is shutting down with the transaction live."""

    at: float


Event = (
    CallArrived
    | CallRefused
    | CallDone
    | CallRecorded
    | CallUnrecorded
    | CommitAsked
    | GateDecided
    | Reviewed
    | DecisionRecorded
    | DecisionUnrecorded
    | Committed
    | CommitFailed
    | RollbackAsked
    | IdleExpired
    | ShutDown
)

# -- commands ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunCall:
    """Run the call on the backend, with retries; answered by :class:`CallDone`."""


@dataclass(frozen=True, slots=True)
class RecordCall:
    """Write the call to the audit log; answered by :class:`CallRecorded` or :class:`CallUnrecorded`."""


@dataclass(frozen=True, slots=True)
class Judge:
    """Read the effects and run the gate; answered by :class:`GateDecided`."""


@dataclass(frozen=True, slots=True)
class RecordAttempt:
    """Write a commit attempt that left the transaction live (blocked, escalated); never fails."""

    status: CommitStatus


@dataclass(frozen=True, slots=True)
class RecordDecision:
    """Write the decision to commit as ``committing``; answered by :class:`DecisionRecorded` or
    :class:`DecisionUnrecorded`."""


@dataclass(frozen=True, slots=True)
class Commit:
    """Commit on the backend; answered by :class:`Committed` or :class:`CommitFailed`."""


@dataclass(frozen=True, slots=True)
class RollBack:
    """Roll the backend's transaction back (a failure is logged, never raised)."""


@dataclass(frozen=True, slots=True)
class RecordEnd:
    """The transaction has ended: free its slot and write its end, with the attempt ended at ``commit``
    (None: no attempt); a ``committing`` one is left for the ledger to settle. Never fails."""

    commit: CommitStatus | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """Answer the request: a commit's with ``status``, a call's with None."""

    status: CommitStatus | None = None


Command = (
    RunCall | RecordCall | Judge | RecordAttempt | RecordDecision | Commit | RollBack | RecordEnd | Reply
)

Step = tuple[TxnState, tuple[Command, ...]]

_END = (RollBack(), RecordEnd())


def _lost(txn: TxnState, lost: str, at: float) -> TxnState:
    return closed(txn, Status.ABORTED, f"lost: {lost}; the database discarded its changes", at)


def step(txn: TxnState, event: Event) -> Step:
    """The transaction after ``event``, and what to do about it, in order."""
    match event:
        case CallArrived() | CallRefused() | CallDone() | CallRecorded() | CallUnrecorded():
            return _call(txn, event)
        case CommitAsked() | GateDecided() | Reviewed():
            return _decide(txn, event)
        case DecisionRecorded() | DecisionUnrecorded() | Committed() | CommitFailed():
            return _outcome(txn, event)
        case RollbackAsked(reason=reason, at=at):
            return closed(txn, Status.ROLLED_BACK, reason, at), (*_END, Reply(CommitStatus.ROLLED_BACK))
        case IdleExpired(at=at):
            what = "approval" if txn.status is Status.PENDING_APPROVAL else "idle"
            return closed(txn, Status.ROLLED_BACK, f"{what} timeout", at), _END
        case ShutDown(at=at):
            return closed(txn, Status.ROLLED_BACK, "the guard shut down", at), _END
    raise TypeError(f"not a transaction event: {event!r}")


def _call(txn: TxnState, event: Event) -> Step:
    match event:
        case CallArrived(at=at):
            return after_call(txn, at), (RunCall(),)
        case CallRefused():
            # refused by a live transaction before it ran: recorded as it stands
            return txn, (RecordCall(),)
        case CallDone():
            require_open(txn)
            return txn, (RecordCall(),)
        case CallRecorded(at=at, lost=lost) if lost is not None and txn.status in LIVE:
            return _lost(txn, lost, at), (*_END, Reply())
        case CallRecorded():
            return txn, (Reply(),)
        case CallUnrecorded(reason=reason, at=at) if txn.status in LIVE:
            return closed(txn, Status.ABORTED, reason, at), (*_END, Reply())
        case CallUnrecorded():
            return txn, (Reply(),)
    raise TypeError(f"not a call event: {event!r}")


def _decide(txn: TxnState, event: Event) -> Step:
    match event:
        case CommitAsked() if txn.status is Status.PENDING_APPROVAL:
            return txn, (Reply(CommitStatus.PENDING_APPROVAL),)
        case CommitAsked(at=at, lost=lost):
            require_open(txn)
            if lost is not None:
                return _lost(txn, lost, at), (*_END, Reply(CommitStatus.ABORTED))
            return txn, (Judge(),)
        case GateDecided(decision=decision, at=at, max_blocked=max_blocked, lost=lost):
            require_open(txn)
            if lost is not None:
                return _lost(txn, lost, at), (*_END, Reply(CommitStatus.ABORTED))
            after = after_commit(txn, decision, at, max_blocked)
            if decision is Decision.ALLOW:
                return allowing(txn, after), (RecordDecision(),)
            status = CommitStatus.of(after.status)
            if after.live:
                return after, (RecordAttempt(status), Reply(status))
            return after, (RollBack(), RecordEnd(status), Reply(status))
        case Reviewed(approve=approve, reviewer=reviewer, at=at):
            after = after_review(txn, approve, at, reviewer)
            if approve:
                return allowing(txn, after), (RecordDecision(),)
            rolled = CommitStatus.ROLLED_BACK
            return after, (RollBack(), RecordEnd(rolled), Reply(rolled))
    raise TypeError(f"not a decision event: {event!r}")


def _outcome(txn: TxnState, event: Event) -> Step:
    match event:
        case DecisionRecorded():
            require_allowed(txn)
            return txn, (Commit(),)
        case DecisionUnrecorded():
            require_allowed(txn)
            return undecided(txn), (Reply(CommitStatus.BLOCKED),)
        case Committed(partial=partial):
            after = after_outcome(txn, partial)
        case CommitFailed(error=error, applied=applied):
            after = after_failed_commit(txn, error, applied)
        case _:
            raise TypeError(f"not an outcome event: {event!r}")
    status = CommitStatus.of(after.status)
    shown = CommitStatus.UNKNOWN if status is CommitStatus.COMMITTING else status
    return after, (RecordEnd(status), Reply(shown))


def replied(command: Command | None) -> CommitStatus:
    """The status of a commit's reply, ``command`` (raises ``TypeError`` when it is none)."""
    if not isinstance(command, Reply) or command.status is None:
        raise TypeError(f"not a commit's reply: {command!r}")
    return command.status
