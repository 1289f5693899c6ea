"""SIGKILL the guard at random moments under load, restart it, and check that its record never lies.

Each kill is one cycle: ``guard serve`` starts (settling what the previous
process left), the state is checked, a few agents run realistic transactions
of the demo backend over streamable HTTP (reads, writes, a blocked commit
repaired, some rollbacks), and the guard is SIGKILLed after a random delay,
whatever it is doing: a call, a commit, or (``mcp`` backend) dispatching a
commit's writes to the upstream. After the last kill it starts once more and
the state is checked again. What the agents saw answered is the ledger the
record is checked against:

* lost: a commit an agent saw ``committed`` whose rows are not in the system of record;
* unjudged: rows in the system of record whose transaction has no allowed commit attempt in the log;
* misaudited: rows in the system of record whose transaction the log does not call committed
  (``partial`` counts as committed for the ``mcp`` backend only when the log names the write unknown);
* missing_calls: answered calls (and commit attempts) missing from the log, in order;
* duplicates: a transaction's row applied twice;
* partial_unfinishable (``mcp``): a commit left ``partial`` that an operator could not finish with
  ``guard transactions resolve`` (each unknown write, as the system of record shows it) and ``resume``;
  once finished, lost and duplicates are counted again.

Every count must be 0. ``sql`` runs the tools inside the guard's transactions;
``mcp`` puts the guard in front of an upstream MCP server (the same tools,
served plain from their own SQLite file), so that commits are dispatched
from the outbox. The last line is a JSON object with the counts.

    .venv/bin/python perf/crash_campaign.py --kills 100 --db sqlite,postgres --backend sql,mcp
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import yaml
from mcp import Client
from mcp.shared.exceptions import MCPError
from sqlalchemy import text

from guard.store.engine import create_engine

DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"

CAMPAIGN_RULES = """\
name: campaign
rules:
  - id: not-solved
    when: {table: "call:update_ticket", kind: call}
    require: "effect.after.status != 'solved'"
    decision: block
    message: "ticket {{effect.after.ticket_id}}: not solved while the campaign runs"
    hint: "use hold"
"""


COUNTED = ("lost", "unjudged", "misaudited", "missing_calls", "duplicates", "partial_unfinishable")
"""What must be 0 after every campaign."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Ledger:
    """What the agents saw answered, by transaction key."""

    calls: dict[str, list[str]] = field(default_factory=dict)
    commits: dict[str, list[str]] = field(default_factory=dict)
    in_flight: Counter[str] = field(default_factory=Counter)
    transactions: int = 0

    def call(self, key: str, tool: str) -> None:
        self.calls.setdefault(key, []).append(tool)

    def commit(self, key: str, status: str) -> None:
        self.commits.setdefault(key, []).append(status)


@dataclass
class Setup:
    """One campaign: a database for the audit log (and the system of record), a backend kind."""

    db: str
    backend: str
    root: Path
    postgres_url: str
    schema: str | None = None
    upstream: subprocess.Popen[bytes] | None = None
    upstream_port: int = 0

    @property
    def config(self) -> Path:
        return self.root / "guard.yaml"

    def store_url(self) -> str:
        return self.postgres_url if self.db == "postgres" else f"sqlite:///{self.root / 'audit.db'}"

    def sor_url(self) -> str:
        if self.backend == "mcp":
            return f"sqlite:///{self.root / 'upstream.db'}"
        return self.postgres_url if self.db == "postgres" else f"sqlite:///{self.root / 'shop.db'}"

    def sor_schema(self) -> str | None:
        return self.schema if self.backend == "sql" else None


def write_config(setup: Setup, port: int) -> None:
    config: dict[str, Any] = {
        "server": {"port": port, "instance": "campaign"},
        "audit": {"url": setup.store_url(), "search_path": setup.schema},
        "commit": {"reap_interval_s": 1, "idle_timeout_s": 30},
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "max_backoff_s": 0.05, "jitter_s": 0.01},
    }
    if setup.backend == "sql":
        config["backend"] = {
            "module": "guard.demo.backend",
            "url": setup.sor_url(),
            "search_path": setup.schema,
            "prepare": True,
            "lock_timeout_s": 2.0,
        }
    else:
        (setup.root / "rules.yaml").write_text(CAMPAIGN_RULES)
        config["backend"] = {
            "kind": "mcp",
            "mcp": {
                "url": f"http://127.0.0.1:{setup.upstream_port}/mcp",
                "timeout_s": 5,
                "dispatch": {"lease_s": 30, "initial_backoff_s": 0.01, "max_backoff_s": 0.05},
            },
        }
        config["judges"] = {"chain": [{"judge": "rules", "path": "rules.yaml"}]}
    setup.config.write_text(yaml.safe_dump(config))


