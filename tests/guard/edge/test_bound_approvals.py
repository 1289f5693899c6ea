"""Approvals bound to what was seen: the pending changes, the findings that asked, the policies that
judged, the reviewers needed and a deadline; shown in the admin API and the console."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.errors import ApprovalRefused
from guard.runtime import Runtime, build_runtime
from guard.store.migrate import upgrade
from tests.guard.conftest import agent_client, demo_settings, meta, no_sleep, ticket_status
from tests.guard.edge.test_console import OPERATOR, browser

TWO_PEOPLE = """\
name: supervision
rules:
  - id: closing-needs-two
    when: {table: tickets, kind: [update], changed: [status]}
    require: "effect.after.status != 'closed'"
    decision: escalate
    reviewers: 2
    message: "ticket {{effect.key}}: closing is reviewed by two people"
"""

ONE_PERSON = TWO_PEOPLE.replace("    reviewers: 2\n", "")


async def _runtime(tmp_path: Path, rules: str, clock: FixedClock) -> Runtime:
    (tmp_path / "supervision.yaml").write_text(rules)
    settings = demo_settings(
        tmp_path,
        judges={"chain": [{"judge": "rules", "path": str(tmp_path / "supervision.yaml")}]},
        auth={"operator_tokens": [OPERATOR]},
        console={"approval_ttl_s": 3600},
    )
    runtime = build_runtime(settings, clock=clock, sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    return runtime


@pytest.fixture
async def clock() -> FixedClock:
    return FixedClock()


async def _escalate(runtime: Runtime) -> dict[str, Any]:
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"}, meta=meta("e-1"))
        result = await agent.call_tool("guard_commit", {"summary": "closed 21"}, meta=meta("e-1"))
    body = result.structured_content or {}
    assert body["status"] == "pending_approval", body
    return body


async def test_an_approval_after_its_deadline_is_refused_and_the_commit_still_waits(
    tmp_path: Path, clock: FixedClock
) -> None:
    """Requirement G54: past console.approval_ttl_s an approval is refused (409); a rejection ends it."""
    runtime = await _runtime(tmp_path, ONE_PERSON, clock)
    try:
        await _escalate(runtime)
        clock.advance(3601)
        app = create_app(runtime, manage_runtime=False)
        headers = {"Authorization": f"Bearer {OPERATOR}"}
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url="http://127.0.0.1:8765"
        ) as http:
            late = await http.post("/transactions/e-1/approve", json={"reviewer": "ana"}, headers=headers)
            shown = (await http.get("/transactions/e-1", headers=headers)).json()
            rejected = await http.post("/transactions/e-1/reject", json={"reviewer": "ana"}, headers=headers)
    finally:
        await runtime.stop()
    assert late.status_code == 409
    assert "the approval request expired at 2025-10-01T14:00:00+00:00" in late.json()["error"]
    assert shown["status"] == "pending_approval"
    assert shown["approval"]["expires_at"] == "2025-10-01T14:00:00+00:00"
    assert shown["approval"]["findings"] == ["supervision/closing-needs-two"]
    assert rejected.status_code == 200
    assert ticket_status(runtime.settings, 21) == "open"


async def test_a_rule_can_require_two_reviewers(tmp_path: Path, clock: FixedClock) -> None:
    """Requirement G54: the first approval leaves the commit waiting (recorded), the same person cannot
    approve twice, a second person's approval commits, and the log names both."""
    runtime = await _runtime(tmp_path, TWO_PEOPLE, clock)
    try:
        await _escalate(runtime)
        first = await runtime.manager.review("e-1", approve=True, reviewer="ana")
        with pytest.raises(ApprovalRefused, match="ana has approved it already"):
            await runtime.manager.review("e-1", approve=True, reviewer="ana")
        binding = runtime.manager.approval("e-1")
        second = await runtime.manager.review("e-1", approve=True, reviewer="bob")
        detail = await runtime.manager.audit.get_transaction("e-1")
    finally:
        await runtime.stop()
    assert first.status.value == "pending_approval"
    assert "1 of 2 reviewers" in first.message
    assert binding is not None
    assert binding.approved_by == ("ana",)
    assert second.status.value == "committed"
    assert ticket_status(runtime.settings, 21) == "closed"
    assert detail is not None
    assert detail.transaction.close_reason == "approved by ana and bob"
    assert [c.status for c in detail.commits] == ["pending_approval", "pending_approval", "committed"]


async def test_an_approval_is_refused_when_the_changes_or_the_policies_differ(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirement G54: changes that differ from the ones asked about (a write that reached the transaction
    after the request by any path), or policies that changed, void the approval."""
    runtime = await _runtime(tmp_path, ONE_PERSON, clock)
    try:
        await _escalate(runtime)
        live = runtime.manager._live["e-1"]
        original = live.session.effects

        async def one_more() -> Any:
            effects = await original()
            return [*effects, effects[0]]

        monkeypatch.setattr(live.session, "effects", one_more)
        with pytest.raises(ApprovalRefused, match="pending changes differ"):
            await runtime.manager.review("e-1", approve=True, reviewer="ana")
        monkeypatch.setattr(live.session, "effects", original)
        monkeypatch.setattr(runtime.manager.gate, "policy_versions", lambda: ("supervision@000000000000",))
        with pytest.raises(ApprovalRefused, match="policies that judged it have changed"):
            await runtime.manager.review("e-1", approve=True, reviewer="ana")
        monkeypatch.undo()
        approved = await runtime.manager.review("e-1", approve=True, reviewer="ana")
    finally:
        await runtime.stop()
    assert approved.status.value == "committed"


async def test_the_console_shows_what_an_approval_is_bound_to(tmp_path: Path, clock: FixedClock) -> None:
    """Requirement G54: the pending page lists the changes' hash, the findings, the policies, the
    reviewers needed and the deadline."""
    runtime = await _runtime(tmp_path, TWO_PEOPLE, clock)
    try:
        await _escalate(runtime)
        async with browser(runtime) as page:
            html = (await page.get("/console/t/e-1")).text
    finally:
        await runtime.stop()
    assert "sha256:" in html
    assert "supervision/closing-needs-two" in html
    assert "supervision@" in html
    assert "2 needed" in html
    assert "2025-10-01 14:00:00 UTC" in html
