"""Classification you can see and trust: ``guard tools``, the warning for unannotated tools, and errors an
upstream reports as plain text."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from guard.clock import FixedClock
from guard.errors import ConfigError
from tests.conftest import ROOT
from tests.fakes.mcp_shop import Shop
from tests.guard.conftest import agent_client, meta
from tests.guard.mcp_support import body, mcp_settings, memory_guard, text


def test_guard_tools_shows_each_tools_class_and_why(tmp_path: Path) -> None:
    """Requirement G49: each upstream tool with its class and the reason; an unannotated one says so."""
    config = tmp_path / "guard.yaml"
    mcp = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_shop"],
        "env": {"SHOP_JOURNAL": str(tmp_path / "shop.json")},
        "cwd": str(ROOT),
        "tools": {"send_email": {"mode": "passthrough"}, "cancel_order": {"preview": "dry_run"}},
    }
    config.write_text(yaml.safe_dump({"backend": {"kind": "mcp", "mcp": mcp}}))
    done = subprocess.run(
        [sys.executable, "-m", "guard", "tools", "--config", str(config), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = {row["name"]: row for row in json.loads(done.stdout)["tools"]}
    assert shown["get_order"]["class"] == "read"
    assert shown["get_order"]["why"] == "readOnlyHint is true"
    assert shown["send_email"]["class"] == "passthrough"
    assert shown["send_email"]["why"] == "backend.mcp.tools.send_email.mode is passthrough"
    assert shown["cancel_order"]["class"] == "defer (preview: dry_run)"
    assert shown["add_note"]["source"] == "unknown"
    assert shown["add_note"]["why"].startswith("no annotations: a non-idempotent, destructive write")
    assert "backend.mcp.tools.add_note.mode: read" in shown["add_note"]["why"]
    assert "1 tool(s) carry no MCP annotations" in done.stderr
    table = subprocess.run(
        [sys.executable, "-m", "guard", "tools", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert table.returncode == 0, table.stderr
    assert "add_note" in table.stdout
    assert "readOnlyHint is true" in table.stdout


async def test_unannotated_tools_are_named_in_a_warning_at_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Requirement G49: a tool without annotations, served as a deferred write, is named at start."""
    caplog.set_level(logging.WARNING, logger="guard.backends.policy")
    async with memory_guard(mcp_settings(tmp_path), Shop(), FixedClock()):
        pass
    warned = [r.getMessage() for r in caplog.records if "carry no MCP annotations" in r.getMessage()]
    assert len(warned) == 1
    assert "(defer add_note)" in warned[0]
    caplog.clear()
    classified = mcp_settings(tmp_path, tools={"add_note": {"mode": "defer"}})
    async with memory_guard(classified, Shop(), FixedClock()):
        pass
    assert not [r for r in caplog.records if "carry no MCP annotations" in r.getMessage()]


async def test_an_error_the_upstream_reports_as_text_is_an_error(tmp_path: Path) -> None:
    """Requirement G49: with error_patterns, a result whose text matches is an error (a read, a passthrough
    write recorded as failed, a deferred write's dispatch failed), though the upstream set no isError."""
    shop = Shop()
    shop.orders["ORD-0"] = {"id": "ORD-0", "item": "Error: bad", "quantity": 1, "status": "placed"}
    settings = mcp_settings(
        tmp_path,
        error_patterns=[r'"item": "Error:'],
        tools={"send_email": {"mode": "passthrough", "error_pattern": r'"sent": true'}},
    )
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        read = await agent.call_tool("get_order", {"order_id": "ORD-0"}, meta=meta("e-1"))
        mail = await agent.call_tool("send_email", {"to": "a@example.com", "body": "x"}, meta=meta("e-1"))
        await agent.call_tool("create_order", {"item": "Error: again", "quantity": 1}, meta=meta("e-1"))
        reply = body(await agent.call_tool("guard_commit", {"summary": "x"}, meta=meta("e-1")))
    assert read.is_error is True
    assert '"item": "Error: bad"' in text(read)
    assert mail.is_error is True
    assert reply["status"] == "partial"
    assert [(w["tool"], w["status"]) for w in reply["dispatch"]] == [
        ("send_email", "failed"),
        ("create_order", "failed"),
    ]


def test_an_error_pattern_that_is_not_a_regular_expression_is_refused(tmp_path: Path) -> None:
    """Requirement G49: a bad pattern is a config error naming it."""
    with pytest.raises(ValueError, match=r"error_patterns\[0\]: '\(' is not a regular expression"):
        mcp_settings(tmp_path, error_patterns=["("])


def _pack(tmp_path: Path, when: str, require: str) -> None:
    (tmp_path / "refunds.yaml").write_text(
        "name: refunds\n"
        "rules:\n"
        "  - id: refund-limit\n"
        f"    when: {when}\n"
        f'    require: "{require}"\n'
        "    decision: block\n"
        '    message: "refund above the limit"\n'
    )


async def test_a_rule_on_upstream_calls_judges_them_without_naming_their_kind(tmp_path: Path) -> None:
    """Requirement G49: a rule whose when names only call:<tool> tables judges call effects by default."""
    settings = mcp_settings(tmp_path, rules=True)
    _pack(tmp_path, '{table: "call:refund"}', "effect.after.amount <= 100")
    async with memory_guard(settings, Shop(), FixedClock()) as runtime, agent_client(runtime) as agent:
        await agent.call_tool("refund", {"order_id": "ORD-1", "amount": 500}, meta=meta("k-1"))
        reply = body(await agent.call_tool("guard_commit", {"summary": "refund"}, meta=meta("k-1")))
    assert reply["status"] == "blocked"


@pytest.mark.parametrize(
    ("when", "require", "problem"),
    [
        (
            '{table: "call:refund", kind: insert}',
            "effect.after.amount <= 100",
            r"kind \['insert'\] never matches",
        ),
        (
            '{table: "call:refund", kind: call}',
            "effect.after.amont <= 100",
            r"rule refund-limit \(refunds\) reads amont of call:refund, whose tool takes amount, order_id",
        ),
        ('{table: "call:refund"}', "effect.after['order'] != 'x'", "reads order of call:refund"),
    ],
)
async def test_a_rule_that_cannot_fit_the_upstreams_tools_fails_at_start(
    tmp_path: Path, when: str, require: str, problem: str
) -> None:
    """Requirement G49: a kind call effects never have, or an argument the tool does not take, is refused
    when the guard starts, not on every commit it would have blocked."""
    settings = mcp_settings(tmp_path, rules=True)
    _pack(tmp_path, when, require)
    with pytest.raises(ConfigError, match=problem):
        async with memory_guard(settings, Shop(), FixedClock()):
            pass
