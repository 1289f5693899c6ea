"""pydantic-ai through the guard: ``FunctionModel`` scripted by :mod:`scenario`, the guard an ``MCPToolset``.

Usage: ``python pydantic_ai_agent.py MCP_URL TRANSACTION`` inside the pydantic-ai environment. The
transaction key travels as the ``Guard-Transaction`` header on every request of the toolset's client.
The toolset keeps its default ``tool_error_behavior='retry'``: a tool result with ``isError`` becomes a
``ModelRetry``, which reaches the model as a tool return whose ``outcome`` is ``'retried'`` and whose
content is ``{"error": <the guard's text>}``; that is how the model sees the blocked commit. Prints a
:class:`scenario.Summary` as JSON.
"""

from __future__ import annotations

import asyncio
import sys

import scenario
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


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
    toolset = MCPToolset(url, headers={"Guard-Transaction": transaction})
    agent = Agent(_model(summary), toolsets=[toolset])
    result = await agent.run("Ticket 20: the customer asks about their package. Resolve the ticket.")
    summary.final = str(result.output)
    summary.emit()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
