"""Outbox failover, real processes: a replica SIGKILLed mid-commit, its sealed commits finished by another.

Three processes on one machine: the fake shop (:mod:`tests.fakes.upstream_shop_server`)
as the upstream MCP server over streamable HTTP, and two ``guard serve``
replicas (``guard-1``, ``guard-2``) with the ``mcp`` backend in front of it,
their audit log and outbox in one fresh PostgreSQL schema. The dispatch lease
is a few seconds, so that the run takes seconds.

At the moment ``guard-1`` is SIGKILLed it holds three transactions of the
``mcp`` backend:

* ``f-mid``: its commit is sealed and its one write, a non-idempotent
  ``create_order``, is in flight upstream (the shop holds the call until the
  test releases it, after the kill);
* ``f-sealed``: its commit is sealed and not one of its two writes has left:
  the first dispatch step waits in PostgreSQL (a trigger the test puts on the
  outbox table, in the test's schema, takes an advisory lock the test holds);
  the kill rolls that step back, so the entries stay ``ready``;
* ``f-open``: a deferred write, no commit.

Meanwhile an agent on ``guard-2`` opens and commits one transaction after
another, and must see no error at all.
"""

from __future__ import annotations

import asyncio
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import asyncpg  # type: ignore[import-untyped]
import httpx2
import mcp_types as types
import pytest
import yaml
from mcp import Client
from sqlalchemy.engine import make_url

from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from tests.conftest import ROOT
from tests.fakes.mcp_shop import journal
from tests.fakes.upstream_shop_server import HOLD, calls
from tests.guard.conftest import free_port, wait_until_ready

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

T = TypeVar("T")

TIMEOUT_S = 5.0
"""The guard's longest wait for one upstream request: the kill lands well inside it."""
LEASE_S = 6.0
"""How long a commit's dispatch stays its replica's after each step (must exceed ``TIMEOUT_S``)."""
REAP_S = 0.5
"""How often a replica's reaper looks for expired leases."""
WAIT_S = 60.0
"""The longest any one step of the run may take before the test fails (a generous bound, not a timing)."""


# -- the upstream -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Upstream:
    """The shop in its own process: its address and its journal file."""

    base: str
    journal: Path

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    async def release(self, name: str) -> None:
        async with httpx2.AsyncClient(timeout=10) as http:
            (await http.post(f"{self.base}/release/{name}")).raise_for_status()

    async def holds(self, name: str) -> bool:
        async with httpx2.AsyncClient(timeout=10) as http:
            return name in (await http.get(f"{self.base}/held")).json()

    def applied(self) -> Counter[str | None]:
        """How many times the shop applied a write, per idempotency key."""
        return Counter(entry["key"] for entry in journal(self.journal))

    def received(self) -> Counter[str | None]:
        """How many calls reached the shop, per idempotency key (applied or not)."""
        return Counter(key for _, key in calls(self.journal))


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


def _wait_answering(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while True:
        assert process.poll() is None, log.read_text(errors="replace")
        with suppress(httpx2.TransportError):
            httpx2.get(url, timeout=1)
            return
        assert time.monotonic() < deadline, f"the upstream did not answer at {url}"
        time.sleep(0.05)


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[Upstream]:
    shop = Upstream(f"http://127.0.0.1:{free_port()}", tmp_path / "shop.json")
    port = shop.base.rsplit(":", 1)[1]
    log = tmp_path / "upstream.log"
    command = [sys.executable, "-m", "tests.fakes.upstream_shop_server", port, str(shop.journal)]
    with log.open("ab") as sink:
        process = subprocess.Popen(command, cwd=ROOT, stdout=sink, stderr=sink)
    try:
        _wait_answering(process, f"{shop.base}/held", log)
        yield shop
    finally:
        _stop(process)


# -- the replicas -------------------------------------------------------------------------------


@dataclass
class Replica:
    """One ``guard serve`` process, its own config file and log."""

    instance: str
    port: int
    config: Path
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def launch(self) -> None:
        command = [sys.executable, "-m", "guard", "serve", "--config", str(self.config)]
        with self.log.open("ab") as sink:
            self.process = subprocess.Popen(command, cwd=ROOT, stdout=sink, stderr=sink)

    def ready(self) -> None:
        assert self.process is not None
        wait_until_ready(self.process, self.port, lambda: self.log.read_text(errors="replace"))

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)