def guard_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "guard", *args]


async def start_guard(setup: Setup, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    write_config(setup, port)
    with log.open("ab") as sink:
        process = subprocess.Popen(
            guard_command("serve", "--config", str(setup.config)), stdout=sink, stderr=sink
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    async with httpx2.AsyncClient(timeout=2) as http:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"guard serve exited with {process.returncode}; see {log}")
            with contextlib.suppress(httpx2.TransportError):
                if (await http.get(f"{url}/readyz")).status_code == 200:
                    return process, url
            if time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"guard serve was not ready in 60 s; see {log}")
            await asyncio.sleep(0.05)


async def transaction(client: Client, key: str, setup: Setup, ledger: Ledger, rng: random.Random) -> None:
    """One unit of agent work: read, write, commit (repairing a block), sometimes roll back."""

    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        ledger.in_flight["call"] += 1
        try:
            result = await client.call_tool(tool, arguments)
        finally:
            ledger.in_flight["call"] -= 1
        ledger.call(key, tool)
        return result

    async def commit() -> str:
        ledger.in_flight["commit"] += 1
        try:
            result = await client.call_tool("guard_commit", {"summary": f"campaign {key}"})
        finally:
            ledger.in_flight["commit"] -= 1
        status = str((result.structured_content or {}).get("status"))
        ledger.commit(key, status)
        return status

    # the write first: on SQLite a transaction that read before another's commit can never write
    created = await call("create_ticket", {"order_id": "ORD-10000021", "subject": key})
    await call("get_ticket", {"ticket_id": 21})
    if created.is_error:
        await client.call_tool("guard_rollback", {"reason": "could not create"})
        return
    if rng.random() < 0.1:
        await client.call_tool("guard_rollback", {"reason": "changed my mind"})
        return
    wants_block = rng.random() < 0.4
    stuck: int | None = None
    if setup.backend == "sql":
        ticket = int((created.structured_content or {})["id"])
        await call("update_ticket", {"ticket_id": ticket, "status": rng.choice(["pending", "hold", "open"])})
        if wants_block:
            held = await call(
                "create_ticket", {"order_id": "ORD-10000020", "subject": f"{key}/stuck", "status": "solved"}
            )
            stuck = None if held.is_error else int((held.structured_content or {})["id"])
    else:
        await call("update_ticket", {"ticket_id": 21, "status": "solved" if wants_block else "pending"})
    if await commit() != "blocked":
        return
    if stuck is None:
        await client.call_tool("guard_rollback", {"reason": "blocked"})
        return
    await call("update_ticket", {"ticket_id": stuck, "status": "hold", "note": key})
    await commit()


async def agent(url: str, number: int, cycle: int, setup: Setup, ledger: Ledger, seed: int) -> None:
    rng = random.Random(seed)
    for n in range(10_000):
        key = f"k{cycle}-{number}-{n}"
        ledger.transactions += 1
        try:
            async with Client(f"{url}/mcp/t/{key}") as client:
                await transaction(client, key, setup, ledger, rng)
        except MCPError:
            continue
        except Exception:
            return


async def run_cycle(setup: Setup, cycle: int, agents: int, ledger: Ledger, rng: random.Random) -> str:
    """Start, check, load, kill; returns what was in flight when the kill came."""
    process, url = await start_guard(setup, setup.root / "guard.log")
    tasks = [
        asyncio.create_task(agent(url, i, cycle, setup, ledger, rng.randrange(1 << 30)))
        for i in range(agents)
    ]
    await asyncio.sleep(rng.uniform(0.2, 2.5))
    phase = (
        "commit" if ledger.in_flight["commit"] > 0 else ("call" if ledger.in_flight["call"] > 0 else "idle")
    )
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    await asyncio.wait(tasks, timeout=30)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    ledger.in_flight.clear()
    return phase


async def read_state(setup: Setup) -> dict[str, Any]:
    """The system of record's campaign tickets, and the audit log, read directly."""
    sor = create_engine(setup.sor_url(), search_path=setup.sor_schema())
    audit = create_engine(setup.store_url(), search_path=setup.schema)
    try:
        async with sor.connect() as conn:
            rows = (await conn.execute(text("SELECT subject FROM tickets WHERE subject LIKE 'k%'"))).all()
        tickets = Counter(str(r[0]).split("/")[0] for r in rows)
        async with audit.connect() as conn:
            txns = {r[0]: r[1] for r in await conn.execute(text("SELECT id, status FROM guard_transactions"))}
            commits: dict[str, list[tuple[str, str]]] = {}
            for r in await conn.execute(
                text(
                    "SELECT transaction_id, decision, status FROM guard_commits "
                    "ORDER BY transaction_id, attempt"
                )
            ):
                commits.setdefault(r[0], []).append((r[1], r[2]))
            calls: dict[str, list[str]] = {}
            for r in await conn.execute(
                text("SELECT transaction_id, tool FROM guard_calls ORDER BY transaction_id, seq")
            ):
                calls.setdefault(r[0], []).append(r[1])
            unknown: set[str] = set()
            if setup.backend == "mcp":
                unknown = {
                    r[0]
                    for r in await conn.execute(
                        text("SELECT DISTINCT transaction_id FROM guard_outbox WHERE status = 'unknown'")
                    )
                }
    finally:
        await sor.dispose()
        await audit.dispose()
    return {"tickets": tickets, "transactions": txns, "commits": commits, "calls": calls, "unknown": unknown}


