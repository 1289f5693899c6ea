"""The processes and the database of ``perf/scale_out.py``: one PostgreSQL database per run, guard replicas,
the plain servers, HAProxy with the reference config, and what each of them costs (CPU, memory, connections).

``stack`` starts N ``guard serve`` replicas (instances ``guard-1`` … ``guard-N``, one config) and HAProxy in
front with ``deploy/haproxy/haproxy.cfg``, its server lines replaced by the run's; a second HAProxy frontend
balances the plain servers round robin. Every process is stopped on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx2
import yaml
from sqlalchemy import insert
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_CFG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
ROUTE_LOG = "route %[var(txn.guard_key)] %s %ST %Ts.%ms"
"""HAProxy's log line per request: the transaction key, the server that served it, the status, when its
connection was accepted (seconds since the epoch)."""
_SCALE_OUT = Path(__file__).with_name("scale_out.py")
_SERVER_LINE = re.compile(r"^\s*server\s")


# -- the database -------------------------------------------------------------------------------


def _asyncpg_args(url: str) -> dict[str, Any]:
    parsed = make_url(url)
    return {
        "host": parsed.host or "127.0.0.1",
        "port": parsed.port or 5432,
        "user": parsed.username,
        "password": parsed.password,
        "database": parsed.database,
    }


async def sql(url: str, query: str, *args: Any) -> list[Any]:
    """The rows of one statement, on a connection of its own."""
    conn = await asyncpg.connect(**_asyncpg_args(url))
    try:
        return list(await conn.fetch(query, *args))
    finally:
        await conn.close()


async def create_database(admin_url: str, name: str) -> str:
    """A fresh database ``name`` on the server of ``admin_url``; returns its URL."""
    await drop_database(admin_url, name)
    await sql(admin_url, f'CREATE DATABASE "{name}"')
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


async def drop_database(admin_url: str, name: str) -> None:
    await sql(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def agent_tickets(index: int) -> tuple[int, int]:
    """An agent's own tickets: one on the delivered order, one on the order with a carrier exception."""
    return 1000 + 2 * index, 1001 + 2 * index


async def prepare_database(url: str, agents: int) -> None:
    """The audit tables, the demo's tables and seed, and two tickets per agent."""
    from guard.demo.backend import prepare, tickets
    from guard.store.engine import create_engine
    from guard.store.migrate import upgrade

    engine = create_engine(url)
    try:
        await upgrade(engine)
        async with engine.begin() as conn:
            await prepare(conn)
            rows = []
            for index in range(agents):
                calm, stuck = agent_tickets(index)
                rows.append(
                    {"id": calm, "order_id": "ORD-10000021", "subject": f"agent {index}", "status": "open"}
                )
                rows.append(
                    {"id": stuck, "order_id": "ORD-10000020", "subject": f"agent {index}", "status": "open"}
                )
            await conn.execute(insert(tickets), rows)
    finally:
        await engine.dispose()


