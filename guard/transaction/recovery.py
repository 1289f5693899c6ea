"""After a crash: settling what the audit log left unsettled, and recording what backends finished.

Settling (:func:`settle_interrupted`): a transaction the log shows ``open`` or
``pending_approval`` never reached its commit, so the database discarded it
(``aborted``). One it shows ``committing`` had its commit decided and
recorded; whether the system of record applied it is asked of the backend
(:meth:`guard.backends.base.Backend.committed`, which looks at the commit
marks or the sealed outbox), and the transaction and its decided attempt end
``committed`` or ``aborted`` accordingly. The decision itself, its findings
and effects, stays in the log either way. :func:`settle` is the pure rule.

Recording (:func:`record_recovered`): the backend does what interrupted
transactions left outside the database (:meth:`~guard.backends.base.Backend.recover`);
a finished commit becomes a commit attempt ``via recovery`` with what it
dispatched, the interrupted attempt takes the same outcome (it is no longer
``committing``), and its transaction ends ``committed`` or ``partial``; a rollback
of a transaction the crash left open adds what it undid (or could not) to the
transaction's close reason.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from guard.audit.log import Audit, CommitEntry, TxnDetail, TxnRecord
from guard.backends.base import Backend, Finishing, UpstreamReport
from guard.clock import Clock
from guard.errors import NotFinishable
from guard.transaction.state import CommitStatus, Status, Via
from judges import Decision

__all__ = ["Resolve", "finish", "record_recovered", "settle", "settle_interrupted"]

log = logging.getLogger(__name__)

_OPEN_REASON = "the guard stopped with the transaction open; the database discarded its changes"
_APPLIED_REASON = (
    "committed: the guard stopped before recording the outcome; the system of record has the commit"
)
_NOT_APPLIED_REASON = (
    "aborted: the guard stopped after deciding to commit and before the system of record committed; "
    "nothing was applied"
)


def settle(
    record: TxnRecord, intent: CommitEntry | None, applied: bool, at: datetime
) -> tuple[TxnRecord, CommitEntry | None]:
    """How an unsettled transaction ends, given whether the system of record applied its commit.

    ``intent`` is its ``committing`` attempt, if any; ``applied`` is only
    meaningful for a ``committing`` transaction. A decided commit of no
    effects is complete whatever the system of record says: nothing was
    to be applied.
    """
    if record.status is not Status.COMMITTING:
        ended = replace(record, status=Status.ABORTED, close_reason=_OPEN_REASON, closed_at=at, updated_at=at)
        return ended, None
    applied = applied or (intent is not None and not intent.effects)
    status, reason = (Status.COMMITTED, _APPLIED_REASON) if applied else (Status.ABORTED, _NOT_APPLIED_REASON)
    ended = replace(record, status=status, close_reason=reason, closed_at=at, updated_at=at)
    return ended, None if intent is None else replace(intent, status=CommitStatus(status.value))


async def settle_interrupted(
    audit: Audit,
    backend: Backend,
    instance: str,
    at: datetime,
    *,
    only: Collection[str] | None = None,
    skip: Collection[str] = (),
) -> list[TxnRecord]:
    """Settle this instance's unsettled transactions (``only`` these, none of ``skip``); returns them.

    The commit marks of the ones found applied are forgotten once the log says so.
    """
    records = [
        r for r in await audit.unsettled(instance) if r.id not in skip and (only is None or r.id in only)
    ]
    if not records:
        return []
    committing = [r.id for r in records if r.status is Status.COMMITTING]
    applied = await backend.committed(committing) if committing else set()
    settled = []
    for record in records:
        intent = await _intent(audit, record) if record.status is Status.COMMITTING else None
        ended, attempt = settle(record, intent, record.id in applied, at)
        if attempt is None:
            await audit.update_transaction(ended)
        else:
            await audit.record_commit(attempt, ended)
        settled.append(ended)
        log.warning("settled interrupted transaction %s: %s", ended.id, ended.close_reason)
    await backend.forget(sorted(applied))
    return settled


async def _intent(audit: Audit, record: TxnRecord) -> CommitEntry | None:
    detail = await audit.get_transaction(record.id)
    if detail is None:
        return None
    decided = [c for c in detail.commits if c.status is CommitStatus.COMMITTING]
    return decided[-1] if decided else None


async def record_recovered(
    audit: Audit, reports: Sequence[UpstreamReport], clock: Clock, instance: str
) -> None:
    for report in reports:
        detail = await audit.get_transaction(report.transaction_id)
        if detail is None:
            log.warning(
                "recovered transaction %s is not in the audit log: %s", report.transaction_id, report.message
            )
            continue
        record = detail.transaction
        if report.action == "commit":
            reason = f"commit finished by {instance} after an interruption: {report.message}"
            await _record_dispatch(audit, detail, report, Via.RECOVERY, reason, record.summary, clock.now())
        else:
            now = clock.now()
            reason = f"{record.close_reason or record.status}; {report.message}"
            ended = replace(record, close_reason=reason, closed_at=now, updated_at=now)
            await audit.update_transaction(ended)
        log.warning("transaction %s: %s", report.transaction_id, reason)


async def _record_dispatch(
    audit: Audit,
    detail: TxnDetail,
    report: UpstreamReport,
    via: Via,
    reason: str,
    summary: str | None,
    now: datetime,
) -> TxnRecord:
    """A commit's dispatch, finished after its attempt: one more attempt ``via`` with what it dispatched;
    the transaction ends ``committed`` or ``partial``, and an interrupted attempt takes the same outcome."""
    status = Status.COMMITTED if report.complete else Status.PARTIAL
    outcome = CommitStatus(status.value)
    ended = replace(detail.transaction, status=status, close_reason=reason, closed_at=now, updated_at=now)
    entry = CommitEntry(
        transaction_id=report.transaction_id,
        attempt=len(detail.commits) + 1,
        via=via,
        decision=Decision.ALLOW,
        status=outcome,
        findings=[],
        effects=[],
        summary=summary,
        at=now,
        dispatch=list(report.writes),
    )
    # the interrupted attempt (another replica's, maybe) takes the outcome, in the same write
    interrupted = [c for c in detail.commits if c.status is CommitStatus.COMMITTING]
    await audit.record_commit(entry, ended, *(replace(c, status=outcome) for c in interrupted))
    return ended


@dataclass(frozen=True, slots=True)
class Resolve:
    """An operator's finding on a write whose outcome was unknown: ``seq`` was applied upstream, or not."""

    seq: int
    applied: bool


