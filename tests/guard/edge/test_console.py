"""The operator's console: lists and pages over the audit log, approve and reject, behind the door.

Requirement G34: the console shows every transaction with its calls, findings and effects, escapes
all agent text, and changes a transaction only by a signed-in operator's form from its own origin.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from opentelemetry.sdk.trace import TracerProvider

from guard.clock import FixedClock
from guard.edge.console import PAGE_SIZE
from guard.edge.console_sessions import ConsoleSessions
from guard.edge.door import CONSOLE_COOKIE
from guard.edge.door import OPERATOR as OPERATOR_PRINCIPAL
from guard.edge.http import create_app
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from tests.guard.conftest import agent_client, demo_settings, meta, no_sleep, ticket_status

OPERATOR = "op-secret-token"
ESCALATE_CLOSING = """\
name: supervision
rules:
  - id: closing-needs-a-supervisor
    description: Closing a ticket is reviewed by a supervisor.
    when: {table: tickets, kind: [update], changed: [status]}
    require: "effect.after.status != 'closed'"
    decision: escalate
    message: "ticket {{effect.key}}: closing is reviewed by a supervisor"
    hint: "allowed: solved, pending"
"""
HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


def console_settings(tmp_path: Path, **sections: dict[str, Any]) -> GuardSettings:
    (tmp_path / "supervision.yaml").write_text(ESCALATE_CLOSING)
    return demo_settings(
        tmp_path,
        judges={"chain": [{"judge": "rules", "path": str(tmp_path / "supervision.yaml")}]},
        auth={"operator_tokens": [OPERATOR]},
        **sections,
    )


@pytest.fixture
async def guarded(tmp_path: Path) -> AsyncIterator[Runtime]:
    settings = console_settings(tmp_path, console={"trace_url": "http://traces.example/t?q={transaction_id}"})
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


@asynccontextmanager
async def browser(runtime: Runtime, *, signed_in: bool = True) -> AsyncIterator[httpx2.AsyncClient]:
    """A client as a browser on the guard's own origin, signed in through the form: a session cookie."""
    app = create_app(runtime, manage_runtime=False)
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://127.0.0.1:8765", follow_redirects=False
    ) as page:
        if signed_in:
            assert (await page.post("/console/sign-in", data={"token": OPERATOR})).status_code == 303
        yield page


def form_token_of(html: str) -> str:
    """The form token a page's forms carry."""
    found = re.search(r'name="token" value="([^"]+)"', html)
    assert found is not None, html
    return found.group(1)


async def stage(runtime: Runtime) -> None:
    """b-1 blocked then rolled back (its agent text hostile), e-1 waiting for review, c-1 committed."""
    async with agent_client(runtime) as agent:
        await agent.call_tool(
            "update_ticket", {"ticket_id": 20, "status": "solved", "note": HOSTILE}, meta=meta("b-1")
        )
        await agent.call_tool("guard_commit", {"summary": HOSTILE}, meta=meta("b-1"))
        await agent.call_tool("guard_rollback", {"reason": HOSTILE}, meta=meta("b-1"))  # SQLite: one writer
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"}, meta=meta("e-1"))
        await agent.call_tool("guard_commit", {"summary": "closed ticket 21"}, meta=meta("e-1"))
        await agent.call_tool("update_ticket", {"ticket_id": 22, "status": "pending"}, meta=meta("c-1"))
        await agent.call_tool("guard_commit", {"summary": "ticket 22 pending"}, meta=meta("c-1"))


def rows(html: str) -> list[str]:
    return re.findall(r'href="/console/t/([^"]+)"', html)


async def test_the_lists_filter_by_status(guarded: Runtime) -> None:
    await stage(guarded)
    async with browser(guarded) as page:
        everything = await page.get("/console")
        assert everything.status_code == 200
        assert sorted(rows(everything.text)) == ["b-1", "c-1", "e-1"]
        for status, expected in (
            ("pending_approval", ["e-1"]),
            ("blocked", ["b-1"]),
            ("committed", ["c-1"]),
            ("rolled_back", ["b-1"]),
        ):
            listed = await page.get("/console", params={"status": status})
            assert rows(listed.text) == expected, status
        unknown = await page.get("/console", params={"status": "nonsense"})
        assert unknown.status_code == 400


async def test_a_blocked_transaction_shows_its_findings_effects_and_calls_with_agent_text_escaped(
    guarded: Runtime,
) -> None:
    await stage(guarded)
    async with browser(guarded) as page:
        shown = await page.get("/console/t/b-1")
    html = shown.text
    assert shown.status_code == 200
    assert "ticket-solved-with-open-carrier-exception" in html
    assert "allowed: hold, pending, open" in html
    assert "carrier exception for ORD-10000020 is open" in html
    assert '<tr class="changed"><td class="field">status</td><td><code>&#34;open&#34;</code></td>' in html
    assert "<script>" not in html, "agent text is never markup"
    assert "<img" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert 'href="http://traces.example/t?q=b-1"' in html
    assert "/approve" not in html, "only a commit waiting for review has the forms"
    assert shown.headers["content-security-policy"].startswith("default-src 'self'")


