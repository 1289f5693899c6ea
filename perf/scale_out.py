"""Guard replicas behind HAProxy on one PostgreSQL, under concurrent agents; the plain MCP SDK as the anchor.

One run:

1. a fresh database ``guard_scale_<pid>`` (system of record and audit log), dropped at the end;
2. N ``guard serve`` processes (instances ``guard-1`` … ``guard-N``) behind HAProxy, configured by
   ``deploy/haproxy/haproxy.cfg`` with this run's server lines (routing by ``/mcp/t/<key>``);
3. M agents, each a loop of transactions of the demo backend through the official client
   (``async with mcp.Client(url)``): reads, a write committed, or a write the gate blocks and the
   agent repairs (a ticket ``solved`` while its order's carrier exception is open, then ``hold``);
   each agent works its own two tickets, so agents do not wait on each other's rows;
4. the same read tool (``get_ticket``) served plain by the MCP SDK (no guard, N processes behind
   the same HAProxy, round robin) under the same M agents, as the anchor; then both read arms again
   from the light generator of ``perf/raw_load.py`` (raw JSON-RPC, a few percent of the machine), whose
   figures (``server_*``) are the servers' own and not the official client's;
5. the consistency check: every transaction an agent saw committed is committed in the audit log
   and its rows are the tickets' current state; no ticket holds a write the log does not show as
   committed by an allowed attempt (``unjudged``); no rows beyond the seeded ones.

``--kill-replica`` SIGKILLs ``guard-2`` half-way and starts it again under its name two seconds later
(as a StatefulSet or a compose restart policy does): its start records its open transactions aborted.
Errors are split by the replica that held the transaction: on a live one (goal 0), on the dead one,
and whether the agent was told to start a new transaction.

A refusal because a replica's ``backend.max_open_transactions`` are all in use is back-pressure,
not an error: the agent waits a little and calls again (counted as ``busy``).

    .venv/bin/python perf/scale_out.py --replicas 3 --agents 20 --seconds 20 [--kill-replica]

The last line printed is a JSON object with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import mcp_types as types
from mcp import Client
from raw_load import Flow, Step, closed_loop
from scale_stack import (
    Stack,
    agent_tickets,
    cpu_seconds,
    cpu_snapshot,
    cpu_spent,
    create_database,
    database_pids,
    drop_database,
    open_connections,
    plain_servers,
    prepare_database,
    rss_mb,
    serve_plain,
    slots_per_replica,
    sql,
    stack,
    wait_ready,
)

ADMIN_URL = os.environ.get("GUARD_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
COMMIT_TOOL = "guard_commit"
KILLED = "guard-2"
TOLD_NEW = ("start a new transaction", "use a new transaction key", "start a new key")
BUSY = "transactions are open, the limit is"
READS_PER_SESSION = 5
"""Calls per client session of the read-only arms (plain, and guarded with a commit after them)."""
PLAIN_TICKET = 20


# -- figures ------------------------------------------------------------------------------------


def quantile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Failure(NamedTuple):
    key: str
    """The transaction key (``plain`` in the plain arm)."""
    told: str
    """What the agent was told: a tool error's text, or the exception."""
    at: float
    """When the agent saw it (``time.time()``, the clock HAProxy's log uses)."""


def failure(key: str, told: str) -> Failure:
    return Failure(key, told, time.time())


@dataclass
class Seen:
    """What one agent arm saw: latencies, errors, the transactions it believes committed."""

    calls_ms: list[float] = field(default_factory=list)
    reads_ms: list[float] = field(default_factory=list)
    commits_ms: list[float] = field(default_factory=list)
    errors: list[Failure] = field(default_factory=list)
    told_new: set[str] = field(default_factory=set)
    busy: int = 0
    blocked: int = 0
    admission_ms: list[float] = field(default_factory=list)
    """How long each transaction waited for a free slot before its first call."""
    transactions: list[tuple[str, dict[int, str], str | None]] = field(default_factory=list)
    """Per agent in order: (key, ticket → the note it wrote, the commit status the agent saw)."""


