"""A partial commit finished: the agent told what reached the upstream, an operator resuming and resolving.

In memory (the fake shop in process, the outbox and the audit in memory) for the
protocol; the admin API over it; and end to end, the ``guard transactions resume``
command finishing a write that never left a guard whose upstream was down.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
import yaml

from guard.audit.log import MemoryAudit, TxnDetail
from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.errors import NotFinishable
from guard.runtime import Runtime
from guard.settings import AuthSettings
from guard.transaction.recovery import Resolve
from tests.conftest import ROOT
from tests.fakes.mcp_shop import Shop, journal
from tests.guard.backends.test_upstream_supervision import _kill_stdio_shop, _stdio_shop
from tests.guard.backends.test_upstream_supervision import _upstream as _link
from tests.guard.conftest import agent_client, meta, until
from tests.guard.edge.test_console import OPERATOR, browser, form_token_of
from tests.guard.mcp_support import body, mcp_settings, memory_guard, text, upstream_guard

_WRITES = [
    ("create_order", {"item": "desk", "quantity": 1}),
    ("refund", {"order_id": "ORD-1", "amount": 20}),
    ("send_email", {"to": "ann@example.com", "body": "refunded"}),
]


async def _partial(runtime: Runtime, key: str) -> dict[str, object]:
    async with agent_client(runtime) as agent:
        for tool, arguments in _WRITES:
            await agent.call_tool(tool, arguments, meta=meta(key))
        reply = body(await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta(key)))
    assert reply["status"] == "partial", reply
    return reply


async def _detail(runtime: Runtime, key: str) -> TxnDetail:
    audit = runtime.manager.audit
    assert isinstance(audit, MemoryAudit)
    detail = await audit.get_transaction(key)
    assert detail is not None
    return detail


async def test_the_agent_asking_again_hears_what_was_applied_and_what_was_not(tmp_path: Path) -> None:
    """Requirement G46: guard_commit on a partial transaction names the applied, failed and unsent writes,
    says not to redo the applied ones, and how the rest is finished."""
    shop = Shop()
    shop.faults["refund"] = ["refuse"]
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        await _partial(runtime, "p-1")
        async with agent_client(runtime) as agent:
            again = await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta("p-1"))
    said = text(again)
    assert again.is_error is True
    assert "committed in part" in said
    assert "applied: create_order (#1)" in said
    assert "failed: refund (#2)" in said
    assert "not sent: send_email (#3)" in said
    assert "Do not redo the writes that were applied" in said
    assert "guard transactions resume p-1" in said
    assert [entry["tool"] for entry in shop.journal] == ["create_order"]


async def test_resume_sends_the_failed_and_unsent_writes_once_and_the_commit_ends_committed(
    tmp_path: Path,
) -> None:
    """Requirement G46: resumed, the failed write and the one after it are sent in order, once; the
    transaction ends committed; the log keeps the partial attempt and adds the operator's."""
    shop = Shop()
    shop.faults["refund"] = ["refuse"]
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        await _partial(runtime, "p-2")
        ended = await runtime.manager.finish("p-2", None, "ops-ann")
        detail = await _detail(runtime, "p-2")
        with pytest.raises(NotFinishable, match="is committed: only a partial commit"):
            await runtime.manager.finish("p-2", None, "ops-ann")
        async with agent_client(runtime) as agent:
            later = await agent.call_tool("guard_commit", {"summary": "x"}, meta=meta("p-2"))
    assert ended.status == "committed"
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "refund", "send_email"]
    assert [(c.via, c.status) for c in detail.commits] == [("tool", "partial"), ("operator", "committed")]
    operator = detail.commits[-1]
    assert operator.summary == "resumed by ops-ann"
    assert [(w["seq"], w["status"]) for w in operator.dispatch or []] == [
        (1, "applied"),
        (2, "applied"),
        (3, "applied"),
    ]
    assert detail.transaction.close_reason is not None
    assert detail.transaction.close_reason.startswith("resumed by ops-ann: the upstream applied 3 of 3")
    assert "is committed; use a new transaction key" in text(later)