async def open_connections(url: str) -> int:
    """Connections to the run's database now (its replicas, its plain servers, this one)."""
    rows = await sql(url, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
    return int(rows[0][0])


def cpu_seconds(pid: int) -> float:
    """User plus system CPU of a live process (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, flags=re.MULTILINE)
    return int(found.group(1)) / 1024 if found else 0.0


async def database_pids(url: str) -> list[int]:
    query = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    return [int(r["pid"]) for r in await sql(url, query)]


CpuSnapshot = dict[str, dict[int, float]]


def cpu_snapshot(groups: dict[str, list[int]]) -> CpuSnapshot:
    return {name: {pid: cpu_seconds(pid) for pid in pids} for name, pids in groups.items()}


def cpu_spent(before: CpuSnapshot, after: CpuSnapshot) -> dict[str, float]:
    """CPU seconds each group spent between the snapshots (processes that started in between from 0)."""
    return {
        name: sum(max(0.0, cpu - before.get(name, {}).get(pid, 0.0)) for pid, cpu in pids.items())
        for name, pids in after.items()
    }


# -- processes ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def slots_per_replica(replicas: int) -> int:
    """PostgreSQL here allows 100 connections in all: the replicas share 40 pinned ones."""
    return max(4, 40 // replicas)


def guard_config(root: Path, url: str, replicas: int) -> Path:
    """One config for every replica (each gets its instance name and port from the command line)."""
    config = {
        "server": {"host": "127.0.0.1"},
        "backend": {
            "module": "guard.demo.backend",
            "url": url,
            "lock_timeout_s": 2,
            "max_open_transactions": slots_per_replica(replicas),
        },
        "audit": {"url": url},
        "commit": {"reap_interval_s": 1, "idle_timeout_s": 30},
        "limits": {"max_open_per_agent": 100_000},
    }
    path = root / "guard.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@dataclass
class Replica:
    instance: str
    port: int
    config: Path
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "GUARD_SERVER__INSTANCE": self.instance}
        command = [sys.executable, "-m", "guard", "serve", "--config", str(self.config)]
        command += ["--port", str(self.port)]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def serve_plain(url: str, port: int) -> None:
    """The demo's tools served plain by the MCP SDK (each call its own database transaction)."""
    import uvicorn

    from guard.clock import SystemClock
    from guard.demo.backend import tools
    from guard.edge.plain import build_plain_server
    from guard.store.engine import create_engine

    engine = create_engine(url, pool_size=5)
    app = build_plain_server(engine, tools, SystemClock()).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def balancer_config(port: int, guards: list[Replica], plain_port: int, plains: list[int]) -> str:
    """The reference config with this run's bind address and servers, plus a round-robin plain arm."""
    lines = [line for line in REFERENCE_CFG.read_text().splitlines() if not _SERVER_LINE.match(line)]
    config = "\n".join(lines).replace("bind :8080", f"bind 127.0.0.1:{port}")
    # one log line per request: key, server, status (which replica served, or failed, each key)
    config = config.replace("local0 warning", "local0 info").replace(
        "    default_backend guards", f'    log-format "{ROUTE_LOG}"\n    default_backend guards'
    )
    assert config.rstrip().splitlines()[-1].strip().startswith("default-server"), "backend guards comes last"
    config += "".join(f"\n    server {r.instance} 127.0.0.1:{r.port}" for r in guards)
    config += f"\n\nfrontend plain\n    bind 127.0.0.1:{plain_port}\n    default_backend plain\n"
    config += "\nbackend plain\n    balance roundrobin\n"
    config += "".join(f"    server plain-{i} 127.0.0.1:{p}\n" for i, p in enumerate(plains, 1))
    return config


async def wait_ready(
    url: str,
    *,
    status: int | None = 200,
    timeout_s: float = 180,
    process: subprocess.Popen[bytes] | None = None,
) -> None:
    """Poll ``url`` until it answers ``status`` (any status when None); fail at once if ``process`` exits."""
    deadline = time.monotonic() + timeout_s
    async with httpx2.AsyncClient() as http:
        while True:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"{url}: the process exited ({process.returncode})")
            with contextlib.suppress(httpx2.TransportError):
                if (await http.get(url, timeout=2)).status_code == (status or 0) or status is None:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer {status} within {timeout_s:g} s")
            await asyncio.sleep(0.1)


@dataclass
class Stack:
    """The run's processes: replicas, plain servers, HAProxy; their URLs."""

    root: Path
    url: str
    replicas: list[Replica]
    plain_ports: list[int]
    lb_port: int
    plain_lb_port: int
    others: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def guard_url(self) -> str:
        return f"http://127.0.0.1:{self.lb_port}"

    @property
    def plain_url(self) -> str:
        return f"http://127.0.0.1:{self.plain_lb_port}/mcp"

    def replica(self, instance: str) -> Replica:
        return next(r for r in self.replicas if r.instance == instance)


@contextlib.asynccontextmanager
async def stack(root: Path, url: str, replicas: int) -> AsyncIterator[Stack]:
    """Start N replicas and HAProxy in front (the plain servers start later, in :func:`plain_servers`)."""
    config = guard_config(root, url, replicas)
    guards = [
        Replica(f"guard-{i}", free_port(), config, root / f"guard-{i}.log") for i in range(1, replicas + 1)
    ]
    run = Stack(root, url, guards, [free_port() for _ in range(replicas)], free_port(), free_port())
    cfg = root / "haproxy.cfg"
    cfg.write_text(balancer_config(run.lb_port, guards, run.plain_lb_port, run.plain_ports))
    try:
        for replica in guards:
            replica.start()
        for replica in guards:
            try:
                await wait_ready(f"http://127.0.0.1:{replica.port}/readyz", process=replica.process)
            except RuntimeError as exc:
                tail = replica.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{replica.instance}: {exc}; its log ends:\n{tail}") from None
        with (root / "haproxy.log").open("ab") as out:
            run.others.append(
                subprocess.Popen([require_haproxy(), "-f", str(cfg), "-db"], stdout=out, stderr=out)
            )
        await wait_ready(f"{run.guard_url}/readyz")
        yield run
    finally:
        for process in run.others:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)
        for replica in guards:
            replica.stop()


@contextlib.asynccontextmanager
async def plain_servers(run: Stack) -> AsyncIterator[list[subprocess.Popen[bytes]]]:
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).with_name("scale_out.py")),
                "--serve-plain",
                run.url,
                str(port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in run.plain_ports
    ]
    try:
        for port in run.plain_ports:
            await wait_ready(f"http://127.0.0.1:{port}/mcp", status=None)
        yield processes
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


def require_haproxy() -> str:
    found = shutil.which("haproxy")
    if found is None:
        raise RuntimeError("haproxy is not installed (Debian: apt-get install haproxy)")
    return found
