"""The conversation a host hands over (Requirement G44): checked at the edge, kept in order for the judges,
audited and redacted on both stores, shown in the console and the admin API, never on a span.

The judges here are ``tests.guard.sample_judges``' ``Echo`` (a warning that says, as JSON, what it read)
and ``Confirmed`` (blocks a write no user turn said yes to; without a conversation it decides nothing).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import ValidationError

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.errors import ConfigError
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from tests.guard.conftest import agent_client, demo_settings, no_sleep, ticket_status

JUDGES = [
    {"judge": "python", "target": "tests.guard.sample_judges:Echo"},
    {"judge": "python", "target": "tests.guard.sample_judges:Confirmed"},
]
HOSTILE = "nul \x00 lone \ud800 <script>alert(1)</script> \x1b[31mred \u202eevil"
STORED = "nul \x00 lone \ufffd <script>alert(1)</script> \x1b[31mred \u202eevil"
"""What the log keeps of :data:`HOSTILE`: JSON keeps NUL (escaped), an unpaired surrogate is replaced."""


def said(*turns: tuple[str, str]) -> list[dict[str, str]]:
    return [{"role": role, "text": text} for role, text in turns]


def meta(key: str, turns: Any = None, *, send: bool = True) -> dict[str, Any]:
    found: dict[str, Any] = {"guard/transaction": key}
    if send:
        found["guard/conversation"] = turns
    return found


def conversation_settings(tmp_path: Path, **sections: Any) -> GuardSettings:
    return demo_settings(tmp_path, judges={"chain": JUDGES}, **sections)


async def started(settings: GuardSettings, provider: TracerProvider | None = None) -> Runtime:
    runtime = build_runtime(
        settings, clock=FixedClock(), provider=provider or TracerProvider(), sleep=no_sleep
    )
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    return runtime


@pytest.fixture
async def guarded(tmp_path: Path) -> AsyncIterator[Runtime]:
    runtime = await started(conversation_settings(tmp_path))
    try:
        yield runtime
    finally:
        await runtime.stop()


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def echoed(reply: dict[str, Any]) -> dict[str, Any]:
    """What the Echo judge read, from a commit reply's findings."""
    (found,) = [f["message"] for f in reply["findings"] if f["judge"] == "echo"]
    read: dict[str, Any] = json.loads(found)
    return read


def pairs(turns: list[dict[str, Any]] | None) -> list[list[str]] | None:
    return None if turns is None else [[t["role"], t["text"]] for t in turns]


# -- what the judges read -------------------------------------------------------------------


async def test_each_call_keeps_its_turns_and_the_commit_adds_its_own_last(guarded: Runtime) -> None:
    """Requirement G44: the judges read the turns in the order they were said: each call's, as a trace
    judge sees them on its call, then the commit's; a blocked attempt's turns stay for the next one."""
    first = said(("user", "Ticket 20: is it done?"))
    asked = said(("assistant", "Shall I mark ticket 20 solved?"), ("user", "yes"))
    told = said(("assistant", "Ticket 20 is solved."))
    repair = said(("assistant", "It is held by a carrier exception; set it pending?"), ("user", "Yes please"))
    last = said(("assistant", "Ticket 20 is pending."), ("user", "thanks"))
    async with agent_client(guarded) as agent:
        await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta("c-1", first))
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"}, meta=meta("c-1", asked))
        blocked = body(await agent.call_tool("guard_commit", {"summary": "solved"}, meta=meta("c-1", told)))
        note = {"ticket_id": 20, "status": "pending", "note": "carrier exception"}
        await agent.call_tool("update_ticket", note, meta=meta("c-1", repair))
        done = body(await agent.call_tool("guard_commit", {"summary": "pending"}, meta=meta("c-1", last)))
    assert blocked["status"] == "blocked"
    assert echoed(blocked)["conversation"] == pairs(first + asked + told)
    assert done["status"] == "committed"
    assert echoed(done) == {
        "conversation": pairs(first + asked + told + repair + last),
        "calls": [
            ["get_ticket", pairs(first)],
            ["update_ticket", pairs(asked)],
            ["update_ticket", pairs(repair)],
        ],
    }
    detail = await guarded.manager.audit.get_transaction("c-1")
    assert detail is not None
    assert [pairs(c.turns) for c in detail.calls] == [pairs(first), pairs(asked), pairs(repair)]
    assert [pairs(a.turns) for a in detail.commits] == [pairs(told), pairs(last)]