async def test_an_escalated_commit_is_approved_from_its_page_with_the_reviewer_recorded(
    guarded: Runtime,
) -> None:
    await stage(guarded)
    async with browser(guarded) as page:
        waiting = await page.get("/console/t/e-1")
        assert "closing-needs-a-supervisor" in waiting.text
        token = form_token_of(waiting.text)
        done = await page.post("/console/t/e-1/approve", data={"reviewer": "ana", "token": token})
        assert done.status_code == 303
        after = await page.get(done.headers["location"])
    assert "committed: approved by ana" in after.text
    assert ticket_status(guarded.settings, 21) == "closed"
    detail = await guarded.manager.audit.get_transaction("e-1")
    assert detail is not None
    assert detail.transaction.close_reason == "approved by ana"
    assert [c.via for c in detail.commits] == ["tool", "review"]


async def test_a_rejection_rolls_back(guarded: Runtime) -> None:
    await stage(guarded)
    async with browser(guarded) as page:
        token = form_token_of((await page.get("/console/t/e-1")).text)
        done = await page.post("/console/t/e-1/reject", data={"reviewer": "ana", "token": token})
        assert done.status_code == 303
    assert ticket_status(guarded.settings, 21) == "open"
    detail = await guarded.manager.audit.get_transaction("e-1")
    assert detail is not None
    assert detail.transaction.close_reason == "rejected by ana"


async def test_forms_without_the_operators_form_token_or_from_another_origin_change_nothing(
    guarded: Runtime,
) -> None:
    await stage(guarded)
    async with browser(guarded) as page:
        token = form_token_of((await page.get("/console/t/e-1")).text)
        forged = await page.post("/console/t/e-1/approve", data={"reviewer": "mallory", "token": "0" * 64})
        assert forged.status_code == 403
        foreign = await page.post(
            "/console/t/e-1/approve",
            data={"reviewer": "mallory", "token": token},
            headers={"Origin": "http://evil.example"},
        )
        assert foreign.status_code == 403
        nameless = await page.post("/console/t/e-1/approve", data={"reviewer": " ", "token": token})
        assert nameless.status_code == 400
    detail = await guarded.manager.audit.get_transaction("e-1")
    assert detail is not None
    assert detail.transaction.status.value == "pending_approval"


async def test_sign_in_sets_a_strict_http_only_cookie_and_pages_need_it(guarded: Runtime) -> None:
    async with browser(guarded, signed_in=False) as page:
        away = await page.get("/console")
        assert (away.status_code, away.headers["location"]) == (303, "/console/sign-in")
        refused = await page.post("/console/t/e-1/approve", data={"reviewer": "x", "token": "y"})
        assert refused.status_code == 401
        form = await page.get("/console/sign-in")
        assert form.status_code == 200
        assert 'name="token"' in form.text
        wrong = await page.post("/console/sign-in", data={"token": "guess"})
        assert wrong.status_code == 401
        assert "not an operator token" in wrong.text
        right = await page.post("/console/sign-in", data={"token": OPERATOR})
        assert right.status_code == 303
        cookie = right.headers["set-cookie"]
        assert cookie.startswith(f"{CONSOLE_COOKIE}=")
        assert "HttpOnly" in cookie
        assert "SameSite=strict" in cookie
        assert "Path=/console" in cookie
        assert (await page.get("/console")).status_code == 200
        bearer = await page.get("/transactions", headers={"Authorization": f"Bearer {OPERATOR}"})
        assert bearer.status_code == 200
        cookie_only = await page.get("/transactions")
        assert cookie_only.status_code == 401, "the cookie opens the console, not the admin API"


async def test_pages_of_fifty_newest_first(tmp_path: Path) -> None:
    settings = console_settings(tmp_path)
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        async with agent_client(runtime) as agent:
            for n in range(PAGE_SIZE + 3):
                clock = runtime.manager.clock
                assert isinstance(clock, FixedClock)
                clock.advance(1)
                await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta(f"r-{n:03d}"))
                await agent.call_tool("guard_rollback", {}, meta=meta(f"r-{n:03d}"))
        async with browser(runtime) as page:
            first = await page.get("/console")
            second = await page.get("/console", params={"page": 2})
    finally:
        await runtime.stop()
    assert rows(first.text) == [f"r-{n:03d}" for n in range(PAGE_SIZE + 2, 2, -1)]
    assert 'href="/console?page=2"' in first.text
    assert rows(second.text) == ["r-002", "r-001", "r-000"]
    assert "older" not in second.text


