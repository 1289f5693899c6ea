"""The agent-facing MCP server, on the official SDK's low-level ``Server``.

It lists the backend's tools (with their read/write annotations) plus the
commit and rollback tools, and turns every call into a transaction call, a
commit or a rollback. Refusals that are the client's to fix (reserved or
unknown tool names, a missing, malformed or foreign transaction key) are
JSON-RPC errors. Everything the model should read and act on is a tool
result, ``isError`` set when it failed and its text saying what to do next:
what happened inside a transaction, a key whose transaction has ended ("use a
new transaction key"), a transaction waiting for a reviewer, a key another
replica holds (naming it, and how to retry), a limit, an audit log or backend
that cannot take the call now. A rollback the agent asked for, done, is not
an error.

Any call may carry the conversation its host hands over,
``_meta["guard/conversation"]`` (:mod:`guard.transaction.conversation`): it is checked
before anything else runs, and one that is not a list of turns within the
per-request limits is JSON-RPC invalid params (the host must fix it; the
model cannot), changing nothing.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from guard.backends.base import Relaying
from guard.errors import GuardError, InvalidConversation, Refused, RequestRejected, TransactionClosed
from guard.notify import page_url
from guard.tools import Tool, format_validation_error
from guard.transaction.conversation import said_in
from guard.transaction.manager import CommitReply, ToolReply, TransactionManager, TxnKey
from guard.transaction.state import CommitStatus, Via
from judges import Turn

__all__ = ["KeyResolver", "build_server", "commit_tool", "rollback_tool", "spec_tool"]

log = logging.getLogger(__name__)

KeyResolver = Callable[[ServerRequestContext[Any, Any]], TxnKey]
"""Names the transaction (and the agent) of a ``tools/call`` request."""

_RESERVED_PREFIX = "__"


class _CommitArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str = Field(
        min_length=1, max_length=8000, description="What you did and what you will tell the user."
    )


_COMMIT_OUTPUT = {
    "type": "object",
    "properties": {
        "status": {
            "type": "string",
            "enum": [status.value for status in CommitStatus if status is not CommitStatus.COMMITTING],
        },
        "transaction": {"type": "string"},
        "effects": {"type": "array", "items": {"type": "object"}},
        "findings": {"type": "array", "items": {"type": "object"}},
        "attempts_left": {"type": "integer"},
        "message": {"type": "string"},
        "dispatch": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["status", "transaction", "effects", "findings", "attempts_left", "message"],
}


@functools.lru_cache(maxsize=64)
def commit_tool(name: str, *, output_schema: bool = True) -> types.Tool:
    """The commit tool as listed (one object per name, shared by every server: never changed)."""
    schema = _CommitArguments.model_json_schema()
    schema.pop("title", None)
    return types.Tool(
        name=name,
        description=(
            "Commit the changes of this transaction. Call it once your work is done and before you answer "
            "the user. The guard checks the end state first: if it blocks, nothing was committed and the "
            "findings say what is wrong; repair it and call this again."
        ),
        input_schema=schema,
        output_schema=_COMMIT_OUTPUT if output_schema else None,
        annotations=types.ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False
        ),
    )


def spec_tool(spec: Tool, *, output_schema: bool = True) -> types.Tool:
    """A registered tool as MCP lists it; ``output_schema=False`` leaves its output schema out."""
    hints = spec.annotations()
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description or None,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema if output_schema else None,
        annotations=types.ToolAnnotations(
            title=hints.get("title"),
            read_only_hint=hints["readOnlyHint"],
            destructive_hint=hints.get("destructiveHint"),
            idempotent_hint=hints.get("idempotentHint"),
            open_world_hint=hints.get("openWorldHint"),
        ),
    )


class _RollbackArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(
        "discarded by the agent", min_length=1, max_length=2000, description="Why the work is discarded."
    )


@functools.lru_cache(maxsize=64)
def rollback_tool(name: str, *, output_schema: bool = True) -> types.Tool:
    """The rollback tool as listed (shared, like :func:`commit_tool`'s)."""
    schema = _RollbackArguments.model_json_schema()
    schema.pop("title", None)
    return types.Tool(
        name=name,
        description=(
            "Discard every change of this transaction: nothing it did reaches the system of record. "
            "Use it to start over after a mistake; the next call opens a new transaction."
        ),
        input_schema=schema,
        output_schema=_COMMIT_OUTPUT if output_schema else None,
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )


_BLOCKS: TypeAdapter[types.ContentBlock] = TypeAdapter(types.ContentBlock)
_BLOCK_TYPES = (
    types.TextContent,
    types.ImageContent,
    types.AudioContent,
    types.ResourceLink,
    types.EmbeddedResource,
)


def _tool_result(reply: ToolReply) -> types.CallToolResult:
    content: list[types.ContentBlock]
    if reply.content:  # an upstream's own blocks, as it sent them (the SDK's objects, or their JSON)
        content = [b if isinstance(b, _BLOCK_TYPES) else _BLOCKS.validate_python(b) for b in reply.content]
    else:
        content = [types.TextContent(type="text", text=reply.text)]
    if reply.note is not None:
        content.append(types.TextContent(type="text", text=reply.note))
    return types.CallToolResult(
        content=content,
        structured_content=reply.structured,
        is_error=reply.is_error,
    )


def _commit_result(reply: CommitReply, *, is_error: bool | None = None) -> types.CallToolResult:
    """A commit's (or rollback's) reply; ``is_error`` unless it did what was asked."""
    body = reply.to_dict()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
        structured_content=body,
        is_error=reply.status.failed if is_error is None else is_error,
    )