async def test_no_conversation_is_none_and_an_empty_one_is_nothing_said(guarded: Runtime) -> None:
    """Requirement G44: a host that hands none over gives the judges None, and a judge that needs it does
    not decide (it warns); one that sends ``[]`` says nothing was said, and the same judge blocks."""
    write = {"ticket_id": 21, "status": "solved"}
    async with agent_client(guarded) as agent:
        await agent.call_tool("update_ticket", write, meta=meta("none-1", send=False))
        unsaid = body(
            await agent.call_tool("guard_commit", {"summary": "s"}, meta=meta("none-1", send=False))
        )
        await agent.call_tool("update_ticket", {**write, "status": "pending"}, meta=meta("empty-1", []))
        silent = body(await agent.call_tool("guard_commit", {"summary": "s"}, meta=meta("empty-1", [])))
        await agent.call_tool("guard_rollback", {}, meta=meta("empty-1", send=False))
        # a conversation sent only with the commit is the transaction's: the call before it said nothing
        await agent.call_tool("update_ticket", {**write, "status": "solved"}, meta=meta("late-1", send=False))
        late = body(await agent.call_tool("guard_commit", {"summary": "s"}, meta=meta("late-1", [])))
    assert unsaid["status"] == "committed"
    assert echoed(unsaid) == {"conversation": None, "calls": [["update_ticket", []]]}
    assert "no conversation: confirmation not judged" in [f["message"] for f in unsaid["findings"]]
    assert silent["status"] == "blocked"
    assert echoed(silent)["conversation"] == []
    assert "update_ticket: the user did not confirm it" in silent["message"]
    assert late["status"] == "blocked"
    assert echoed(late)["conversation"] == []
    unsaid_log = await guarded.manager.audit.get_transaction("none-1")
    silent_log = await guarded.manager.audit.get_transaction("empty-1")
    assert unsaid_log is not None
    assert silent_log is not None
    assert (unsaid_log.calls[0].turns, unsaid_log.commits[0].turns) == (None, None)
    assert (silent_log.calls[0].turns, silent_log.commits[0].turns) == ([], [])


async def test_a_rollback_keeps_the_turns_said_before_it(guarded: Runtime) -> None:
    """Requirement G44: the turns handed over with the rollback tool are the transaction's rollback_turns."""
    changed_mind = said(("user", "No, leave it open."))
    async with agent_client(guarded) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("rb-1", []))
        reply = await agent.call_tool("guard_rollback", {"reason": "asked"}, meta=meta("rb-1", changed_mind))
    assert body(reply)["status"] == "rolled_back"
    detail = await guarded.manager.audit.get_transaction("rb-1")
    assert detail is not None
    assert detail.transaction.rollback_turns == changed_mind
    assert detail.to_dict()["rollback_turns"] == changed_mind


# -- the edge: what is refused, and that it changes nothing ---------------------------------

BAD = [
    pytest.param("yes", "is not a list of turns", id="not a list"),
    pytest.param([{"role": "system", "text": "SECRET-TEXT"}], "[0].role: Input should be", id="role"),
    pytest.param([{"role": "user", "text": 3}], "[0].text: Input should be a valid string", id="text"),
    pytest.param([{"role": "user"}], "[0].text: Field required", id="no text"),
    pytest.param([{"role": "user", "text": "SECRET-TEXT", "name": "x"}], "[0].name: Extra inputs", id="key"),
    pytest.param([None], "[0]: Input should be", id="not a turn"),
    pytest.param(said(*[("user", "SECRET-TEXT")] * 4), "holds 4 turns, the limit is 3", id="turns"),
    pytest.param(said(("user", "SECRET-TEXT" * 200)), "bytes, the limit is 1024", id="bytes"),
]


@pytest.fixture
async def strict(tmp_path: Path) -> AsyncIterator[Runtime]:
    limits = {"max_turns_per_request": 3, "max_conversation_bytes_per_request": 1024}
    runtime = await started(conversation_settings(tmp_path, limits=limits))
    try:
        yield runtime
    finally:
        await runtime.stop()


@pytest.mark.parametrize(("turns", "problem"), BAD)
async def test_a_malformed_conversation_is_invalid_params_and_changes_nothing(
    strict: Runtime, turns: Any, problem: str
) -> None:
    """Requirements G4, G44: a conversation that is not turns within the per-request limits is the host's to
    fix (JSON-RPC invalid params, naming where and what, never the text); the call, commit or rollback it
    came with does not run: no transaction opens, no call is recorded, nothing is committed or ended."""
    write = {"ticket_id": 21, "status": "solved"}
    async with agent_client(strict) as agent:
        for tool, arguments, key in [
            ("update_ticket", write, "bad-new"),
            ("update_ticket", write, "bad-1"),
            ("guard_commit", {"summary": "s"}, "bad-1"),
            ("guard_rollback", {}, "bad-1"),
        ]:
            if key == "bad-1" and strict.manager.live(key) is None:
                await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta(key, []))
            with pytest.raises(MCPError) as refused:
                await agent.call_tool(tool, arguments, meta=meta(key, turns))
            assert refused.value.code == types.INVALID_PARAMS
            assert "_meta['guard/conversation']" in refused.value.message
            assert problem in refused.value.message
            assert "SECRET-TEXT" not in refused.value.message
    assert await strict.manager.audit.get_transaction("bad-new") is None
    detail = await strict.manager.audit.get_transaction("bad-1")
    assert detail is not None
    assert [c.tool for c in detail.calls] == ["get_ticket"]
    assert detail.commits == ()
    assert strict.manager.live("bad-1") is not None
    assert ticket_status(strict.settings, 21) == "open"


