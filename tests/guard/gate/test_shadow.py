"""Shadow mode: the gate judges and records, the commit goes ahead, the agent sees nothing of it.

Requirement G32 over streamable HTTP with the official MCP client, the admin API, the operator
CLI and the spans; the would-block listing on the memory, SQLite and PostgreSQL audits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
import yaml
from mcp import Client
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from guard.audit.log import Audit, CommitEntry, MemoryAudit, TxnRecord, would_block
from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from guard.store.sql_audit import SqlAudit
from guard.transaction.state import CommitStatus, Status
from judges import Decision, Finding, Mode, Severity
from tests.guard.conftest import agent_client, demo_settings, meta, no_sleep, serving, ticket_status

CLOSED_STAYS_OPEN = """\
name: closing
rules:
  - id: no-closing
    when: {table: tickets, changed: [status]}
    require: "effect.after.status != 'closed'"
    decision: block
    message: "ticket {{effect.key}} may not be closed"
"""


@asynccontextmanager
async def guard_server(settings: GuardSettings, provider: TracerProvider) -> AsyncIterator[str]:
    runtime = build_runtime(settings, clock=FixedClock(), provider=provider, sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    async with serving(create_app(runtime)) as url:
        yield url


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def solve_ticket_20(url: str, key: str) -> dict[str, Any]:
    """The write the demo's rule blocks (a carrier exception is open), committed by the official client."""
    async with Client(f"{url}/mcp/t/{key}") as client:
        await client.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
        return body(await client.call_tool("guard_commit", {"summary": "solved"}))


async def would_block_ids(url: str) -> list[str]:
    async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
        listing = await http.get("/transactions", params={"status": "would_block"})
    assert listing.status_code == 200, listing.text
    return [t["id"] for t in listing.json()["transactions"]]


def guard_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
    )