def check(setup: Setup, ledger: Ledger, state: dict[str, Any]) -> dict[str, list[str]]:
    tickets: Counter[str] = state["tickets"]
    txns: dict[str, str] = state["transactions"]
    commits: dict[str, list[tuple[str, str]]] = state["commits"]
    calls: dict[str, list[str]] = state["calls"]
    settled_ok = {"committed", "partial"} if setup.backend == "mcp" else {"committed"}
    found: dict[str, list[str]] = {
        k: [] for k in ("lost", "unjudged", "misaudited", "missing_calls", "duplicates")
    }
    for key, statuses in ledger.commits.items():
        if "committed" in statuses and tickets[key] == 0:
            found["lost"].append(key)
    for key, count in tickets.items():
        if not any(decision == "allow" for decision, _ in commits.get(key, [])):
            found["unjudged"].append(key)
        status = txns.get(key)
        if status not in settled_ok or (status == "partial" and key not in state["unknown"]):
            found["misaudited"].append(f"{key}:{status}")
        if count > 1 + (1 if setup.backend == "sql" else 0):
            found["duplicates"].append(key)
    for key, answered in ledger.calls.items():
        if calls.get(key, [])[: len(answered)] != answered:
            found["missing_calls"].append(key)
    for key, answered_commits in ledger.commits.items():
        if len(commits.get(key, [])) < len(answered_commits):
            found["missing_calls"].append(f"{key}:commit")
    return found


