"""What the transaction manager answers: the key a request names, a call's reply, a commit's reply."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from guard.transactions import Status, TxnState
from judges import Decision, Finding

__all__ = ["CommitReply", "ToolReply", "TxnKey", "commit_message"]


@dataclass(frozen=True, slots=True)
class TxnKey:
    """A transaction's id and the agent presenting it."""

    id: str
    principal: str
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolReply:
    text: str
    structured: dict[str, Any] | None
    is_error: bool
    error_class: str | None = None
    transaction_id: str | None = None


@dataclass(frozen=True, slots=True)
class CommitReply:
    """A commit attempt's outcome; ``dispatch`` lists the upstream writes of an ``mcp`` transaction."""

    status: str
    transaction: str
    effects: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    attempts_left: int
    message: str
    dispatch: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        body = {
            "status": self.status,
            "transaction": self.transaction,
            "effects": self.effects,
            "findings": self.findings,
            "attempts_left": self.attempts_left,
            "message": self.message,
        }
        if self.dispatch is not None:
            body["dispatch"] = self.dispatch
        return body

    @property
    def terminal(self) -> bool:
        return self.status in ("committed", "rolled_back", "partial")


def commit_message(state: TxnState, decision: Decision, findings: tuple[Finding, ...], effects: int) -> str:
    """The commit reply's one line for the agent, from the state the gate's decision led to."""
    if state.status is Status.COMMITTED:
        warned = f" with {len(findings)} warning(s)" if findings else ""
        return f"committed {effects} change(s){warned}"
    if state.status is Status.PENDING_APPROVAL:
        return f"{effects} change(s) are waiting for a reviewer's approval"
    reasons = "; ".join(
        f.message + (f" (hint: {f.hint})" if f.hint else "") for f in findings if f.severity.value != "warn"
    )
    if state.status is Status.ROLLED_BACK:
        return f"blocked again and rolled back ({state.close_reason}): {reasons}"
    return f"blocked, nothing was committed: {reasons}"