History = list[list[tuple[str, dict[int, str], str | None]]]
"""Per agent, its transactions in order (see ``Seen.transactions``)."""


class _Abandon(Exception):
    """The agent gives this transaction up (an error it cannot repair)."""


def _leaf(exc: BaseException) -> BaseException:
    """The exception inside the task groups the client wraps it in."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _described(exc: BaseException) -> str:
    leaf = _leaf(exc)
    return f"{type(leaf).__name__}: {leaf}"


def _text(result: types.CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


# -- agents -------------------------------------------------------------------------------------


async def _call(
    client: Client, seen: Seen, key: str, tool: str, arguments: dict[str, Any], *, read: bool = False
) -> types.CallToolResult:
    """One call, timed from the first attempt to the answer (waits for a free slot included)."""
    started = time.perf_counter()
    while True:
        try:
            result = await client.call_tool(tool, arguments)
        except Exception as exc:
            seen.errors.append(failure(key, _described(exc)))
            raise _Abandon from exc
        if result.is_error and BUSY in _text(result):
            seen.busy += 1
            await asyncio.sleep(random.uniform(0.02, 0.1))
            continue
        break
    elapsed = (time.perf_counter() - started) * 1000
    (seen.commits_ms if tool == COMMIT_TOOL else seen.calls_ms).append(elapsed)
    if read:
        seen.reads_ms.append(elapsed)
    if result.is_error and tool != COMMIT_TOOL:
        raise _abandon(seen, key, _text(result))
    return result


def _abandon(seen: Seen, key: str, told: str) -> _Abandon:
    """Record what the agent was told, and give the transaction up."""
    seen.errors.append(failure(key, told))
    if any(phrase in told for phrase in TOLD_NEW):
        seen.told_new.add(key)
    return _Abandon(told)


async def _commit(client: Client, seen: Seen, key: str, summary: str) -> str:
    result = await _call(client, seen, key, COMMIT_TOOL, {"summary": summary})
    body = result.structured_content if isinstance(result.structured_content, dict) else {}
    status = str(body.get("status", "error"))
    if status not in ("committed", "blocked"):
        raise _abandon(seen, key, _text(result))
    return status


async def mixed(client: Client, seen: Seen, key: str, index: int, writes: dict[int, str]) -> str:
    """A transaction of the realistic mix: reads, then a write committed, or a write the gate blocks and
    the agent repairs; ``writes`` gets the tickets written."""
    kind = random.choices(["read", "write", "repair"], weights=[5, 3, 2])[0]
    calm, stuck = agent_tickets(index)
    mine = stuck if kind == "repair" else calm
    await _call(client, seen, key, "get_ticket", {"ticket_id": mine}, read=True)
    order = "ORD-10000020" if mine == stuck else "ORD-10000021"
    await _call(client, seen, key, "get_order", {"order_id": order}, read=True)
    await _call(client, seen, key, "get_shipments", {"order_id": order}, read=True)
    if kind == "write":
        writes[calm] = key
        status = random.choice(["open", "pending"])
        await _call(client, seen, key, "update_ticket", {"ticket_id": calm, "status": status, "note": key})
    if kind == "repair":
        writes[stuck] = key
        await _call(client, seen, key, "update_ticket", {"ticket_id": stuck, "status": "solved", "note": key})
        if await _commit(client, seen, key, "solved the ticket") != "blocked":
            raise _abandon(seen, key, "the gate let a ticket be solved during a carrier exception")
        seen.blocked += 1
        arguments = {"ticket_id": stuck, "status": "hold", "note": key}
        await _call(client, seen, key, "update_ticket", arguments)
    return await _commit(client, seen, key, f"{kind} done")


async def reads_only(client: Client, seen: Seen, key: str, index: int, writes: dict[int, str]) -> str:
    """The plain agent's session through the guard: the same reads of the same ticket, then a commit."""
    for _ in range(READS_PER_SESSION):
        await _call(client, seen, key, "get_ticket", {"ticket_id": PLAIN_TICKET}, read=True)
    return await _commit(client, seen, key, "read only")


