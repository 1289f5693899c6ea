"""The repair loop, measured: a blocked commit repaired in place against rolled back and redone.

A simulated agent (scripted, not a model) stores a few entities in
``@modelcontextprotocol/server-memory`` through the guard, one call each; a rule
pack forbids entities of type ``secret``, and some tasks hold one. When its commit
is blocked the agent either

* **repairs**: withdraws each held write the reply names (``guard_withdraw {"seq": N}``),
  stores it again corrected, and commits; or
* **redoes**: rolls back and stores everything again, corrected, in a new transaction
  (what an agent had to do before the guard could withdraw a write).

Both arms run the same tasks, alternating, on one server each. Per arm it prints tasks
committed, rollbacks, calls per task, writes the server received, milliseconds per task,
and whether the server's graph ends exactly as intended (every allowed entity once, no
secret). The last line is one JSON object.

    .venv/bin/python perf/repair_loop.py --tasks 40

Needs node and server-memory: ``GUARD_UPSTREAMS`` (default ``.ci/upstreams``, which ``.ci/run``
fills) and ``GUARD_NODE`` (default: node on the PATH).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.server.context import ServerRequestContext

from guard.edge.server import build_server
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from guard.transaction.replies import TxnKey

ROOT = Path(__file__).resolve().parent.parent

RULES = """\
name: memory
rules:
  - id: no-secret-entities
    when: {table: "call:create_entities"}
    require: "effect.after.entities.all(e, e.entityType != 'secret')"
    decision: block
    message: "an entity of type secret may not be stored"
