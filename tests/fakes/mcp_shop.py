"""A small upstream MCP server (the SDK's low-level ``Server``) for the guard's ``mcp`` backend tests.

A shop with orders, notes, refunds and e-mails. Every write it applies is
appended to ``Shop.journal`` with the idempotency key the call carried, so a
test can say exactly what reached the upstream, in which order, how often.
Faults are scripted per tool (``shop.faults["refund"] = ["unavailable"]``):

* ``unavailable``: a tool error "service temporarily unavailable", nothing applied;
* ``lost``: the write is applied, then the reply is lost (MCP error -32001, a timeout);
* ``refuse``: a tool error "order ... cannot be refunded: amount exceeds the order total";
* ``wait``: the call waits for ``shop.release`` (an event) before it runs.

``cancel_order`` with ``dry_run: true`` answers what it would do and changes nothing.

With ``honour_keys`` the shop applies a write at most once per idempotency key
and answers a repeat with the first result. Run as a module it serves over
stdio (``python -m tests.fakes.mcp_shop``), its journal kept in the JSON file
named by ``SHOP_JOURNAL``.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

KEY = "guard/idempotency-key"

_ORDER = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "item": {"type": "string"},
        "quantity": {"type": "integer"},
        "status": {"type": "string"},
    },
    "required": ["id", "item", "quantity", "status"],
}


def _tool(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: list[str],
    *,
    hints: types.ToolAnnotations | None,
    output: dict[str, Any] | None = None,
) -> types.Tool:
    return types.Tool(
        name=name,
        description=description,
        input_schema={
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
        output_schema=output,
        annotations=hints,
    )


TOOLS = [
    _tool(
        "get_order",
        "Read an order.",
        {"order_id": {"type": "string"}},
        ["order_id"],
        hints=types.ToolAnnotations(read_only_hint=True),
        output=_ORDER,
    ),
    _tool(
        "create_order",
        "Place an order.",
        {"item": {"type": "string", "minLength": 1}, "quantity": {"type": "integer", "minimum": 1}},
        ["item", "quantity"],
        hints=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
        output=_ORDER,
    ),
    _tool(
        "cancel_order",
        "Cancel an order.",
        {"order_id": {"type": "string"}, "reason": {"type": "string"}, "dry_run": {"type": "boolean"}},
        ["order_id"],
        hints=types.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True),
        output=_ORDER,
    ),
    _tool(
        "refund",
        "Refund part of an order.",
        {"order_id": {"type": "string"}, "amount": {"type": "number", "exclusiveMinimum": 0}},
        ["order_id", "amount"],
        hints=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    ),
    _tool(
        "add_note",
        "Add a note to an order.",
        {"order_id": {"type": "string"}, "text": {"type": "string"}},
        ["order_id", "text"],
        hints=None,
    ),
    _tool(
        "send_email",
        "Send an e-mail to a customer.",
        {"to": {"type": "string"}, "body": {"type": "string"}},
        ["to", "body"],
        hints=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    ),
]


@dataclass
class Shop:
    """The upstream's state; ``journal`` is every applied write: ``{tool, arguments, key}``."""

    orders: dict[str, dict[str, Any]] = field(default_factory=dict)
    journal: list[dict[str, Any]] = field(default_factory=list)
    faults: dict[str, list[str]] = field(default_factory=dict)
    honour_keys: bool = False
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[tuple[str, str | None]] = field(default_factory=list)
    release: asyncio.Event | None = None
    waiting: asyncio.Event | None = None
    path: Path | None = None

    def writes(self, tool: str | None = None) -> list[dict[str, Any]]:
        return [entry for entry in self.journal if tool is None or entry["tool"] == tool]

    def _apply(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == "create_order":
            ident = f"ORD-{len(self.orders) + 1}"
            self.orders[ident] = {"id": ident, **arguments, "status": "placed"}
            return self.orders[ident]
        if tool == "cancel_order":
            order = self.orders[arguments["order_id"]]
            order["status"] = "cancelled"
            return order
        if tool == "refund":
            return {"order_id": arguments["order_id"], "refunded": arguments["amount"]}
        if tool == "add_note":
            return {"order_id": arguments["order_id"], "notes": len(self.writes("add_note")) + 1}
        return {"sent": True, "to": arguments["to"]}

    async def call(self, tool: str, arguments: dict[str, Any], key: str | None) -> types.CallToolResult:
        self.calls.append((tool, key))
        fault = self.faults.get(tool, []).pop(0) if self.faults.get(tool) else None
        if fault == "wait":
            assert self.release is not None
            assert self.waiting is not None
            self.waiting.set()
            await self.release.wait()
        if tool == "get_order":
            if fault == "unavailable":
                return _error("service temporarily unavailable")
            order = self.orders.get(arguments["order_id"])
            if order is None:
                return _error(f"order {arguments['order_id']} not found")
            return _ok(order)
        if fault == "unavailable":
            return _error("service temporarily unavailable, try again later")
        if fault == "refuse":
            return _error(
                f"order {arguments.get('order_id')} cannot be refunded: amount exceeds the order total"
            )
        if tool == "cancel_order" and arguments.get("dry_run") is True:
            order = self.orders.get(arguments["order_id"])
            if order is None:
                return _error(f"order {arguments['order_id']} not found")
            return _ok({**order, "status": "would be cancelled (dry run: nothing changed)"})
        if self.honour_keys and key is not None and key in self.seen:
            return _ok(self.seen[key])
        result = self._apply(tool, arguments)
        self.journal.append({"tool": tool, "arguments": arguments, "key": key})
        if key is not None:
            self.seen[key] = result
        self._save()
        if fault == "lost":
            raise MCPError(-32001, "request timed out")
        return _ok(result)

    def _save(self) -> None:
        if self.path is not None:
            self.path.write_text(json.dumps({"orders": self.orders, "journal": self.journal}))

    @classmethod
    def load(cls, path: Path) -> Shop:
        shop = cls(path=path)
        if path.is_file():
            data = json.loads(path.read_text())
            shop.orders, shop.journal = data["orders"], data["journal"]
        return shop


def _ok(value: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value))], structured_content=value
    )


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def shop_server(shop: Shop) -> Server[Any]:
    """The shop as an MCP server."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        meta = ctx.meta if isinstance(ctx.meta, dict) else {}
        key = meta.get(KEY)
        return await shop.call(
            params.name, dict(params.arguments or {}), key if isinstance(key, str) else None
        )

    return Server("shop", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


def journal(path: Path) -> list[dict[str, Any]]:
    """The journal a subprocess shop wrote (empty before its first write)."""
    if not path.is_file():
        return []
    entries: list[dict[str, Any]] = json.loads(path.read_text())["journal"]
    return entries


async def _serve_stdio() -> None:
    from mcp.server.stdio import stdio_server

    server = shop_server(Shop.load(Path(os.environ["SHOP_JOURNAL"])))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(_serve_stdio())