async def test_the_console_can_be_switched_off(tmp_path: Path) -> None:
    settings = console_settings(tmp_path, console={"enabled": False})
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        async with browser(runtime, signed_in=False) as page:
            assert (await page.get("/console")).status_code == 401, "no console: an admin path like any"
            operator = {"Authorization": f"Bearer {OPERATOR}"}
            assert (await page.get("/console", headers=operator)).status_code == 404
            assert (await page.post("/console/sign-in", data={"token": OPERATOR})).status_code == 404
    finally:
        await runtime.stop()


# -- sessions: the cookie names a session the guard keeps, forms carry that session's token ---------------


def _anonymous_console(tmp_path: Path) -> GuardSettings:
    (tmp_path / "supervision.yaml").write_text(ESCALATE_CLOSING)
    return demo_settings(
        tmp_path, judges={"chain": [{"judge": "rules", "path": str(tmp_path / "supervision.yaml")}]}
    )


def _client(runtime: Runtime, base_url: str = "http://127.0.0.1:8765") -> httpx2.AsyncClient:
    app = create_app(runtime, manage_runtime=False)
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url=base_url, follow_redirects=False
    )


async def test_with_operator_auth_off_each_browser_gets_its_own_random_form_token(tmp_path: Path) -> None:
    """Requirement G34: without operator tokens the console still binds its forms to a random per-browser
    session; a token read from one browser's page (or a constant) does not work in another."""
    runtime = build_runtime(
        _anonymous_console(tmp_path), clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep
    )
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        await stage(runtime)
        app = create_app(runtime, manage_runtime=False)
        one, two, none = (
            httpx2.AsyncClient(
                transport=httpx2.ASGITransport(app=app),
                base_url="http://127.0.0.1:8765",
                follow_redirects=False,
            )
            for _ in range(3)
        )
        async with one, two, none:
            first = form_token_of((await one.get("/console/t/e-1")).text)
            second = form_token_of((await two.get("/console/t/e-1")).text)
            assert first != second
            constant = hmac.new(b"", b"guard console form", hashlib.sha256).hexdigest()
            assert constant not in (first, second)
            assert len(first) >= 32
            again = (await one.get("/console/t/e-1")).text
            tokens = set(re.findall(r'name="token" value="([^"]+)"', again))
            assert tokens == {first}, "the same session, the same token in every form"
            crossed = await two.post("/console/t/e-1/approve", data={"reviewer": "mallory", "token": first})
            assert crossed.status_code == 403
            cookieless = await none.post(
                "/console/t/e-1/approve", data={"reviewer": "mallory", "token": first}
            )
            assert cookieless.status_code == 403
            for forged in (constant, ""):
                refused = await one.post(
                    "/console/t/e-1/approve", data={"reviewer": "mallory", "token": forged}
                )
                assert refused.status_code == 403
            done = await one.post("/console/t/e-1/approve", data={"reviewer": "ana", "token": first})
            assert done.status_code == 303
        assert ticket_status(runtime.settings, 21) == "closed"
    finally:
        await runtime.stop()


async def _signed_in(page: httpx2.AsyncClient) -> str:
    """Sign ``page`` in through the form; the cookie's value."""
    done = await page.post("/console/sign-in", data={"token": OPERATOR})
    assert done.status_code == 303, done.text
    value = page.cookies.get(CONSOLE_COOKIE)
    assert value is not None
    return value


async def test_the_cookie_holds_a_random_session_id_never_the_operator_token(guarded: Runtime) -> None:
    """Requirement G34: the console's cookie names a server-side session (random, one per sign-in), kept
    HttpOnly, SameSite=Strict, on /console, Secure over https; the operator token itself is no cookie."""
    async with (
        _client(guarded, "https://127.0.0.1:8765") as one,
        _client(guarded) as two,
        _client(guarded) as raw,
    ):
        first = await one.post("/console/sign-in", data={"token": OPERATOR})
        cookie = first.headers["set-cookie"]
        assert OPERATOR not in cookie
        for flag in ("HttpOnly", "SameSite=strict", "Path=/console", "Secure"):
            assert flag in cookie
        one_id, two_id = one.cookies[CONSOLE_COOKIE], await _signed_in(two)
        assert one_id != two_id
        assert len(two_id) >= 32
        assert (
            "Secure"
            not in (await raw.post("/console/sign-in", data={"token": OPERATOR})).headers["set-cookie"]
        )
        raw.cookies.clear()
        raw.cookies.set(CONSOLE_COOKIE, OPERATOR)
        refused = await raw.get("/console")
        assert (refused.status_code, refused.headers["location"]) == (303, "/console/sign-in")
        assert (await two.get("/console")).status_code == 200