"""

_WITHDRAW = re.compile(r'guard_withdraw \{"seq": (\d+)\}|#(\d+) create_entities')


@dataclass
class Arm:
    name: str
    tasks: int = 0
    committed: int = 0
    rollbacks: int = 0
    calls: int = 0
    seconds: float = 0.0
    intended: set[str] = field(default_factory=set)

    def row(self, received: int, graph_exact: bool) -> dict[str, Any]:
        return {
            "arm": self.name,
            "tasks": self.tasks,
            "committed": self.committed,
            "rollbacks": self.rollbacks,
            "calls_per_task": round(self.calls / max(self.tasks, 1), 2),
            "writes_received": received,
            "ms_per_task": round(1000 * self.seconds / max(self.tasks, 1), 1),
            "graph_exact": graph_exact,
        }


def _task(rng: random.Random, number: int) -> list[dict[str, Any]]:
    entities = [
        {"name": f"t{number}-e{i}", "entityType": "person", "observations": [f"task {number}"]}
        for i in range(rng.randint(2, 4))
    ]
    if rng.random() < 0.5:
        entities[rng.randrange(len(entities))]["entityType"] = "secret"
    return entities


def _corrected(entity: dict[str, Any]) -> dict[str, Any]:
    return {**entity, "entityType": "note"} if entity["entityType"] == "secret" else entity


async def _run_task(
    client: Client, arm: Arm, number: int, entities: list[dict[str, Any]], repair: bool
) -> None:
    key = f"{arm.name}-{number}"

    async def call(tool: str, arguments: dict[str, Any], on: str) -> Any:
        arm.calls += 1
        result = await client.call_tool(tool, arguments, meta={"guard/transaction": on})
        return result.structured_content or {}

    for entity in entities:
        await call("create_entities", {"entities": [entity]}, key)
    reply = await call("guard_commit", {"summary": "stored"}, key)
    if reply.get("status") == "blocked" and repair:
        seqs = sorted({int(a or b) for a, b in _WITHDRAW.findall(reply.get("message", ""))})
        for seq in seqs:
            await call("guard_withdraw", {"seq": seq}, key)
            await call("create_entities", {"entities": [_corrected(entities[seq - 1])]}, key)
        reply = await call("guard_commit", {"summary": "stored, corrected"}, key)
    elif reply.get("status") == "blocked":
        await call("guard_rollback", {"reason": "blocked: redo corrected"}, key)
        arm.rollbacks += 1
        key = f"{key}-redo"
        for entity in entities:
            await call("create_entities", {"entities": [_corrected(entity)]}, key)
        reply = await call("guard_commit", {"summary": "stored, corrected"}, key)
    arm.tasks += 1
    if reply.get("status") == "committed":
        arm.committed += 1
        arm.intended |= {e["name"] for e in entities}


def _settings(root: Path, node: str, server: Path) -> GuardSettings:
    (root / "rules.yaml").write_text(RULES)
    return GuardSettings.model_validate(
        {
            "backend": {
                "kind": "mcp",
                "mcp": {
                    "command": node,
                    "args": [str(server)],
                    "env": {"MEMORY_FILE_PATH": str(root / "memory.jsonl")},
                },
            },
            "audit": {"url": f"sqlite:///{root / 'audit.db'}"},
            "judges": {"chain": [{"judge": "rules", "path": "rules.yaml"}], "base_dir": str(root)},
        }
    )


def _client(runtime: Runtime) -> Client:
    def resolve(ctx: ServerRequestContext[Any, Any]) -> TxnKey:
        meta = ctx.meta if isinstance(ctx.meta, dict) else {}
        return TxnKey(str(meta["guard/transaction"]), "simulated-agent", meta)

    return Client(build_server(runtime.manager, resolve))


def _graph(root: Path) -> tuple[list[str], int]:
    """The entities the server holds, and how many create writes it received (its file's lines)."""
    path = root / "memory.jsonl"
    names = []
    for line in path.read_text().splitlines() if path.exists() else []:
        item = json.loads(line)
        if item.get("type") == "entity":
            names.append(str(item["name"]))
    return names, len(names)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    base = Path(os.environ.get("GUARD_UPSTREAMS", ROOT / ".ci" / "upstreams"))
    server = base / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    node = os.environ.get("GUARD_NODE") or shutil.which("node")
    if node is None or not server.is_file():
        raise SystemExit(f"needs node and {server} (see the docstring)")
    rng = random.Random(args.seed)
    tasks = [_task(rng, n) for n in range(args.tasks)]
    with tempfile.TemporaryDirectory(prefix="guard-repair-") as tmp:
        arms = {name: Arm(name) for name in ("repair", "redo")}
        runtimes: dict[str, Runtime] = {}
        for name in arms:
            root = Path(tmp) / name
            root.mkdir()
            runtime = build_runtime(_settings(root, node, server))
            assert runtime.audit_engine is not None
            await upgrade(runtime.audit_engine)
            await runtime.start()
            runtimes[name] = runtime
        try:
            async with _client(runtimes["repair"]) as repairing, _client(runtimes["redo"]) as redoing:
                for number, entities in enumerate(tasks):
                    for name, client in (("repair", repairing), ("redo", redoing))[
                        :: 1 if number % 2 else -1
                    ]:
                        started = time.perf_counter()
                        await _run_task(client, arms[name], number, entities, repair=name == "repair")
                        arms[name].seconds += time.perf_counter() - started
        finally:
            for runtime in runtimes.values():
                await runtime.stop()
        rows = []
        for name, arm in arms.items():
            names, received = _graph(Path(tmp) / name)
            exact = sorted(names) == sorted(arm.intended) and len(set(names)) == len(names)
            rows.append(arm.row(received, exact))
    for row in rows:
        print(json.dumps(row))
    repair, redo = rows
    return {
        "simulated_agent": True,
        "tasks": args.tasks,
        "blocked_tasks": sum(any(e["entityType"] == "secret" for e in t) for t in tasks),
        "repair_rollbacks": repair["rollbacks"],
        "redo_rollbacks": redo["rollbacks"],
        "calls_ratio_repair_to_redo": round(repair["calls_per_task"] / redo["calls_per_task"], 3),
        "time_ratio_repair_to_redo": round(repair["ms_per_task"] / redo["ms_per_task"], 3),
        "committed": [repair["committed"], redo["committed"]],
        "graphs_exact": [repair["graph_exact"], redo["graph_exact"]],
    }


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


if __name__ == "__main__":
    summary = asyncio.run(main(parse()))
    print(json.dumps(summary))
    ok = summary["repair_rollbacks"] == 0 and all(summary["graphs_exact"])
    sys.exit(0 if ok and summary["committed"][0] == summary["tasks"] else 1)