Work = Callable[[Client, Seen, str, int, dict[int, str]], Awaitable[str]]


async def _retry_for_answer(url: str, seen: Seen, key: str) -> None:
    """After a lost connection, ask once more under the same key: the guard must say what to do."""
    with contextlib.suppress(Exception):
        async with Client(url) as client:
            result = await client.call_tool("get_ticket", {"ticket_id": PLAIN_TICKET})
            if result.is_error and any(phrase in _text(result) for phrase in TOLD_NEW):
                seen.told_new.add(key)


@dataclass(frozen=True)
class Arm:
    """Guarded agents: what each transaction does, and the prefix of its keys (each arm its own keys)."""

    work: Work
    prefix: str


MIXED = Arm(mixed, "a")
READS = Arm(reads_only, "r")


async def guarded_agent(
    arm: Arm, index: int, base: str, deadline: float, seen: Seen, slots: asyncio.Semaphore
) -> None:
    """Transactions until ``deadline``; each waits its turn for one of the fleet's ``slots`` (FIFO)."""
    n = 0
    while time.monotonic() < deadline:
        queued = time.perf_counter()
        async with slots:
            seen.admission_ms.append((time.perf_counter() - queued) * 1000)
            await _transaction(arm.work, index, base, seen, f"{arm.prefix}{index}-{n}")
        n += 1


async def _transaction(work: Work, index: int, base: str, seen: Seen, key: str) -> None:
    writes: dict[int, str] = {}
    url = f"{base}/mcp/t/{key}"
    status: str | None = None
    try:
        async with Client(url) as client:
            status = await work(client, seen, key, index, writes)
    except Exception as exc:
        leaf = _leaf(exc)  # an _Abandon has been counted already
        if not isinstance(leaf, _Abandon):
            seen.errors.append(failure(key, _described(exc)))
        if not isinstance(leaf, _Abandon) or leaf.__cause__ is not None:
            await _retry_for_answer(url, seen, key)
    seen.transactions.append((key, writes, status))


async def plain_agent(url: str, deadline: float, seen: Seen) -> None:
    while time.monotonic() < deadline:
        try:
            async with Client(url) as client:
                for _ in range(READS_PER_SESSION):
                    started = time.perf_counter()
                    result = await client.call_tool("get_ticket", {"ticket_id": PLAIN_TICKET})
                    seen.calls_ms.append((time.perf_counter() - started) * 1000)
                    if result.is_error:
                        seen.errors.append(failure("plain", _text(result)))
        except Exception as exc:
            seen.errors.append(failure("plain", _described(exc)))


# -- checks -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Consistency:
    committed_seen: int
    lost: int
    unjudged: int
    extra_rows: int
    problems: tuple[str, ...]


async def check_consistency(url: str, agents: int, per_agent: History) -> Consistency:
    """What the agents saw against the system of record and the audit log (see the module docstring)."""
    audited = {r["id"]: r["status"] for r in await sql(url, "SELECT id, status FROM guard_transactions")}
    query = "SELECT transaction_id FROM guard_commits WHERE decision = 'allow'"
    allowed = {r["transaction_id"] for r in await sql(url, query)}
    rows = {r["id"]: r["note"] for r in await sql(url, "SELECT id, note FROM tickets")}
    problems: list[str] = []
    lost = unjudged = seen_committed = 0
    expected: dict[int, str | None] = {}
    for history in per_agent:
        for key, writes, status in history:
            if status == "committed":
                seen_committed += 1
                if audited.get(key) != "committed":
                    lost += 1
                    problems.append(f"{key}: the agent saw committed, the log says {audited.get(key)}")
            if audited.get(key) == "committed":
                expected.update(writes)
    for ticket, note in rows.items():
        if ticket < 1000:
            continue
        if note is not None and (audited.get(note) != "committed" or note not in allowed):
            unjudged += 1
            problems.append(f"ticket {ticket}: holds {note}'s write, which is {audited.get(note)} in the log")
        elif note != expected.get(ticket):
            lost += 1
            problems.append(
                f"ticket {ticket}: holds {note}, the last committed write was {expected.get(ticket)}"
            )
    extra = len(rows) - (2 + 2 * agents)
    return Consistency(seen_committed, lost, unjudged, extra, tuple(problems[:10]))