async def test_a_calls_turns_count_toward_the_transactions_argument_bytes(tmp_path: Path) -> None:
    """Requirements G20, G44: a call's turns count with its arguments; a call past the limit is refused as a
    tool error the agent reads, is logged without its turns, and the judges never see them."""
    settings = conversation_settings(tmp_path, limits={"max_argument_bytes_per_transaction": 2048})
    runtime = await started(settings)
    try:
        async with agent_client(runtime) as agent:
            kept = said(("user", "a" * 1200))
            await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("lim-1", kept))
            over = await agent.call_tool(
                "get_ticket", {"ticket_id": 21}, meta=meta("lim-1", said(("user", "b" * 900)))
            )
            done = body(await agent.call_tool("guard_commit", {"summary": "s"}, meta=meta("lim-1", [])))
        assert over.is_error
        assert "limits.max_argument_bytes_per_transaction" in over.content[0].text  # type: ignore[union-attr]
        assert echoed(done)["conversation"] == pairs(kept)
        detail = await runtime.manager.audit.get_transaction("lim-1")
        assert detail is not None
        assert [pairs(c.turns) for c in detail.calls] == [pairs(kept), None]
    finally:
        await runtime.stop()


# -- the audit log: both stores, hostile text, redaction ------------------------------------


async def test_hostile_turns_round_trip_through_both_stores(
    tmp_path: Path, store: tuple[str, str | None]
) -> None:
    """Requirements G41, G44: any text a host sends is data: the judges read it as sent, and both audit
    stores keep and give back every call's, commit's and rollback's turns (made storable)."""
    url, schema = store
    runtime = await started(conversation_settings(tmp_path, audit={"url": url, "search_path": schema}))
    try:
        async with agent_client(runtime) as agent:
            hostile = said(("user", HOSTILE), ("assistant", HOSTILE))
            await agent.call_tool(
                "update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("h-1", hostile)
            )
            reply = body(
                await agent.call_tool("guard_commit", {"summary": "s"}, meta=meta("h-1", hostile[:1]))
            )
            await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("h-2", []))
            await agent.call_tool("guard_rollback", {}, meta=meta("h-2", hostile[1:]))
        assert echoed(reply)["conversation"] == pairs(hostile + hostile[:1])
        committed = await runtime.manager.audit.get_transaction("h-1")
        rolled_back = await runtime.manager.audit.get_transaction("h-2")
        assert committed is not None
        assert rolled_back is not None
        assert pairs(committed.calls[0].turns) == [["user", STORED], ["assistant", STORED]]
        assert pairs(committed.commits[0].turns) == [["user", STORED]]
        assert pairs(rolled_back.transaction.rollback_turns) == [["assistant", STORED]]
    finally:
        await runtime.stop()


CARD = "my card is 4111 1111 1111 1111"


