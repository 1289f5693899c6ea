"""Helpers for the ``mcp`` backend tests: settings, a guard in memory over the fake shop, reply bodies."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types

from guard.audit.log import MemoryAudit
from guard.backends.outbox import MemoryOutbox, Outbox
from guard.clock import FixedClock
from guard.edge.mcp_client import ClientUpstream
from guard.runtime import Runtime, assemble, build_runtime, mcp_backend
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from tests.fakes.mcp_shop import Shop, shop_server
from tests.guard.conftest import no_sleep

REFUND_RULES = """\
name: refunds
rules:
  - id: refund-limit
    description: A refund is at most 100.
    when: {table: "call:refund", kind: call}
    require: "effect.after.amount <= 100"
    decision: block
    message: "refund of {{effect.after.amount}} on {{effect.after.order_id}} is above the limit of 100"
    hint: "allowed: up to 100"
"""


def mcp_settings(
    tmp_path: Path,
    *,
    rules: bool = False,
    audit_url: str | None = None,
    audit_search_path: str | None = None,
    **mcp: Any,
) -> GuardSettings:
    """An ``mcp`` backend in front of the fake shop; no backoff, so retries cost no time."""
    chain = []
    if rules:
        (tmp_path / "refunds.yaml").write_text(REFUND_RULES)
        chain.append({"judge": "rules", "path": "refunds.yaml"})
    return GuardSettings.model_validate(
        {
            "server": {"instance": mcp.pop("instance", "guard-1")},
            "backend": {
                "kind": "mcp",
                "mcp": {
                    "url": "http://shop.invalid/mcp",
                    "dispatch": {"initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0, "lease_s": 60},
                    **mcp,
                },
            },
            "audit": {
                "url": audit_url or f"sqlite:///{tmp_path / 'audit.db'}",
                "search_path": audit_search_path,
            },
            "commit": {"reap_interval_s": 3600, "idle_timeout_s": 60, "max_blocked": 3},
            "retry": {"max_attempts": 3, "initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0},
            "judges": {"chain": chain, "base_dir": str(tmp_path)},
        }
    )


@asynccontextmanager
async def memory_guard(
    settings: GuardSettings, shop: Shop, clock: FixedClock, outbox: Outbox | None = None
) -> AsyncIterator[Runtime]:
    """The guard with its outbox and audit in memory, the shop in process."""
    backend = mcp_backend(
        settings,
        ClientUpstream(shop_server(shop), name="shop"),
        outbox or MemoryOutbox(),
        clock=clock,
        sleep=no_sleep,
    )
    runtime = assemble(settings, backend, MemoryAudit(), clock=clock, sleep=no_sleep)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


async def durable_guard(settings: GuardSettings, shop: Shop, clock: FixedClock) -> Runtime:
    """The guard with its outbox and audit in its database (migrated), the shop in process; started."""
    runtime = build_runtime(
        settings, clock=clock, sleep=no_sleep, upstream=ClientUpstream(shop_server(shop), name="shop")
    )
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    return runtime


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


_RECONNECT = {"initial_backoff_s": 0.05, "max_backoff_s": 0.2, "wait_s": 1.0}


@asynccontextmanager
async def upstream_guard(tmp_path: Path, rules: str | None = None, **mcp: Any) -> AsyncIterator[Runtime]:
    """The durable guard (SQLite audit and outbox) in front of the upstream ``mcp`` names, reconnecting
    fast; ``rules``: the text of its one rule pack."""
    settings = mcp_settings(tmp_path, reconnect=_RECONNECT, timeout_s=10, rules=rules is not None, **mcp)
    if rules is not None:
        (tmp_path / "refunds.yaml").write_text(rules)
    runtime = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


def kill_child(command: str, environment: str) -> None:
    """SIGKILL the one process whose command line holds ``command`` and whose environment holds
    ``environment`` (the upstream one guard launched, told apart from those of other tests)."""
    found = subprocess.run(["pgrep", "-f", command], capture_output=True, text=True, check=False)
    killed = 0
    for pid in found.stdout.split():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if environment.encode() in environ:
            os.kill(int(pid), signal.SIGKILL)
            killed += 1
    assert killed == 1, found.stdout


async def listening(port: int) -> None:
    for _ in range(400):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise AssertionError(f"nothing listens on {port}")