async def failover_figures(url: str) -> dict[str, int]:
    """The killed replica's transactions as the log ends them."""
    query = "SELECT status, count(*) AS n FROM guard_transactions WHERE instance = $1 GROUP BY status"
    rows = await sql(url, query, KILLED)
    outbox = (await sql(url, "SELECT count(*) FROM guard_outbox"))[0][0]
    by_status = {r["status"]: int(r["n"]) for r in rows}
    return {
        "killed_aborted": by_status.get("aborted", 0),
        "killed_left_open": sum(by_status.get(s, 0) for s in ("open", "pending_approval", "committing")),
        "outbox_entries": int(outbox),
    }


async def owners(url: str) -> dict[str, str]:
    return {r["id"]: r["instance"] for r in await sql(url, "SELECT id, instance FROM guard_transactions")}


# -- the run ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSpec:
    replicas: int = 1
    agents: int = 20
    seconds: float = 20
    kill_replica: bool = False
    plain: bool = True
    admin_url: str = ADMIN_URL


async def _load(spec: RunSpec, run: Stack, arm: Arm, *, kill: bool) -> tuple[Seen, History, float]:
    seens = [Seen() for _ in range(spec.agents)]
    started = time.monotonic()
    deadline = started + spec.seconds
    slots = asyncio.Semaphore(spec.replicas * slots_per_replica(spec.replicas))
    tasks = [
        asyncio.create_task(guarded_agent(arm, i, run.guard_url, deadline, seens[i], slots))
        for i in range(spec.agents)
    ]
    if kill:
        await asyncio.sleep(spec.seconds / 2)
        victim = run.replica(KILLED)
        victim.kill()
        await asyncio.sleep(2)
        victim.start()
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - started
    total = Seen()
    for seen in seens:
        total.calls_ms += seen.calls_ms
        total.reads_ms += seen.reads_ms
        total.commits_ms += seen.commits_ms
        total.errors += seen.errors
        total.told_new |= seen.told_new
        total.busy += seen.busy
        total.blocked += seen.blocked
        total.admission_ms += seen.admission_ms
        total.transactions += seen.transactions
    return total, [s.transactions for s in seens], elapsed


T = TypeVar("T")


async def _costed(
    url: str, groups: Callable[[list[int]], dict[str, list[int]]], load: Awaitable[T]
) -> tuple[T, dict[str, float]]:
    """``load``'s result and the CPU seconds each group of processes spent on it (``groups`` gets the
    database's backends)."""
    before = cpu_snapshot(groups(await database_pids(url)))
    result = await load
    return result, cpu_spent(before, cpu_snapshot(groups(await database_pids(url))))


async def _plain_load(spec: RunSpec, run: Stack) -> tuple[Seen, float, dict[str, float]]:
    seen = Seen()

    async def load() -> float:
        started = time.monotonic()
        deadline = started + spec.seconds
        await asyncio.gather(*(plain_agent(run.plain_url, deadline, seen) for _ in range(spec.agents)))
        return time.monotonic() - started

    async with plain_servers(run) as processes:
        pids = [p.pid for p in processes]
        elapsed, spent = await _costed(run.url, lambda db: {"plain": pids, "database": db}, load())
        return seen, elapsed, spent


async def _reads_load(spec: RunSpec, run: Stack) -> tuple[Seen, History, float, dict[str, float]]:
    """The plain arm's reads through the guard (a transaction per session, committed)."""
    (seen, history, elapsed), spent = await _costed(
        run.url, lambda db: _groups(run, db), _load(spec, run, READS, kill=False)
    )
    return seen, history, elapsed, spent


