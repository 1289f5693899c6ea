"""One MCP server in front of one server per trial: how a process's trials share a client.

Each trial has its own server, the guard's (:func:`guard.edge.server.build_server` over the
trial's manager) or the plain one (:func:`guard.edge.plain.build_plain_server` over the
trial's world), so the guard's servers each serve one runtime and know nothing of trials. A
call names its trial in ``_meta[TRIAL_META]``; the router hands it, as it came, to that
trial's server's ``tools/call`` handler. The tools are listed by the server the router was
made with: every trial of a domain and arm has the same tools.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import RequestHandler
from mcp.shared.exceptions import MCPError

__all__ = ["TRIAL_META", "TrialRouter"]

TRIAL_META = "guard.bench/trial"
"""The ``_meta`` field naming the trial a call belongs to."""


def _handler(server: Server[Any], method: str) -> RequestHandler[Any, Any]:
    entry = server.get_request_handler(method)
    if entry is None:
        raise ValueError(f"server {server.name!r} has no {method} handler")
    return entry.handler


class TrialRouter:
    """The server a line's client talks to; ``add`` a trial's server for as long as the trial runs.

    ``lister`` lists the tools, and lends the router its name, version and instructions.
    """

    def __init__(self, lister: Server[Any]) -> None:
        self._calls: dict[str, RequestHandler[Any, Any]] = {}
        self.server: Server[Any] = Server(
            lister.name,
            version=lister.version,
            instructions=lister.instructions,
            get_tool_input_schema=lister.get_tool_input_schema,
        )
        self.server.add_request_handler(
            "tools/list", types.PaginatedRequestParams, _handler(lister, "tools/list")
        )
        self.server.add_request_handler("tools/call", types.CallToolRequestParams, self._call_tool)

    def add(self, trial: str, server: Server[Any]) -> None:
        self._calls[trial] = _handler(server, "tools/call")

    def remove(self, trial: str) -> None:
        self._calls.pop(trial, None)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> HandlerResult:
        meta = ctx.meta if isinstance(ctx.meta, dict) else {}
        trial = meta.get(TRIAL_META)
        if not isinstance(trial, str):
            raise MCPError(types.INVALID_PARAMS, f"no trial named in _meta[{TRIAL_META!r}]")
        call = self._calls.get(trial)
        if call is None:
            raise MCPError(types.INVALID_PARAMS, "the trial has ended")
        return await call(ctx, params)
