"""The fake shop (:mod:`tests.fakes.mcp_shop`) served over streamable HTTP in a process of its own.

    python -m tests.fakes.upstream_shop_server PORT JOURNAL

MCP is at ``/mcp``. ``JOURNAL`` is a JSON file rewritten (atomically) after
every call: the orders, ``journal`` (every write the shop applied, with its
idempotency key) and ``calls`` (every call that arrived, applied or not).

A call with an argument ``hold:<name>`` is held until the test releases it
(``POST /release/<name>``), whether or not its caller is still connected then,
so that a test can kill the caller while the call is in flight and let the
upstream finish it afterwards. ``GET /held`` lists the calls held now.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.mcp_shop import Shop, shop_server

HOLD = "hold:"


def held_name(arguments: dict[str, Any]) -> str | None:
    """The name a call is held under, if one of its arguments is ``hold:<name>``."""
    for value in arguments.values():
        if isinstance(value, str) and value.startswith(HOLD):
            return value.removeprefix(HOLD)
    return None


@dataclass
class ServedShop(Shop):
    """The shop with its journal and calls in a file, and calls held until the test releases them."""

    gates: dict[str, anyio.Event] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)

    def gate(self, name: str) -> anyio.Event:
        if name not in self.gates:
            self.gates[name] = anyio.Event()
        return self.gates[name]

    async def call(self, tool: str, arguments: dict[str, Any], key: str | None) -> types.CallToolResult:
        name = held_name(arguments)
        if name is None:
            result = await super().call(tool, arguments, key)
        else:
            with anyio.CancelScope(shield=True):  # a caller that went away does not stop the upstream
                self.held.add(name)
                await self.gate(name).wait()
                self.held.discard(name)
                result = await super().call(tool, arguments, key)
        self._save()
        return result

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"orders": self.orders, "journal": self.journal, "calls": self.calls}
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(data))
        os.replace(partial, self.path)


def calls(path: Path) -> list[tuple[str, str | None]]:
    """Every call the served shop received: ``(tool, idempotency key)``."""
    if not path.is_file():
        return []
    return [(tool, key) for tool, key in json.loads(path.read_text())["calls"]]


def shop_app(shop: ServedShop) -> Starlette:
    """MCP at ``/mcp``; ``GET /held`` and ``POST /release/<name>`` for the test."""

    async def held(request: Request) -> JSONResponse:
        return JSONResponse(sorted(shop.held))

    async def release(request: Request) -> Response:
        shop.gate(request.path_params["name"]).set()
        return Response(status_code=204)

    app = shop_server(shop).streamable_http_app()
    app.router.routes.append(Route("/held", held, methods=["GET"]))
    app.router.routes.append(Route("/release/{name}", release, methods=["POST"]))
    return app


def main(port: int, journal: Path) -> None:
    import uvicorn

    uvicorn.run(shop_app(ServedShop(path=journal)), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(int(sys.argv[1]), Path(sys.argv[2]))
