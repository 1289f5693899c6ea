"""guard: a transactional MCP proxy that judges an agent's writes before they commit."""

from guard.clock import Clock, FixedClock, SystemClock
from guard.errors import (
    GuardError,
    InvalidArguments,
    NotFound,
    PermissionDenied,
    PreconditionFailed,
    ToolError,
)
from guard.tools import FunctionTool, Tool, ToolContext, ToolRegistry

__all__ = [
    "Clock",
    "FixedClock",
    "FunctionTool",
    "GuardError",
    "InvalidArguments",
    "NotFound",
    "PermissionDenied",
    "PreconditionFailed",
    "SystemClock",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
]
