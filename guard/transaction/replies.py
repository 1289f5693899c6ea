"""What the transaction manager answers: the key a request names, a call's reply, a commit's reply.

A commit reply shows the agent only the enforced findings (:func:`enforced`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from guard.backends.base import UpstreamReport
from guard.errors import ToolError
from guard.retry import Retried
from guard.tools import ErrorText, Tool
from guard.transaction.state import CommitStatus, Status, TxnState
from judges import Decision, Effect, Finding, Severity
from judges.classify import ErrorClass

__all__ = [
    "CommitReply",
    "ToolReply",
    "TxnKey",
    "call_reply",
    "commit_message",
    "committed_text",
    "enforced",
    "failed_commit_text",
    "lost_text",
    "undecided",
    "unrecorded_call",
]


@dataclass(frozen=True, slots=True)
class TxnKey:
    """A transaction's id and the agent presenting it.

    ``renewable``: the guard chose the key (a stdio stream's current one), so once its
    transaction has ended the guard, not the agent, moves on to a new one.
    """

    id: str
    principal: str
    meta: Mapping[str, Any] | None = None
    renewable: bool = False
    claims: Mapping[str, Any] = field(default_factory=dict)
    """The claims of the principal's token (:func:`guard.identity.kept_claims`); empty for a static one."""


@dataclass(frozen=True, slots=True)
class ToolReply:
    """A call's answer; ``ended`` when the call ended its transaction (it was lost or aborted)."""

    text: str
    structured: dict[str, Any] | None
    is_error: bool
    error_class: ErrorClass | None = None
    transaction_id: str | None = None
    ended: bool = False
    note: str | None = None
    content: tuple[Any, ...] = ()
    """The tool's own content blocks (an upstream's, as JSON), sent as they are; empty: ``text``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitReply:
    """A commit attempt's outcome, typed until :meth:`to_dict` (the edges' serialiser).

    ``dispatch`` lists the upstream writes of an ``mcp`` transaction.
    """

    status: CommitStatus
    transaction: str
    effects: tuple[Effect, ...] = ()
    findings: tuple[Finding, ...] = ()
    attempts_left: int
    message: str
    dispatch: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "status": self.status.value,
            "transaction": self.transaction,
            "effects": [e.to_dict() for e in self.effects],
            "findings": [f.to_dict() for f in self.findings],
            "attempts_left": self.attempts_left,
            "message": self.message,
        }
        if self.dispatch is not None:
            body["dispatch"] = self.dispatch
        return body

    @property
    def terminal(self) -> bool:
        return self.status.ended


def enforced(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """The findings the agent is shown: not the shadowed ones (Requirement G32).

    A rule in shadow is being tried on live traffic; the agent must not change
    course because of it, so its reply reads as if the rule did not exist. The
    audit log and the span keep every finding.
    """
    return tuple(f for f in findings if not f.shadow)


def commit_message(
    state: TxnState,
    decision: Decision,
    findings: tuple[Finding, ...],
    effects: int,
    applied: Sequence[str] = (),
    repair: str | None = None,
) -> str:
    """The commit reply's one line for the agent, from the state the gate's decision led to.

    ``applied`` names the writes that already took effect when called (passthrough writes
    upstream): a block does not undo them, and the line must not say that nothing happened.
    ``repair`` says how a blocked transaction is repaired in place (:meth:`Session.repair`).
    """
    if state.status is Status.COMMITTED:
        warned = f" with {len(findings)} warning(s)" if findings else ""
        return f"committed {effects} change(s){warned}"
    if state.status is Status.PENDING_APPROVAL:
        return f"{effects} change(s) are waiting for a reviewer's approval"
    reasons = "; ".join(
        f.message + (f" (hint: {f.hint})" if f.hint else "")
        for f in findings
        if f.severity is not Severity.WARN
    )
    if state.status is Status.ROLLED_BACK:
        return f"blocked again and rolled back ({state.close_reason}): {reasons}"
    then = f"; {repair}" if repair else ""
    if applied:
        return (
            f"blocked: nothing more was committed, but {len(applied)} write(s) already took effect when "
            f"called and stay applied ({', '.join(applied)}); roll back to undo what can be undone: "
            f"{reasons}{then}"
        )
    return f"blocked, nothing was committed: {reasons}{then}"


FAILURE_TEXT: Mapping[ErrorClass, str] = {
    ErrorClass.TRANSIENT: "the backend is temporarily unavailable",
    ErrorClass.RATE_LIMITED: "the backend is rate limiting requests",
    ErrorClass.TIMEOUT: "the backend did not answer in time",
    ErrorClass.INVALID_ARGUMENTS: "the backend rejected the arguments",
    ErrorClass.NOT_FOUND: "the record was not found",
    ErrorClass.PRECONDITION_FAILED: "the records are not in the state the change needs (another transaction "
    "may have changed them since this one read them)",
    ErrorClass.PERMISSION_DENIED: "the backend refused access",
    ErrorClass.INTERNAL: "the tool failed with an internal error",
    ErrorClass.CONFLICT: "another open transaction holds the records",
}
"""What a call that failed for good says it met, by error class."""


def call_reply(
    spec: Tool, retried: Retried, error_text: ErrorText, transaction_id: str
) -> tuple[ToolReply, str | None]:
    """The agent's reply to a call that ran, and the error text the trace and the log keep."""
    outcome = retried.outcome
    if outcome is not None and outcome.ok:
        reply = ToolReply(
            outcome.text(spec.name),
            outcome.structured,
            False,
            None,
            transaction_id,
            note=outcome.note,
            content=outcome.content,
        )
        return reply, None
    if outcome is not None:
        assert outcome.error is not None
        error = outcome.error
        reply = ToolReply(
            error_text(spec.name, error),
            None,
            True,
            error.error_class,
            transaction_id,
            note=outcome.note,
            content=outcome.content,
        )
        return reply, error.message
    error_class = retried.error_classes[-1] if retried.error_classes else ErrorClass.INTERNAL
    message = (
        f"{spec.name} failed: {FAILURE_TEXT.get(error_class, 'the tool failed')} "
        f"({error_class}, {retried.retries + 1} attempts); nothing was changed"
    )
    error = ToolError(message, error_class=error_class)
    return ToolReply(error_text(spec.name, error), None, True, error_class, transaction_id), message