async def _at_the_server(spec: RunSpec, run: Stack) -> dict[str, Any]:
    """The read arms again, driven by the light generator (:mod:`raw_load`: raw JSON-RPC on keep-alive
    sockets, a small share of the machine), so that the figures are the servers' and not the official
    client's: guarded reads in transactions of ``READS_PER_SESSION`` (each then committed) through
    HAProxy, and reads served plain; CPU per read is the servers' own (replicas; plain processes)."""
    connections = min(spec.agents, spec.replicas * slots_per_replica(spec.replicas))
    read = {"ticket_id": PLAIN_TICKET}
    guard = Flow("127.0.0.1", run.lb_port, "get_ticket", read, per_transaction=READS_PER_SESSION, name="raw")
    guards = [r.process.pid for r in run.replicas if r.process is not None]
    guarded = await closed_loop(guard, connections, spec.seconds, probe=lambda: sum(map(cpu_seconds, guards)))
    async with plain_servers(run) as processes:
        pids = [p.pid for p in processes]
        plain = Flow("127.0.0.1", run.plain_lb_port, "get_ticket", read, name="raw-plain")
        served = await closed_loop(
            plain, connections, spec.seconds, probe=lambda: sum(map(cpu_seconds, pids))
        )
    return _server_figures(guarded, served)


def _server_figures(guarded: Step, plain: Step) -> dict[str, Any]:
    cores = os.cpu_count() or 1
    share = max(step.generator_cpu_s / (step.seconds * cores) for step in (guarded, plain))
    return {
        "server_connections": guarded.connections,
        "server_guard_calls_per_s": round(guarded.calls_per_s, 1),
        "server_plain_calls_per_s": round(plain.calls_per_s, 1),
        "server_calls_ratio": round(guarded.calls_per_s / plain.calls_per_s, 3) if plain.calls else 0,
        "server_guard_cpu_ms_per_call": round(guarded.server_cpu_ms_per_call, 3),
        "server_plain_cpu_ms_per_call": round(plain.server_cpu_ms_per_call, 3),
        "server_guard_p50_ms": round(guarded.quantile(0.5), 2),
        "server_plain_p50_ms": round(plain.quantile(0.5), 2),
        "server_generator_cpu_share": round(share, 3),
        "server_errors": guarded.errors + plain.errors,
        "server_error_samples": [e for e in (guarded.first_error, plain.first_error) if e][:2],
    }


def _groups(run: Stack, database: list[int]) -> dict[str, list[int]]:
    guards = [r.process.pid for r in run.replicas if r.process is not None and r.process.poll() is None]
    return {"guard": guards, "balancer": [p.pid for p in run.others], "database": database}


async def _sample(run: Stack, at: float) -> tuple[float, float, int]:
    rss = sum(rss_mb(pid) for pid in _groups(run, [])["guard"])
    return round(at, 1), round(rss, 1), await open_connections(run.url)


async def _memory(run: Stack, seconds: float, into: list[tuple[float, float, int]]) -> None:
    """The replicas' RSS (MB, summed) and the database's connections, every twentieth of the run (at least
    every 30 s, when the run is a soak): ``(seconds since the start, RSS, connections)``."""
    every = min(30.0, seconds / 20)
    started = time.monotonic()
    while True:
        into.append(await _sample(run, time.monotonic() - started))
        if time.monotonic() - started + every > seconds:
            return
        await asyncio.sleep(every)


def memory_figures(series: list[tuple[float, float, int]], seconds: float) -> dict[str, Any]:
    """RSS and connections at the start, once warm (a tenth of the run), half-way and at the end; RSS growth
    from warm to the end, and over the second half alone (a leak keeps its pace; a warm-up slows down)."""

    def at(fraction: float) -> tuple[float, float, int]:
        return min(series, key=lambda sample: abs(sample[0] - fraction * seconds))

    (_, start, c_start), (_, warm, c_warm), (_, half, _), (_, end, c_end) = (at(f) for f in (0, 0.1, 0.5, 1))
    return {
        "rss_mb_start": start,
        "rss_mb_warm": warm,
        "rss_mb_half": half,
        "rss_mb_end": end,
        "rss_growth_pct_from_warm": round(100 * (end - warm) / warm, 1) if warm else 0,
        "rss_growth_pct_second_half": round(100 * (end - half) / half, 1) if half else 0,
        "connections_start": c_start,
        "connections_warm": c_warm,
        "connections_end": c_end,
        "memory_series": [list(sample) for sample in series],
    }


