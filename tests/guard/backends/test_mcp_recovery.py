"""The durable outbox: a guard that dies after the commit decision is finished by the next one.

The guard keeps its outbox and audit log in a real database (a SQLite file, or
PostgreSQL). A crash is played by the process dying at a chosen point (an
exception that no ``except Exception`` catches, then the guard's connections
dropped without a rollback); a second guard is started on the same database
and the same upstream, which outlives them both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from guard.audit.log import TxnDetail
from guard.backends.mcp import McpBackend
from guard.backends.outbox import EntryStatus
from guard.backends.upstream import UpstreamResult
from guard.clock import FixedClock
from guard.runtime import Runtime
from guard.settings import GuardSettings
from guard.transaction.replies import TxnKey
from tests.fakes.mcp_shop import Shop
from tests.guard.conftest import crash
from tests.guard.mcp_support import durable_guard, mcp_settings


class Died(BaseException):
    """The guard process dying at this point (no ``except Exception`` stops it)."""


def settings_for(tmp_path: Path, store: tuple[str, str | None], **mcp: Any) -> GuardSettings:
    url, schema = store
    return mcp_settings(tmp_path, audit_url=url, audit_search_path=schema, **mcp)


def backend_of(runtime: Runtime) -> McpBackend:
    backend = runtime.manager.backend
    assert isinstance(backend, McpBackend)
    return backend


async def calls(runtime: Runtime, key: str, *calls: tuple[str, dict[str, Any]]) -> None:
    for tool, arguments in calls:
        reply = await runtime.manager.call(TxnKey(key, "agent-a"), tool, arguments)
        assert not reply.is_error, reply.text


async def detail(runtime: Runtime, key: str) -> TxnDetail:
    found = await runtime.manager.audit.get_transaction(key)
    assert found is not None
    return found


async def test_a_crash_between_commit_and_dispatch_is_finished_at_restart(
    tmp_path: Path, store: tuple[str, str | None]
) -> None:
    """Requirement G13: the allowed commit is durable; the restarted guard sends its writes, in order."""
    shop, clock = Shop(), FixedClock()
    settings = settings_for(tmp_path, store)
    first = await durable_guard(settings, shop, clock)
    await calls(
        first,
        "c-1",
        ("create_order", {"item": "desk", "quantity": 1}),
        ("refund", {"order_id": "ORD-1", "amount": 5}),
    )

    async def die(transaction_id: str) -> Any:
        raise Died

    backend_of(first).dispatcher.dispatch = die  # type: ignore[method-assign]
    with pytest.raises(Died):
        await first.manager.commit(TxnKey("c-1", "agent-a"), "ordered and refunded")
    await crash(first)
    assert shop.journal == []

    second = await durable_guard(settings, shop, clock)
    try:
        assert [entry["tool"] for entry in shop.journal] == ["create_order", "refund"]
        entries = await backend_of(second).outbox.entries("c-1")
        assert [(e.tool, e.status) for e in entries] == [
            ("create_order", EntryStatus.APPLIED),
            ("refund", EntryStatus.APPLIED),
        ]
        assert [entry["key"] for entry in shop.journal] == [e.key for e in entries]
        found = await detail(second, "c-1")
        assert found.transaction.status == "committed"
        assert found.transaction.close_reason == (
            "commit finished by guard-1 after an interruption: the upstream applied 2 of 2 deferred write(s)"
        )
        attempts = [(c.via, c.status) for c in found.commits]
        assert attempts == [("tool", "committed"), ("recovery", "committed")]
        assert [w["status"] for w in found.commits[-1].dispatch or []] == ["applied", "applied"]
    finally:
        await second.stop()
    third = await durable_guard(settings, shop, clock)
    await third.stop()
    assert len(shop.journal) == 2


async def test_a_write_interrupted_mid_dispatch_is_reported_not_repeated(
    tmp_path: Path, store: tuple[str, str | None]
) -> None:
    """Requirements G12, G13: a non-idempotent write whose attempt was cut off is 'unknown', never resent."""
    shop, clock = Shop(), FixedClock()
    settings = settings_for(tmp_path, store)
    first = await durable_guard(settings, shop, clock)
    await calls(
        first,
        "m-1",
        ("create_order", {"item": "desk", "quantity": 1}),
        ("refund", {"order_id": "ORD-1", "amount": 5}),
        ("add_note", {"order_id": "ORD-1", "text": "refunded"}),
    )
    upstream = backend_of(first).upstream
    forward = upstream.call_tool

    async def dies_on_refund(name: str, arguments: Any, *, meta: Any = None) -> UpstreamResult:
        if name == "refund":
            raise Died
        return await forward(name, arguments, meta=meta)

    upstream.call_tool = dies_on_refund  # type: ignore[method-assign]
    with pytest.raises(Died):
        await first.manager.commit(TxnKey("m-1", "agent-a"), "refund")
    await crash(first)

    second = await durable_guard(settings, shop, clock)
    try:
        entries = await backend_of(second).outbox.entries("m-1")
        found = await detail(second, "m-1")
    finally:
        await second.stop()
    assert [entry["tool"] for entry in shop.journal] == ["create_order"]
    assert [(e.tool, e.status) for e in entries] == [
        ("create_order", EntryStatus.APPLIED),
        ("refund", EntryStatus.UNKNOWN),
        ("add_note", EntryStatus.SKIPPED),
    ]
    assert found.transaction.status == "partial"
    assert "outcome unknown (may have been applied): refund (#2)" in (found.transaction.close_reason or "")


async def test_another_replica_finishes_the_dispatch_once_the_lease_runs_out(
    tmp_path: Path, store: tuple[str, str | None]
) -> None:
    """Requirement G13: any replica finishes a dead replica's commit, after its lease, exactly once."""
    shop = Shop()
    first = await durable_guard(settings_for(tmp_path, store, instance="guard-1"), shop, FixedClock())
    await calls(first, "r-1", ("create_order", {"item": "desk", "quantity": 1}))

    async def die(transaction_id: str) -> Any:
        raise Died

    backend_of(first).dispatcher.dispatch = die  # type: ignore[method-assign]
    with pytest.raises(Died):
        await first.manager.commit(TxnKey("r-1", "agent-a"), "ordered")
    await crash(first)

    clock = FixedClock()
    other = await durable_guard(settings_for(tmp_path, store, instance="guard-2"), shop, clock)
    try:
        assert shop.journal == []
        clock.advance(61)
        await other.manager.reap()
        assert [entry["tool"] for entry in shop.journal] == ["create_order"]
        await other.manager.reap()
        found = await detail(other, "r-1")
    finally:
        await other.stop()
    assert len(shop.journal) == 1
    assert found.transaction.status == "committed"
    assert (found.transaction.close_reason or "").startswith(
        "commit finished by guard-2 after an interruption"
    )


