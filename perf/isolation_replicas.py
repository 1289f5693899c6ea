"""Randomized isolation across replicas: no transaction ever reads another's uncommitted rows.

Two guard runtimes (instances ``guard-1`` and ``guard-2``) share one PostgreSQL database, as replicas
behind a balancer do. Concurrent workers run transactions on a random replica: each reads and writes
random tickets (every write a unique note, ``<key>:<n>``), then commits or rolls back. Every read is
checked against the history afterwards:

* a ticket the transaction wrote reads as its own last write to it;
* otherwise it reads the initial row or the last write to it of a transaction that committed, whose
  commit had begun before the read returned (never a write of a transaction that rolled back, was
  blocked, was still open, or an earlier write that transaction later overwrote);
* and not one older than a commit that had ended before the read began (read committed: a statement
  sees every commit that finished before it started).

Lock conflicts (two open transactions writing one ticket) are answered as errors and counted; they are
not anomalies.

    .venv/bin/python perf/isolation_replicas.py [--operations 10000] [--workers 8] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

from scale_stack import create_database, drop_database, prepare_database

from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.transaction.replies import TxnKey
from guard.transaction.state import CommitStatus

ADMIN_URL = os.environ.get("GUARD_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
TICKETS = 40


@dataclass(frozen=True)
class Read:
    reader: str
    ticket: int
    note: str | None
    own: str | None
    """The reader's own last write to the ticket before this read, if any."""
    started: float
    returned: float


@dataclass
class History:
    reads: list[Read] = field(default_factory=list)
    writes: dict[str, dict[int, str]] = field(default_factory=dict)
    """Per transaction: ticket → its last write's note."""
    commits: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Committed transactions: when their commit began and ended."""
    operations: int = 0
    conflicts: int = 0
    rolled_back: int = 0


def settings(url: str, instance: str) -> GuardSettings:
    return GuardSettings.model_validate(
        {
            "server": {"instance": instance},
            "backend": {"module": "guard.demo.backend", "url": url, "lock_timeout_s": 0.2},
            "audit": {"url": url},
            "commit": {"reap_interval_s": 3600},
            "retry": {"max_attempts": 1},
            "limits": {"max_open_per_agent": 1000},
        }
    )


async def _transaction(replica: Runtime, key: TxnKey, rng: random.Random, history: History) -> None:
    manager = replica.manager
    mine: dict[int, str] = {}
    for n in range(rng.randint(1, 6)):
        ticket = 1000 + rng.randrange(TICKETS)
        history.operations += 1
        if rng.random() < 0.6:
            started = time.monotonic()
            reply = await manager.call(key, "get_ticket", {"ticket_id": ticket})
            if not reply.is_error and reply.structured is not None:
                note = reply.structured.get("note")
                read = Read(key.id, ticket, note, mine.get(ticket), started, time.monotonic())
                history.reads.append(read)
            continue
        note = f"{key.id}:{n}"
        arguments = {"ticket_id": ticket, "status": "pending", "note": note}
        reply = await manager.call(key, "update_ticket", arguments)
        if reply.is_error:
            history.conflicts += 1
            if reply.ended:
                return
            continue
        mine[ticket] = note
    history.writes[key.id] = mine
    if manager.live(key.id) is None:
        return
    if rng.random() < 0.2:
        await manager.rollback(key, "randomized", via="tool")
        history.rolled_back += 1
        return
    began = time.monotonic()
    done = await manager.commit(key, "randomized")
    if done.status is CommitStatus.COMMITTED:
        history.commits[key.id] = (began, time.monotonic())


async def _worker(index: int, replicas: list[Runtime], budget: int, seed: int, history: History) -> None:
    rng = random.Random(seed * 1000 + index)
    n = 0
    while history.operations < budget:
        key = TxnKey(f"w{index}-{n}", f"worker-{index}", None)
        n += 1
        await _transaction(rng.choice(replicas), key, rng, history)


def anomalies(history: History) -> list[str]:
    """Every read that saw something other than its own or committed state (see the module docstring)."""
    found: list[str] = []
    last_write = {
        (key, ticket): note for key, writes in history.writes.items() for ticket, note in writes.items()
    }
    for read in history.reads:
        if read.own is not None:
            if read.note != read.own:
                found.append(
                    f"{read.reader} read {read.note} on ticket {read.ticket}, not its own {read.own}"
                )
            continue
        if read.note is None:
            writer = None
        else:
            writer = read.note.rsplit(":", 1)[0]
            window = history.commits.get(writer)
            if window is None or window[0] > read.returned:
                found.append(f"{read.reader} read {read.note} of {writer}, not committed when read")
                continue
            if last_write.get((writer, read.ticket)) != read.note:
                found.append(f"{read.reader} read {read.note}, which {writer} overwrote before committing")
                continue
        seen_end = history.commits[writer][1] if writer is not None else float("-inf")
        newer = [
            key
            for key, (began, ended) in history.commits.items()
            if read.ticket in history.writes.get(key, {}) and ended < read.started and began > seen_end
        ]
        if newer:
            found.append(
                f"{read.reader} read {read.note} on ticket {read.ticket}; {newer[0]} had committed since"
            )
    return found


async def run(operations: int, workers: int, seed: int, admin_url: str = ADMIN_URL) -> dict[str, Any]:
    name = f"guard_iso_{os.getpid()}"
    url = await create_database(admin_url, name)
    replicas: list[Runtime] = []
    try:
        await prepare_database(url, TICKETS // 2)
        for instance in ("guard-1", "guard-2"):
            replica = build_runtime(settings(url, instance))
            await replica.start()
            replicas.append(replica)
        history = History()
        started = time.monotonic()
        await asyncio.gather(*(_worker(i, replicas, operations, seed, history) for i in range(workers)))
        found = anomalies(history)
        return {
            "operations": history.operations,
            "reads": len(history.reads),
            "committed": len(history.commits),
            "rolled_back": history.rolled_back,
            "lock_conflicts": history.conflicts,
            "anomalies": len(found),
            "examples": found[:5],
            "seconds": round(time.monotonic() - started, 1),
        }
    finally:
        for replica in replicas:
            await replica.stop()
        await drop_database(admin_url, name)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--operations", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.operations, args.workers, args.seed))))


if __name__ == "__main__":
    main()
