"""`guard bench serve`: one task's world over MCP for any agent, graded on a side endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client

from benchmark.dataset import Task
from benchmark.serve import serve_task
from guard.settings import GuardSettings
from tests.guard.conftest import serving


def blog_calls(task: Task, final_status: str) -> list[tuple[str, dict[str, Any]]]:
    calls = [(call.tool, dict(call.arguments)) for call in task.golden]
    tool, arguments = calls[-1]
    assert tool == "zendesk_update_item"
    item = dict(arguments["item"])
    item["status"] = final_status
    calls[-1] = (tool, {**arguments, "item": item})
    return calls


@pytest.mark.parametrize("guarded", [False, True])
async def test_a_served_task_is_played_over_http_and_graded(
    data_dir: Path, blog_task: Task, guarded: bool
) -> None:
    settings = GuardSettings()
    for status, passes in (("hold", True), ("solved", False)):
        async with (
            serve_task(blog_task, data_dir=data_dir, guarded=guarded, settings=settings) as app,
            serving(app) as url,
        ):
            endpoint = f"{url}/mcp/t/agent-1" if guarded else f"{url}/mcp"
            async with Client(endpoint) as agent:
                names = {tool.name for tool in (await agent.list_tools()).tools}
                assert ("guard_commit" in names) is guarded
                assert "zendesk_update_item" in names
                for tool, arguments in blog_calls(blog_task, status):
                    result = await agent.call_tool(tool, arguments)
                    assert not result.is_error, result
                if guarded:
                    committed = await agent.call_tool("guard_commit", {"summary": "ticket updated"})
                    assert committed.structured_content is not None
                    assert committed.structured_content["status"] == "committed"
            async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
                graded = (await http.post("/bench/grade")).json()
        assert graded["passed"] is passes
        assert (graded["state_hash"] == graded["golden_hash"]) is passes
        if not passes:
            assert [(d["path"], d["result"], d["expected"]) for d in graded["diff"]] == [
                ("zendesk_tickets[20].status", "solved", "hold")
            ]
