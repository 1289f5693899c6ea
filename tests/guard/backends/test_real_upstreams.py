"""The guard in front of MCP servers teams already run, installed pinned by ``.ci/run``.

``@modelcontextprotocol/server-memory`` and ``server-filesystem`` (npm, over stdio),
``mcp-server-sqlite`` (PyPI, the 1.x Python SDK, over stdio, in a virtual environment
of its own) and a 1.x notes server over HTTP with sessions (that venv again). The
guard is the durable one in this process; the agent is the official client in process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types

from guard.backends.mcp import McpBackend
from guard.edge.mcp_client import ClientUpstream
from guard.runtime import Runtime
from tests.conftest import ROOT, RealUpstreams
from tests.guard.conftest import agent_client, free_port, meta
from tests.guard.mcp_support import body, kill_child, listening, text, upstream_guard


def _link(runtime: Runtime) -> ClientUpstream:
    backend = runtime.manager.backend
    assert isinstance(backend, McpBackend)
    assert isinstance(backend.upstream, ClientUpstream)
    return backend.upstream


def _memory(real: RealUpstreams, tmp_path: Path) -> dict[str, Any]:
    return {
        "url": None,
        "command": real.node,
        "args": [str(real.memory)],
        "env": {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")},
    }


def _entities(result: types.CallToolResult) -> list[str]:
    graph = result.structured_content or {}
    return sorted(entity["name"] for entity in graph.get("entities", []))


async def test_server_memory_writes_wait_for_commit_and_a_dead_child_is_respawned(
    real_upstreams: RealUpstreams, tmp_path: Path
) -> None:
    """Requirements G11, G45: create_entities waits for the commit (a read before it says so); the node
    child killed, the next read is answered by a new one, which reads what was committed."""
    person = {"name": "ada", "entityType": "person", "observations": ["wrote the first program"]}
    async with (
        upstream_guard(tmp_path, **_memory(real_upstreams, tmp_path)) as runtime,
        agent_client(runtime) as agent,
    ):
        held = body(await agent.call_tool("create_entities", {"entities": [person]}, meta=meta("m-1")))
        before = await agent.call_tool("read_graph", {}, meta=meta("m-1"))
        committed = body(await agent.call_tool("guard_commit", {"summary": "ada"}, meta=meta("m-1")))
        kill_child(str(real_upstreams.memory), str(tmp_path / "memory.jsonl"))
        after = await agent.call_tool("read_graph", {}, meta=meta("m-2"))
        connections = _link(runtime).status.connections
    assert held["status"] == "deferred"
    assert _entities(before) == []
    assert "holds 1 deferred write(s) (create_entities (#1))" in text(before) + str(before.content[-1])
    assert committed["status"] == "committed"
    assert after.is_error is False, after
    assert _entities(after) == ["ada"]
    assert connections == 2


_SECRETS = """\
name: memory
rules:
  - id: no-secret-entities
    when: {table: "call:create_entities"}
    require: "effect.after.entities.all(e, e.entityType != 'secret')"
    decision: block
    message: "an entity of type secret may not be stored"