def committed_text(message: str, report: UpstreamReport | None) -> str:
    """The reply's text once the system of record committed: ``message``, and what an upstream reported."""
    if report is None:
        return message
    if report.complete:
        return f"{message}; {report.message}"
    return f"the commit was allowed, but not all of it was applied: {report.message}"


def failed_commit_text(state: TxnState, message: str, error: BaseException, applied: bool | None) -> str:
    """The reply's text after the allowed commit's COMMIT raised ``error`` (``state`` is the state that led
    to, :func:`~guard.transaction.state.after_failed_commit`; ``message`` the text had it succeeded)."""
    if applied:
        return f"{message} (COMMIT reported {type(error).__name__}, but the commit was applied)"
    if applied is False:
        return "the database refused the commit; nothing was committed and it was rolled back"
    return (
        f"the outcome of the commit is unknown: {state.close_reason}. The guard records it once the "
        f"system of record answers; do not redo the work until `guard transactions show {state.id}` says "
        "it was not applied"
    )


def lost_text(transaction_id: str, reason: str) -> str:
    """What the agent reads when the backend lost its transaction."""
    return (
        f"transaction {transaction_id} is lost: {reason}. The database discarded all of its changes, "
        "earlier calls included; nothing was committed. Start a new transaction (a new key) and do the "
        "work again."
    )


def closed_text(transaction_id: str, status: str, reason: str | None) -> str:
    """What a call on an ended transaction reads; a partial commit says what reached the upstream and
    what did not, so that the agent neither redoes an applied write nor takes the rest as done."""
    if status != "partial":
        return f"transaction {transaction_id} is {status}; use a new transaction key"
    return (
        f"transaction {transaction_id} was committed in part: {reason or 'see its dispatch'}. Do not redo "
        "the writes that were applied. The others stay recorded in the guard: an operator can send again "
        f"the ones that failed or were not sent (guard transactions resume {transaction_id}); to do them "
        "yourself instead, redo only those, in a new transaction (a new key)"
    )


def unrecorded_call(tool: str, seq: int, transaction_id: str, error: Exception) -> tuple[str, str]:
    """The close reason, and the agent's text, of a call the audit log could not record (its transaction is
    rolled back so that nothing unrecorded is committed)."""
    reason = (
        f"the audit log could not record call {seq} ({type(error).__name__}); rolled back so "
        "that nothing unrecorded is committed"
    )
    message = (
        f"{tool}: the guard could not record this call in its audit log, so it rolled back "
        f"transaction {transaction_id}: nothing was changed. Start a new transaction and do the work again."
    )
    return reason, message


def undecided(error: Exception, commit_tool: str) -> tuple[Finding, str]:
    """The finding, and the reply's text, of a decision to commit the audit log could not record (nothing was
    committed, the transaction stays open)."""
    finding = Finding(
        "guard",
        Severity.BLOCK,
        f"the guard could not record its decision to commit in its audit log ({type(error).__name__}); "
        "nothing was committed and the transaction is still open",
        hint=f"call {commit_tool} again",
    )
    return finding, f"blocked, nothing was committed: {finding.message} (hint: {finding.hint})"