async def _guard_phase(spec: RunSpec, run: Stack) -> tuple[Seen, History, float, dict[str, Any]]:
    """The guarded load of the realistic mix, with the connections, the replicas' memory and the CPU each
    part spent."""
    series: list[tuple[float, float, int]] = []
    sampled = asyncio.create_task(_memory(run, spec.seconds, series))
    (seen, per_agent, elapsed), spent = await _costed(
        run.url, lambda db: _groups(run, db), _load(spec, run, MIXED, kill=spec.kill_replica)
    )
    await sampled
    series.append(await _sample(run, elapsed))
    calls = max(1, len(seen.calls_ms) + len(seen.commits_ms))
    extra = {
        **memory_figures(series, elapsed),
        **{f"{name}_cpu_ms_per_call": round(cpu * 1000 / calls, 2) for name, cpu in spent.items()},
    }
    return seen, per_agent, elapsed, extra


Routes = dict[str, list[tuple[float, str]]]
"""Per key, in the order HAProxy finished them: (when the request's connection was accepted, the server that
served it or failed it)."""


def routes(log: Path) -> Routes:
    """HAProxy's log lines of ``ROUTE_LOG``, by key."""
    by_key: Routes = {}
    for line in log.read_text(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] == "route":
            with contextlib.suppress(ValueError):
                by_key.setdefault(parts[1], []).append((float(parts[4]), parts[2]))
    return by_key


def served_by(routed: list[tuple[float, str]], at: float) -> str | None:
    """The server of the last request accepted before ``at``: the one whose failure the agent saw then (a
    retry after an error opens a new connection, accepted after it)."""
    before = [server for accepted, server in routed if accepted <= at]
    return before[-1] if before else None


def _split_errors(
    errors: list[Failure], owner: dict[str, str], told_new: set[str], routed: Routes
) -> dict[str, Any]:
    """Errors by where their transaction was: on the killed replica when the log says it held the key, or
    when HAProxy had sent the failed request there (a transaction not yet opened: the protocol's discovery
    call); else on a live one."""
    dead = {
        e.key
        for e in errors
        if owner.get(e.key) == KILLED or served_by(routed.get(e.key, []), e.at) == KILLED
    }
    held = {key for key in dead if owner.get(key) == KILLED}
    live = [e for e in errors if e.key not in dead]
    return {
        "errors_on_live_replicas": len(live),
        "live_error_samples": sorted({f"{e.key}: {e.told[:160]}" for e in live})[:5],
        "errors_on_killed_replica": len(errors) - len(live),
        "killed_transactions_with_errors": len(held),
        "killed_agents_told_new": len(held & told_new),
    }


