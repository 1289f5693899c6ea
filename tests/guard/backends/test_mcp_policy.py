"""Pure parts of the ``mcp`` backend: classification, compensation templates, settings, outbox states."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from guard.backends.outbox import EntryStatus, MemoryOutbox, Outbox, OutboxEntry, advance
from guard.backends.policy import build_arguments, classify_tool, resolve_policies
from guard.backends.upstream import UpstreamTool
from guard.errors import ConfigError, InvalidArguments
from guard.json_schema import JsonSchemaArguments
from guard.settings import McpSettings, McpToolSettings, load_settings
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from guard.store.sql_outbox import SqlOutbox
from guard.tools import Tool
from judges.classify import ErrorClass

SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
AT = datetime(2025, 10, 1, 13, tzinfo=UTC)


def tool(name: str = "t", **hints: bool | None) -> UpstreamTool:
    return UpstreamTool(name=name, description="", input_schema=SCHEMA, **hints)


@pytest.mark.parametrize(
    ("hints", "override", "expected"),
    [
        ({"read_only": True}, None, ("read", "annotations", True, False)),
        (
            {"read_only": False, "idempotent": True, "destructive": False},
            None,
            ("defer", "annotations", True, False),
        ),
        ({"read_only": False}, None, ("defer", "annotations", False, True)),
        ({}, None, ("defer", "unknown", False, True)),
        ({"idempotent": True}, None, ("defer", "annotations", True, True)),
        ({"read_only": True}, {"mode": "passthrough"}, ("passthrough", "config", False, True)),
        ({"read_only": False}, {"mode": "read"}, ("read", "config", True, False)),
        ({}, {"idempotent": True}, ("defer", "unknown", True, True)),
    ],
)
def test_config_then_annotations_then_a_non_idempotent_write(
    hints: dict[str, bool], override: dict[str, Any] | None, expected: tuple[str, str, bool, bool]
) -> None:
    """Requirement G15: the precedence of the classification, and MCP's defaults for missing hints."""
    found = classify_tool(
        tool(**hints),
        McpToolSettings.model_validate(override) if override else None,
        write_mode="defer",
        honours_keys=False,
    )
    assert (found.mode, found.source, found.idempotent, found.destructive) == expected
    assert found.safe_to_repeat is found.idempotent


def test_the_default_write_mode_and_honoured_keys() -> None:
    found = classify_tool(tool(read_only=False), None, write_mode="passthrough", honours_keys=True)
    assert (found.mode, found.idempotent, found.safe_to_repeat) == ("passthrough", False, True)


def test_overrides_must_fit_the_upstreams_tools() -> None:
    listed = [tool("create", read_only=False), tool("cancel", read_only=False), tool("get", read_only=True)]
    with pytest.raises(ConfigError, match="names tools the upstream does not list: nope"):
        resolve_policies(listed, McpSettings(url="http://x", tools={"nope": McpToolSettings(mode="read")}))
    undo = {"compensate": {"tool": "cancel"}}
    with pytest.raises(ConfigError, match=r"tools\.create\.compensate: the tool is a defer tool"):
        resolve_policies(listed, McpSettings.model_validate({"url": "http://x", "tools": {"create": undo}}))
    missing = {"mode": "passthrough", "compensate": {"tool": "void"}}
    with pytest.raises(ConfigError, match="the upstream lists no tool 'void'"):
        resolve_policies(
            listed, McpSettings.model_validate({"url": "http://x", "tools": {"create": missing}})
        )


def test_compensation_arguments_come_from_the_call_and_its_result() -> None:
    template = {"order_id": "$result.id", "item": "$arguments.lines.0.sku", "note": "$$5 off", "n": 2}
    built = build_arguments(template, {"lines": [{"sku": "A-1"}]}, {"id": "ORD-7"})
    assert built == {"order_id": "ORD-7", "item": "A-1", "note": "$5 off", "n": 2}
    with pytest.raises(LookupError, match=r"\$result\.id is not in the original call"):
        build_arguments(template, {"lines": [{"sku": "A-1"}]}, "plain text result")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("backend: {kind: mcp}\n", "backend.kind is mcp: set url or command in backend.mcp"),
        ("backend: {mcp: {url: 'http://x', command: y}}\n", "set either url"),
        ("backend: {mcp: {command: y, headers: {a: b}}}\n", "headers apply to an upstream reached by url"),
        ("backend: {mcp: {url: 'http://x', args: [a]}}\n", "args, env and cwd apply"),
        (
            "backend: {mcp: {url: 'http://x', dispatch: {lease_s: 5}}}\n",
            r"dispatch\.lease_s \(5\) must exceed",
        ),
        (
            "backend: {mcp: {url: 'http://x', tools: {a: {mode: defer, compensate: {tool: b}}}}}\n",
            "compensate applies to passthrough writes, not to mode defer",
        ),
        (
            "backend: {mcp: {url: 'http://x', tools: {a: {compensate: "
            "{tool: b, arguments: {x: $result..id}}}}}}\n",
            r"arguments\.x: '\$result\.\.id' is not a reference",
        ),
        ("backend: {mcp: {url: 'http://x', write_mode: read}}\n", "write_mode"),
    ],
)
def test_bad_mcp_settings_are_one_clear_config_error(tmp_path: Path, content: str, message: str) -> None:
    config = tmp_path / "guard.yaml"
    config.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_settings(config)


