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
from guard.tools import ToolContext, ToolRegistry, ToolSpec

__all__ = [
    "Clock",
    "FixedClock",
    "GuardError",
    "InvalidArguments",
    "NotFound",
    "PermissionDenied",
    "PreconditionFailed",
    "SystemClock",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolSpec",
]
