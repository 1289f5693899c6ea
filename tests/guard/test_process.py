"""``guard serve`` as a real process: a crash loses nothing committed, and a third-party client works."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from mcp import Client

from tests.conftest import ROOT
from tests.guard.conftest import demo_settings, free_port, ticket_status, wait_until_ready

INSPECTOR_VERSION = "0.21.2"


def guard(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def prepare(tmp_path: Path) -> tuple[Path, int]:
    port = free_port()
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "server": {"port": port, "instance": "crash-test"},
                "backend": {
                    "module": "guard.demo.backend",
                    "url": f"sqlite:///{tmp_path / 'shop.db'}",
                    "prepare": True,
                },
                "audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"},
            }
        )
    )
    done = guard("db", "upgrade", "--config", str(config))
    assert done.returncode == 0, done.stderr
    return config, port


@contextmanager
def serving(config: Path, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "guard", "serve", "--config", str(config)], stdout=sink, stderr=sink
        )
    try:
        wait_until_ready(process, port, log.read_text)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)


async def rpc(port: int, key: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async with Client(f"http://127.0.0.1:{port}/mcp/t/{key}") as client:
        result = await client.call_tool(tool, arguments)
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def test_sigkill_loses_nothing_committed_and_commits_nothing_open(tmp_path: Path) -> None:
    """Requirement G3: after SIGKILL committed data stays, open transactions vanish and are marked aborted."""
    config, port = prepare(tmp_path)
    settings = demo_settings(tmp_path)
    log = tmp_path / "serve.log"
    with serving(config, port, log) as process:
        await rpc(port, "k-0", "update_ticket", {"ticket_id": 21, "status": "solved"})
        assert (await rpc(port, "k-0", "guard_commit", {"summary": "done"}))["status"] == "committed"
        await rpc(port, "k-1", "update_ticket", {"ticket_id": 20, "status": "hold"})
        await rpc(port, "k-1", "create_ticket", {"order_id": "ORD-10000021", "subject": "follow up"})
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert ticket_status(settings, 21) == "solved"
    assert ticket_status(settings, 20) == "open"
    assert ticket_status(settings, 22) is None
    listed = json.loads(guard("transactions", "--config", str(config), "--json").stdout)
    assert {t["id"]: t["status"] for t in listed["transactions"]} == {"k-0": "committed", "k-1": "open"}
    with serving(config, port, log):
        aborted = json.loads(
            guard("transactions", "--config", str(config), "--status", "aborted", "--json").stdout
        )
        (record,) = aborted["transactions"]
        assert record["id"] == "k-1"
        assert "discarded its changes" in record["close_reason"]
        await rpc(port, "k-2", "update_ticket", {"ticket_id": 20, "status": "pending"})
        assert (await rpc(port, "k-2", "guard_commit", {"summary": "x"}))["status"] == "committed"
        refused = httpx2.post(
            f"http://127.0.0.1:{port}/transactions/k-1/commit", json={"final_message": "late"}, timeout=30
        )
        assert refused.status_code == 404
    assert ticket_status(settings, 20) == "pending"
    shown = guard("transactions", "show", "k-1", "--config", str(config))
    assert shown.returncode == 0
    assert "aborted" in shown.stdout


def inspector_command() -> list[str]:
    node = os.environ.get("GUARD_NODE") or shutil.which("node")
    cli = os.environ.get(
        "GUARD_INSPECTOR",
        str(
            ROOT
            / ".ci"
            / "node"
            / "node_modules"
            / "@modelcontextprotocol"
            / "inspector"
            / "cli"
            / "build"
            / "index.js"
        ),
    )
    problem = None
    if node is None:
        problem = "no node binary (GUARD_NODE)"
    elif not Path(cli).is_file():
        problem = f"MCP Inspector {INSPECTOR_VERSION} CLI not installed at {cli} (GUARD_INSPECTOR)"
    if problem is not None:
        if os.environ.get("GUARD_REQUIRE_INSPECTOR") == "1":
            pytest.fail(f"the MCP Inspector is required but unavailable: {problem}")
        pytest.skip(problem)
    assert node is not None
    return [node, cli]


@pytest.mark.inspector
def test_mcp_inspector_cli_lists_and_calls_through_the_guard(tmp_path: Path) -> None:
    command = inspector_command()
    config, port = prepare(tmp_path)
    settings = demo_settings(tmp_path)

    def inspector(*args: str) -> Any:
        url = f"http://127.0.0.1:{port}/mcp/t/inspector-1"
        done = subprocess.run(
            [*command, url, "--transport", "http", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    with serving(config, port, tmp_path / "serve.log"):
        listed = inspector("--method", "tools/list")
        names = {tool["name"] for tool in listed["tools"]}
        assert {"get_ticket", "update_ticket", "guard_commit"} <= names
        ticket = inspector(
            "--method", "tools/call", "--tool-name", "get_ticket", "--tool-arg", "ticket_id=20"
        )
        assert ticket["structuredContent"]["status"] == "open"
        inspector(
            "--method",
            "tools/call",
            "--tool-name",
            "update_ticket",
            "--tool-arg",
            "ticket_id=20",
            "status=solved",
        )
        blocked = inspector(
            "--method", "tools/call", "--tool-name", "guard_commit", "--tool-arg", "summary=done"
        )
        assert blocked["isError"] is True
        assert blocked["structuredContent"]["status"] == "blocked"
        inspector(
            "--method",
            "tools/call",
            "--tool-name",
            "update_ticket",
            "--tool-arg",
            "ticket_id=20",
            "status=hold",
        )
        committed = inspector(
            "--method", "tools/call", "--tool-name", "guard_commit", "--tool-arg", "summary=hold"
        )
        assert committed["structuredContent"]["status"] == "committed"
    assert ticket_status(settings, 20) == "hold"
