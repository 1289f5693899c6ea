"""Review: a commit escalated to a person, what its approval is bound to, who is told, and the wait.

:class:`Reviews` is the part of :class:`~guard.transaction.manager.TransactionManager` that a held
commit needs: the approval's :class:`~guard.transaction.live.Binding` (the changes' hash, the findings
that asked, the policies' versions, the reviewers needed, a deadline) and the checks that refuse an
approval that no longer fits it; a reviewer's decision, one approval of several recorded on its own;
the notices the webhooks get (:mod:`guard.notify`); and :meth:`Reviews.decision`, the wait a client
that was sent the console page does for the outcome.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, TypeVar

from guard.errors import ApprovalRefused, AuditError, RequestRejected
from guard.notify import Event, Notice, Notifier, page_url
from guard.transaction import protocol as tx
from guard.transaction.live import Attempt, Binding, LiveTxn, diff_hash
from guard.transaction.replies import CommitReply, TxnKey
from guard.transaction.state import CommitStatus, Status, Via, require_allowed
from judges import Decision, Finding, Severity

if TYPE_CHECKING:
    from guard.audit.ledger import Ledger
    from guard.audit.log import Audit
    from guard.clock import Clock
    from guard.gate.commit import CommitGate
    from guard.settings import GuardSettings

__all__ = ["Reviews"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class Reviews:
    """The manager's handling of commits held for review (mixed into ``TransactionManager``)."""

    settings: GuardSettings
    clock: Clock
    gate: CommitGate
    audit: Audit
    ledger: Ledger
    notifier: Notifier | None
    _live: dict[str, LiveTxn]
    _closed: OrderedDict[str, Status]

    if TYPE_CHECKING:

        def _by_id(self, transaction_id: str) -> LiveTxn: ...

        async def _shielded(self, live: LiveTxn, work: Callable[[], Awaitable[T]]) -> T: ...

        def _step(self, live: LiveTxn, event: tx.Event) -> tuple[tx.Command, ...]: ...

        async def _carry_out(
            self, live: LiveTxn, commands: tuple[tx.Command, ...], via: Via, attempt: Attempt | None = None
        ) -> tx.Command | None: ...

        async def _commit_decided(self, live: LiveTxn, attempt: Attempt, message: str) -> CommitReply: ...

        def _reply(
            self, live: LiveTxn, status: CommitStatus, attempt: Attempt | None, message: str
        ) -> CommitReply: ...

    async def decision(self, key: TxnKey, timeout_s: float) -> CommitReply | None:
        """How the key's commit held for a reviewer ended, waiting up to ``timeout_s`` for it; None while
        it still waits (or the transaction holds no such commit)."""
        live = self._live.get(key.id)
        if live is not None:
            if live.state.principal != key.principal:
                raise RequestRejected(f"transaction {key.id} belongs to another agent", transaction_id=key.id)
            if live.state.status is not Status.PENDING_APPROVAL:
                return None
            try:
                await asyncio.wait_for(asyncio.shield(live.ended.wait()), timeout_s)
            except TimeoutError:
                return None
        status = self._closed.get(key.id)
        if status is None:
            return None
        detail = await self.audit.get_transaction(key.id)
        reason = detail.transaction.close_reason if detail is not None else None
        return CommitReply(
            status=CommitStatus.of(status),
            transaction=key.id,
            attempts_left=0,
            message=reason or status.value,
        )

    async def review(self, transaction_id: str, *, approve: bool, reviewer: str) -> CommitReply:
        """A reviewer's answer to an escalated commit: approved, it is committed; rejected, rolled back."""
        live = self._by_id(transaction_id)
        return await self._shielded(live, lambda: self._review(live, approve, reviewer))

    def _binding(self, attempt: Attempt) -> Binding:
        asking = [f for f in attempt.findings if f.severity is Severity.ESCALATE and not f.shadow]
        reviewers = max((int(f.evidence.get("reviewers", 1)) for f in asking), default=1)
        ttl = timedelta(seconds=self.settings.console.approval_ttl_s)
        return Binding(
            diff=diff_hash(attempt.effects),
            findings=tuple(f"{f.judge}/{f.rule}" if f.rule else f"{f.judge}: {f.message}" for f in asking),
            policies=self.gate.policy_versions(),
            reviewers=reviewers,
            expires_at=self.clock.now() + ttl,
        )

    def _tell(self, live: LiveTxn, event: Event, message: str) -> None:
        """Notify the webhooks (in the background; never fails the caller)."""
        if not self.notifier:
            return
        binding = live.binding.to_dict() if live.binding is not None else None
        notice = Notice(
            event,
            live.state.id,
            live.state.principal,
            message,
            page_url(self.settings, live.state.id),
            self.clock.now(),
            binding,
        )
        try:
            assert self.notifier is not None
            self.notifier.notify(notice)
        except Exception:
            log.exception("could not notify %s of %s", event, live.state.id)

    def approval(self, transaction_id: str) -> Binding | None:
        """What the approval of a commit waiting for review is bound to (None: none waits)."""
        live = self._live.get(transaction_id)
        return None if live is None else live.binding

    async def _unbound(self, live: LiveTxn, reviewer: str) -> str | None:
        """Why an approval by ``reviewer`` is not valid now (None: it is)."""
        if reviewer == live.state.principal:
            return f"{reviewer} is the agent whose commit it is; another person must approve it"
        binding = live.binding
        if binding is None:
            return None
        if self.clock.now() > binding.expires_at:
            return f"the approval request expired at {binding.expires_at.isoformat()}"
        if reviewer in binding.approved_by:
            return f"{reviewer} has approved it already; another reviewer must"
        if self.gate.policy_versions() != binding.policies:
            return "the policies that judged it have changed since it asked for approval"
        if diff_hash(await live.session.effects()) != binding.diff:
            return "its pending changes differ from those the approval was asked for"
        return None

    async def _review(self, live: LiveTxn, approve: bool, reviewer: str) -> CommitReply:
        if approve:
            problem = await self._unbound(live, reviewer)
            if problem is not None:
                raise ApprovalRefused(
                    f"cannot approve {live.state.id}: {problem}; it still waits (reject it, or the agent "
                    "commits again to ask anew)",
                    transaction_id=live.state.id,
                )
            binding = live.binding
            if binding is not None and len(binding.approved_by) + 1 < binding.reviewers:
                return await self._approved_in_part(live, binding, reviewer)
            if binding is not None and binding.approved_by:
                reviewer = " and ".join((*binding.approved_by, reviewer))
        commands = self._step(live, tx.Reviewed(approve, reviewer, self.clock.monotonic()))
        escalated = live.escalated
        attempt = Attempt(
            number=live.attempts + 1,
            via=Via.REVIEW,
            decision=Decision.ALLOW if approve else Decision.BLOCK,
            findings=() if approve else (Finding("review", Severity.BLOCK, f"rejected by {reviewer}"),),
            effects=() if escalated is None else escalated.effects,
            summary=live.record.summary if escalated is None else escalated.summary,
            at=self.clock.now(),
            started=self.clock.monotonic(),
        )
        if not approve:
            await self._carry_out(live, commands, attempt.via, attempt)
            reason = live.state.close_reason or ""
            self._tell(live, "rejected", reason)
            return self._reply(live, CommitStatus.ROLLED_BACK, replace(attempt, effects=()), reason)
        allowed = require_allowed(live.state)
        reply = await self._commit_decided(live, attempt, allowed.close_reason or "approved")
        if reply.status is CommitStatus.BLOCKED:
            raise AuditError(
                f"could not record the approval of {live.state.id} in the audit log; nothing was "
                "committed and it still waits for review: try again",
                transaction_id=live.state.id,
            )
        self._tell(live, "approved", f"{reply.status.value}: {reply.message}")
        return reply

    async def _approved_in_part(self, live: LiveTxn, binding: Binding, reviewer: str) -> CommitReply:
        """One approval of several needed: recorded as an attempt that leaves the commit waiting."""
        live.binding = replace(binding, approved_by=(*binding.approved_by, reviewer))
        count = f"{len(live.binding.approved_by)} of {binding.reviewers}"
        message = f"approved by {reviewer} ({count} reviewers); it waits for another reviewer"
        escalated = live.escalated
        attempt = Attempt(
            number=live.attempts + 1,
            via=Via.REVIEW,
            decision=Decision.ESCALATE,
            findings=(Finding("review", Severity.ESCALATE, message),),
            effects=() if escalated is None else escalated.effects,
            summary=live.record.summary,
            at=self.clock.now(),
            started=self.clock.monotonic(),
        )
        live.attempts = attempt.number
        entry = attempt.entry(live.state.id, CommitStatus.PENDING_APPROVAL, self.clock.monotonic())
        await self.ledger.attempt(entry, live.record)
        self._tell(live, "approved_in_part", message)
        return self._reply(live, CommitStatus.PENDING_APPROVAL, attempt, message)