async def test_an_unknown_write_is_resolved_before_the_rest_is_resumed(tmp_path: Path) -> None:
    """Requirement G46: a write whose outcome is unknown is never resent by resume; resolved as applied
    by an operator, the writes after it are sent and the first is not sent again."""
    shop = Shop()
    shop.faults["create_order"] = ["lost"]
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        reply = await _partial(runtime, "u-1")
        assert [w["status"] for w in reply["dispatch"]] == ["unknown", "skipped", "skipped"]  # type: ignore[attr-defined]
        with pytest.raises(NotFinishable, match=r"resolve u-1 --call 1 applied\|failed"):
            await runtime.manager.finish("u-1", None, "ops")
        with pytest.raises(NotFinishable, match="only a write whose outcome is unknown"):
            await runtime.manager.finish("u-1", Resolve(2, True), "ops")
        with pytest.raises(NotFinishable, match="no committed write #9"):
            await runtime.manager.finish("u-1", Resolve(9, True), "ops")
        resolved = await runtime.manager.finish("u-1", Resolve(1, True), "ops")
        assert resolved.status == "partial"  # the skipped writes are still to send
        ended = await runtime.manager.finish("u-1", None, "ops")
        detail = await _detail(runtime, "u-1")
    assert ended.status == "committed"
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "refund", "send_email"]
    assert [tool for tool, _ in shop.calls].count("create_order") == 1
    assert [c.summary for c in detail.commits[1:]] == [
        "write #1 resolved as applied by ops",
        "resumed by ops",
    ]


async def test_a_write_resolved_as_failed_is_sent_again_by_resume(tmp_path: Path) -> None:
    """Requirement G46: the operator found the unknown write not applied: resume sends it (once more)."""
    shop = Shop()
    shop.faults["send_email"] = ["unavailable"] * 8
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        reply = await _partial(runtime, "f-1")
        assert [w["status"] for w in reply["dispatch"]] == ["applied", "applied", "failed"]  # type: ignore[attr-defined]
        shop.faults["send_email"] = []
        ended = await runtime.manager.finish("f-1", None, "ops")
    assert ended.status == "committed"
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "refund", "send_email"]


async def test_two_operators_resuming_at_once_send_each_write_once(tmp_path: Path) -> None:
    """Requirement G46: a second resume racing the first is refused (compare-and-set on the outbox)."""
    shop = Shop()
    shop.faults["refund"] = ["refuse"]
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        await _partial(runtime, "r-1")
        results = await asyncio.gather(
            runtime.manager.finish("r-1", None, "ops-a"),
            runtime.manager.finish("r-1", None, "ops-b"),
            return_exceptions=True,
        )
    refused = [r for r in results if isinstance(r, NotFinishable)]
    assert len(refused) == 1, results
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "refund", "send_email"]


