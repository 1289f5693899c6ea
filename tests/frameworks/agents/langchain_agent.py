"""LangChain's MCP adapters through the guard: ``create_agent`` with a scripted chat model driven by
:mod:`scenario`, the guard's tools from ``MultiServerMCPClient``.

Usage: ``python langchain_agent.py MCP_URL TRANSACTION [--session] [--protocol VERSION]`` inside the
LangChain environment, whose ``langchain-mcp-adapters`` pins ``mcp<2``: a handshake-era client
(``initialize``, an ``Mcp-Session-Id``, protocol 2025-11-25). ``get_tools()`` opens a new MCP session for
every tool call, so the session cannot name the transaction: the key travels as the
``Guard-Transaction`` header on every request. With ``--session`` the script sends no key: the tools run
on one session (``MultiServerMCPClient.session``) and the guard names the transaction
``session-<Mcp-Session-Id>``. ``--protocol`` makes the client offer an older protocol version, as older
deployed clients do. A result flagged ``isError`` reaches the model as a ``ToolMessage`` with
``status="error"`` (the adapters' default ``handle_tool_errors=True``). The protocol versions and
session ids the client sent are recorded from its HTTP requests. With a key, the guard is handed the
conversation by :class:`HandOver`, a tool interceptor: the agent's messages (the graph's state) as the
turns no earlier call carried, in ``_meta["guard/conversation"]``. The adapters' own call (0.3) sends no
``_meta``, so the interceptor makes the call itself, on a session of its own over the same connection
(``get_tools()`` opens one per call too). Prints a :class:`scenario.Summary` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

import httpx
import mcp.types
import scenario
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langchain_mcp_adapters.sessions import Connection, create_session
from langchain_mcp_adapters.tools import load_mcp_tools


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text(block) for block in content)
    if isinstance(content, dict):
        return str(content.get("text", ""))
    return str(content)


class ScriptedChatModel(BaseChatModel):
    """A chat model whose every turn is :func:`scenario.next_call` over the tool messages it was given."""

    summary: Any = None

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        seen = [
            scenario.Seen(str(m.name), m.status == "error", _text(m.content))
            for m in messages
            if isinstance(m, ToolMessage)
        ]
        self.summary.seen = seen
        step = scenario.next_call(seen)
        if step is None:
            message = AIMessage(content=scenario.final_text(seen))
        else:
            call = {
                "name": step.tool,
                "args": step.arguments,
                "id": f"call-{len(seen) + 1}",
                "type": "tool_call",
            }
            message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


class HandOver:
    """Hands the guard what the user and the model said since the previous tool call, with each call."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.sent = 0

    async def __call__(self, request: MCPToolCallRequest, handler: Any) -> mcp.types.CallToolResult:
        messages = getattr(request.runtime, "state", {}).get("messages", [])
        said = [
            {"role": "user" if isinstance(m, HumanMessage) else "assistant", "text": _text(m.content)}
            for m in messages
            if isinstance(m, HumanMessage | AIMessage) and _text(m.content).strip()
        ]
        turns, self.sent = said[self.sent :], len(said)
        async with create_session(self.connection) as session:
            await session.initialize()
            meta = {"guard/conversation": turns}
            return await session.call_tool(request.name, request.args, meta=meta)


Sent = list[tuple[str, str | None, str | None]]


def _recording_client(sent: Sent) -> Any:
    async def record(request: httpx.Request) -> None:
        headers = request.headers
        sent.append((request.method, headers.get("mcp-protocol-version"), headers.get("mcp-session-id")))

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        auth: httpx.Auth | None = None,
    ) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            headers=headers, timeout=timeout, auth=auth, event_hooks={"request": [record]}
        )

    return factory


async def _run_agent(tools: list[Any], summary: scenario.Summary) -> None:
    agent = create_agent(ScriptedChatModel(summary=summary), tools)
    state = await agent.ainvoke({"messages": [("user", "Ticket 20: the customer asks about their package.")]})
    summary.final = _text(state["messages"][-1].content)


async def main(url: str, transaction: str, one_session: bool) -> None:
    summary = scenario.Summary(
        framework="langchain",
        transaction=transaction,
        versions=scenario.versions(
            "langchain-mcp-adapters", "langchain", "langchain-core", "langgraph", "mcp"
        ),
    )
    sent: Sent = []
    connection: dict[str, Any] = {
        "transport": "streamable_http",
        "url": url,
        "httpx_client_factory": _recording_client(sent),
    }
    if not one_session:
        connection["headers"] = {"Guard-Transaction": transaction}
    # with a key, each call hands the conversation over; one session cannot (a session per call would
    # be a transaction per call)
    interceptors = [] if one_session else [HandOver(connection)]  # type: ignore[arg-type]
    client = MultiServerMCPClient({"guard": connection}, tool_interceptors=interceptors)  # type: ignore[dict-item]
    if one_session:
        async with client.session("guard") as session:
            await _run_agent(await load_mcp_tools(session), summary)
    else:
        await _run_agent(await client.get_tools(), summary)
    sessions = sorted({session for _, _, session in sent if session is not None})
    summary.protocol_versions = sorted({version for _, version, _ in sent if version is not None})
    summary.sessions = len(sessions)
    summary.sessions_ended = len({session for method, _, session in sent if method == "DELETE"})
    if one_session and len(sessions) == 1:
        summary.transaction = f"session-{sessions[0]}"
    summary.emit()


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("transaction")
    parser.add_argument(
        "--session", action="store_true", help="send no key: one MCP session, one transaction"
    )
    parser.add_argument(
        "--protocol", help="offer this protocol version in initialize, as an older client does"
    )
    return parser.parse_args()


if __name__ == "__main__":
    arguments = _arguments()
    if arguments.protocol:
        # The 1.x ClientSession offers ``mcp.types.LATEST_PROTOCOL_VERSION`` when it initializes.
        mcp.types.LATEST_PROTOCOL_VERSION = arguments.protocol
    asyncio.run(main(arguments.url, arguments.transaction, arguments.session))