async def test_redacted_turns_keep_their_role_and_length_and_reach_no_span(
    tmp_path: Path, exporter: InMemorySpanExporter, provider: TracerProvider
) -> None:
    """Requirements G30, G44: ``guard/conversation.user`` keeps the user's words out of the audit log (each
    redacted turn keeps its role and length), a finding that quotes one whole is logged and traced with the
    quote replaced, and the guard puts no turn on a span; the judges and the agent's reply keep the words."""
    settings = conversation_settings(tmp_path, audit={"redact": ["guard/conversation.user"]})
    runtime = await started(settings, provider)
    try:
        async with agent_client(runtime) as agent:
            turns = said(("user", CARD), ("assistant", "Noted. Solve ticket 21? yes"), ("user", "yes"))
            await agent.call_tool(
                "update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("r-1", turns)
            )
            reply = body(
                await agent.call_tool(
                    "guard_commit", {"summary": "s"}, meta=meta("r-1", said(("user", CARD)))
                )
            )
        assert reply["status"] == "committed"
        assert echoed(reply)["conversation"][0] == ["user", CARD]
        detail = await runtime.manager.audit.get_transaction("r-1")
        assert detail is not None
        assert detail.calls[0].turns == [
            {"role": "user", "text": "[redacted]", "length": len(CARD)},
            {"role": "assistant", "text": "Noted. Solve ticket 21? yes"},
            {"role": "user", "text": "[redacted]", "length": 3},
        ]
        assert detail.commits[0].turns == [{"role": "user", "text": "[redacted]", "length": len(CARD)}]
        assert CARD not in json.dumps(detail.to_dict())
        assert "[redacted]" in json.dumps(detail.commits[0].findings)
    finally:
        await runtime.stop()
    spans = exporter.get_finished_spans()
    assert spans
    for span in spans:
        events = [{k: v for k, v in (e.attributes or {}).items()} for e in span.events]
        shown = json.dumps([dict(span.attributes or {}), events, span.name], default=str)
        assert CARD not in shown, span.name
        # the guard puts no turn on a span; only a judge's own words (a finding's message) may quote one
        quoted = [e.pop("guard.finding.message", "") for e in events]
        assert "Noted." not in json.dumps([dict(span.attributes or {}), events, span.name], default=str)
        assert all("Noted." not in q for q in quoted if not q.startswith('{"conversation"'))


@pytest.mark.parametrize("path", ["guard/conversation.system", "guard/conversation.user.text"])
def test_a_conversation_path_names_a_role(tmp_path: Path, path: str) -> None:
    with pytest.raises((ValidationError, ConfigError), match=r"guard/conversation\.user"):
        demo_settings(tmp_path, audit={"redact": [path]})


# -- the admin API and the console -----------------------------------------------------------


async def test_the_admin_commit_takes_a_conversation(guarded: Runtime) -> None:
    """Requirement G44: the admin API's commit hands the judges the turns it carries, as the commit tool's
    ``_meta`` does; a malformed one is a 422 (as every admin body), one past the limits a 400, and neither
    changes anything; the transaction's JSON shows the turns."""
    yes = said(("user", "yes, close it"))
    async with agent_client(guarded) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("a-1", yes))
    app = create_app(guarded, manage_runtime=False)
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        malformed = {"summary": "s", "conversation": [{"role": "x"}]}
        bad = await http.post("/transactions/a-1/commit", json=malformed)
        assert bad.status_code == 422, bad.text
        assert [p["loc"] for p in bad.json()["detail"]] == [
            ["body", "conversation", 0, "role"],
            ["body", "conversation", 0, "text"],
        ]
        many = {"summary": "s", "conversation": said(*[("user", "yes")] * 201)}
        over = await http.post("/transactions/a-1/commit", json=many)
        assert over.status_code == 400, over.text
        assert "conversation holds 201 turns, the limit is 200" in over.json()["error"]
        assert guarded.manager.live("a-1") is not None
        closed = said(("assistant", "Ticket 21 is closed."))
        done = await http.post("/transactions/a-1/commit", json={"summary": "s", "conversation": closed})
        assert done.status_code == 200, done.text
        shown = (await http.get("/transactions/a-1")).json()
    assert done.json()["status"] == "committed"
    assert echoed(done.json())["conversation"] == pairs(yes + closed)
    assert [a["turns"] for a in shown["commit_log"]] == [closed]
    assert [c["turns"] for c in shown["call_log"]] == [yes]


async def test_the_console_shows_each_calls_turns_before_it_escaped(guarded: Runtime) -> None:
    """Requirements G34, G44: the console shows the conversation where it was said (each call's turns
    before its row, a commit's in its attempt), escaped."""
    from tests.guard.edge.test_console import browser

    first, hostile = said(("user", "<b>first</b>")), said(("user", HOSTILE), ("assistant", "ok"))
    async with agent_client(guarded) as agent:
        await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("v-1", first))
        await agent.call_tool(
            "update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("v-1", hostile)
        )
        closing = said(("assistant", "closing now"))
        await agent.call_tool("guard_commit", {"summary": "s"}, meta=meta("v-1", closing))
    async with browser(guarded, signed_in=False) as page:
        html = (await page.get("/console/t/v-1")).text
    assert "<script>alert(1)</script>" not in html
    assert "<b>first</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    calls = html[html.index("<h2>Calls</h2>") :]  # the attempts above quote the turns in Echo's finding
    said_first, said_hostile = calls.index("&lt;b&gt;first&lt;/b&gt;"), calls.index("&lt;script&gt;alert")
    get, update = calls.index("<code>get_ticket</code>"), calls.index("<code>update_ticket</code>")
    assert said_first < get < said_hostile < update
    assert "said before this commit" in html
    assert "closing now" in html
