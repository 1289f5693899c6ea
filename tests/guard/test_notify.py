"""Webhooks: a person is told when a commit waits for them and when a reviewer decides; signed, retried,
and dead-lettered in the audit store, never holding up a commit. Against a real HTTP receiver (uvicorn on
a loopback socket)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from guard.clock import FixedClock
from guard.notify import signature
from guard.runtime import Runtime, build_runtime
from guard.store.migrate import upgrade
from guard.store.sql_deliveries import SqlDeliveries
from tests.guard.conftest import agent_client, free_port, meta, no_sleep, serving, until
from tests.guard.edge.test_console import console_settings

SECRET = "hook-secret"


class Receiver:
    """Answers each POST with the next scripted status (200 once the script is spent); keeps them all."""

    def __init__(self, *statuses: int) -> None:
        self.statuses = list(statuses)
        self.received: list[tuple[dict[str, str], bytes]] = []

    def app(self) -> Starlette:
        async def hook(request: Request) -> Response:
            self.received.append((dict(request.headers), await request.body()))
            return Response(status_code=self.statuses.pop(0) if self.statuses else 200)

        return Starlette(routes=[Route("/hook", hook, methods=["POST"])])

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body in self.received]


async def _guard(tmp_path: Path, hooks: list[dict[str, Any]]) -> Runtime:
    settings = console_settings(
        tmp_path, console={"public_url": "https://guard.example.com"}, notify={"webhooks": hooks}
    )
    runtime = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    return runtime


def _hook(url: str, **more: Any) -> dict[str, Any]:
    return {"url": url, "secret": SECRET, "initial_backoff_s": 0.01, "max_backoff_s": 0.05, **more}


async def _escalate(runtime: Runtime) -> None:
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"}, meta=meta("e-1"))
        await agent.call_tool("guard_commit", {"summary": "closed 21"}, meta=meta("e-1"))


async def test_a_waiting_commit_and_its_approval_are_delivered_signed(tmp_path: Path) -> None:
    """Requirement G55: escalated, then approved: two signed notices with the console link; recorded."""
    receiver = Receiver()
    async with serving(receiver.app()) as base:
        runtime = await _guard(tmp_path, [_hook(f"{base}/hook")])
        try:
            await _escalate(runtime)
            await until(lambda: len(receiver.received) == 1)
            await runtime.manager.review("e-1", approve=True, reviewer="ana")
            await until(lambda: len(receiver.received) == 2)
            assert runtime.audit_engine is not None
            await runtime.manager.notifier.drain()  # type: ignore[union-attr]
            deliveries = await SqlDeliveries(runtime.audit_engine).of("e-1")
        finally:
            await runtime.stop()
    escalated, approved = receiver.bodies()
    assert escalated["event"] == "escalated"
    assert escalated["url"] == "https://guard.example.com/console/t/e-1"
    assert "closing is reviewed by a supervisor" in escalated["message"]
    assert escalated["approval"]["diff"].startswith("sha256:")
    assert approved["event"] == "approved"
    assert "approved by ana" in approved["message"]
    for headers, body in receiver.received:
        timestamp = headers["guard-signature"].split(",")[0].removeprefix("t=")
        assert headers["guard-signature"] == signature(SECRET, timestamp, body)
        assert headers["guard-delivery"]
    assert sorted((d.event, d.status, d.attempts) for d in deliveries) == [
        ("approved", "delivered", 1),
        ("escalated", "delivered", 1),
    ]


async def test_a_receiver_that_fails_for_a_while_is_retried(tmp_path: Path) -> None:
    """Requirement G55: 503, 503, then 200: delivered on the third attempt; a 400 is not retried."""
    flaky, refusing = Receiver(503, 503), Receiver(400)
    async with serving(flaky.app()) as first, serving(refusing.app()) as second:
        runtime = await _guard(tmp_path, [_hook(f"{first}/hook"), _hook(f"{second}/hook")])
        try:
            await _escalate(runtime)
            await runtime.manager.notifier.drain()  # type: ignore[union-attr]
            assert runtime.audit_engine is not None
            deliveries = await SqlDeliveries(runtime.audit_engine).of("e-1")
        finally:
            await runtime.stop()
    assert len(flaky.received) == 3
    assert len(refusing.received) == 1
    shown = sorted(
        (d.url.endswith(":" + first.rsplit(":", 1)[1] + "/hook"), d.status, d.attempts) for d in deliveries
    )
    assert shown == [(False, "dead", 1), (True, "delivered", 3)]


async def test_a_receiver_that_is_down_is_dead_lettered_and_never_holds_up_a_commit(tmp_path: Path) -> None:
    """Requirement G55: nothing listens: the commit is answered at once, the approval commits, and each
    notice is recorded dead with its last error after max_attempts."""
    url = f"http://127.0.0.1:{free_port()}/hook"
    runtime = await _guard(tmp_path, [_hook(url, max_attempts=3, format="slack")])
    try:
        started = asyncio.get_running_loop().time()
        await _escalate(runtime)
        reply = await runtime.manager.review("e-1", approve=True, reviewer="ana")
        took = asyncio.get_running_loop().time() - started
        await runtime.manager.notifier.drain()  # type: ignore[union-attr]
        assert runtime.audit_engine is not None
        deliveries = await SqlDeliveries(runtime.audit_engine).of("e-1")
    finally:
        await runtime.stop()
    assert reply.status.value == "committed"
    assert took < 5
    assert sorted((d.event, d.status, d.attempts) for d in deliveries) == [
        ("approved", "dead", 3),
        ("escalated", "dead", 3),
    ]
    assert all("ConnectError" in (d.error or "") for d in deliveries)


async def test_a_slack_receiver_gets_text_with_the_link(tmp_path: Path) -> None:
    """Requirement G55: the slack format is an incoming-webhook payload naming the link."""
    receiver = Receiver()
    async with serving(receiver.app()) as base:
        runtime = await _guard(tmp_path, [_hook(f"{base}/hook", format="slack", events=["escalated"])])
        try:
            await _escalate(runtime)
            await runtime.manager.review("e-1", approve=False, reviewer="ana")
            await runtime.manager.notifier.drain()  # type: ignore[union-attr]
        finally:
            await runtime.stop()
    [payload] = receiver.bodies()
    assert payload["text"].startswith("Transaction e-1 of agent-a waits for a reviewer")
    assert "<https://guard.example.com/console/t/e-1|open it>" in payload["text"]
    assert payload["blocks"][1]["elements"][0]["url"] == "https://guard.example.com/console/t/e-1"


async def test_deliveries_are_kept_in_either_store(store: tuple[str, str | None]) -> None:
    """Requirement G55: guard_notifications (migration 0005) on SQLite and PostgreSQL alike."""
    from datetime import UTC, datetime

    from guard.notify import Delivery
    from guard.store.engine import create_engine

    url, search_path = store
    engine = create_engine(url, search_path=search_path)
    try:
        await upgrade(engine)
        kept = SqlDeliveries(engine)
        at = datetime(2025, 10, 1, 13, tzinfo=UTC)
        await kept.record(
            Delivery("d-1", "t-1", "escalated", "http://x/hook", "dead", 6, "ConnectError: no", at)
        )
        await kept.record(Delivery("d-2", "t-2", "approved", "http://x/hook", "delivered", 1, None, at))
        found = await kept.of("t-1")
    finally:
        await engine.dispose()
    assert [(d.id, d.status, d.attempts, d.error, d.at) for d in found] == [
        ("d-1", "dead", 6, "ConnectError: no", at)
    ]
