"""Telling people: webhooks when a commit waits for a reviewer and when a reviewer decides.

Each configured webhook (``notify.webhooks``) gets every notice it subscribes to, as
a JSON ``POST`` signed with HMAC-SHA256 over ``<timestamp>.<body>`` (headers
``Guard-Signature: t=<timestamp>,v1=<hex>``, ``Guard-Event``, ``Guard-Delivery``),
in the ``generic`` form or the ``slack`` one (an incoming-webhook payload with the
console link). Deliveries run in tasks of their own: a notice never waits for a
receiver, and a receiver that is down never blocks or fails a commit. Failures that
may pass (a transport error, 408, 429, 5xx) are retried with tenacity's exponential
backoff; every delivery's outcome, ``delivered`` or ``dead`` (given up, with the last
error), is kept in the audit store (``guard_notifications``), so that what nobody
was told can be found and sent again.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol
from urllib.parse import quote

import httpx2
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

from guard.clock import Clock
from guard.settings import GuardSettings, NoticeEvent, NotifySettings, WebhookSettings

__all__ = [
    "Deliveries",
    "Delivery",
    "Event",
    "MemoryDeliveries",
    "Notice",
    "Notifier",
    "page_url",
    "signature",
]

log = logging.getLogger(__name__)

Event = NoticeEvent


def page_url(settings: GuardSettings, transaction_id: str) -> str:
    """The transaction's console page as people reach it (``console.public_url``, else the bind address)."""
    base = settings.console.public_url or f"http://{settings.server.host}:{settings.server.port}"
    return f"{base.rstrip('/')}/console/t/{quote(transaction_id, safe='')}"


@dataclass(frozen=True, slots=True)
class Notice:
    """Something a person should hear of: a commit that waits for them, or a reviewer's decision."""

    event: Event
    transaction_id: str
    principal: str
    message: str
    url: str
    at: datetime
    approval: Mapping[str, Any] | None = None

    def body(self, delivery: str) -> dict[str, Any]:
        return {
            "event": self.event,
            "delivery": delivery,
            "transaction": self.transaction_id,
            "agent": self.principal,
            "message": self.message,
            "url": self.url,
            "at": self.at.isoformat(),
            "approval": dict(self.approval) if self.approval is not None else None,
        }

    def slack(self) -> dict[str, Any]:
        heading = {
            "escalated": "waits for a reviewer",
            "approved": "was approved",
            "rejected": "was rejected",
            "approved_in_part": "has one approval and waits for another",
        }[self.event]
        text = f"Transaction {self.transaction_id} of {self.principal} {heading}: {self.message}"
        return {
            "text": f"{text} <{self.url}|open it>",
            "blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": text}},
                {
                    "type": "actions",
                    "elements": [
                        {"type": "button", "text": {"type": "plain_text", "text": "Open"}, "url": self.url}
                    ],
                },
            ],
        }


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``Guard-Signature`` header: HMAC-SHA256 of ``<timestamp>.<body>`` under ``secret``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


@dataclass(frozen=True, slots=True)
class Delivery:
    """One notice's delivery to one webhook, as the audit store keeps it."""

    id: str
    transaction_id: str
    event: str
    url: str
    status: Literal["delivered", "dead"]
    attempts: int
    error: str | None
    at: datetime


class Deliveries(Protocol):
    """Where deliveries are recorded (the audit store's ``guard_notifications``)."""

    async def record(self, delivery: Delivery) -> None: ...

    async def of(self, transaction_id: str) -> list[Delivery]: ...


@dataclass
class MemoryDeliveries:
    """:class:`Deliveries` in memory."""

    rows: list[Delivery] = field(default_factory=list)

    async def record(self, delivery: Delivery) -> None:
        self.rows.append(delivery)

    async def of(self, transaction_id: str) -> list[Delivery]:
        return [d for d in self.rows if d.transaction_id == transaction_id]


class _Refused(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"the receiver answered {status}")
        self.status = status


def _worth_retrying(exc: BaseException) -> bool:
    if isinstance(exc, _Refused):
        return exc.status in (408, 429) or exc.status >= 500
    return isinstance(exc, httpx2.TransportError)


class Notifier:
    """Sends notices to the configured webhooks in the background, and records each delivery."""

    def __init__(self, settings: NotifySettings, deliveries: Deliveries, clock: Clock) -> None:
        self._hooks = list(settings.webhooks)
        self._deliveries = deliveries
        self._clock = clock
        self._tasks: set[asyncio.Task[None]] = set()
        self._client: httpx2.AsyncClient | None = None

    def __bool__(self) -> bool:
        return bool(self._hooks)

    def notify(self, notice: Notice) -> None:
        """Deliver ``notice`` to every webhook that subscribes to its event; returns at once."""
        for hook in self._hooks:
            if notice.event in hook.events:
                task = asyncio.get_running_loop().create_task(self._deliver(hook, notice))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _deliver(self, hook: WebhookSettings, notice: Notice) -> None:
        delivery = str(uuid.uuid4())
        payload = notice.slack() if hook.format == "slack" else notice.body(delivery)
        body = json.dumps(payload, ensure_ascii=False).encode()
        attempts = 0
        error: str | None = None
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(hook.max_attempts),
                wait=wait_exponential(multiplier=hook.initial_backoff_s, max=hook.max_backoff_s),
                retry=retry_if_exception(_worth_retrying),
                reraise=True,
            ):
                with attempt:
                    attempts += 1
                    await self._post(hook, notice, delivery, body)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:1000]
            log.error(
                "webhook %s: %s of %s not delivered: %s", hook.url, notice.event, notice.transaction_id, error
            )
        status: Literal["delivered", "dead"] = "dead" if error is not None else "delivered"
        record = Delivery(
            delivery,
            notice.transaction_id,
            notice.event,
            hook.url,
            status,
            attempts,
            error,
            self._clock.now(),
        )
        try:
            await self._deliveries.record(record)
        except Exception:
            log.exception("could not record the delivery %s of %s", delivery, notice.transaction_id)

    async def _post(self, hook: WebhookSettings, notice: Notice, delivery: str, body: bytes) -> None:
        if self._client is None:
            self._client = httpx2.AsyncClient(follow_redirects=False)
        timestamp = str(int(self._clock.now().timestamp()))
        headers = {
            "Content-Type": "application/json",
            "Guard-Event": notice.event,
            "Guard-Delivery": delivery,
        }
        secret = hook.secret or (os.environ.get(hook.secret_env) if hook.secret_env else None)
        if secret:
            headers["Guard-Signature"] = signature(secret, timestamp, body)
        response = await self._client.post(hook.url, content=body, headers=headers, timeout=hook.timeout_s)
        if response.status_code >= 300:
            raise _Refused(response.status_code)

    async def drain(self, timeout_s: float = 5.0) -> None:
        """Wait (at most ``timeout_s``) for deliveries under way, then cancel the rest; close the client."""
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=timeout_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()
            self._client = None