async def finish(
    audit: Audit,
    backend: Backend,
    clock: Clock,
    transaction_id: str,
    step: Resolve | None,
    by: str,
) -> TxnRecord:
    """An operator's step on a ``partial`` transaction: ``resume`` (``step`` None) sends again what did not
    apply, a :class:`Resolve` settles an unknown write; recorded as a commit attempt ``via operator``.

    Raises :class:`guard.errors.NotFinishable` when the transaction is not partial, or its backend
    commits all-or-nothing, or the step does not fit its writes; nothing changes then.
    """
    detail = await audit.get_transaction(transaction_id)
    if detail is None:
        raise NotFinishable(f"no transaction {transaction_id}", transaction_id=transaction_id)
    if detail.transaction.status is not Status.PARTIAL:
        raise NotFinishable(
            f"transaction {transaction_id} is {detail.transaction.status.value}: only a partial commit is "
            "resumed or resolved",
            transaction_id=transaction_id,
        )
    if not isinstance(backend, Finishing):
        raise NotFinishable(
            f"the {backend.name} backend commits all-or-nothing: it has no partial commit to finish",
            transaction_id=transaction_id,
        )
    if step is None:
        report = await backend.resume(transaction_id)
        what = f"resumed by {by}"
    else:
        report = await backend.resolve(transaction_id, step.seq, step.applied, by)
        outcome = "applied" if step.applied else "not applied"
        what = f"write #{step.seq} resolved as {outcome} by {by}"
    reason = f"{what}: {report.message}"
    ended = await _record_dispatch(audit, detail, report, Via.OPERATOR, reason, what, clock.now())
    log.warning("transaction %s: %s", transaction_id, reason)
    return ended