def _refusal(message: str) -> types.CallToolResult:
    """A refusal the model should read and act on (its text says what to do), as a tool error."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def build_server(
    manager: TransactionManager,
    resolve: KeyResolver,
    *,
    on_finished: Callable[[str], None] | None = None,
    name: str = "guard",
    version: str = "0.1.0",
    output_schemas: bool = True,
) -> Server[Any]:
    """The MCP server for one manager; ``on_finished`` hears of every transaction a commit ended.

    ``output_schemas=False`` lists every tool without an output schema, the guard's commit and
    rollback tools too (the results still carry structured content), as servers that declare
    none do; a client then has no schema to compile (the commit reply's costs a client ~7 ms).
    """
    catalogue = _Catalogue(manager, output_schemas)

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=catalogue.listed())

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        tool = params.name
        if tool.startswith(_RESERVED_PREFIX):
            raise MCPError(types.INVALID_PARAMS, f"tool name {tool!r} is reserved")
        if catalogue.schema(tool) is None:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {tool!r}")
        turns = _said(ctx, manager)
        key: TxnKey | None = None
        try:
            key = resolve(ctx)
            return await _answered(
                ctx, manager, key, _Call(tool, params.arguments, turns), params, on_finished
            )
        except TransactionClosed as exc:
            return _closed(exc, key, on_finished)
        except Refused as exc:
            return _refusal(exc.message)
        except RequestRejected as exc:
            raise MCPError(types.INVALID_REQUEST, exc.message) from exc
        except GuardError as exc:  # the transaction's state, the audit log or the backend: the agent acts
            log.warning("tools/call %s refused: %s", tool, exc.message)
            return _refusal(exc.message)

    relayed = _relayed(manager.backend) if isinstance(manager.backend, Relaying) else {}
    return Server(
        name,
        version=version,
        instructions=_instructions(manager.commit_tool),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=catalogue.schema,
        **relayed,
    )


def _relayed(backend: Relaying) -> dict[str, Any]:
    """Handlers that relay the upstream's resources and prompts (read-only, outside any transaction)."""

    def handler(method: str, result: type[BaseModel]) -> Callable[..., Any]:
        async def relay(ctx: ServerRequestContext[Any, Any], params: BaseModel | None = None) -> Any:
            asked = {} if params is None else params.model_dump(mode="json", by_alias=True, exclude_none=True)
            asked.pop("_meta", None)
            try:
                answered = await backend.relay(method, asked)
            except MCPError:
                raise
            except Exception as exc:
                log.warning("%s relayed upstream failed: %r", method, exc)
                raise MCPError(types.INTERNAL_ERROR, f"the upstream did not answer {method}: {exc}") from exc
            return result.model_validate(answered)

        return relay

    return {
        "on_list_resources": handler("resources/list", types.ListResourcesResult),
        "on_list_resource_templates": handler("resources/templates/list", types.ListResourceTemplatesResult),
        "on_read_resource": handler("resources/read", types.ReadResourceResult),
        "on_list_prompts": handler("prompts/list", types.ListPromptsResult),
        "on_get_prompt": handler("prompts/get", types.GetPromptResult),
    }


async def _answered(
    ctx: ServerRequestContext[Any, Any],
    manager: TransactionManager,
    key: TxnKey,
    call: _Call,
    params: types.CallToolRequestParams,
    on_finished: Callable[[str], None] | None,
) -> types.CallToolResult | types.InputRequiredResult:
    """A call's answer; a commit held for a reviewer goes to a client that takes pages as its console page
    (and a client asking again about it, as the decision)."""
    is_commit = call.tool == manager.commit_tool
    if is_commit and params.request_state is not None:
        return await _held_commit(manager, key, call, params, on_finished)
    result = await _dispatch(manager, key, call, on_finished)
    if is_commit and _waits(result) and _sends_people_to_pages(ctx, manager):
        return _approval_page(manager, key.id, rounds=0, ask=True)
    return result


_APPROVAL = "guard/approval"
"""The key of the URL elicitation that sends the agent's user to a held commit's page."""


def _waits(result: types.CallToolResult) -> bool:
    body = result.structured_content or {}
    return body.get("status") == CommitStatus.PENDING_APPROVAL.value


def _sends_people_to_pages(ctx: ServerRequestContext[Any, Any], manager: TransactionManager) -> bool:
    """Whether the client takes a held commit as a page for its user to open: the multi-round-trip
    protocol (2026-07-28 and later) with URL elicitation, and a console to open."""
    if not manager.settings.console.enabled or ctx.protocol_version < "2026-07-28":
        return False
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and elicitation.url is not None


def _approval_page(
    manager: TransactionManager, transaction_id: str, *, rounds: int, ask: bool
) -> types.InputRequiredResult:
    """The held commit as an input-required result: the console page to open (``ask``), or, once the
    user has it, only the state to ask again with (the client waits a little and retries)."""
    state = json.dumps({"transaction": transaction_id, "rounds": rounds})
    if not ask:
        return types.InputRequiredResult(request_state=state)
    url = page_url(manager.settings, transaction_id)
    page = types.ElicitRequestURLParams(
        message=f"The changes of transaction {transaction_id} wait for a reviewer's approval before they are "
        "committed. Open the page to review them (or to see who must); the agent goes on when they decide.",
        url=url,
    )
    return types.InputRequiredResult(
        input_requests={_APPROVAL: types.ElicitRequest(params=page)}, request_state=state
    )


async def _held_commit(
    manager: TransactionManager,
    key: TxnKey,
    call: _Call,
    params: types.CallToolRequestParams,
    on_finished: Callable[[str], None] | None,
) -> types.CallToolResult | types.InputRequiredResult:
    """A client asking again about its held commit: the reviewer's decision when there is one (waiting up
    to ``console.approval_wait_s``), else another round; after ``approval_rounds``, or if the user
    declined to open the page, the commit's reply as it stands (``pending_approval``)."""
    try:
        state = json.loads(params.request_state or "")
        rounds = int(state["rounds"])
        held = str(state["transaction"])
    except (ValueError, KeyError, TypeError) as exc:
        raise MCPError(types.INVALID_PARAMS, "request_state is not the guard's") from exc
    if held != key.id:
        raise MCPError(types.INVALID_PARAMS, f"request_state names transaction {held}, not {key.id}")
    answer = (params.input_responses or {}).get(_APPROVAL)
    declined = isinstance(answer, types.ElicitResult) and answer.action != "accept"
    console = manager.settings.console
    if not declined:
        reply = await manager.decision(key, console.approval_wait_s)
        if reply is not None:
            if on_finished is not None:
                on_finished(key.id)
            return _commit_result(reply)
        if rounds + 1 < console.approval_rounds:
            return _approval_page(manager, key.id, rounds=rounds + 1, ask=False)
    return await _dispatch(manager, key, call, on_finished)


def _said(ctx: ServerRequestContext[Any, Any], manager: TransactionManager) -> tuple[Turn, ...] | None:
    """The conversation a call hands over (None: none); one the host must fix is invalid params."""
    try:
        return said_in(ctx.meta, manager.settings.limits)
    except InvalidConversation as exc:
        raise MCPError(types.INVALID_PARAMS, exc.message) from exc


@dataclass(frozen=True, slots=True)
class _Call:
    """A ``tools/call`` as the edge read it: the tool, its arguments, the turns its host handed over."""

    tool: str
    arguments: dict[str, Any] | None
    turns: tuple[Turn, ...] | None


async def _dispatch(
    manager: TransactionManager,
    key: TxnKey,
    call: _Call,
    on_finished: Callable[[str], None] | None,
) -> types.CallToolResult:
    """One call on ``manager``: the guard's commit or rollback tool, or a tool."""
    if call.tool == manager.commit_tool:
        return await _agent_commit(manager, key, call, on_finished)
    if call.tool == manager.rollback_tool:
        return await _agent_rollback(manager, key, call, on_finished)
    reply = await manager.call(key, call.tool, call.arguments, call.turns)
    if reply.ended and on_finished is not None:
        on_finished(key.id)
    return _tool_result(reply)


def _instructions(commit_tool: str) -> str:
    return (
        f"Your writes are held in a transaction until you call {commit_tool}; "
        "nothing reaches the system of record before that."
    )


async def _agent_commit(
    manager: TransactionManager,
    key: TxnKey,
    call: _Call,
    on_finished: Callable[[str], None] | None,
) -> types.CallToolResult:
    try:
        arguments = _CommitArguments.model_validate(call.arguments or {})
    except ValidationError as exc:
        return _refusal(format_validation_error(exc))
    commit = await manager.commit(key, arguments.summary, turns=call.turns)
    if commit.terminal and on_finished is not None:
        on_finished(key.id)
    return _commit_result(commit)


def _closed(
    exc: TransactionClosed, key: TxnKey | None, on_finished: Callable[[str], None] | None
) -> types.CallToolResult:
    """A call to an ended transaction, as a tool error; a key the guard chose (stdio) is renewed by
    the guard, since the agent cannot name another one."""
    if key is None or not key.renewable or on_finished is None:
        return _refusal(exc.message)
    on_finished(key.id)
    return _refusal(f"{exc.message.split(';')[0]}; the next call starts a new transaction")


async def _agent_rollback(
    manager: TransactionManager,
    key: TxnKey,
    call: _Call,
    on_finished: Callable[[str], None] | None,
) -> types.CallToolResult:
    try:
        arguments = _RollbackArguments.model_validate(call.arguments or {})
    except ValidationError as exc:
        return _refusal(format_validation_error(exc))
    if manager.live(key.id) is None:
        # a refusal (is_error) rather than a result, which the tool's output schema would have to fit
        text = f"no open transaction {key.id}: there is nothing to roll back"
        return _refusal(text)
    reply = await manager.rollback(key, arguments.reason, via=Via.TOOL, turns=call.turns)
    if on_finished is not None:
        on_finished(key.id)
    return _commit_result(reply, is_error=reply.status is not CommitStatus.ROLLED_BACK)


class _Catalogue:
    """The tools as listed, and their input schemas, each built again only when the manager's tools
    change (a backend's start); a call checks its tool's name against the schemas alone, so a server
    that is never asked to list never builds the listing."""

    def __init__(self, manager: TransactionManager, output_schemas: bool) -> None:
        self._manager = manager
        self._output_schemas = output_schemas
        self._listed_from: Mapping[str, Tool] | None = None
        self._listed: list[types.Tool] = []
        self._schemas_from: Mapping[str, Tool] | None = None
        self._schemas: dict[str, dict[str, Any]] = {}

    def _guard_tools(self) -> list[types.Tool]:
        schemas = self._output_schemas
        tools = [commit_tool(self._manager.commit_tool, output_schema=schemas)]
        if self._manager.rollback_tool is not None:
            tools.append(rollback_tool(self._manager.rollback_tool, output_schema=schemas))
        return tools

    def listed(self) -> list[types.Tool]:
        specs = self._manager.tool_map
        if self._listed_from is not specs:
            listed = [spec_tool(spec, output_schema=self._output_schemas) for spec in specs.values()]
            self._listed = listed + self._guard_tools()
            self._listed_from = specs
        return self._listed

    def schema(self, name: str) -> dict[str, Any] | None:
        specs = self._manager.tool_map
        if self._schemas_from is not specs:
            schemas = {spec.name: spec.input_schema for spec in specs.values()}
            schemas.update((tool.name, tool.input_schema) for tool in self._guard_tools())
            self._schemas = schemas
            self._schemas_from = specs
        return self._schemas.get(name)