async def campaign(setup: Setup, kills: int, agents: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    ledger = Ledger()
    done = subprocess.run(
        guard_command("db", "upgrade", "--config", str(prepare_config(setup))), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    phases: Counter[str] = Counter()
    started = time.monotonic()
    for cycle in range(kills):
        phases[await run_cycle(setup, cycle, agents, ledger, rng)] += 1
    process, _ = await start_guard(setup, setup.root / "guard.log")
    try:
        problems = check(setup, ledger, await read_state(setup))
        finished = await finish_stuck(setup) if setup.backend == "mcp" else {}
        if finished:  # once finished, the record must still not lie, and nothing be applied twice
            after = check(setup, ledger, await read_state(setup))
            for name in ("lost", "unjudged", "duplicates"):
                problems[name] = sorted(set(problems[name]) | set(after[name]))
    finally:
        process.terminate()
        process.wait(timeout=30)
    state = await read_state(setup)
    statuses = Counter(state["transactions"].values())
    return {
        "db": setup.db,
        "backend": setup.backend,
        "kills": kills,
        "kills_during": dict(phases),
        "transactions": ledger.transactions,
        "answered_calls": sum(len(v) for v in ledger.calls.values()),
        "audited": dict(statuses),
        "seconds": round(time.monotonic() - started, 1),
        "partial_finished": finished.get("finished", 0),
        "partial_unfinishable": finished.get("unfinishable", 0),
        **{name: len(keys) for name, keys in problems.items()},
        "examples": {name: keys[:5] for name, keys in problems.items() if keys},
    }


async def finish_stuck(setup: Setup) -> dict[str, int]:
    """Finish every partial commit as an operator would, with the CLI: each write whose outcome is
    unknown resolved by looking at the system of record (its ticket is there, or not), then the rest
    resumed. Unfinishable: a partial transaction still partial after that, or a command that failed."""
    state = await read_state(setup)
    partial = sorted(key for key, status in state["transactions"].items() if status == "partial")
    audit = create_engine(setup.store_url(), search_path=setup.schema)
    try:
        async with audit.connect() as conn:
            unknown = [
                (str(r[0]), int(r[1]), str(r[2]))
                for r in await conn.execute(
                    text(
                        "SELECT transaction_id, seq, tool FROM guard_outbox WHERE status = 'unknown' "
                        "AND committed_at IS NOT NULL ORDER BY transaction_id, seq"
                    )
                )
            ]
    finally:
        await audit.dispose()
    failures = 0
    config = str(setup.config)
    for key, seq, tool in unknown:
        applied = tool != "create_ticket" or state["tickets"][key] > 0
        outcome = "applied" if applied else "failed"
        command = guard_command(
            "transactions", "resolve", key, outcome, "--call", str(seq), "--config", config
        )
        failures += subprocess.run(command, capture_output=True, text=True).returncode != 0
    for key in partial:
        command = guard_command("transactions", "resume", key, "--config", config)
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0 and "no failed or unsent write" not in done.stderr + done.stdout:
            failures += 1
    after = await read_state(setup)
    still = [key for key in partial if after["transactions"].get(key) == "partial"]
    return {"finished": len(partial) - len(still), "unfinishable": len(still) + failures}


def prepare_config(setup: Setup) -> Path:
    write_config(setup, 0)
    return setup.config


@contextlib.asynccontextmanager
async def postgres_schema(url: str) -> Any:
    name = f"campaign_{uuid.uuid4().hex[:10]}"
    engine = create_engine(url)
    async with engine.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{name}"'))
    try:
        yield name
    finally:
        async with engine.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        await engine.dispose()


@contextlib.asynccontextmanager
async def upstream(setup: Setup) -> Any:
    """The plain demo tools over MCP from their own SQLite file, in a process the kills spare."""
    setup.upstream_port = free_port()
    path = setup.root / "upstream.db"
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--serve-upstream",
        str(path),
        str(setup.upstream_port),
    ]
    with (setup.root / "upstream.log").open("ab") as sink:
        setup.upstream = subprocess.Popen(command, stdout=sink, stderr=sink)
    try:
        deadline = time.monotonic() + 60
        while not path.exists() or not _listening(setup.upstream_port):
            if time.monotonic() > deadline or setup.upstream.poll() is not None:
                raise RuntimeError("the upstream did not start")
            await asyncio.sleep(0.05)
        yield
    finally:
        setup.upstream.terminate()
        setup.upstream.wait(timeout=30)


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def serve_upstream(path: Path, port: int) -> None:
    import uvicorn

    from guard.clock import SystemClock
    from guard.demo.backend import prepare, tools
    from guard.edge.plain import build_plain_server

    async def prepared() -> None:
        engine = create_engine(f"sqlite:///{path}")
        async with engine.begin() as conn:
            await prepare(conn)
        await engine.dispose()

    asyncio.run(prepared())
    engine = create_engine(f"sqlite:///{path}")
    app = build_plain_server(engine, tools, SystemClock()).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


async def run_one(db: str, backend: str, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="guard-crash-") as tmp:
        setup = Setup(db, backend, Path(tmp), args.postgres_url)
        async with contextlib.AsyncExitStack() as stack:
            if db == "postgres":
                setup.schema = await stack.enter_async_context(postgres_schema(args.postgres_url))
            if backend == "mcp":
                await stack.enter_async_context(upstream(setup))
            agents = args.agents or (2 if db == "sqlite" else 4)
            result = await campaign(setup, args.kills, agents, seed)
        if args.keep_logs:
            target = Path(args.keep_logs) / f"{db}-{backend}"
            target.mkdir(parents=True, exist_ok=True)
            for name in ("guard.log", "upstream.log"):
                if (setup.root / name).exists():
                    (target / name).write_bytes((setup.root / name).read_bytes())
        return result


async def main(args: argparse.Namespace) -> dict[str, Any]:
    results = []
    for index, (db, backend) in enumerate(
        (db, backend) for db in args.db.split(",") for backend in args.backend.split(",")
    ):
        result = await run_one(db, backend, args, args.seed + index)
        print(json.dumps(result), flush=True)
        results.append(result)
    names = COUNTED
    return {
        "kills": sum(r["kills"] for r in results),
        **{name: sum(r[name] for r in results) for name in names},
        "runs": [f"{r['db']}/{r['backend']}" for r in results],
    }


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kills", type=int, default=50, help="kills per database and backend")
    parser.add_argument(
        "--agents", type=int, default=None, help="concurrent agents (default: 2 on SQLite, 4 else)"
    )
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--backend", default="sql,mcp")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres-url", default=os.environ.get("GUARD_TEST_POSTGRES_URL", DEFAULT_POSTGRES))
    parser.add_argument("--keep-logs", default=None, help="copy the guard's logs here")
    parser.add_argument("--serve-upstream", nargs=2, metavar=("DB", "PORT"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse()
    if arguments.serve_upstream:
        serve_upstream(Path(arguments.serve_upstream[0]), int(arguments.serve_upstream[1]))
    else:
        summary = asyncio.run(main(arguments))
        print(json.dumps(summary))
        sys.exit(
            0
            if all(
                summary[n] == 0
                for n in (
                    "lost",
                    "unjudged",
                    "misaudited",
                    "missing_calls",
                    "duplicates",
                    "partial_unfinishable",
                )
            )
            else 1
        )