async def test_a_restart_rolls_back_what_the_crash_left_open(
    tmp_path: Path, store: tuple[str, str | None]
) -> None:
    """Requirements G3, G14: held writes are never sent; applied passthrough writes are compensated."""
    shop, clock = Shop(), FixedClock()
    settings = settings_for(
        tmp_path,
        store,
        tools={
            "create_order": {
                "mode": "passthrough",
                "compensate": {"tool": "cancel_order", "arguments": {"order_id": "$result.id"}},
            }
        },
    )
    first = await durable_guard(settings, shop, clock)
    await calls(
        first,
        "o-1",
        ("create_order", {"item": "desk", "quantity": 1}),
        ("refund", {"order_id": "ORD-1", "amount": 5}),
    )
    await crash(first)
    assert [entry["tool"] for entry in shop.journal] == ["create_order"]

    second = await durable_guard(settings, shop, clock)
    try:
        found = await detail(second, "o-1")
    finally:
        await second.stop()
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "cancel_order"]
    assert shop.orders["ORD-1"]["status"] == "cancelled"
    assert found.transaction.status == "aborted"
    assert found.transaction.close_reason == (
        "the guard stopped with the transaction open; the database discarded its changes; "
        "discarded 1 held write(s); undone: create_order (#1)"
    )
