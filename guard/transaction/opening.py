"""Opening a transaction: the limits it must fit, the backend's begin, and its row in the audit log.

:class:`Openings` is the part of :class:`~guard.transaction.manager.TransactionManager` that turns a new
key into a live transaction: a key the log already holds is refused (ended, or another replica's), then
the guard's and the agent's limits (:mod:`guard.transaction.limits`, the agent's quota), the backend's
begin, then the transaction's row (the log's key is unique: of two replicas opening one key at once, the
second is told the first holds it).
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict
from typing import TYPE_CHECKING

from guard.audit.log import TxnOwner, TxnRecord
from guard.errors import AuditError, BackendError, HeldElsewhere, Refused, TransactionClosed
from guard.transaction.limits import Quota, open_refusal, quota_for
from guard.transaction.live import LiveTxn, quietly
from guard.transaction.replies import TxnKey, closed_text
from guard.transaction.state import Status, TxnState

if TYPE_CHECKING:
    from guard.audit.log import Audit
    from guard.backends.base import Backend
    from guard.clock import Clock
    from guard.settings import GuardSettings
    from guard.telemetry import Telemetry

__all__ = ["Openings"]

log = logging.getLogger(__name__)


class Openings:
    """The manager's opening of transactions (mixed into ``TransactionManager``)."""

    settings: GuardSettings
    clock: Clock
    audit: Audit
    backend: Backend
    telemetry: Telemetry
    _live: dict[str, LiveTxn]
    _closed: OrderedDict[str, Status]
    _reserved: Counter[str]

    @property
    def instance(self) -> str:
        return self.settings.server.instance

    async def _open(self, key: TxnKey) -> LiveTxn:
        """A new transaction under ``key``, unless the key is known: closed here, or in the log (ended, or
        held by another replica), which is asked before the backend begins anything under the key (a
        backend's begin and rollback may touch what is kept under it: an upstream's outbox)."""
        status = self._closed.get(key.id)
        if status is None and (owner := await self.audit.owner_of(key.id)) is not None:
            if owner.held_by_other(self.instance):
                raise HeldElsewhere(key.id, owner.instance)
            status = owner.status
        if status is not None:
            raise await self._closed_refusal(key.id, status)
        by_principal = self._reserved[key.principal] + sum(
            live.state.principal == key.principal for live in self._live.values()
        )
        quota = quota_for(key.principal, key.claims, self.settings.limits)
        refusal = open_refusal(
            key.principal,
            len(self._live) + self._reserved.total(),
            by_principal,
            quota,
            self.settings.backend.max_open_transactions,
        )
        if refusal is not None:
            raise Refused(refusal, transaction_id=key.id)
        self._reserved[key.principal] += 1
        try:
            return await self._begin(key, quota)
        finally:
            self._reserved[key.principal] -= 1
            if self._reserved[key.principal] <= 0:
                del self._reserved[key.principal]

    async def _begin(self, key: TxnKey, quota: Quota) -> LiveTxn:
        """Begin on the backend, then record the transaction (a failed begin leaves the key unused)."""
        try:
            session = await self.backend.begin(key.id)
        except Exception as exc:
            log.warning("could not begin transaction %s: %r", key.id, exc)
            raise BackendError(
                f"could not open transaction {key.id}: the backend is unavailable ({type(exc).__name__}); "
                "nothing was recorded, try again with the same key",
                transaction_id=key.id,
            ) from exc
        record = TxnRecord.opened(
            key.id, key.principal, self.instance, self.backend.name, self.clock.now(), key.claims
        )
        try:
            await self.audit.open_transaction(record)
        except Exception as exc:
            await quietly(session.rollback())
            if (held := await self._held_elsewhere(key.id)) is not None:
                raise held from exc  # another replica opened the same key first (the log's key is unique)
            log.error("could not record the new transaction %s: %r", key.id, exc)
            raise AuditError(
                f"could not open transaction {key.id}: the audit log is unavailable; nothing was changed",
                transaction_id=key.id,
            ) from exc
        mono = self.clock.monotonic()
        state = TxnState(key.id, key.principal, Status.OPEN, mono, mono)
        live = LiveTxn(
            state,
            session,
            self.telemetry.open_transaction(key.id, key.principal, key.meta, key.claims),
            record,
            quota,
        )
        self._live[key.id] = live
        log.info("opened transaction %s for %s", key.id, key.principal)
        return live

    async def _known(self, transaction_id: str) -> TxnOwner | None:
        """Who holds ``transaction_id`` in the log and its status, if the log says (and can say)."""
        try:
            return await self.audit.owner_of(transaction_id)
        except Exception:
            return None

    async def _held_elsewhere(self, transaction_id: str) -> HeldElsewhere | None:
        """The refusal for a key another replica holds, if the log says so (and can say)."""
        owner = await self._known(transaction_id)
        held = owner is not None and owner.held_by_other(self.instance)
        return HeldElsewhere(transaction_id, owner.instance) if held and owner else None

    async def _closed_refusal(self, transaction_id: str, status: Status) -> TransactionClosed:
        """The refusal of a key whose transaction has ended (a partial commit says how, from the log)."""
        reason = None
        if (
            status is Status.PARTIAL
            and (detail := await self.audit.get_transaction(transaction_id)) is not None
        ):
            status, reason = detail.transaction.status, detail.transaction.close_reason
        return TransactionClosed(closed_text(transaction_id, status, reason), transaction_id=transaction_id)
