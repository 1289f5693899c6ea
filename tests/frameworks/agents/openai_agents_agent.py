"""The OpenAI Agents SDK through the guard: its ``ScriptedModel`` driven by :mod:`scenario`, the guard as an
``MCPServerStreamableHttp``.

Usage: ``python openai_agents_agent.py MCP_URL TRANSACTION`` inside the openai-agents environment. The
transaction key travels in the URL, ``<MCP_URL>/t/<TRANSACTION>``: the connector's ``params`` take
``headers`` too, the URL form shows the clients that can set no header. The SDK gives the model a tool
result flagged ``isError`` as an ordinary ``function_call_output`` with the server's text: the model sees
no error mark, only the guard's words ("blocked, nothing was committed: ..." and the finding). The
flag itself reaches only SDK code (``custom_data_extractor``), recorded here as ``sdk_errors``. The guard
is handed the conversation by :class:`HandOver`: the user's input as the run starts and the model's texts
as each model call ends (run hooks), each tool call's ``_meta["guard/conversation"]`` (the server's
``tool_meta_resolver``) holding those no earlier call carried. Tracing is off: its exporter would call
the network. Prints a :class:`scenario.Summary` as JSON.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import scenario
from agents import Agent, ModelResponse, RunContextWrapper, RunHooks, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from agents.mcp.util import MCPToolCustomDataContext, MCPToolMetaContext
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

_TURNS = 8


class HandOver(RunHooks[Any]):
    """Hands the guard what the user and the model said since the previous tool call, with each call."""

    def __init__(self, user: str) -> None:
        self.said = [{"role": "user", "text": user}]
        self.sent = 0

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        for item in response.output:
            if getattr(item, "type", None) == "message":
                text = "".join(getattr(part, "text", "") for part in item.content)
                if text.strip():
                    self.said.append({"role": "assistant", "text": text})

    def meta(self, context: MCPToolMetaContext) -> dict[str, Any]:
        turns, self.sent = self.said[self.sent :], len(self.said)
        return {"guard/conversation": turns}


def _text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(_text(item) for item in output)
    if isinstance(output, dict):
        return str(output.get("text", ""))
    return str(output)


def _seen(items: Any) -> list[scenario.Seen]:
    if not isinstance(items, list):
        return []
    names = {item["call_id"]: item["name"] for item in items if item.get("type") == "function_call"}
    return [
        scenario.Seen(names[item["call_id"]], False, _text(item.get("output")))
        for item in items
        if item.get("type") == "function_call_output"
    ]


def _model(summary: scenario.Summary) -> ScriptedModel:
    def respond(call: ModelCall) -> Any:
        seen = _seen(call.input)
        summary.seen = seen
        step = scenario.next_call(seen)
        if step is None:
            return [assistant_message(scenario.final_text(seen))]
        return [function_call(step.tool, step.arguments, call_id=f"call-{len(seen) + 1}")]

    return ScriptedModel([ModelStep.respond(respond) for _ in range(_TURNS)])


async def main(url: str, transaction: str) -> None:
    set_tracing_disabled(True)
    summary = scenario.Summary(
        framework="openai-agents",
        transaction=transaction,
        versions=scenario.versions("openai-agents", "openai", "mcp"),
    )

    def record(context: MCPToolCustomDataContext) -> None:
        summary.sdk_errors.append(context.is_error)

    question = "Ticket 20: the customer asks about their package."
    hand_over = HandOver(question)
    server = MCPServerStreamableHttp(
        {"url": f"{url}/t/{transaction}", "timeout": 30},
        name="guard",
        client_session_timeout_seconds=30,
        custom_data_extractor=record,
        tool_meta_resolver=hand_over.meta,
    )
    async with server:
        agent = Agent(
            name="support", instructions="Resolve the ticket.", mcp_servers=[server], model=_model(summary)
        )
        result = await Runner.run(agent, question, max_turns=_TURNS, hooks=hand_over)
    summary.final = str(result.final_output)
    summary.emit()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
