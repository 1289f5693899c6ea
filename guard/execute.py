"""Running one tool call: validate, invoke, and shape the outcome.

This is the one place a tool function is called, by the guard's ``sql``
backend, by the plain (unguarded) server and by the benchmark's golden
replay alike. Business refusals (:class:`ToolError`) become error outcomes;
anything else a tool raises (a database error, a bug) propagates, so that the
caller can classify it and decide whether to retry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from guard.errors import ToolError
from guard.tools import ErrorText, ToolContext, ToolSpec, plain_error_text, result_text, to_jsonable

__all__ = ["CallOutcome", "execute"]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """The result of one call: a JSON value, or a tool error."""

    value: Any = None
    error: ToolError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def error_class(self) -> str | None:
        return None if self.error is None else self.error.error_class

    def text(self, tool: str, error_text: ErrorText = plain_error_text) -> str:
        if self.error is not None:
            return error_text(tool, self.error)
        return result_text(self.value)

    @property
    def structured(self) -> dict[str, Any] | None:
        return self.value if self.error is None and isinstance(self.value, dict) else None


async def execute(spec: ToolSpec, ctx: ToolContext, arguments: Mapping[str, Any] | None) -> CallOutcome:
    """Validate ``arguments`` against the tool's schema and run it on ``ctx``."""
    try:
        parsed = spec.validate(arguments)
        value = await spec.invoke(ctx, parsed)
    except ToolError as error:
        return CallOutcome(error=error)
    return CallOutcome(value=to_jsonable(value))
