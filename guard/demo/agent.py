"""``guard demo``: a scripted agent meets the guard, end to end, on SQLite in a temporary directory.

The agent closes a support ticket as ``solved`` while the order's carrier
exception is still open. The gate blocks the commit and says why; the agent
puts the ticket on ``hold`` instead, and that commit goes through. The agent
talks MCP to the guard in-process (no network), exactly as it would over
HTTP, and the demo checks the system of record and the audit log at the end.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from guard.edge.server import build_server
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from guard.transaction.manager import TxnKey

__all__ = ["DemoResult", "run_demo"]

TRANSACTION = "demo-ticket-20"


@dataclass(frozen=True)
class DemoResult:
    blocked_first: bool
    committed_second: bool
    final_status: str
    audit_attempts: int

    @property
    def ok(self) -> bool:
        return self.blocked_first and self.committed_second and self.final_status == "hold"


def _body(result: types.CallToolResult) -> dict[str, Any]:
    if isinstance(result.structured_content, dict):
        return result.structured_content
    text = (
        result.content[0].text if result.content and isinstance(result.content[0], types.TextContent) else ""
    )
    parsed: dict[str, Any] = json.loads(text)
    return parsed


async def run_demo(say: Callable[[str], None], workdir: Path | None = None) -> DemoResult:
    """Run the scripted scenario, narrating through ``say``."""
    with tempfile.TemporaryDirectory(prefix="guard-demo-") as tmp:
        root = workdir or Path(tmp)
        settings = GuardSettings.model_validate(
            {
                "backend": {
                    "module": "guard.demo.backend",
                    "url": f"sqlite:///{root / 'shop.db'}",
                    "prepare": True,
                },
                "audit": {"url": f"sqlite:///{root / 'audit.db'}"},
                "judges": {
                    "chain": [{"judge": "failed_write"}, {"judge": "duplicate_effect"}],
                    "use_backend_judges": True,
                },
                "commit": {"reap_interval_s": 3600},
            }
        )
        runtime = build_runtime(settings)
        assert runtime.audit_engine is not None
        await upgrade(runtime.audit_engine)
        await runtime.start()
        try:
            server = build_server(runtime.manager, lambda ctx: TxnKey(TRANSACTION, "demo-agent", None))
            async with Client(server) as agent:
                return await _script(agent, runtime.manager.commit_tool, say, root)
        finally:
            await runtime.stop()


async def _script(agent: Client, commit_tool: str, say: Callable[[str], None], root: Path) -> DemoResult:
    say("guard demo: an agent works support ticket 20 (order ORD-10000020) through the guard")
    tools = await agent.list_tools()
    say(f"  tools the agent sees: {', '.join(t.name for t in tools.tools)}")

    ticket = _body(await agent.call_tool("get_ticket", {"ticket_id": 20}))
    say(f"  agent: get_ticket(20) -> {ticket['status']}, {ticket['subject']!r}")
    shipments = _body(await agent.call_tool("get_shipments", {"order_id": "ORD-10000020"}))
    for shipment in shipments["shipments"]:
        say(f"  agent: get_shipments -> {shipment['id']} {shipment['carrier']} {shipment['carrier_status']}")

    await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
    say("  agent: update_ticket(20, status=solved)   [held in the transaction, not yet committed]")
    first = _body(
        await agent.call_tool(commit_tool, {"summary": "Ticket 20 is solved; I told the customer."})
    )
    blocked = first["status"] == "blocked"
    say(f"  guard: {first['status'].upper()}, nothing was committed")
    for finding in first["findings"]:
        hint = f" ({finding['hint']})" if finding.get("hint") else ""
        say(f"         - {finding['message']}{hint}")

    await agent.call_tool(
        "update_ticket",
        {"ticket_id": 20, "status": "hold", "note": "Waiting for UPS to clear the address exception."},
    )
    say("  agent: update_ticket(20, status=hold, note=...)")
    second = _body(
        await agent.call_tool(
            commit_tool, {"summary": "Ticket 20 is on hold until UPS clears the exception."}
        )
    )
    committed = second["status"] == "committed"
    say(f"  guard: {second['status'].upper()}: {second['message']}")
    for effect in second["effects"]:
        before = effect["before"] or {}
        after = effect["after"] or {}
        changes = ", ".join(f"{f} {before.get(f)!r} -> {after.get(f)!r}" for f in effect["changed_fields"])
        say(f"         - {effect['table']}/{effect['key']}: {changes}")

    with sqlite3.connect(root / "shop.db") as db:
        status = db.execute("SELECT status FROM tickets WHERE id = 20").fetchone()[0]
    with sqlite3.connect(root / "audit.db") as db:
        attempts = db.execute(
            "SELECT count(*) FROM guard_commits WHERE transaction_id = ?", (TRANSACTION,)
        ).fetchone()[0]
    say(f"  database: ticket 20 is now {status!r}; audit log: {attempts} commit attempts for {TRANSACTION}")
    return DemoResult(blocked, committed, status, attempts)