async def run(spec: RunSpec) -> dict[str, Any]:
    name = f"guard_scale_{os.getpid()}"
    url = await create_database(spec.admin_url, name)
    try:
        await prepare_database(url, spec.agents)
        with tempfile.TemporaryDirectory(prefix="guard-scale-") as tmp:
            async with stack(Path(tmp), url, spec.replicas) as running:
                seen, per_agent, elapsed, measured = await _guard_phase(spec, running)
                if spec.kill_replica:
                    await wait_ready(f"http://127.0.0.1:{running.replica(KILLED).port}/readyz")
                reads_history: History = []
                reads_cpu: dict[str, float] = {}
                plain_cpu: dict[str, float] = {}
                reads, reads_elapsed, plain, plain_elapsed = Seen(), 1.0, Seen(), 1.0
                server: dict[str, Any] = {}
                if spec.plain:
                    reads, reads_history, reads_elapsed, reads_cpu = await _reads_load(spec, running)
                    plain, plain_elapsed, plain_cpu = await _plain_load(spec, running)
                    server = await _at_the_server(spec, running)
            consistency = await check_consistency(url, spec.agents, per_agent + reads_history)
            figures = _figures(spec, seen, elapsed, plain, plain_elapsed, consistency)
            figures.update(_read_figures(reads, reads_elapsed, reads_cpu, figures))
            figures["errors"] += len(reads.errors)
            figures.update(measured)
            figures.update(server)
            plain_calls = max(1, len(plain.calls_ms))
            figures.update(
                {f"plain_{k}_cpu_ms_per_call": round(v * 1000 / plain_calls, 2) for k, v in plain_cpu.items()}
            )
            if spec.kill_replica:
                figures.update(await failover_figures(url))
                routed = routes(Path(tmp) / "haproxy.log")
                figures.update(_split_errors(seen.errors, await owners(url), seen.told_new, routed))
            figures["sample_errors"] = sorted({e.told[:160] for e in seen.errors + reads.errors})[:5]
            figures["plain_error_samples"] = sorted({e.told[:160] for e in plain.errors})[:3]
            figures["problems"] = list(consistency.problems)
            return figures
    finally:
        await drop_database(spec.admin_url, name)


def _read_figures(
    reads: Seen, elapsed: float, cpu: dict[str, float], figures: dict[str, Any]
) -> dict[str, Any]:
    """The guarded read arm beside the plain one (``figures`` holds the plain arm's); CPU per read includes
    the read-only commit that ends each session."""
    per_s = round(len(reads.reads_ms) / elapsed, 1)
    per_read = {
        f"read_{k}_cpu_ms_per_read": round(v * 1000 / max(1, len(reads.reads_ms)), 2) for k, v in cpu.items()
    }
    p50, p99 = round(quantile(reads.reads_ms, 0.5), 1), round(quantile(reads.reads_ms, 0.99), 1)
    return {
        "read_calls": len(reads.reads_ms),
        "guarded_reads_per_s": per_s,
        "guarded_read_p50_ms": p50,
        "guarded_read_p99_ms": p99,
        "guarded_read_commit_p99_ms": round(quantile(reads.commits_ms, 0.99), 1),
        "read_errors": len(reads.errors),
        "read_sessions_committed": sum(status == "committed" for _, _, status in reads.transactions),
        "reads_ratio": round(per_s / figures["plain_calls_per_s"], 2) if figures["plain_calls_per_s"] else 0,
        "read_p99_ratio": round(p99 / figures["plain_call_p99_ms"], 2) if figures["plain_call_p99_ms"] else 0,
        **per_read,
    }


def _figures(
    spec: RunSpec, seen: Seen, elapsed: float, plain: Seen, plain_elapsed: float, consistency: Consistency
) -> dict[str, Any]:
    calls = len(seen.calls_ms) + len(seen.commits_ms)
    figures: dict[str, Any] = {
        "replicas": spec.replicas,
        "agents": spec.agents,
        "seconds": round(elapsed, 1),
        "calls": calls,
        "calls_per_s": round(calls / elapsed, 1),
        "commits": len(seen.commits_ms),
        "committed_seen": consistency.committed_seen,
        "blocked_then_repaired": seen.blocked,
        "busy_waits": seen.busy,
        "errors": len(seen.errors),
        "lost": consistency.lost,
        "unjudged": consistency.unjudged,
        "extra_rows": consistency.extra_rows,
        "plain_calls_per_s": round(len(plain.calls_ms) / plain_elapsed, 1),
        "plain_errors": len(plain.errors),
    }
    timed = {"call": seen.calls_ms, "read": seen.reads_ms, "commit": seen.commits_ms}
    timed |= {"admission": seen.admission_ms, "plain_call": plain.calls_ms}
    for name, samples in timed.items():
        figures[f"{name}_p50_ms"] = round(quantile(samples, 0.5), 1)
        figures[f"{name}_p99_ms"] = round(quantile(samples, 0.99), 1)
    return figures


