"""Running one tool call: invoke, and shape the outcome.

This is the one place a tool function is called, by the guard's ``sql``
backend (:func:`run_tool`, on arguments the manager validated once), by the
plain (unguarded) server and by the benchmark's golden replay
(:func:`execute`, which validates first). Business refusals
(:class:`ToolError`) become error outcomes; anything else a tool raises (a
database error, a bug) propagates, so that the caller can classify it and
decide whether to retry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from guard.errors import ToolError
from guard.tools import ErrorText, FunctionTool, ToolContext, plain_error_text, result_text, to_jsonable
from judges.classify import ErrorClass

__all__ = ["CallOutcome", "execute", "run_tool"]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """The result of one call: a JSON value, or a tool error."""

    value: Any = None
    error: ToolError | None = None
    note: str | None = None
    """Something the guard tells the agent beside the tool's own answer (a second text block)."""
    content: tuple[Any, ...] = ()
    """The tool's own MCP content blocks (an upstream's), passed to the agent unchanged; ``value`` and
    ``text`` stay what the audit log and the judges read."""

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def error_class(self) -> ErrorClass | None:
        return None if self.error is None else self.error.error_class

    def text(self, tool: str, error_text: ErrorText = plain_error_text) -> str:
        if self.error is not None:
            return error_text(tool, self.error)
        return result_text(self.value)

    @property
    def structured(self) -> dict[str, Any] | None:
        return self.value if self.error is None and isinstance(self.value, dict) else None


async def execute(tool: FunctionTool, ctx: ToolContext, arguments: Mapping[str, Any] | None) -> CallOutcome:
    """Validate ``arguments`` against the tool's input model and run it on ``ctx``."""
    try:
        parsed = tool.validate(arguments)
    except ToolError as error:
        return CallOutcome(error=error)
    return await run_tool(tool, ctx, parsed)


async def run_tool(tool: FunctionTool, ctx: ToolContext, arguments: BaseModel) -> CallOutcome:
    """Run the tool on arguments its input model already validated."""
    try:
        value = await tool.invoke(ctx, arguments)
    except ToolError as error:
        return CallOutcome(error=error)
    return CallOutcome(value=to_jsonable(value))
