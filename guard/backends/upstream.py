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
from dataclasses import dataclass, replace
from typing import Any, Protocol

__all__ = ["RELAYED", "Namespaced", "Upstream", "UpstreamResult", "UpstreamTool"]

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
    and the content blocks themselves (MCP content blocks, or their JSON: what the agent is sent)."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False
    content: tuple[Any, ...] = ()

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


class Namespaced:
    """Several upstreams as one (:class:`Upstream`): each tool and prompt named ``<prefix><its name>``.

    Calls and prompts go to the upstream whose prefix names them; resources keep their URIs, and a read
    goes to the upstream that listed the URI (else to each in turn until one knows it). Starting starts
    them all (one that cannot connect fails the start); a ping fails naming every upstream that is down.
    """

    def __init__(self, upstreams: Mapping[str, Upstream]) -> None:
        self._upstreams = dict(upstreams)
        self.name = ", ".join(f"{prefix}{u.name}" for prefix, u in self._upstreams.items())[:256]
        self._resources: dict[str, str] = {}

    def _route(self, name: str) -> tuple[Upstream, str]:
        for prefix, upstream in self._upstreams.items():
            if name.startswith(prefix):
                return upstream, name.removeprefix(prefix)
        raise LookupError(f"no upstream serves {name!r}")

    async def start(self) -> None:
        started: list[Upstream] = []
        try:
            for upstream in self._upstreams.values():
                await upstream.start()
                started.append(upstream)
        except BaseException:
            for upstream in started:
                await upstream.close()
            raise

    async def list_tools(self) -> list[UpstreamTool]:
        tools: list[UpstreamTool] = []
        for prefix, upstream in self._upstreams.items():
            tools.extend(replace(tool, name=prefix + tool.name) for tool in await upstream.list_tools())
        return tools

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, meta: Mapping[str, Any] | None = None
    ) -> UpstreamResult:
        upstream, own = self._route(name)
        return await upstream.call_tool(own, arguments, meta=meta)

    async def relay(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if method in ("resources/list", "resources/templates/list", "prompts/list"):
            return await self._merged(method)
        if method == "prompts/get":
            upstream, own = self._route(str(params["name"]))
            return await upstream.relay(method, {**params, "name": own})
        uri = str(params["uri"])
        owner = self._resources.get(uri)
        candidates = [self._upstreams[owner]] if owner is not None else list(self._upstreams.values())
        failure: Exception | None = None
        for upstream in candidates:
            try:
                return await upstream.relay(method, params)
            except Exception as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def _merged(self, method: str) -> dict[str, Any]:
        """One page holding every upstream's (their cursors are not carried: each upstream's first page)."""
        field = {"resources/list": "resources", "resources/templates/list": "resourceTemplates"}.get(
            method, "prompts"
        )
        items: list[dict[str, Any]] = []
        for prefix, upstream in self._upstreams.items():
            try:
                page = await upstream.relay(method, {})
            except Exception:
                continue  # an upstream without resources or prompts lists none
            for item in page.get(field, []):
                if field == "prompts":
                    item = {**item, "name": prefix + str(item["name"])}
                elif "uri" in item:
                    self._resources[str(item["uri"])] = prefix
                items.append(item)
        return {field: items}

    async def ping(self) -> None:
        down = []
        for prefix, upstream in self._upstreams.items():
            try:
                await upstream.ping()
            except Exception as exc:
                down.append(f"{prefix.rstrip('_')}: {exc}")
        if down:
            raise ConnectionError("; ".join(down))

    async def close(self) -> None:
        for upstream in self._upstreams.values():
            await upstream.close()