def report(figures: dict[str, Any]) -> Iterator[str]:
    f = figures
    yield f"{f['replicas']} replica(s), {f['agents']} agents, {f['seconds']} s"
    yield (
        f"  the mix through the guard {f['calls_per_s']:8.1f} calls/s  call p50 {f['call_p50_ms']} ms "
        f"p99 {f['call_p99_ms']} ms  commit p50 {f['commit_p50_ms']} ms p99 {f['commit_p99_ms']} ms"
    )
    if f["read_calls"] or f["plain_calls_per_s"]:  # the anchor arms ran
        yield (
            f"  reads through the guard {f['guarded_reads_per_s']:8.1f} calls/s ({f['reads_ratio']}x plain)  "
            f"p50 {f['guarded_read_p50_ms']} ms p99 {f['guarded_read_p99_ms']} ms "
            f"({f['read_p99_ratio']}x plain)  "
            f"their commits p99 {f['guarded_read_commit_p99_ms']} ms, errors {f['read_errors']}"
        )
        yield (
            f"  reads served plain      {f['plain_calls_per_s']:8.1f} calls/s  "
            f"p50 {f['plain_call_p50_ms']} ms p99 {f['plain_call_p99_ms']} ms"
        )
    if "server_guard_calls_per_s" in f:  # the same reads from the light generator: the servers' figures
        yield (
            f"  at the server ({f['server_connections']} raw connections, the generator "
            f"{100 * f['server_generator_cpu_share']:.1f} % of the machine): guarded reads "
            f"{f['server_guard_calls_per_s']:8.1f} calls/s ({f['server_calls_ratio']}x plain), "
            f"{f['server_guard_cpu_ms_per_call']} ms CPU a read; plain {f['server_plain_calls_per_s']} "
            f"calls/s, {f['server_plain_cpu_ms_per_call']} ms CPU a read; errors {f['server_errors']}"
        )
    yield (
        f"  commits {f['commits']} ({f['committed_seen']} committed, {f['blocked_then_repaired']} "
        f"blocked then repaired), busy waits {f['busy_waits']}, errors {f['errors']}, lost {f['lost']}, "
        f"unjudged {f['unjudged']}, extra rows {f['extra_rows']}"
    )
    if "killed_aborted" in f:
        yield (
            f"  failover: {KILLED} killed; its transactions aborted {f['killed_aborted']}, left open "
            f"{f['killed_left_open']}; errors on live replicas {f['errors_on_live_replicas']}, "
            f"on the killed one {f['errors_on_killed_replica']} ({f['killed_agents_told_new']} of "
            f"{f['killed_transactions_with_errors']} of its transactions told to start a new one)"
        )
    if "killed_aborted" not in f:  # a killed and restarted replica's RSS is not a memory figure
        yield (
            f"  memory: the replicas' RSS {f['rss_mb_start']} MB at the start, {f['rss_mb_warm']} warm, "
            f"{f['rss_mb_half']} half-way, {f['rss_mb_end']} at the end: {f['rss_growth_pct_from_warm']:+} % "
            f"from warm, {f['rss_growth_pct_second_half']:+} % over the second half; database connections "
            f"{f['connections_start']} -> {f['connections_warm']} -> {f['connections_end']}"
        )
    for problem in f["problems"]:
        yield f"  problem: {problem}"
    yield json.dumps({k: v for k, v in f.items() if k != "problems"})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--kill-replica", action="store_true")
    parser.add_argument("--no-plain", action="store_true", help="skip the read-only arms (guarded and plain)")
    parser.add_argument("--serve-plain", nargs=2, metavar=("URL", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_plain:
        serve_plain(args.serve_plain[0], int(args.serve_plain[1]))
        return
    if args.kill_replica and args.replicas < 2:
        parser.error("--kill-replica needs --replicas 2 or more")
    spec = RunSpec(args.replicas, args.agents, args.seconds, args.kill_replica, not args.no_plain)
    for line in report(asyncio.run(run(spec))):
        print(line, flush=True)


if __name__ == "__main__":
    main()
