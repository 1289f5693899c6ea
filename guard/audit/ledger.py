"""The manager's side of the audit log: what it writes, in which order, and what waits to be written.

The order is what keeps the log truthful after a crash (:mod:`guard.audit.log`):
a call is written before its reply (:meth:`Ledger.call` raises when it
cannot be); a decision to commit before the system of record commits
(:meth:`Ledger.decision` raises likewise, and the commit is not carried
out); an outcome the store cannot take now waits in a backlog
(:mod:`guard.audit.backlog`) that :meth:`Ledger.tidy` retries. A commit whose
outcome the system of record could not tell yet stays ``committing`` and is
settled by :meth:`Ledger.tidy` once it can (:mod:`guard.transaction.recovery`); the commit
marks of settled commits are dropped there too, in batches.

Everything is redacted on its way in (``audit.redact``, :mod:`guard.audit.redact`): the
conversation's turns too, and the texts of a transaction's redacted turns are
kept until it ends so that a finding quoting one is scrubbed in the log and on
the span (:meth:`Ledger.traced`).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial
from typing import Any

from guard.audit.backlog import AuditBacklog
from guard.audit.log import Audit, CallEntry, CommitEntry, TxnRecord
from guard.audit.redact import Redactor
from guard.backends.base import Backend
from guard.clock import Clock
from guard.errors import RecordRefused
from guard.transaction.recovery import settle_interrupted
from judges import Effect, Finding, Turn

__all__ = ["Ledger"]

log = logging.getLogger(__name__)


class Ledger:
    """``redactor``: the ``audit.redact`` paths, applied to every call and effect it writes."""

    def __init__(
        self, audit: Audit, backend: Backend, clock: Clock, instance: str, redactor: Redactor | None = None
    ) -> None:
        self.audit = audit
        self.backend = backend
        self.clock = clock
        self.instance = instance
        self.redactor = redactor or Redactor()
        self._backlog = AuditBacklog()
        self._unsure: set[str] = set()
        self._marks: set[str] = set()
        self._said: dict[str, frozenset[str]] = {}

    def __len__(self) -> int:
        """Writes waiting for the audit store (0 when the log is complete)."""
        return len(self._backlog)

    async def settle_previous(self) -> list[TxnRecord]:
        """At start: settle what a previous process of this instance left unsettled (logged)."""
        settled = await settle_interrupted(self.audit, self.backend, self.instance, self.clock.now())
        if settled:
            log.warning(
                "settled %d transactions of a previous run: %s",
                len(settled),
                ", ".join(f"{r.id} {r.status}" for r in settled),
            )
        return settled

    async def call(self, entry: CallEntry) -> None:
        """Write a call and the turns said before it (``entry`` as the agent sent it; redacted here); raises
        when the store cannot take it (the caller must not answer it as done)."""
        self._heard(entry.transaction_id, entry.turns)
        arguments = self.redactor.arguments(entry.tool, entry.arguments) if self.redactor else entry.arguments
        await self.audit.record_call(
            replace(entry, arguments=arguments, turns=self.redactor.turns(entry.turns))
        )

    def _heard(self, transaction_id: str, turns: list[dict[str, Any]] | None) -> frozenset[str]:
        """The redacted texts of the transaction's turns, ``turns`` included (what a finding may quote)."""
        said = self._said.get(transaction_id, frozenset()) | self.redactor.said(turns)
        if said:
            self._said[transaction_id] = said
        return said

    def traced(
        self,
        transaction_id: str,
        findings: tuple[Finding, ...],
        effects: tuple[Effect, ...],
        turns: tuple[Turn, ...] | None = None,
    ) -> tuple[Finding, ...]:
        """``findings`` as a span may carry them: redacted values' quotes replaced, the transaction's
        turns and ``turns`` (the commit's) included."""
        said = self._heard(transaction_id, None if turns is None else [turn.to_dict() for turn in turns])
        return self.redactor.findings(findings, effects, said)

    async def decision(self, entry: CommitEntry, record: TxnRecord) -> None:
        """Write a decision to commit (``committing``); raises when the store cannot take it.

        A decision the store refuses for its text is written without it (:func:`_bare`), the original
        logged: what must be known after a crash is that the decision was made.
        """
        redacted = self._redacted(entry)
        try:
            await self.audit.record_commit(redacted, record)
        except RecordRefused as refused:
            log.error(
                "the audit log refused the decision to commit %s (%s); recorded without its text (%s)",
                record.id,
                refused.message,
                refused.record,
            )
            await self.audit.record_commit(_bare(redacted, refused.reason), _bare_record(record))

    async def attempt(self, entry: CommitEntry, record: TxnRecord) -> None:
        """Write a commit attempt that left the transaction open (blocked, escalated); waits if it must."""
        redacted = self._redacted(entry)
        await self._backlog.write(
            f"commit attempt {entry.attempt} of {record.id}",
            partial(self.audit.record_commit, redacted, record),
            key=record.id,
            fallback=partial(self._record_bare, redacted, record),
        )

    async def end(
        self, record: TxnRecord, commit: CommitEntry | None = None, *, marked: bool = False
    ) -> None:
        """Write how a transaction ended (with its last commit attempt); waits if it must, never raises.

        ``marked``: the system of record holds a commit mark for it, dropped once this is written.
        """
        done = partial(self._marks.add, record.id) if marked else None
        redacted = None if commit is None else self._redacted(commit)
        self._said.pop(record.id, None)
        record = replace(record, rollback_turns=self.redactor.turns(record.rollback_turns))
        if redacted is None:
            write = partial(self.audit.update_transaction, record)
        else:
            write = partial(self.audit.record_commit, redacted, record)
        await self._backlog.write(
            f"the end of {record.id}",
            write,
            key=record.id,
            fallback=partial(self._record_bare, redacted, record),
            done=done,
        )

    async def _record_bare(self, commit: CommitEntry | None, record: TxnRecord, reason: str) -> None:
        """A refused record's stand-in: the same outcome without its text (:func:`_bare`)."""
        if commit is None:
            await self.audit.update_transaction(_bare_record(record, reason))
        else:
            await self.audit.record_commit(_bare(commit, reason), _bare_record(record, reason))

    def _redacted(self, entry: CommitEntry) -> CommitEntry:
        if not self.redactor:
            return entry
        said = self._heard(entry.transaction_id, entry.turns)
        return replace(
            entry,
            findings=self.redactor.logged_findings(entry.findings, entry.effects, said),
            effects=[self.redactor.effect(e) for e in entry.effects],
            dispatch=self.redactor.dispatch(entry.dispatch),
            turns=self.redactor.turns(entry.turns),
        )

    def unsure(self, transaction_id: str) -> None:
        """A commit whose outcome the system of record could not tell: :meth:`tidy` settles it later."""
        self._unsure.add(transaction_id)
        self._said.pop(transaction_id, None)

    async def tidy(self) -> None:
        """Retry waiting writes, settle commits of unknown outcome, drop commit marks no longer needed."""
        await self._backlog.retry()
        if self._unsure and not self._backlog:
            try:
                settled = await settle_interrupted(
                    self.audit, self.backend, self.instance, self.clock.now(), only=set(self._unsure)
                )
            except Exception:
                log.exception("settling commits of unknown outcome failed; the reaper tries again")
            else:
                self._unsure.difference_update(r.id for r in settled)
        if self._marks:
            done = sorted(self._marks)
            try:
                await self.backend.forget(done)
            except Exception:
                log.warning("could not drop %d commit marks; the reaper tries again", len(done))
            else:
                self._marks.difference_update(done)


def _refused_note(reason: str) -> str:
    return f"[the audit store refused this record's text ({reason}); it is in the guard's error log]"


def _bare_record(record: TxnRecord, reason: str | None = None) -> TxnRecord:
    """``record`` without its free text: its status, counts and times are what the log must keep."""
    note = None if reason is None else _refused_note(reason)
    closed = note if record.close_reason is not None else None
    return replace(record, close_reason=closed, summary=None, rollback_turns=None)


def _bare(entry: CommitEntry, reason: str) -> CommitEntry:
    """``entry`` without its text and data (findings, effects, summary, dispatch, turns), saying why."""
    return replace(entry, findings=[], effects=[], summary=_refused_note(reason), dispatch=None, turns=None)
