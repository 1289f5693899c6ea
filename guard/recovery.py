"""Writing down, in the audit log, what recovery finished for transactions a crash interrupted.

The backend does the work (:meth:`guard.backends.base.Backend.recover`); this
module records it: a finished commit becomes a commit attempt ``via
recovery`` with what it dispatched, and its transaction ends ``committed`` or
``partial``; a rollback of a transaction the crash left open adds what it
undid (or could not) to the transaction's close reason.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from guard.audit import Audit, CommitEntry
from guard.backends.base import UpstreamReport
from guard.clock import Clock

__all__ = ["record_recovered"]

log = logging.getLogger(__name__)


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
        now = clock.now()
        record = detail.transaction
        if report.action == "commit":
            status = "committed" if report.complete else "partial"
            await audit.record_commit(
                CommitEntry(
                    report.transaction_id,
                    len(detail.commits) + 1,
                    "recovery",
                    "allow",
                    status,
                    [],
                    [],
                    record.summary,
                    now,
                    0.0,
                    list(report.writes),
                )
            )
            reason = f"commit finished by {instance} after an interruption: {report.message}"
        else:
            status = record.status
            reason = f"{record.close_reason or record.status}; {report.message}"
        await audit.update_transaction(
            replace(record, status=status, close_reason=reason, closed_at=now, updated_at=now)
        )
        log.warning("transaction %s: %s", report.transaction_id, reason)
