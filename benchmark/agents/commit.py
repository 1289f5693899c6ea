"""Reading the guard's commit tool result, for agents that commit through it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchmark.agents.base import ToolResult

__all__ = ["CommitReply", "read_commit"]


@dataclass(frozen=True, slots=True)
class CommitReply:
    """A commit tool result: ``status`` is ``committed``, ``blocked``, ``pending_approval``,
    ``rolled_back``, or ``None`` when the result could not be read (a refused call, say)."""

    status: str | None
    findings: tuple[Mapping[str, Any], ...] = ()
    attempts_left: int = 0
    message: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        """Whether the transaction is over (nothing more can be done in it)."""
        return self.status in ("committed", "rolled_back")


def read_commit(result: ToolResult) -> CommitReply:
    """The commit reply in ``result``: its structured content, else its text as JSON."""
    body: Any = result.structured
    if not isinstance(body, Mapping):
        try:
            body = json.loads(result.text)
        except ValueError:
            body = None
    if not isinstance(body, Mapping) or not isinstance(body.get("status"), str):
        return CommitReply(None, message=result.text)
    findings = tuple(item for item in body.get("findings") or () if isinstance(item, Mapping))
    left = body.get("attempts_left")
    return CommitReply(
        status=body["status"],
        findings=findings,
        attempts_left=left if isinstance(left, int) and not isinstance(left, bool) else 0,
        message=str(body.get("message") or ""),
        raw=dict(body),
    )
