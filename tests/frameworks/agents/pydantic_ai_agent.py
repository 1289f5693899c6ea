"""pydantic-ai through the guard: ``FunctionModel`` scripted by :mod:`scenario`, the guard an ``MCPToolset``.

Usage: ``python pydantic_ai_agent.py MCP_URL TRANSACTION`` inside the pydantic-ai environment. The
transaction key travels as the ``Guard-Transaction`` header on every request of the toolset's client.
The toolset keeps its default ``tool_error_behavior='retry'``: a tool result with ``isError`` becomes a
``ModelRetry``, which reaches the model as a tool return whose ``outcome`` is ``'retried'`` and whose
content is ``{"error": <the guard's text>}``; that is how the model sees the blocked commit. The guard
is handed the conversation by :class:`HandOver`, the toolset's ``process_tool_call`` hook: with each tool
call, ``_meta["guard/conversation"]`` holds the user's prompts and the model's texts of the run's messages
that no earlier call carried. Prints a :class:`scenario.Summary` as JSON.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import scenario
from pydantic_ai import Agent, RunContext
from pydantic_ai.mcp import CallToolFunc, MCPToolset, ToolResult
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


class HandOver:
    """Hands the guard what the user and the model said since the previous tool call, with each call."""

    def __init__(self) -> None:
        self.sent = 0

    async def __call__(
        self, ctx: RunContext[Any], call_tool: CallToolFunc, name: str, args: dict[str, Any]
    ) -> ToolResult:
        said = [
            {"role": "user", "text": part.content}
            if isinstance(part, UserPromptPart)
            else {"role": "assistant", "text": part.content}
            for message in ctx.messages
            for part in message.parts
            if (isinstance(part, UserPromptPart) and isinstance(part.content, str))
            or (isinstance(part, TextPart) and part.content.strip())
        ]
        turns, self.sent = said[self.sent :], len(said)
        return await call_tool(name, args, metadata={"guard/conversation": turns})


def _seen(messages: list[ModelMessage]) -> list[scenario.Seen]:
    seen: list[scenario.Seen] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, ToolReturnPart):
                failed = part.outcome != "success"
                seen.append(scenario.Seen(part.tool_name, failed, part.model_response_str()))
            elif isinstance(part, RetryPromptPart) and part.tool_name is not None:
                seen.append(scenario.Seen(part.tool_name, True, part.model_response()))
    return seen


def _model(summary: scenario.Summary) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen = _seen(messages)
        summary.seen = seen
        call = scenario.next_call(seen)
        if call is None:
            return ModelResponse(parts=[TextPart(scenario.final_text(seen))])
        return ModelResponse(parts=[ToolCallPart(call.tool, call.arguments)])

    return FunctionModel(respond, model_name="scripted")


async def main(url: str, transaction: str) -> None:
    summary = scenario.Summary(
        framework="pydantic-ai",
        transaction=transaction,
        versions=scenario.versions("pydantic-ai-slim", "fastmcp-slim", "fastmcp", "mcp"),
    )
    toolset = MCPToolset(url, headers={"Guard-Transaction": transaction}, process_tool_call=HandOver())
    agent = Agent(_model(summary), toolsets=[toolset])
    result = await agent.run("Ticket 20: the customer asks about their package. Resolve the ticket.")
    summary.final = str(result.output)
    summary.emit()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