async def test_behind_a_trusted_tls_proxy_the_cookie_is_secure(tmp_path: Path) -> None:
    """Requirement G34: a trusted proxy's X-Forwarded-Proto: https makes the cookie Secure; anyone else's
    header changes nothing."""
    for trusted, secure in ((["127.0.0.1"], True), ([], False)):
        settings = console_settings(tmp_path, server={"trusted_proxies": trusted})
        runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
        await upgrade(runtime.audit_engine)
        async with _client(runtime) as page:
            signed = await page.post(
                "/console/sign-in", data={"token": OPERATOR}, headers={"X-Forwarded-Proto": "https"}
            )
        assert ("Secure" in signed.headers["set-cookie"]) is secure
        await runtime.audit_engine.dispose()


async def test_sign_out_ends_the_session_on_the_server(guarded: Runtime) -> None:
    """Requirement G34: after sign-out the old cookie value opens nothing, wherever it was copied to."""
    async with _client(guarded) as page, _client(guarded) as copy:
        session = await _signed_in(page)
        shown = await page.get("/console")
        assert shown.status_code == 200
        out = await page.post("/console/sign-out", data={"token": form_token_of(shown.text)})
        assert (out.status_code, out.headers["location"]) == (303, "/console/sign-in")
        copy.cookies.set(CONSOLE_COOKIE, session)
        assert (await copy.get("/console")).status_code == 303
        assert (
            await copy.post("/console/t/e-1/approve", data={"reviewer": "x", "token": "y"})
        ).status_code == 401


async def test_sessions_expire_and_forms_are_bound_to_their_session(guarded: Runtime) -> None:
    """Requirement G34: a session ends console.session_ttl_s (8 h) after sign-in; one operator's form token
    does not work with another operator's session."""
    await stage(guarded)
    clock = guarded.manager.clock
    assert isinstance(clock, FixedClock)
    async with _client(guarded) as one, _client(guarded) as two:
        await _signed_in(one)
        await _signed_in(two)
        token = form_token_of((await one.get("/console/t/e-1")).text)
        crossed = await two.post("/console/t/e-1/approve", data={"reviewer": "mallory", "token": token})
        assert crossed.status_code == 403
        clock.advance(8 * 3600 - 1)
        assert (await one.get("/console")).status_code == 200
        clock.advance(1)
        assert (await one.get("/console")).status_code == 303
        late = await one.post("/console/t/e-1/approve", data={"reviewer": "ana", "token": token})
        assert late.status_code == 401
    detail = await guarded.manager.audit.get_transaction("e-1")
    assert detail is not None
    assert detail.transaction.status.value == "pending_approval"


def test_console_sessions_end_expire_and_stay_bounded() -> None:
    """Requirement G34: a session is random, ends on sign-out or after its time, and there are never more
    than the capacity (the oldest ends first)."""
    clock = FixedClock()
    sessions = ConsoleSessions(clock, ttl_s=100, capacity=3)
    first = sessions.open(OPERATOR_PRINCIPAL)
    assert sessions.get(first.id) == first
    assert first.id != first.form_token
    assert len({sessions.open(OPERATOR_PRINCIPAL).id for _ in range(5)}) == 5
    assert len(sessions) == 3
    assert sessions.get(first.id) is None, "the oldest ended when others opened"
    newest = sessions.open(OPERATOR_PRINCIPAL)
    sessions.end(newest.id)
    assert sessions.get(newest.id) is None
    assert sessions.get(None) is None
    kept = sessions.open(OPERATOR_PRINCIPAL)
    clock.advance(99)
    assert sessions.get(kept.id) == kept
    clock.advance(1)
    assert sessions.get(kept.id) is None


async def test_a_transaction_another_replica_holds_says_where_to_act(guarded: Runtime) -> None:
    """Requirement G56: the page of a transaction held by another replica names it and offers no form
    that could not act here."""
    from dataclasses import replace as changed

    from guard.audit.log import TxnRecord
    from guard.transaction.state import Status

    record = TxnRecord.opened("far-1", "agent-b", "guard-2", "guard.demo.backend", FixedClock().now())
    await guarded.manager.audit.open_transaction(record)
    await guarded.manager.audit.update_transaction(changed(record, status=Status.PENDING_APPROVAL))
    async with browser(guarded) as page:
        html = (await page.get("/console/t/far-1")).text
    assert "held by replica <code>guard-2</code>, not by this one" in html
    assert "/approve" not in html.replace("POST /transactions/far-1/approve", "")
    assert "/rollback" not in html
