"""The transaction protocol (pure): every status against every event, and the write-ahead order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from guard.errors import TransactionClosed, TransactionError
from guard.transaction.protocol import (
    CallArrived,
    CallDone,
    CallRecorded,
    CallRefused,
    CallUnrecorded,
    Command,
    Commit,
    CommitAsked,
    CommitFailed,
    Committed,
    DecisionRecorded,
    DecisionUnrecorded,
    Event,
    GateDecided,
    IdleExpired,
    Judge,
    RecordAttempt,
    RecordCall,
    RecordDecision,
    RecordEnd,
    Reply,
    Reviewed,
    RollBack,
    RollbackAsked,
    RunCall,
    ShutDown,
    step,
)
from guard.transaction.protocol import (
    replied as tx_replied,
)
from guard.transaction.state import CommitStatus, Status, TxnState, after_commit, after_review, allowing
from judges import Decision

C = CommitStatus

OPEN = TxnState("t1", "agent", Status.OPEN, 0.0, 0.0)
PENDING = replace(OPEN, status=Status.PENDING_APPROVAL)
STATES: dict[str, TxnState] = {
    "open": OPEN,
    "pending": PENDING,
    "open+allowed": allowing(OPEN, after_commit(OPEN, Decision.ALLOW, 1.0, 3)),
    "pending+allowed": allowing(PENDING, after_review(PENDING, True, 1.0, "ops")),
    **{s.value: replace(OPEN, status=s) for s in Status if s not in (Status.OPEN, Status.PENDING_APPROVAL)},
}
CLOSED = [s.value for s in Status if s not in (Status.OPEN, Status.PENDING_APPROVAL)]

EVENTS: dict[str, Event] = {
    "call arrived": CallArrived(2.0),
    "call refused": CallRefused(),
    "call done": CallDone(),
    "call recorded": CallRecorded(2.0),
    "call recorded, lost": CallRecorded(2.0, lost="server closed the connection"),
    "call unrecorded": CallUnrecorded("the log is down", 2.0),
    "commit asked": CommitAsked(2.0),
    "commit asked, lost": CommitAsked(2.0, lost="server closed the connection"),
    "gate allowed": GateDecided(Decision.ALLOW, 2.0, 3),
    "gate blocked": GateDecided(Decision.BLOCK, 2.0, 3),
    "gate blocked, last": GateDecided(Decision.BLOCK, 2.0, 1),
    "gate escalated": GateDecided(Decision.ESCALATE, 2.0, 3),
    "gate decided, lost": GateDecided(Decision.ALLOW, 2.0, 3, lost="server closed the connection"),
    "approved": Reviewed(True, "ops", 2.0),
    "rejected": Reviewed(False, "ops", 2.0),
    "decision recorded": DecisionRecorded(),
    "decision unrecorded": DecisionUnrecorded(),
    "committed": Committed(),
    "committed in part": Committed(partial="1 of 2 writes applied"),
    "commit failed, applied": CommitFailed(OSError("reset"), True),
    "commit failed, not applied": CommitFailed(OSError("reset"), False),
    "commit failed, unknown": CommitFailed(OSError("reset"), None),
    "rollback asked": RollbackAsked("changed my mind", 2.0),
    "idle": IdleExpired(2.0),
    "shut down": ShutDown(2.0),
}

_END = (RollBack(), RecordEnd())
_LIVE_ANY = {
    "call refused": (None, (RecordCall(),)),
    "call recorded": (None, (Reply(),)),
    "call recorded, lost": (Status.ABORTED, (*_END, Reply())),
    "call unrecorded": (Status.ABORTED, (*_END, Reply())),
    "rollback asked": (Status.ROLLED_BACK, (*_END, Reply(C.ROLLED_BACK))),
    "idle": (Status.ROLLED_BACK, _END),
    "shut down": (Status.ROLLED_BACK, _END),
}
_OUTCOMES = {
    "decision recorded": (None, (Commit(),)),
    "committed": (Status.COMMITTED, (RecordEnd(C.COMMITTED), Reply(C.COMMITTED))),
    "committed in part": (Status.PARTIAL, (RecordEnd(C.PARTIAL), Reply(C.PARTIAL))),
    "commit failed, applied": (Status.COMMITTED, (RecordEnd(C.COMMITTED), Reply(C.COMMITTED))),
    "commit failed, not applied": (Status.ABORTED, (RecordEnd(C.ABORTED), Reply(C.ABORTED))),
    "commit failed, unknown": (Status.COMMITTING, (RecordEnd(C.COMMITTING), Reply(C.UNKNOWN))),
}
_OPEN = {
    **_LIVE_ANY,
    "call arrived": (None, (RunCall(),)),
    "call done": (None, (RecordCall(),)),
    "commit asked": (None, (Judge(),)),
    "commit asked, lost": (Status.ABORTED, (*_END, Reply(C.ABORTED))),
    "gate allowed": (None, (RecordDecision(),)),
    "gate blocked": (None, (RecordAttempt(C.BLOCKED), Reply(C.BLOCKED))),
    "gate blocked, last": (Status.ROLLED_BACK, (RollBack(), RecordEnd(C.ROLLED_BACK), Reply(C.ROLLED_BACK))),
    "gate escalated": (
        Status.PENDING_APPROVAL,
        (RecordAttempt(C.PENDING_APPROVAL), Reply(C.PENDING_APPROVAL)),
    ),
    "gate decided, lost": (Status.ABORTED, (*_END, Reply(C.ABORTED))),
}
_PENDING = {
    **_LIVE_ANY,
    "commit asked": (None, (Reply(C.PENDING_APPROVAL),)),
    "commit asked, lost": (None, (Reply(C.PENDING_APPROVAL),)),
    "approved": (None, (RecordDecision(),)),
    "rejected": (Status.ROLLED_BACK, (RollBack(), RecordEnd(C.ROLLED_BACK), Reply(C.ROLLED_BACK))),
}
_DECIDED_BLOCKED = (None, (Reply(C.BLOCKED),))
LEGAL: dict[str, dict[str, tuple[Status | None, tuple[Command, ...]]]] = {
    "open": _OPEN,
    "pending": _PENDING,
    "open+allowed": {**_OPEN, **_OUTCOMES, "decision unrecorded": _DECIDED_BLOCKED},
    "pending+allowed": {**_PENDING, **_OUTCOMES, "decision unrecorded": _DECIDED_BLOCKED},
    **{
        status: {
            "call refused": (None, (RecordCall(),)),
            "call recorded": (None, (Reply(),)),
            "call recorded, lost": (None, (Reply(),)),
            "call unrecorded": (None, (Reply(),)),
        }
        for status in CLOSED
    },
}
"""Per state, the legal events: the status they lead to (None: unchanged) and the commands, in order."""

PAIRS = [(state, event) for state in STATES for event in EVENTS]


@pytest.mark.parametrize(("state", "event"), PAIRS)
def test_every_status_against_every_event(state: str, event: str) -> None:
    """A legal event gives its commands in order; any other raises, TransactionClosed once it has ended."""
    txn = STATES[state]
    legal = LEGAL[state].get(event)
    if legal is None:
        expected = TransactionClosed if state in CLOSED else TransactionError
        with pytest.raises(expected):
            step(txn, EVENTS[event])
        return
    status, commands = legal
    after, got = step(txn, EVENTS[event])
    assert got == commands
    assert after.status is (txn.status if status is None else status)


def test_the_table_covers_what_it_names() -> None:
    assert set(LEGAL) == set(STATES)
    assert all(set(events) <= set(EVENTS) for events in LEGAL.values())
    assert len(PAIRS) == len(STATES) * len(EVENTS)


def test_a_step_ends_at_the_first_command_with_an_answer() -> None:
    """Running a call, recording it, judging, recording a decision and committing are answered by the next
    event: nothing follows them in their step."""
    answered = (RunCall, RecordCall, Judge, RecordDecision, Commit)
    for state, events in LEGAL.items():
        for event in events:
            _, commands = step(STATES[state], EVENTS[event])
            for i, command in enumerate(commands):
                if isinstance(command, answered):
                    assert i == len(commands) - 1, (state, event, commands)


def run(txn: TxnState, *events: Event) -> tuple[TxnState, list[Command]]:
    done: list[Command] = []
    for event in events:
        txn, commands = step(txn, event)
        done.extend(commands)
    return txn, done


def test_a_call_is_recorded_before_it_is_answered() -> None:
    """Requirement G17: every answered call is in the audit log before its reply leaves the guard."""
    txn, commands = run(OPEN, CallArrived(1.0), CallDone(), CallRecorded(1.5))
    assert commands == [RunCall(), RecordCall(), Reply()]
    assert txn.calls == 1
    assert txn.last_activity == 1.0
    assert step(OPEN, CallDone())[1] == (RecordCall(),), "no reply before the record is written"


def test_a_call_the_log_cannot_record_rolls_its_transaction_back_before_the_reply() -> None:
    """Requirement G17: a call the log cannot record is not answered as done; its transaction is rolled
    back first."""
    txn, commands = run(OPEN, CallArrived(1.0), CallDone(), CallUnrecorded("no log", 1.5))
    assert commands == [RunCall(), RecordCall(), RollBack(), RecordEnd(), Reply()]
    assert txn.status is Status.ABORTED
    assert txn.close_reason == "no log"


def test_a_call_that_lost_the_transaction_is_recorded_then_aborts_it() -> None:
    txn, commands = run(OPEN, CallArrived(1.0), CallDone(), CallRecorded(1.5, lost="gone"))
    assert commands == [RunCall(), RecordCall(), RollBack(), RecordEnd(), Reply()]
    assert txn.status is Status.ABORTED
    assert txn.close_reason == "lost: gone; the database discarded its changes"


def test_an_allowed_commit_is_recorded_as_committing_before_it_is_committed() -> None:
    """Requirement G16: a decision to commit is written before the system of record commits, and the
    outcome before the reply."""
    txn, commands = run(
        OPEN, CommitAsked(1.0), GateDecided(Decision.ALLOW, 1.0, 3), DecisionRecorded(), Committed()
    )
    assert commands == [Judge(), RecordDecision(), Commit(), RecordEnd(C.COMMITTED), Reply(C.COMMITTED)]
    assert txn.status is Status.COMMITTED
    assert txn.close_reason == "committed"
    assert txn.allowed is None


def test_a_decision_the_log_cannot_record_is_not_carried_out() -> None:
    """Requirement G16: a decision the log cannot record is not carried out; the transaction stays open."""
    txn, commands = run(OPEN, CommitAsked(1.0), GateDecided(Decision.ALLOW, 1.0, 3), DecisionUnrecorded())
    assert commands == [Judge(), RecordDecision(), Reply(C.BLOCKED)]
    assert txn == OPEN
    with pytest.raises(TransactionError):
        step(txn, DecisionRecorded())


def test_the_status_waits_for_the_system_of_record() -> None:
    """An allowed commit leaves the status as it was until the system of record answers."""
    txn, _ = step(OPEN, GateDecided(Decision.ALLOW, 1.0, 3))
    assert txn.status is Status.OPEN
    assert txn.live
    assert txn.allowed is not None
    assert txn.allowed.status is Status.COMMITTED


def test_an_approved_commit_is_recorded_before_it_is_committed() -> None:
    """Requirement G16: a reviewer's approval is a decision to commit like the gate's."""
    pending, _ = step(OPEN, GateDecided(Decision.ESCALATE, 1.0, 3))
    txn, commands = run(pending, Reviewed(True, "ops", 2.0), DecisionRecorded(), Committed())
    assert commands == [RecordDecision(), Commit(), RecordEnd(C.COMMITTED), Reply(C.COMMITTED)]
    assert txn.close_reason == "approved by ops"


def test_a_rollback_reaches_the_backend_before_the_log() -> None:
    txn, commands = run(OPEN, RollbackAsked("done", 1.0))
    assert commands == [RollBack(), RecordEnd(), Reply(C.ROLLED_BACK)]
    assert txn.close_reason == "done"


def test_blocks_count_until_the_limit_rolls_back() -> None:
    """Requirement G9: after commit.max_blocked blocked attempts the transaction is rolled back."""
    blocked = GateDecided(Decision.BLOCK, 1.0, 2)
    txn, commands = run(OPEN, CommitAsked(1.0), blocked, CommitAsked(1.0), blocked)
    assert commands == [
        Judge(),
        RecordAttempt(C.BLOCKED),
        Reply(C.BLOCKED),
        Judge(),
        RollBack(),
        RecordEnd(C.ROLLED_BACK),
        Reply(C.ROLLED_BACK),
    ]
    assert txn.close_reason == "blocked 2 times (limit 2)"


@pytest.mark.parametrize(("state", "reason"), [("open", "idle timeout"), ("pending", "approval timeout")])
def test_the_reaper_says_which_timeout(state: str, reason: str) -> None:
    """Requirement G8: an idle transaction is rolled back."""
    txn, _ = step(STATES[state], IdleExpired(9.0))
    assert txn.close_reason == reason
    assert txn.last_activity == 9.0


def test_a_commit_of_unknown_outcome_stays_committing() -> None:
    txn, _ = run(STATES["open+allowed"], CommitFailed(TimeoutError(), None))
    assert txn.status is Status.COMMITTING
    assert txn.close_reason == "COMMIT failed (TimeoutError) and whether it was applied is not known yet"


def test_not_an_event() -> None:
    with pytest.raises(TypeError):
        step(OPEN, object())  # type: ignore[arg-type]


def test_replied() -> None:
    assert tx_replied(Reply(C.BLOCKED)) is C.BLOCKED
    for command in (Reply(), Commit(), None):
        with pytest.raises(TypeError):
            tx_replied(command)