def test_the_upstream_schema_checks_arguments() -> None:
    """Requirement G4: one line naming every offending argument."""
    check = JsonSchemaArguments(SCHEMA, tool="t")
    assert check({"id": "a"}) == {"id": "a"}
    with pytest.raises(InvalidArguments, match=r"^Input validation failed: arguments: 'id' is a required"):
        check({})
    with pytest.raises(ConfigError, match="tool t: its input schema is not valid JSON Schema"):
        JsonSchemaArguments({"type": "nonsense"}, tool="t")


def test_a_tool_described_by_a_json_schema_is_validated_by_it() -> None:
    """Requirement G4: an upstream tool's arguments are checked against its schema, once, as one dict."""
    tool = Tool(
        name="echo",
        description="",
        input_schema=SCHEMA,
        output_schema=None,
        write=False,
        idempotent=True,
        destructive=False,
        check=JsonSchemaArguments(SCHEMA, tool="echo"),
    )
    assert tool.validate({"id": "a"}) == {"id": "a"}
    with pytest.raises(InvalidArguments) as refused:
        tool.validate({"id": 3})
    assert refused.value.error_class is ErrorClass.INVALID_ARGUMENTS
    assert refused.value.message == "Input validation failed: id: 3 is not of type 'string'"


def entry(key: str, seq: int, status: EntryStatus = EntryStatus.HELD, transaction: str = "x") -> OutboxEntry:
    return OutboxEntry(key, transaction, seq, "create", {"a": seq}, "defer", status, "guard-1", AT, AT)


def test_the_outbox_state_machine_refuses_illegal_moves() -> None:
    held = entry("k", 1)
    assert advance(held, EntryStatus.READY, AT).status is EntryStatus.READY
    with pytest.raises(ValueError, match="held cannot become applied"):
        advance(held, EntryStatus.APPLIED, AT)
    done = advance(
        advance(advance(held, EntryStatus.READY, AT), EntryStatus.DISPATCHING, AT), EntryStatus.APPLIED, AT
    )
    with pytest.raises(ValueError, match="applied cannot become dispatching"):
        advance(done, EntryStatus.DISPATCHING, AT)


@pytest.fixture(params=["memory", "sqlite"])
async def outbox(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        yield MemoryOutbox()
        return
    engine = create_engine(f"sqlite:///{tmp_path / 'guard.db'}")
    await upgrade(engine)
    yield SqlOutbox(engine)
    await engine.dispose()


async def test_seal_claim_and_orphans_mean_the_same_in_memory_and_in_sql(outbox: Outbox) -> None:
    """Requirement G13: sealing decides the commit; a claim takes a transaction only after its lease."""
    for key, seq in (("k2", 2), ("k1", 1)):
        await outbox.add(entry(key, seq))
    await outbox.add(entry("o1", 1, transaction="open"))
    assert [e.key for e in await outbox.entries("x")] == ["k1", "k2"]
    assert sorted(await outbox.orphans("guard-1")) == ["open", "x"]
    lease = AT + timedelta(seconds=60)
    await outbox.seal("x", "guard-1", AT, lease)
    sealed = await outbox.entries("x")
    assert [(e.status, e.committed_at, e.lease_until) for e in sealed] == [(EntryStatus.READY, AT, lease)] * 2
    assert await outbox.orphans("guard-1") == ["open"]
    assert (
        await outbox.claim("guard-2", AT + timedelta(seconds=30), AT + timedelta(seconds=90), own=False) == []
    )
    assert await outbox.claim("guard-1", AT, lease, own=True) == ["x"]
    later = AT + timedelta(seconds=61)
    assert await outbox.claim("guard-2", later, later + timedelta(seconds=60), own=False) == ["x"]
    assert await outbox.claim("guard-3", later, later + timedelta(seconds=60), own=False) == []
    assert {e.instance for e in await outbox.entries("x")} == {"guard-2"}
