"""``guard serve --stdio``: one process, one stream of transactions over stdin/stdout.

The wire is :mod:`guard.edge.stdio_transport`: lines up to
``server.max_request_bytes``, and an error reply for every line that is not
a JSON-RPC message.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext

from guard.edge.server import build_server
from guard.edge.stdio_transport import stdio_transport
from guard.runtime import Runtime
from guard.transaction.keys import StreamKeys
from guard.transaction.manager import TxnKey

__all__ = ["serve_stdio"]


async def serve_stdio(runtime: Runtime) -> None:
    """Serve until stdin closes; a new transaction opens after each commit or rollback."""
    keys = StreamKeys()

    def resolve(ctx: ServerRequestContext[Any, Any]) -> TxnKey:
        meta = ctx.meta if isinstance(ctx.meta, dict) else None
        return TxnKey(keys.current(meta), "stdio", meta, renewable=not keys.named(meta))

    server = build_server(runtime.manager, resolve, on_finished=keys.finished)
    await runtime.start()
    try:
        async with stdio_transport(runtime.settings.server.max_request_bytes) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await runtime.stop()