async def test_a_write_a_rule_would_block_commits_in_shadow_and_is_recorded(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """Requirement G32: committed, nothing shown to the agent; the audit, the API, the CLI and the span say
    it would have been blocked."""
    settings = demo_settings(tmp_path, commit={"mode": "shadow"})
    async with guard_server(settings, provider) as url:
        reply = await solve_ticket_20(url, "shadow-1")
        assert (reply["status"], reply["findings"]) == ("committed", [])
        assert "warning" not in reply["message"]
        async with Client(f"{url}/mcp/t/clean-1") as client:
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"})
            assert body(await client.call_tool("guard_commit", {"summary": "x"}))["status"] == "committed"
        assert await would_block_ids(url) == ["shadow-1"]
        async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
            (attempt,) = (await http.get("/transactions/shadow-1")).json()["commit_log"]
    assert ticket_status(settings, 20) == "solved"
    assert (attempt["decision"], attempt["status"], attempt["would_block"]) == ("allow", "committed", True)
    (logged,) = attempt["findings"]
    assert (logged["rule"], logged["severity"], logged["shadow"]) == (
        "ticket-solved-with-open-carrier-exception",
        "block",
        True,
    )

    commits = [s for s in exporter.get_finished_spans() if s.name == "guard.commit"]
    shadowed = next(s for s in commits if s.attributes and s.attributes.get("guard.commit.would_block"))
    assert shadowed.status.status_code is not StatusCode.ERROR
    (event,) = shadowed.events
    assert event.attributes is not None
    assert event.attributes["guard.finding.shadow"] is True
    assert sum(1 for s in commits if s.attributes and "guard.commit.would_block" in s.attributes) == 1

    config = tmp_path / "cli.yaml"
    config.write_text(yaml.safe_dump({"audit": {"url": settings.audit.url}}))
    listed = guard_cli("transactions", "--config", str(config), "--status", "would_block", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [t["id"] for t in json.loads(listed.stdout)["transactions"]] == ["shadow-1"]
    shown = guard_cli("transactions", "show", "shadow-1", "--config", str(config))
    assert "allow → committed (would block: shadow mode)" in shown.stdout
    assert "- [block, shadow] ticket 20: status 'solved'" in shown.stdout


async def test_the_same_write_is_blocked_when_the_guard_enforces(
    tmp_path: Path, provider: TracerProvider
) -> None:
    """Requirement G32: ``commit.mode: enforce`` (the default) blocks what shadow mode let through."""
    settings = demo_settings(tmp_path, commit={"mode": "enforce"})
    async with guard_server(settings, provider) as url:
        reply = await solve_ticket_20(url, "enforced-1")
        assert reply["status"] == "blocked"
        assert "shadow" not in reply["findings"][0]
        assert await would_block_ids(url) == []
    assert ticket_status(settings, 20) == "open"


async def test_a_rule_that_says_enforce_still_blocks_under_a_shadow_guard(
    tmp_path: Path, provider: TracerProvider
) -> None:
    """Requirement G32: ``mode: enforce`` on a rule wins over ``commit.mode: shadow``."""
    (tmp_path / "closing.yaml").write_text(CLOSED_STAYS_OPEN + "    mode: enforce\n")
    chain = [{"judge": "rules", "path": "closing.yaml"}]
    settings = demo_settings(
        tmp_path, commit={"mode": "shadow"}, judges={"chain": chain, "base_dir": str(tmp_path)}
    )
    async with guard_server(settings, provider) as url:
        async with Client(f"{url}/mcp/t/closing-1") as client:
            await client.call_tool("update_ticket", {"ticket_id": 20, "status": "closed"})
            reply = body(await client.call_tool("guard_commit", {"summary": "closed"}))
        assert reply["status"] == "blocked"
        assert [f["rule"] for f in reply["findings"]] == ["no-closing"]
        async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
            (attempt,) = (await http.get("/transactions/closing-1")).json()["commit_log"]
        assert [(f["rule"], f.get("shadow", False)) for f in attempt["findings"]] == [
            ("no-closing", False),
            ("ticket-solved-with-open-carrier-exception", True),
        ]
        assert await would_block_ids(url) == []
    assert ticket_status(settings, 20) == "open"


async def test_a_chain_entry_in_shadow_lets_its_judges_findings_through(
    tmp_path: Path, provider: TracerProvider
) -> None:
    """Requirement G32: ``judges.chain[i].mode: shadow`` under an enforcing guard."""
    (tmp_path / "closing.yaml").write_text(CLOSED_STAYS_OPEN)
    chain = [{"judge": "rules", "path": "closing.yaml", "mode": "shadow"}]
    settings = demo_settings(tmp_path, judges={"chain": chain, "base_dir": str(tmp_path)})
    runtime = build_runtime(settings, clock=FixedClock(), provider=provider, sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        async with agent_client(runtime) as client:
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"}, meta=meta("c-1"))
            reply = body(await client.call_tool("guard_commit", {"summary": "closed"}, meta=meta("c-1")))
        assert (reply["status"], reply["findings"]) == ("committed", [])
        assert [r.id for r in await runtime.manager.audit.list_transactions("would_block")] == ["c-1"]
    finally:
        await runtime.stop()
    assert ticket_status(settings, 21) == "closed"


@pytest.mark.parametrize(("rule_mode", "blocked"), [("enforce", True), ("shadow", False), (None, False)])
async def test_a_pack_that_cannot_answer_blocks_a_shadow_guard_exactly_when_its_rules_could(
    tmp_path: Path, provider: TracerProvider, rule_mode: str | None, blocked: bool
) -> None:
    """Requirements G5, G32: under ``commit.mode: shadow`` a pack whose rule says ``mode: enforce`` and that
    does not answer in time blocks the commit (its answer could have); a pack whose rules would all be
    shadowed lets it through and its failure is recorded as a would-block."""
    (tmp_path / "closing.yaml").write_text(
        CLOSED_STAYS_OPEN + (f"    mode: {rule_mode}\n" if rule_mode else "")
    )
    entry = {
        "judge": "python",
        "target": "tests.guard.sample_judges:HangingPack",
        "path": str(tmp_path / "closing.yaml"),
    }
    settings = demo_settings(
        tmp_path, commit={"mode": "shadow", "judge_timeout_s": 0.05}, judges={"chain": [entry]}
    )
    runtime = build_runtime(settings, clock=FixedClock(), provider=provider, sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    (pack,) = [judge for judge in runtime.manager.gate.judges if judge.name == "closing"]
    try:
        async with serving(create_app(runtime)) as url:
            async with Client(f"{url}/mcp/t/hung-1") as client:
                await client.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"})
                reply = body(await client.call_tool("guard_commit", {"summary": "closed"}))
            assert await would_block_ids(url) == ([] if blocked else ["hung-1"])
    finally:
        pack.release.set()  # type: ignore[attr-defined]
    if blocked:
        assert reply["status"] == "blocked"
        assert [(f["judge"], f["message"]) for f in reply["findings"]] == [
            ("closing", "judge closing did not answer within 0.05s")
        ]
        assert ticket_status(settings, 21) == "open"
    else:
        assert (reply["status"], reply["findings"]) == ("committed", [])
        assert ticket_status(settings, 21) == "closed"


# -- the one definition, on every audit ------------------------------------------------------------------


def shadowed(severity: Severity) -> dict[str, Any]:
    return Finding("policy", severity, "m", rule="r", mode=Mode.SHADOW).to_dict()


@pytest.mark.parametrize(
    ("status", "findings", "expected"),
    [
        (CommitStatus.COMMITTED, [shadowed(Severity.BLOCK)], True),
        (CommitStatus.COMMITTED, [shadowed(Severity.ESCALATE)], True),
        (CommitStatus.COMMITTED, [shadowed(Severity.WARN)], False),
        (CommitStatus.COMMITTED, [Finding("p", Severity.WARN, "m").to_dict()], False),
        (CommitStatus.COMMITTING, [shadowed(Severity.BLOCK)], False),
        (CommitStatus.BLOCKED, [shadowed(Severity.BLOCK)], False),
    ],
)
def test_would_block_is_a_commit_that_a_shadowed_block_or_escalation_would_have_stopped(
    status: CommitStatus, findings: list[dict[str, Any]], expected: bool
) -> None:
    """Requirement G32: escalations count (they would have held the commit), warnings do not."""
    assert would_block(status, findings) is expected


CASES = {
    "would": (Status.COMMITTED, CommitStatus.COMMITTED, [shadowed(Severity.BLOCK)]),
    "warned": (Status.COMMITTED, CommitStatus.COMMITTED, [shadowed(Severity.WARN)]),
    "clean": (Status.COMMITTED, CommitStatus.COMMITTED, []),
    "blocked": (Status.OPEN, CommitStatus.BLOCKED, [shadowed(Severity.BLOCK)]),
    "evidence": (
        Status.COMMITTED,
        CommitStatus.COMMITTED,
        [{"severity": "block", "evidence": {"shadow": 1}}],
    ),
}


async def fill(audit: Audit) -> None:
    for minute, (ident, (status, attempt_status, findings)) in enumerate(CASES.items()):
        at = datetime(2026, 1, 1, 12, minute, tzinfo=UTC)
        record = TxnRecord(
            id=ident, principal="a", instance="g", backend="b", status=status, opened_at=at, updated_at=at
        )
        await audit.open_transaction(record)
        entry = CommitEntry(
            transaction_id=ident,
            attempt=1,
            via="tool",
            decision=Decision.ALLOW,
            status=attempt_status,
            findings=findings,
            effects=[],
            summary=None,
            at=at,
        )
        await audit.record_commit(entry, record)
    later = datetime(2026, 1, 1, 13, tzinfo=UTC)
    for n in range(3):
        ident = f"would-{n}"
        record = TxnRecord(
            id=ident,
            principal="a",
            instance="g",
            backend="b",
            status=Status.COMMITTED,
            opened_at=later,
            updated_at=later,
        )
        await audit.open_transaction(record)
        for attempt, (status, findings) in enumerate(
            [(CommitStatus.BLOCKED, []), (CommitStatus.COMMITTED, [shadowed(Severity.BLOCK)])], start=1
        ):
            entry = CommitEntry(
                transaction_id=ident,
                attempt=attempt,
                via="tool",
                decision=Decision.ALLOW,
                status=status,
                findings=findings,
                effects=[],
                summary=None,
                at=later,
            )
            await audit.record_commit(entry, record)


async def listed(audit: Audit) -> tuple[list[str], int]:
    await fill(audit)
    ids = [r.id for r in await audit.list_transactions("would_block", 100)]
    return ids, len(await audit.list_transactions("would_block", 2))


@pytest.fixture
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str | None]]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'audit.db'}", None
    else:
        url = request.getfixturevalue("postgres_url")
        yield url, request.getfixturevalue("postgres_schema")


async def test_the_memory_audit_lists_would_blocks() -> None:
    """Requirement G32."""
    ids, capped = await listed(MemoryAudit())
    assert sorted(ids) == ["would", "would-0", "would-1", "would-2"]
    assert capped == 2


@pytest.mark.parametrize(
    "sql_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
async def test_the_sql_audit_lists_the_same_would_blocks(sql_url: tuple[str, str | None]) -> None:
    """Requirement G32: the SQL listing keeps the memory one's definition, newest first, capped."""
    url, schema = sql_url
    engine = create_engine(url, search_path=schema)
    try:
        await upgrade(engine)
        ids, capped = await listed(SqlAudit(engine))
    finally:
        await engine.dispose()
    assert ids[-1] == "would"
    assert sorted(ids[:-1]) == ["would-0", "would-1", "would-2"]
    assert capped == 2
