"""The upstream seam: an MCP server the ``mcp`` backend lists and calls, as plain data.

:class:`Upstream` is what the backend needs of a connection: the tool list and
``tools/call`` with ``_meta``. The implementation over the official SDK's
client is :class:`guard.edge.mcp_client.ClientUpstream`; given an in-process
``Server`` it is also the in-memory one (the SDK connects the two without a
transport). Failures come back as exceptions for the classifier
(:func:`judges.classify`), or as results with ``is_error`` set when the
upstream's tool refused the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["RELAYED", "Upstream", "UpstreamResult", "UpstreamTool"]

RELAYED = frozenset(
    {"resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get"}
)
"""The upstream's requests the guard relays to agents unchanged: they read, and change nothing."""


@dataclass(frozen=True, slots=True)
class UpstreamTool:
    """A tool as the upstream lists it; a hint is ``None`` when the upstream did not give it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True, slots=True)
class UpstreamResult:
    """A ``tools/call`` result: its text (every content block, in order), structured content, error flag,
    and the content blocks themselves as JSON (what the agent is sent, unchanged)."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False
    content: tuple[dict[str, Any], ...] = ()

    @property
    def value(self) -> Any:
        """What the result means as JSON data: the structured content, else the text."""
        return self.structured if self.structured is not None else self.text


class Upstream(Protocol):
    """A connection to one upstream MCP server, shared by every transaction."""

    name: str

    async def start(self) -> None:
        """Connect; :class:`guard.errors.BackendError` when the upstream cannot be reached."""
        ...

    async def list_tools(self) -> list[UpstreamTool]: ...

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, meta: Mapping[str, Any] | None = None
    ) -> UpstreamResult: ...

    async def relay(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """A read-only request beside the tools (:data:`RELAYED`), answered as the upstream answered it."""
        ...

    async def ping(self) -> None:
        """A cheap round trip; raises when the upstream does not answer."""
        ...

    async def close(self) -> None: ...
