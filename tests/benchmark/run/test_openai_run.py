"""`guard bench --agent openai` end to end: a fake OpenAI-compatible server plays the agent and the user.

The fake model plays a whole support conversation of a real retail task: it
calls the task's golden tools, commits through the guard in the guarded arm,
answers the customer, and the simulated customer ends the conversation. The
run goes through the same runner, arms and grading as any other.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.dataset import load_task
from benchmark.results import read_results
from benchmark.run.runner import RunOptions, run_spec
from benchmark.run.setup import AgentSpec, RunSpec
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

TASK = "sandbox_external_retail_group1.py:test_case_ST003_006"
USER_SIMULATOR = "You are playing a customer"


def _script(golden: list[tuple[str, dict[str, Any]]]) -> Any:
    """One reply function for every request: the customer, then the agent turn by turn."""

    def reply(body: dict[str, Any]) -> FakeReply | str:
        messages = body["messages"]
        if messages[0]["content"].startswith(USER_SIMULATOR):
            return FakeReply(
                "Thanks, that is all I needed. ###STOP###",
                usage={"prompt_tokens": 50, "completion_tokens": 9},
            )
        tools = {tool["function"]["name"] for tool in body.get("tools", [])}
        done = sum(1 for m in messages if m["role"] == "tool")
        usage = {"prompt_tokens": 1000, "completion_tokens": 40}
        if done < len(golden):
            tool, arguments = golden[done]
            return FakeReply(None, tool_calls=[{"name": tool, "arguments": arguments}], usage=usage)
        if "guard_commit" in tools and done == len(golden):
            return FakeReply(
                None,
                tool_calls=[{"name": "guard_commit", "arguments": {"summary": "ticket on hold"}}],
                usage=usage,
            )
        return FakeReply("Your ticket is on hold until the carrier clears the exception.", usage=usage)

    return reply


@pytest.mark.parametrize("arm", ["baseline", "guarded"])
def test_an_openai_agent_run_through_the_runner(data_dir: Path, tmp_path: Path, arm: str) -> None:
    task = load_task(data_dir, TASK)
    golden = [(call.tool, dict(call.arguments)) for call in task.golden]
    with FakeOpenAIServer([_script(golden)] * 40) as server:
        spec = RunSpec(
            data_dir=data_dir,
            task_ids=(TASK,),
            agent=AgentSpec(name="openai", model="fake-model", base_url=server.base_url),
        )
        out = tmp_path / "r.jsonl"
        summary = asyncio.run(run_spec(spec, RunOptions(1, (arm,), 0, 1, out)))  # type: ignore[arg-type]
        requests = [r.body for r in server.requests]
    assert summary.system_errors == 0, json.loads(out.read_text().splitlines()[0])["system_error"]
    (result,) = read_results(out)
    assert result.passed, result.diff
    assert result.agent == "openai"
    assert result.tool_calls == len(golden)
    assert result.tokens.prompt == 1000 * (len(golden) + (2 if arm == "guarded" else 1))
    assert result.final_message.startswith("Your ticket is on hold")
    agent_requests = [b for b in requests if not b["messages"][0]["content"].startswith(USER_SIMULATOR)]
    system = agent_requests[0]["messages"][0]["content"]
    assert ("guard_commit" in system) is (arm == "guarded")
    if arm == "guarded":
        assert [v.via for v in result.verdicts] == ["tool"]
        assert result.verdicts[0].status == "committed"
