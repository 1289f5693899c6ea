"""Fault injection in the tool layer: transient failures, the same in both arms.

With ``--fault-rate F`` each invocation of a tool function fails with
probability F with a transient error, either *before* the tool runs (nothing
happened) or *after* it ran (its writes happened, then the reply was lost),
half and half. The draw is a hash of the trial's seed, the agent's call
number and the attempt number, so an agent's k-th call meets the same fault
in the baseline and in the guarded arm, and the guard's retries (attempt 1,
2, ...) draw afresh. Calls the schema refuses never reach a tool function
and draw nothing, in either arm.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from guard.errors import ToolError
from guard.tools import FunctionTool, ToolContext, ToolRegistry
from judges.classify import ErrorClass

__all__ = ["INJECTED", "FaultPlan", "InjectedFault", "faulty_registry"]

INJECTED = "injected transient fault"


class InjectedFault(ToolError):
    error_class = ErrorClass.TRANSIENT


@dataclass
class FaultPlan:
    """One trial's fault draws; the channel tells it which agent call is under way."""

    rate: float
    seed: int
    call: int = -1
    attempts: dict[int, int] = field(default_factory=dict)
    injected: list[tuple[int, int, str]] = field(default_factory=list)

    def next_call(self) -> None:
        self.call += 1

    def draw(self) -> str | None:
        """``"before"``, ``"after"`` or ``None`` for this invocation of the current call."""
        if self.rate <= 0:
            return None
        attempt = self.attempts.get(self.call, 0)
        self.attempts[self.call] = attempt + 1
        digest = hashlib.sha256(f"{self.seed}:{self.call}:{attempt}".encode()).digest()
        roll = int.from_bytes(digest[:8], "big") / 2**64
        if roll >= self.rate:
            return None
        kind = "before" if digest[8] % 2 == 0 else "after"
        self.injected.append((self.call, attempt, kind))
        return kind


def _wrap(spec: FunctionTool, plan: FaultPlan) -> FunctionTool:
    inner: Callable[..., Any] = spec.fn

    async def faulty(ctx: ToolContext, *args: Any, **kwargs: Any) -> Any:
        kind = plan.draw()
        if kind == "before":
            raise InjectedFault(f"{INJECTED} before {spec.name} ran; nothing was done")
        result = await inner(ctx, *args, **kwargs)
        if kind == "after":
            raise InjectedFault(f"{INJECTED} after {spec.name} ran; the reply was lost")
        return result

    return replace(spec, fn=faulty)


def faulty_registry(registry: ToolRegistry, plan: FaultPlan) -> ToolRegistry:
    """A copy of ``registry`` whose tools fail as ``plan`` draws; the registry itself when the rate is 0."""
    if plan.rate <= 0:
        return registry
    copy = ToolRegistry(registry.name, error_text=registry.error_text)
    for spec in registry:
        copy.add(_wrap(spec, plan))
    return copy