async def test_a_database_backend_has_no_partial_commit_to_finish(runtime: Runtime) -> None:
    """Requirement G46: resume on a transaction of an all-or-nothing backend changes nothing."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("guard_commit", {"summary": "nothing"}, meta=meta("db-1"))
        with pytest.raises(NotFinishable, match="only a partial commit"):
            await runtime.manager.finish("db-1", None, "ops")
        with pytest.raises(NotFinishable, match="no transaction nope"):
            await runtime.manager.finish("nope", None, "ops")


async def test_the_admin_api_resumes_and_resolves(tmp_path: Path) -> None:
    """Requirement G46: POST /transactions/ID/resolve and /resume; a step that does not fit is a 409."""
    shop = Shop()
    shop.faults["create_order"] = ["lost"]
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        await _partial(runtime, "a-1")
        app = create_app(runtime, manage_runtime=False)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            early = await http.post("/transactions/a-1/resume", json={"operator": "ops"})
            bad = await http.post(
                "/transactions/a-1/resolve", json={"operator": "ops", "call": 1, "outcome": "x"}
            )
            resolved = await http.post(
                "/transactions/a-1/resolve", json={"operator": "ops", "call": 1, "outcome": "applied"}
            )
            resumed = await http.post("/transactions/a-1/resume", json={"operator": "ops"})
    assert early.status_code == 409
    assert "is unknown" in early.json()["error"]
    assert bad.status_code == 422
    assert resolved.status_code == 200
    assert resolved.json()["status"] == "partial"
    assert resumed.status_code == 200, resumed.text
    assert resumed.json()["status"] == "committed"
    assert [c["via"] for c in resumed.json()["commit_log"]] == ["tool", "operator", "operator"]


async def test_guard_transactions_resume_finishes_a_write_that_never_left_the_guard(tmp_path: Path) -> None:
    """Requirement G46: the upstream down at commit, the write failed unsent; once it is back, the CLI's
    resume (its own process, its own connection upstream) sends it and the transaction ends committed."""
    down = tmp_path / "down"
    async with (
        upstream_guard(tmp_path, **_stdio_shop(tmp_path)) as runtime,
        agent_client(runtime) as agent,
    ):
        await agent.call_tool("create_order", {"item": "lamp", "quantity": 1}, meta=meta("c-1"))
        down.touch()
        _kill_stdio_shop(tmp_path)
        await until(lambda: not _link(runtime).status.connected)
        reply = body(await agent.call_tool("guard_commit", {"summary": "a lamp"}, meta=meta("c-1")))
        assert reply["status"] == "partial"
        settings = runtime.settings
    down.unlink()
    config = tmp_path / "guard.yaml"
    config.write_text(yaml.safe_dump(settings.model_dump(mode="json", exclude_none=True)))
    done = subprocess.run(
        [sys.executable, "-m", "guard", "transactions", "resume", "c-1", "--config", str(config), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = yaml.safe_load(done.stdout)
    assert shown["status"] == "committed"
    assert shown["commit_log"][-1]["via"] == "operator"
    assert [entry["tool"] for entry in journal(tmp_path / "shop.json")] == ["create_order"]
    again = subprocess.run(
        [sys.executable, "-m", "guard", "transactions", "resume", "c-1", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert again.returncode != 0
    assert "only a partial commit" in again.stderr + again.stdout


async def test_the_console_resolves_and_resumes_a_partial_commit(tmp_path: Path) -> None:
    """Requirement G46: the page of a partial transaction offers a form per unknown write and the resume
    form (disabled while one is unknown); used in turn, the commit ends committed."""
    shop = Shop()
    shop.faults["create_order"] = ["lost"]
    settings = mcp_settings(tmp_path).model_copy(update={"auth": AuthSettings(operator_tokens=[OPERATOR])})
    async with memory_guard(settings, shop, FixedClock()) as runtime:
        await _partial(runtime, "k-1")
        async with browser(runtime) as page:
            shown = (await page.get("/console/t/k-1")).text
            token = form_token_of(shown)
            resolved = await page.post(
                "/console/t/k-1/resolve",
                data={"operator": "ana", "call": "1", "outcome": "applied", "token": token},
            )
            middle = (await page.get("/console/t/k-1")).text
            resumed = await page.post("/console/t/k-1/resume", data={"operator": "ana", "token": token})
            forged = await page.post("/console/t/k-1/resume", data={"operator": "ana", "token": "0" * 64})
    assert "#1 create_order: outcome unknown" in shown
    assert "disabled" in shown
    assert resolved.status_code == 303
    assert "outcome unknown" not in middle
    assert resumed.status_code == 303, resumed.text
    assert forged.status_code == 403
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "refund", "send_email"]
    detail = await _detail(runtime, "k-1")
    assert detail.transaction.status == "committed"
