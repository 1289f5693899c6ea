"""The guard's capacity measured at the server: guarded reads against the same read served plain.

Two server processes on loopback serve the demo backend's ``get_ticket``, each from its own SQLite
file: the guard (reads in transactions of ``--per-transaction`` calls, each then committed, read-only,
and a new one opened: the commits are done and their cost counted, the calls/s count reads) and the
plain MCP SDK server (each call its own database transaction). The load is :mod:`raw_load`: raw
JSON-RPC POSTs on keep-alive sockets from this one process, which measures its own CPU.

For each arm it ramps the connections (1, 2, 4, …) until the calls/s stop growing (saturation: the most
calls/s seen), every arm at each level ``--repeats`` times in turn; the server's CPU per call is read
from ``/proc`` over each measured interval. Then it sends each arm 80% of what it sustains (the median
of its best level's repeats), paced, and reports p50/p99 from when each call was due. ``--profile DIR``
then samples the guard server with py-spy (``pip install py-spy``) for 8 s at its saturation and prints
the functions holding the most samples.

    .venv/bin/python perf/capacity.py [--step-s 3] [--max-connections 32] [--repeats 2] [--profile DIR]
                                      [--before DIR]   # a third arm: the guard of another checkout
                                      [--postgres ADMIN_URL]   # each arm on its own PostgreSQL database

The last line printed is a JSON object: ``guard_calls_per_s``, ``plain_calls_per_s``,
``guard_cpu_ms_per_call``, ``plain_cpu_ms_per_call``, ``generator_cpu_share`` (the generator's CPU over
the machine's, at saturation), ``errors``, and the ratios and latencies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from raw_load import Flow, Probe, Step, closed_loop, paced
from scale_stack import cpu_seconds, create_database, drop_database, free_port

from guard.demo.backend import prepare
from guard.store.engine import create_engine
from guard.store.migrate import upgrade

_PLAIN, _GUARD, _BEFORE = "plain", "guard", "before"


def _urls(target: str) -> tuple[str, str]:
    """An arm's system of record and audit store: two SQLite files in its folder, or one PostgreSQL
    database (``target`` a URL) for both, as a deployment has them."""
    if "://" in target:
        return target, target
    return f"sqlite:///{Path(target) / 'shop.db'}", f"sqlite:///{Path(target) / 'audit.db'}"


def _guard_settings(target: str, port: int, slots: int) -> Any:
    from guard.settings import GuardSettings

    shop, audit = _urls(target)
    return GuardSettings.model_validate(
        {
            "server": {"port": port},
            "backend": {
                "module": "guard.demo.backend",
                "url": shop,
                "max_open_transactions": slots,
                "idle_connections": slots,
            },
            "audit": {"url": audit},
            "commit": {"idle_timeout_s": 3600},
            "limits": {"max_open_per_agent": slots},
        }
    )


def serve(kind: str, target: str, port: int, slots: int) -> None:
    """One server process (``--serve``): uvicorn with uvloop and httptools, as ``guard serve`` runs."""
    import uvicorn

    from guard.clock import SystemClock
    from guard.demo.backend import tools
    from guard.edge.http import create_app
    from guard.edge.plain import build_plain_server
    from guard.runtime import build_runtime

    asyncio.run(_prepare(target, audit=kind != _PLAIN))
    app: Any
    if kind != _PLAIN:
        app = create_app(build_runtime(_guard_settings(target, port, slots)))
    else:
        engine = create_engine(_urls(target)[0], pool_size=slots)
        app = build_plain_server(engine, tools, SystemClock()).streamable_http_app()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", loop="uvloop", http="httptools"
    )
    with contextlib.suppress(KeyboardInterrupt):  # the driver's SIGINT: uvicorn stops, then raises it
        uvicorn.Server(config).run()


def _probe(pid: int) -> Probe:
    return lambda: cpu_seconds(pid)


async def _prepare(target: str, *, audit: bool) -> None:
    """An arm's own store, made by the code that serves it: the demo's tables, and (a guard) its audit
    store at that code's head revision."""
    shop, audit_url = _urls(target)
    engine = create_engine(shop)
    async with engine.begin() as conn:
        await prepare(conn)
    await engine.dispose()
    if audit:
        store = create_engine(audit_url)
        await upgrade(store)
        await store.dispose()


