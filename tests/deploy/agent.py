"""The agent's side of the deploy tests: one transaction through the guard with the official MCP client.

Run in the pod as the agent container would (``python -m tests.deploy.agent URL TOKEN [HOST]``), or called
in process. It lists the tools, reads a ticket, changes it, commits, and prints one JSON object:
``{"tools": [...], "read": {...}, "commit": {...}}``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

__all__ = ["one_transaction"]


def _body(result: Any) -> dict[str, Any]:
    assert not result.is_error, result
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def one_transaction(url: str, token: str, host: str | None = None) -> dict[str, Any]:
    """Tools, a read and a committed write at ``url`` (``.../mcp``) with the agent's bearer ``token``."""
    headers = {"Authorization": f"Bearer {token}"}
    if host is not None:
        headers["Host"] = host
    key = f"deploy-{uuid.uuid4().hex[:12]}"
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{url}/t/{key}", http_client=http)) as client,
    ):
        tools = sorted(tool.name for tool in (await client.list_tools()).tools)
        read = _body(await client.call_tool("get_ticket", {"ticket_id": 21}))
        _body(await client.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}))
        commit = _body(await client.call_tool("guard_commit", {"summary": "ticket 21 solved"}))
    return {"tools": tools, "read": read, "commit": commit}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(one_transaction(*sys.argv[1:4]))))