def _config(root: Path, instance: str, upstream: Upstream, postgres_url: str, schema: str) -> Replica:
    port = free_port()
    settings = {
        "server": {"host": "127.0.0.1", "port": port, "instance": instance},
        "backend": {
            "kind": "mcp",
            "mcp": {
                "url": upstream.url,
                "timeout_s": TIMEOUT_S,
                "dispatch": {"initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0, "lease_s": LEASE_S},
            },
        },
        # a dispatch step held in PostgreSQL (the trigger below) waits there until the kill, not a timeout
        "audit": {
            "url": postgres_url,
            "search_path": schema,
            "lock_timeout_s": 60,
            "statement_timeout_s": 60,
        },
        "commit": {"reap_interval_s": REAP_S, "idle_timeout_s": 120},
    }
    config = root / f"{instance}.yaml"
    config.write_text(yaml.safe_dump(settings))
    return Replica(instance, port, config, root / f"{instance}.log")


async def _migrate(postgres_url: str, schema: str) -> None:
    engine = create_engine(postgres_url, search_path=schema)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


@pytest.fixture
def replicas(
    tmp_path: Path, postgres_url: str, postgres_schema: str, upstream: Upstream
) -> Iterator[tuple[Replica, Replica]]:
    """guard-1 and guard-2 serving, on one migrated schema."""
    asyncio.run(_migrate(postgres_url, postgres_schema))
    first, second = (
        _config(tmp_path, name, upstream, postgres_url, postgres_schema) for name in ("guard-1", "guard-2")
    )
    try:
        for replica in (first, second):
            replica.launch()
        for replica in (first, second):
            replica.ready()
        yield first, second
    finally:
        for replica in (first, second):
            replica.stop()


# -- the database -------------------------------------------------------------------------------


async def _connect(postgres_url: str, schema: str) -> asyncpg.Connection:
    parsed = make_url(postgres_url)
    return await asyncpg.connect(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username,
        password=parsed.password,
        database=parsed.database,
        server_settings={"search_path": schema},
    )


@dataclass
class Stall:
    """guard-1's first dispatch step for one transaction, held in PostgreSQL until :meth:`release`."""

    conn: asyncpg.Connection
    lock: int

    async def waiting(self) -> bool:
        """Whether a replica's update of the outbox now waits for the test's lock."""
        found = await self.conn.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND objid::bigint = $1 AND database = (SELECT oid FROM pg_database WHERE datname = "
            "current_database())",
            self.lock,
        )
        return bool(found)

    async def release(self) -> None:
        await self.conn.execute("SELECT pg_advisory_unlock($1)", self.lock)


@asynccontextmanager
async def stalled_dispatch(
    postgres_url: str, schema: str, transaction_id: str, instance: str
) -> AsyncIterator[Stall]:
    """A trigger in the test's schema: ``instance`` moving the transaction's first write from ``ready`` to
    ``dispatching`` (the step before its first attempt goes upstream) waits for an advisory lock the test
    holds. Nothing in the guard changes; its database is slow at that one point."""
    conn = await _connect(postgres_url, schema)
    lock = secrets.randbelow(2**31 - 1) + 1
    try:
        await conn.execute(
            f"""
            CREATE FUNCTION stall_dispatch() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock({lock});
                RETURN NEW;
            END $$;
            CREATE TRIGGER stall_dispatch BEFORE UPDATE ON guard_outbox FOR EACH ROW
                WHEN (OLD.transaction_id = '{transaction_id}' AND OLD.instance = '{instance}'
                      AND OLD.status = 'ready' AND NEW.status = 'dispatching')
                EXECUTE FUNCTION stall_dispatch();
            """
        )
        await conn.execute("SELECT pg_advisory_lock($1)", lock)
        yield Stall(conn, lock)
    finally:
        await conn.close()


# -- the agents ---------------------------------------------------------------------------------


def _text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def call(base: str, key: str, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """One call in transaction ``key``, by the official client on its own MCP session."""
    async with Client(f"{base}/mcp/t/{key}") as agent:
        return await agent.call_tool(tool, arguments)


async def write(base: str, key: str, tool: str, arguments: dict[str, Any]) -> str:
    """A deferred write; its idempotency key."""
    result = await call(base, key, tool, arguments)
    assert not result.is_error, _text(result)
    assert isinstance(result.structured_content, dict), result
    assert result.structured_content["status"] == "deferred"
    return str(result.structured_content["idempotency_key"])


@dataclass
class Bystander:
    """An agent on guard-2 that commits one order after another for the whole run."""

    base: str
    phase: str = "before the kill"
    done: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    progress: asyncio.Event = field(default_factory=asyncio.Event)
    stopping: bool = False

    async def run(self) -> None:
        count = 0
        while not self.stopping:
            count += 1
            key, phase = f"b-{count}", self.phase
            try:
                await self._order(key)
            except Exception as exc:
                self.errors.append(f"{key} ({phase}): {type(exc).__name__}: {exc}")
            else:
                self.done.append((phase, key))
            self.progress.set()

    async def _order(self, key: str) -> None:
        async with Client(f"{self.base}/mcp/t/{key}") as agent:
            placed = await agent.call_tool("create_order", {"item": f"pen for {key}", "quantity": 1})
            assert not placed.is_error, _text(placed)
            committed = await agent.call_tool("guard_commit", {"summary": f"ordered a pen ({key})"})
        assert not committed.is_error, _text(committed)
        assert isinstance(committed.structured_content, dict), committed
        assert committed.structured_content["status"] == "committed", committed.structured_content

    async def passes(self, phase: str) -> None:
        """Enter ``phase`` and wait until a whole transaction was made in it."""
        self.phase = phase
        while not any(seen == phase for seen, _ in self.done):
            self.progress.clear()
            await asyncio.wait_for(self.progress.wait(), timeout=WAIT_S)


async def until(what: str, check: Callable[[], Awaitable[T]]) -> T:
    """Poll ``check`` until it returns something true (across processes there is no event to await)."""
    deadline = time.monotonic() + WAIT_S
    while not (found := await check()):
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        await asyncio.sleep(0.05)
    return found


async def settled(base: str, transaction_id: str) -> dict[str, Any]:
    """The transaction as the admin API shows it, once neither it nor a commit attempt is in progress."""

    async def shown() -> dict[str, Any] | None:
        async with httpx2.AsyncClient(timeout=10) as http:
            found: dict[str, Any] = (await http.get(f"{base}/transactions/{transaction_id}")).json()
        attempts = [attempt["status"] for attempt in found["commit_log"]]
        return None if "committing" in (found["status"], *attempts) else found

    found = await until(f"{transaction_id} to settle", shown)
    assert found is not None
    return found


async def _ended(task: asyncio.Task[Any]) -> None:
    """An agent call to the killed replica: whatever it came to, it is over."""
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def kill_mid_commit(first: Replica, upstream: Upstream, stall: Stall) -> dict[str, list[str]]:
    """Bring guard-1 to the moment of the kill (see the module's docstring), SIGKILL it; the writes' keys."""
    keys = {
        "f-open": [await write(first.url, "f-open", "create_order", {"item": "chair", "quantity": 1})],
        "f-sealed": [
            await write(first.url, "f-sealed", "create_order", {"item": "lamp", "quantity": 2}),
            await write(first.url, "f-sealed", "send_email", {"to": "ann@example.com", "body": "your lamp"}),
        ],
        "f-mid": [await write(first.url, "f-mid", "create_order", {"item": f"{HOLD}mid", "quantity": 1})],
    }

    async def in_flight() -> bool:
        return await upstream.holds("mid")

    commits = []
    try:
        commits.append(
            asyncio.create_task(call(first.url, "f-sealed", "guard_commit", {"summary": "a lamp"}))
        )
        await until("f-sealed's dispatch to wait in PostgreSQL", stall.waiting)
        commits.append(asyncio.create_task(call(first.url, "f-mid", "guard_commit", {"summary": "a desk"})))
        await until("f-mid's write to be in flight upstream", in_flight)
        first.kill()
    finally:
        for task in commits:
            await _ended(task)
    return keys


async def outbox_rows(postgres_url: str, schema: str) -> dict[str, list[tuple[str, str, int]]]:
    """The outbox of guard-1's transactions: ``(status, instance, attempts)`` of each entry, in order."""
    conn = await _connect(postgres_url, schema)
    try:
        rows = await conn.fetch(
            "SELECT transaction_id, status, instance, attempts FROM guard_outbox "
            "WHERE transaction_id LIKE 'f-%' ORDER BY transaction_id, seq"
        )
    finally:
        await conn.close()
    found: dict[str, list[tuple[str, str, int]]] = {}
    for row in rows:
        found.setdefault(row["transaction_id"], []).append((row["status"], row["instance"], row["attempts"]))
    return found


@dataclass(frozen=True)
class Failover:
    """What the run left: guard-1's writes by transaction, and what guard-2 answers about them."""

    keys: dict[str, list[str]]
    refused: types.CallToolResult
    mid: dict[str, Any]
    sealed: dict[str, Any]


async def fail_over(
    replicas: tuple[Replica, Replica], upstream: Upstream, bystander: Bystander, postgres: tuple[str, str]
) -> Failover:
    """Kill guard-1 mid-commit, the bystander at work on guard-2; wait for guard-2 to settle both commits."""
    first, second = replicas
    await bystander.passes("before the kill")
    async with stalled_dispatch(*postgres, "f-sealed", "guard-1") as stall:
        keys = await kill_mid_commit(first, upstream, stall)
        await upstream.release("mid")
        await stall.release()
    await bystander.passes("after the kill")
    refused = await call(second.url, "f-open", "create_order", {"item": "chair", "quantity": 1})
    mid = await settled(second.url, "f-mid")
    sealed = await settled(second.url, "f-sealed")
    await bystander.passes("after the recovery")
    return Failover(keys, refused, mid, sealed)


def recovery(shown: dict[str, Any]) -> dict[str, Any]:
    """The commit attempt guard-2's recovery added after the one guard-1 decided."""
    decided, recovered = shown["commit_log"]
    assert (decided["via"], decided["decision"]) == ("tool", "allow")
    assert recovered["via"] == "recovery"
    # guard-1's own attempt is settled with the outcome too, not left "committing" for good
    assert decided["status"] == recovered["status"]
    # a lower bound the lease guarantees (slowness only widens it): no takeover while the lease runs
    waited = datetime.fromisoformat(recovered["at"]) - datetime.fromisoformat(decided["at"])
    assert waited >= timedelta(seconds=LEASE_S), "guard-2 took the commit over before the lease ran out"
    found: dict[str, Any] = recovered
    return found


def check_cut_off(mid: dict[str, Any], key: str) -> None:
    """f-mid: its write was cut off in flight, so guard-2 reports it unknown and does not send it again."""
    assert (mid["instance"], mid["status"]) == ("guard-1", "partial")
    assert mid["close_reason"] == (
        "commit finished by guard-2 after an interruption: the upstream applied 0 of 1 deferred write(s); "
        "outcome unknown (may have been applied): create_order (#1): timeout: an attempt was interrupted "
        "before its reply; repeating this write is not safe"
    )
    cut_off = recovery(mid)
    assert cut_off["status"] == "partial"
    assert [(w["idempotency_key"], w["status"]) for w in cut_off["dispatch"]] == [(key, "unknown")]


def check_finished(sealed: dict[str, Any], keys: list[str]) -> None:
    """f-sealed: none of its writes had left guard-1, so guard-2 sends them all, in order."""
    assert (sealed["instance"], sealed["status"]) == ("guard-1", "committed")
    assert sealed["close_reason"] == (
        "commit finished by guard-2 after an interruption: the upstream applied 2 of 2 deferred write(s)"
    )
    finished = recovery(sealed)
    assert finished["status"] == "committed"
    assert [(w["idempotency_key"], w["status"]) for w in finished["dispatch"]] == [
        (key, "applied") for key in keys
    ]


async def check_upstream(upstream: Upstream, keys: dict[str, list[str]]) -> None:
    """Every write reached the upstream at most once; guard-1's committed ones exactly once, in order."""

    async def mid_applied() -> bool:  # the shop finishes the held call once released, whoever waits for it
        return keys["f-mid"][0] in upstream.applied()

    await until("the upstream to apply f-mid's write", mid_applied)
    applied, received = upstream.applied(), upstream.received()
    assert [applied[key] for key in keys["f-mid"] + keys["f-sealed"]] == [1, 1, 1]
    assert [received[key] for key in keys["f-mid"] + keys["f-sealed"]] == [1, 1, 1]
    assert received[keys["f-open"][0]] == 0
    assert set(applied.values()) == set(received.values()) == {1}  # nothing at all reached it twice
    order = [entry["key"] for entry in journal(upstream.journal)]
    assert order.index(keys["f-sealed"][0]) < order.index(keys["f-sealed"][1])


async def test_a_killed_replicas_sealed_commits_are_finished_by_another_once_the_lease_runs_out(
    replicas: tuple[Replica, Replica], upstream: Upstream, postgres_url: str, postgres_schema: str
) -> None:
    """Requirements G13, G33 with real processes: guard-1 is SIGKILLed with two commits sealed; after the
    lease guard-2 finishes them, each write reaching the upstream once (the one cut off in flight is reported
    unknown, never resent; the ones never sent are sent, in order); the open transaction's write is never
    sent, and its key is refused on guard-2 naming guard-1; an agent on guard-2 sees no error all along."""
    bystander = Bystander(replicas[1].url)
    running = asyncio.create_task(bystander.run())
    try:
        run = await fail_over(replicas, upstream, bystander, (postgres_url, postgres_schema))
    finally:
        bystander.stopping = True
        await asyncio.wait_for(running, timeout=WAIT_S)
    assert bystander.errors == []
    assert {phase for phase, _ in bystander.done} == {
        "before the kill",
        "after the kill",
        "after the recovery",
    }
    assert run.refused.is_error
    assert _text(run.refused).startswith("transaction f-open is held by replica guard-1, not by this one")
    check_cut_off(run.mid, run.keys["f-mid"][0])
    check_finished(run.sealed, run.keys["f-sealed"])
    await check_upstream(upstream, run.keys)
    assert await outbox_rows(postgres_url, postgres_schema) == {
        "f-mid": [("unknown", "guard-2", 1)],
        "f-open": [("held", "guard-1", 0)],
        "f-sealed": [("applied", "guard-2", 1), ("applied", "guard-2", 1)],
    }