async def _ready(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(600):
        if process.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited ({process.returncode})")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise RuntimeError(f"the server on port {port} did not start")


def _flows(ports: dict[str, int], per_transaction: int) -> dict[str, Flow]:
    read = {"ticket_id": 20}
    return {
        arm: Flow("127.0.0.1", port, "get_ticket", read, name=arm)
        if arm == _PLAIN
        else Flow("127.0.0.1", port, "get_ticket", read, per_transaction=per_transaction, name=arm)
        for arm, port in ports.items()
    }


def _line(arm: str, step: Step) -> str:
    return (
        f"  {arm:6} {step.connections:3} conn  {step.calls_per_s:8.1f} calls/s  "
        f"server {step.server_cpu_ms_per_call:6.3f} ms CPU/call  "
        f"generator {step.generator_cpu_s * 1000 / max(step.calls, 1):6.3f} ms CPU/call  "
        f"p50 {step.quantile(0.5):7.2f} ms  errors {step.errors}"
    )


async def _ramp(
    flows: dict[str, Flow], pids: dict[str, int], seconds: float, max_connections: int, repeats: int
) -> tuple[dict[str, Step], dict[str, float]]:
    """Every arm at 1, 2, 4, … connections, ``repeats`` times a level in turn (each round reversing the
    order, so that drift falls on all alike), keeping each arm's best; an arm stops once two levels in a
    row add under 3%."""
    best: dict[str, Step] = {}
    typical: dict[str, float] = {}
    """The median calls/s of the repeats at each arm's best level: what it sustains, not its luckiest."""
    flat = dict.fromkeys(flows, 0)
    connections = 1
    while connections <= max_connections and any(count < 2 for count in flat.values()):
        level: dict[str, Step] = {}
        rates: dict[str, list[float]] = {}
        arms = [arm for arm in flows if flat[arm] < 2]
        for round_ in range(repeats):
            for arm in arms if round_ % 2 == 0 else reversed(arms):
                step = await closed_loop(flows[arm], connections, seconds, probe=_probe(pids[arm]))
                print(_line(arm, step), flush=True)
                if step.errors:
                    print(f"    first error: {step.first_error}", flush=True)
                rates.setdefault(arm, []).append(step.calls_per_s)
                if arm not in level or step.calls_per_s > level[arm].calls_per_s:
                    level[arm] = step
        for arm, step in level.items():
            flat[arm] = (
                0 if arm not in best or step.calls_per_s > best[arm].calls_per_s * 1.03 else flat[arm] + 1
            )
            if arm not in best or step.calls_per_s > best[arm].calls_per_s:
                best[arm] = step
                typical[arm] = statistics.median(rates[arm])
        connections *= 2
    return best, typical


async def _profiled(flow: Flow, pid: int, connections: int, seconds: float, out: Path, top: int) -> None:
    """Sample the guard server with py-spy while it serves at saturation; print the functions that hold
    the most samples, on their own and with what they call."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("\n--profile: py-spy is not installed (pip install py-spy)")
        return
    raw = out / "guard.py-spy.txt"
    command = [spy, "record", "--pid", str(pid), "--duration", str(int(seconds)), "--rate", "250", "--gil"]
    recorder = subprocess.Popen(
        [*command, "--format", "raw", "--output", str(raw), "--nonblocking"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    await closed_loop(flow, connections, seconds + 1, warmup_s=0.2)
    recorder.wait(timeout=60)
    own: Counter[str] = Counter()
    within: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [frame.split(" (")[0] + " " + frame.split("/")[-1].rstrip(")") for frame in stack.split(";")]
        n = int(count)
        total += n
        own[frames[-1]] += n
        for frame in set(frames):
            within[frame] += n
    print(f"\nthe guard server sampled by py-spy at {connections} connections ({total} samples; {raw}):")
    for title, table in (("on their own", own), ("with what they call", within)):
        print(f"  top {top} {title}:")
        for frame, n in table.most_common(top):
            print(f"    {100 * n / max(total, 1):5.1f}%  {frame}")


async def main(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="guard-capacity-") as tmp:
        arms = [_PLAIN, _GUARD, *([_BEFORE] if args.before else [])]
        ports = {arm: free_port() for arm in arms}
        slots = args.max_connections * 2 + 4
        processes: dict[str, subprocess.Popen[bytes]] = {}
        databases: list[str] = []
        for arm in arms:
            if args.postgres:
                target = await create_database(args.postgres, f"guard_capacity_{os.getpid()}_{arm}")
                databases.append(f"guard_capacity_{os.getpid()}_{arm}")
            else:
                (Path(tmp) / arm).mkdir()
                target = str(Path(tmp) / arm)
            command = [sys.executable, __file__, "--serve", arm, target, str(ports[arm]), str(slots)]
            environment = dict(os.environ)
            if arm == _BEFORE:  # the guard of another checkout (its package first on the path)
                environment["PYTHONPATH"] = os.pathsep.join([args.before, environment.get("PYTHONPATH", "")])
            processes[arm] = subprocess.Popen(command, env=environment)
        try:
            for arm in arms:
                await _ready(ports[arm], processes[arm])
            pids = {arm: process.pid for arm, process in processes.items()}
            flows = _flows(ports, args.per_transaction)
            every = args.per_transaction
            print(f"ramp ({args.step_s:g} s a step, reads counted; the guard commits every {every}):")
            best, typical = await _ramp(flows, pids, args.step_s, args.max_connections, args.repeats)
            print(
                "\nat 80% of each arm's saturation (the median of its best level's repeats), paced "
                "(latency from when each call was due):"
            )
            at80 = {}
            for arm in arms:
                rate = typical[arm] * 0.8
                at80[arm] = await paced(
                    flows[arm],
                    rate,
                    best[arm].connections,
                    args.step_s,
                    probe=_probe(pids[arm]),
                )
                print(
                    f"  {arm:5} {rate:8.1f} calls/s due: p50 {at80[arm].quantile(0.5):7.2f} ms  "
                    f"p99 {at80[arm].quantile(0.99):7.2f} ms  errors {at80[arm].errors}"
                )
            if args.profile:
                out = Path(args.profile)
                out.mkdir(parents=True, exist_ok=True)
                await _profiled(flows["guard"], pids["guard"], best["guard"].connections, 8, out, args.top)
        finally:
            for process in processes.values():
                process.send_signal(signal.SIGINT)
            for process in processes.values():
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
            for name in databases:
                await drop_database(args.postgres, name)
    return _summary(best, at80)


def _summary(best: dict[str, Step], at80: dict[str, Step]) -> dict[str, Any]:
    guard, plain = best["guard"], best["plain"]
    cores = os.cpu_count() or 1
    share = max(step.generator_cpu_s / (step.seconds * cores) for step in best.values())
    errors = sum(step.errors for step in (*best.values(), *at80.values()))
    before = best.get(_BEFORE)
    compared = {}
    if before is not None:
        compared = {
            "before_calls_per_s": round(before.calls_per_s, 1),
            "before_cpu_ms_per_call": round(before.server_cpu_ms_per_call, 3),
            "before_calls_ratio": round(before.calls_per_s / plain.calls_per_s, 3),
            "before_cpu_ratio": round(before.server_cpu_ms_per_call / plain.server_cpu_ms_per_call, 3),
        }
    return {
        "guard_calls_per_s": round(guard.calls_per_s, 1),
        "plain_calls_per_s": round(plain.calls_per_s, 1),
        "calls_ratio": round(guard.calls_per_s / plain.calls_per_s, 3),
        "guard_cpu_ms_per_call": round(guard.server_cpu_ms_per_call, 3),
        "plain_cpu_ms_per_call": round(plain.server_cpu_ms_per_call, 3),
        "cpu_ratio": round(guard.server_cpu_ms_per_call / plain.server_cpu_ms_per_call, 3),
        "guard_connections_at_saturation": guard.connections,
        "plain_connections_at_saturation": plain.connections,
        "guard_p50_ms_at_80": round(at80["guard"].quantile(0.5), 2),
        "guard_p99_ms_at_80": round(at80["guard"].quantile(0.99), 2),
        "plain_p50_ms_at_80": round(at80["plain"].quantile(0.5), 2),
        "plain_p99_ms_at_80": round(at80["plain"].quantile(0.99), 2),
        "generator_cpu_share": round(share, 3),
        "errors": errors,
        **compared,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--step-s", type=float, default=3.0, help="Seconds measured per step.")
    parser.add_argument("--max-connections", type=int, default=32)
    parser.add_argument("--per-transaction", type=int, default=20, help="Guarded reads per transaction.")
    parser.add_argument("--repeats", type=int, default=2, help="Runs of each arm at each level (best kept).")
    parser.add_argument(
        "--postgres",
        metavar="ADMIN_URL",
        help="Each arm on a fresh PostgreSQL database of this server (system of record and audit log), "
        "e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test; default: SQLite files.",
    )
    parser.add_argument(
        "--before", help="Also serve the guard of this checkout (its root folder), side by side: a third arm."
    )
    parser.add_argument("--profile", help="Sample the guard server with py-spy; its output in this folder.")
    parser.add_argument("--top", type=int, default=25, help="Profile entries printed.")
    parser.add_argument("--serve", nargs=4, metavar=("KIND", "ROOT", "PORT", "SLOTS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, root, port, slots = args.serve
        serve(kind, root, int(port), int(slots))
    else:
        print(json.dumps(asyncio.run(main(args))))