"""


async def test_server_memory_blocked_commit_is_repaired_without_a_rollback(
    real_upstreams: RealUpstreams, tmp_path: Path
) -> None:
    """Requirement G47: blocked for one held write, the agent withdraws it, writes it again corrected and
    commits: the first write is kept, the withdrawn one never reaches the server."""
    person = {"name": "ada", "entityType": "person", "observations": []}
    secret = {"name": "vault", "entityType": "secret", "observations": ["the code is 1234"]}
    memory = _memory(real_upstreams, tmp_path)
    async with upstream_guard(tmp_path, rules=_SECRETS, **memory) as runtime, agent_client(runtime) as agent:
        await agent.call_tool("create_entities", {"entities": [person]}, meta=meta("r-1"))
        await agent.call_tool("create_entities", {"entities": [secret]}, meta=meta("r-1"))
        blocked = body(await agent.call_tool("guard_commit", {"summary": "stored"}, meta=meta("r-1")))
        assert blocked["status"] == "blocked"
        assert 'guard_withdraw {"seq": 2}' in blocked["message"]
        await agent.call_tool("guard_withdraw", {"seq": 2}, meta=meta("r-1"))
        note = {**secret, "entityType": "note", "observations": ["kept elsewhere"]}
        await agent.call_tool("create_entities", {"entities": [note]}, meta=meta("r-1"))
        committed = body(await agent.call_tool("guard_commit", {"summary": "stored"}, meta=meta("r-1")))
        graph = await agent.call_tool("read_graph", {}, meta=meta("r-2"))
    assert committed["status"] == "committed", committed
    assert _entities(graph) == ["ada", "vault"]
    assert "1234" not in (tmp_path / "memory.jsonl").read_text()


def _filesystem(real: RealUpstreams, root: Path) -> dict[str, Any]:
    return {
        "url": None,
        "command": real.node,
        "args": [str(real.filesystem), str(root)],
        "tools": {"edit_file": {"preview": "dryRun"}},
    }


async def test_server_filesystem_text_arrives_as_text_and_a_dry_run_previews_at_once(
    real_upstreams: RealUpstreams, tmp_path: Path
) -> None:
    """Requirements G47, G48: a file's text reaches the agent as the server sent it (not re-rendered as
    JSON); edit_file with dryRun answers its diff at once and changes nothing; without it, it waits for
    the commit."""
    root = tmp_path / "files"
    root.mkdir()
    poem = root / "poem.txt"
    poem.write_text("line one\nline two\n")
    edit = {"path": str(poem), "edits": [{"oldText": "line two", "newText": "line 2"}]}
    async with (
        upstream_guard(tmp_path, **_filesystem(real_upstreams, root)) as runtime,
        agent_client(runtime) as agent,
    ):
        read = await agent.call_tool("read_text_file", {"path": str(poem)}, meta=meta("f-1"))
        preview = await agent.call_tool("edit_file", {**edit, "dryRun": True}, meta=meta("f-1"))
        after_preview = poem.read_text()
        held = body(await agent.call_tool("edit_file", edit, meta=meta("f-1")))
        before_commit = poem.read_text()
        committed = body(await agent.call_tool("guard_commit", {"summary": "edited"}, meta=meta("f-1")))
    assert read.is_error is False
    assert read.content[0] == types.TextContent(type="text", text="line one\nline two\n")
    assert preview.is_error is False
    assert "-line two" in text(preview)
    assert "+line 2" in text(preview)
    assert after_preview == "line one\nline two\n"
    assert held["status"] == "deferred"
    assert before_commit == "line one\nline two\n"
    assert committed["status"] == "committed"
    assert poem.read_text() == "line one\nline 2\n"


async def test_mcp_server_sqlite_errors_told_as_text_are_errors(
    real_upstreams: RealUpstreams, tmp_path: Path
) -> None:
    """Requirement G49: a 1.x Python server without annotations, its reads classified in the config, its
    "Database error: ..." texts (no isError) made errors by error_patterns: a failed read is an error,
    and a deferred write the database refuses is reported failed at commit, never applied."""
    database = tmp_path / "shop.db"
    sqlite = {
        "url": None,
        "command": str(real_upstreams.sqlite),
        "args": ["--db-path", str(database)],
        "tools": {name: {"mode": "read"} for name in ("read_query", "list_tables", "describe_table")},
        "error_patterns": ["^Database error:"],
    }
    create = {"query": "CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)"}
    async with upstream_guard(tmp_path, **sqlite) as runtime, agent_client(runtime) as agent:
        await agent.call_tool("create_table", create, meta=meta("s-1"))
        made = body(await agent.call_tool("guard_commit", {"summary": "schema"}, meta=meta("s-1")))
        missing = await agent.call_tool("read_query", {"query": "SELECT * FROM nope"}, meta=meta("s-2"))
        bad = {"query": "INSERT INTO orders (item) VALUES (NULL)"}
        await agent.call_tool("write_query", bad, meta=meta("s-2"))
        refused = body(await agent.call_tool("guard_commit", {"summary": "order"}, meta=meta("s-2")))
    assert made["status"] == "committed", made
    assert missing.is_error is True
    assert "no such table: nope" in text(missing)
    assert refused["status"] == "partial"
    [write] = refused["dispatch"]
    assert (write["tool"], write["status"]) == ("write_query", "failed")
    assert "NOT NULL constraint failed" in write["error"]


async def test_a_1x_http_upstream_that_restarts_and_forgets_the_session_is_reconnected(
    real_upstreams: RealUpstreams, tmp_path: Path
) -> None:
    """Requirement G45: an HTTP server on the 1.x SDK (sessions) restarted: the guard opens a new session
    by itself and the agent's next calls are answered."""
    python = real_upstreams.sqlite.parent / "python"
    port = free_port()
    script = str(ROOT / "tests" / "fakes" / "v1_http_notes.py")

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(python), script, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    servers = [start()]
    try:
        await listening(port)
        notes = {"url": f"http://127.0.0.1:{port}/mcp", "tools": {"add_note": {"mode": "passthrough"}}}
        async with upstream_guard(tmp_path, **notes) as runtime, agent_client(runtime) as agent:
            first = await agent.call_tool("add_note", {"text": "one"}, meta=meta("h-1"))
            await agent.call_tool("guard_commit", {"summary": "one"}, meta=meta("h-1"))
            servers[0].kill()
            servers[0].wait(10)
            servers.append(start())
            await listening(port)
            second = await agent.call_tool("add_note", {"text": "two"}, meta=meta("h-2"))
            await agent.call_tool("guard_commit", {"summary": "two"}, meta=meta("h-2"))
            listed = await agent.call_tool("list_notes", {}, meta=meta("h-3"))
            connections = _link(runtime).status.connections
    finally:
        for server in servers:
            server.kill()
            server.wait(10)
    assert first.is_error is False, text(first)
    assert second.is_error is False, text(second)
    assert "two" in text(listed)
    assert "one" not in text(listed)  # the restarted server's memory
    assert connections >= 2


def test_perf_repair_loop_short_run(real_upstreams: RealUpstreams) -> None:
    """Requirement G47: ``perf/repair_loop.py`` in short: every blocked task repaired without a rollback,
    every task committed, the server's graph exactly what was meant in both arms."""
    environment = {**os.environ, "GUARD_NODE": real_upstreams.node}
    environment["GUARD_UPSTREAMS"] = str(real_upstreams.memory.parents[4])
    done = subprocess.run(
        [sys.executable, str(ROOT / "perf" / "repair_loop.py"), "--tasks", "6"],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["simulated_agent"] is True
    assert summary["blocked_tasks"] > 0
    assert summary["repair_rollbacks"] == 0
    assert summary["redo_rollbacks"] == summary["blocked_tasks"]
    assert summary["committed"] == [6, 6]
    assert summary["graphs_exact"] == [True, True]
