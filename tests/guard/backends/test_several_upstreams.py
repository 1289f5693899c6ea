"""Several upstreams behind one guard: each tool namespaced by its upstream, each upstream classified by its
own settings, each write dispatched to its own upstream."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from guard.backends.upstream import Namespaced
from tests.conftest import ROOT
from tests.fakes.mcp_shop import journal
from tests.guard.conftest import agent_client, meta
from tests.guard.mcp_support import body, mcp_settings, text, upstream_guard

_RULES = """\
name: refunds
rules:
  - id: east-refund-limit
    when: {table: "call:east__refund"}
    require: "effect.after.amount <= 100"
    decision: block
    message: "an east refund above 100"
"""


def _shop(tmp_path: Path, name: str, **tool_settings: Any) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_shop"],
        "env": {"SHOP_JOURNAL": str(tmp_path / f"{name}.json")},
        "cwd": str(ROOT),
        **tool_settings,
    }


async def test_two_upstreams_are_served_namespaced_each_by_its_own_settings(tmp_path: Path) -> None:
    """Requirement G52: tools named <upstream>__<tool>; a passthrough in one and deferred in the other as
    each one's settings say; a rule on one upstream's table; commit sends each write to its own upstream."""
    upstreams = {
        "east": _shop(tmp_path, "east"),
        "west": _shop(tmp_path, "west", tools={"send_email": {"mode": "passthrough"}}),
    }
    async with upstream_guard(tmp_path, rules=_RULES, url=None, upstreams=upstreams) as runtime:
        assert isinstance(runtime.manager.backend.upstream, Namespaced)  # type: ignore[attr-defined]
        async with agent_client(runtime) as agent:
            listed = {tool.name for tool in (await agent.list_tools()).tools}
            await agent.call_tool("east__create_order", {"item": "lamp", "quantity": 1}, meta=meta("n-1"))
            sent = await agent.call_tool("west__send_email", {"to": "a@x.org", "body": "b"}, meta=meta("n-1"))
            assert journal(tmp_path / "west.json")[0]["tool"] == "send_email"  # passthrough: sent at once
            await agent.call_tool("east__refund", {"order_id": "ORD-1", "amount": 500}, meta=meta("n-1"))
            blocked = body(await agent.call_tool("guard_commit", {"summary": "x"}, meta=meta("n-1")))
            await agent.call_tool("guard_withdraw", {"seq": 3}, meta=meta("n-1"))
            await agent.call_tool("west__create_order", {"item": "desk", "quantity": 2}, meta=meta("n-1"))
            committed = body(await agent.call_tool("guard_commit", {"summary": "x"}, meta=meta("n-1")))
            read = await agent.call_tool("west__get_order", {"order_id": "ORD-1"}, meta=meta("n-2"))
    assert {"east__create_order", "west__create_order", "west__send_email", "guard_commit"} <= listed
    assert "create_order" not in listed
    assert sent.is_error is False
    assert blocked["status"] == "blocked"
    assert committed["status"] == "committed", committed
    assert [(e["tool"], e["arguments"]) for e in journal(tmp_path / "east.json")] == [
        ("create_order", {"item": "lamp", "quantity": 1})
    ]
    assert [e["tool"] for e in journal(tmp_path / "west.json")] == ["send_email", "create_order"]
    assert '"item": "desk"' in text(read)


@pytest.mark.parametrize(
    ("mcp", "problem"),
    [
        (
            {"url": "http://x.invalid/mcp", "upstreams": {"a": {"url": "http://a.invalid/mcp"}}},
            "set url in each",
        ),
        ({"url": None, "upstreams": {"a__b": {"url": "http://a.invalid/mcp"}}}, "a name is 1 to 32"),
        ({"url": None, "upstreams": {"a": {"url": "http://a", "command": "x"}}}, "not both"),
    ],
)
def test_upstreams_that_cannot_be_served_apart_are_refused(
    tmp_path: Path, mcp: dict[str, Any], problem: str
) -> None:
    """Requirement G52: top-level connection settings beside upstreams, a name that would blur the
    namespace, or an upstream reached two ways, are each a config error."""
    with pytest.raises(ValidationError, match=problem):
        mcp_settings(tmp_path, **mcp)
