"""The guard over stdio, as a subprocess driven by the official client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import yaml
from mcp import Client, StdioServerParameters

from tests.guard.conftest import demo_settings, ticket_status


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def write_config(tmp_path: Path) -> Path:
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "backend": {
                    "module": "guard.demo.backend",
                    "url": f"sqlite:///{tmp_path / 'shop.db'}",
                    "prepare": True,
                },
                "audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"},
            }
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "guard", "db", "upgrade", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return config


async def test_stdio_subprocess(tmp_path: Path) -> None:
    """Requirements G1, G2 over stdio: blocked persists nothing; repair then commit persists the repair."""
    config = write_config(tmp_path)
    settings = demo_settings(tmp_path)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "guard", "serve", "--stdio", "--config", str(config)]
    )
    async with Client(params) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "guard_commit" in names
        await client.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"})
        first = body(await client.call_tool("guard_commit", {"summary": "receipt"}))
        assert first["status"] == "committed"
        assert ticket_status(settings, 21) == "solved"
        await client.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
        blocked = body(await client.call_tool("guard_commit", {"summary": "solved"}))
        assert blocked["status"] == "blocked"
        assert blocked["transaction"] != first["transaction"]
        assert ticket_status(settings, 20) == "open"
        await client.call_tool("update_ticket", {"ticket_id": 20, "status": "hold"})
        repaired = body(await client.call_tool("guard_commit", {"summary": "hold"}))
        assert repaired["status"] == "committed"
        assert repaired["transaction"] == blocked["transaction"]
    assert ticket_status(settings, 20) == "hold"


def test_serve_refuses_an_unmigrated_audit_store(tmp_path: Path) -> None:
    config = tmp_path / "guard.yaml"
    config.write_text(yaml.safe_dump({"audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"}}))
    done = subprocess.run(
        [sys.executable, "-m", "guard", "serve", "--stdio", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2
    assert "is not migrated, the guard needs 0002; run `guard db upgrade` first" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("content", ["commit: {max_blocked: 0}\n", "nonsense: 1\n", "backend: [\n"])
def test_bad_config_is_one_clear_line(tmp_path: Path, content: str) -> None:
    config = tmp_path / "guard.yaml"
    config.write_text(content)
    done = subprocess.run(
        [sys.executable, "-m", "guard", "db", "upgrade", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert str(config) in done.stderr
    assert "Traceback" not in done.stderr
