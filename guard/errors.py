"""The guard's errors: a small hierarchy with structured fields.

Two families. :class:`ToolError` and its subclasses are raised by tool
functions (and by the guard on a tool's behalf) and reach the agent as MCP
tool errors; each names its error class from the classifier's vocabulary.
:class:`GuardError` and its subclasses are the guard's own failures and reach
the agent as protocol errors or reach the operator as one clear CLI line.
Foreign exceptions are translated once, at the seam that meets them.
"""

from __future__ import annotations

from typing import Any

from judges.classify import ErrorClass

__all__ = [
    "ApprovalRefused",
    "AuditError",
    "BackendError",
    "ConfigError",
    "GuardError",
    "HeldElsewhere",
    "InstanceInUse",
    "InvalidArguments",
    "InvalidConversation",
    "NotFinishable",
    "NotFound",
    "PermissionDenied",
    "PreconditionFailed",
    "RecordRefused",
    "Refused",
    "RequestRejected",
    "StoreNotReady",
    "ToolError",
    "TransactionClosed",
    "TransactionError",
    "TransactionLost",
    "UpstreamDown",
]


class ToolError(Exception):
    """A tool call failed in a way the agent should see (an MCP result with ``isError``)."""

    error_class: ErrorClass = ErrorClass.INTERNAL

    def __init__(self, message: str, *, error_class: ErrorClass | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        if error_class is not None:
            self.error_class = error_class
        self.data = data


class InvalidArguments(ToolError):
    error_class = ErrorClass.INVALID_ARGUMENTS


class NotFound(ToolError):
    error_class = ErrorClass.NOT_FOUND


class PreconditionFailed(ToolError):
    error_class = ErrorClass.PRECONDITION_FAILED


class PermissionDenied(ToolError):
    error_class = ErrorClass.PERMISSION_DENIED


class GuardError(Exception):
    """A failure of the guard itself, or a request it refuses."""

    def __init__(self, message: str, *, transaction_id: str | None = None, tool: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.transaction_id = transaction_id
        self.tool = tool


class ConfigError(GuardError):
    """The configuration or a module it names cannot be used."""


class StoreNotReady(GuardError):
    """The guard's own database is missing or not migrated."""


class RequestRejected(GuardError):
    """A request the guard refuses before anything runs (bad key, reserved name, unknown tool)."""


class InvalidConversation(RequestRejected):
    """A conversation handed over (``_meta["guard/conversation"]``, the admin commit's ``conversation``)
    that is not a list of turns within the per-request limits; nothing ran. The MCP edge answers it as
    JSON-RPC invalid params: the agent's host sent it, and only the host can fix it."""


class Refused(GuardError):
    """A request the guard turns down for a reason the agent can act on (a limit); the text says how.

    The MCP edge answers it as a tool result with ``isError``, so that the model reads it.
    """


class HeldElsewhere(Refused):
    """The key's transaction is open on another guard replica (``owner``); this one opens nothing.

    A transaction lives on one pinned connection in one process, so a request that a balancer sent
    to the wrong replica is refused, never answered from a second transaction under the same key.
    The text says how to retry, and what to do when the owner is gone.
    """

    def __init__(self, transaction_id: str, owner: str) -> None:
        super().__init__(
            f"transaction {transaction_id} is held by replica {owner}, not by this one; retry through the "
            f"balancer routing by the transaction (the Guard-Transaction header or the URL /mcp/t/"
            f"{transaction_id}; the _meta key cannot be routed). If {owner} is down, its transaction "
            "is lost: start a new transaction with a new key",
            transaction_id=transaction_id,
        )
        self.owner = owner


class TransactionError(GuardError):
    """A request that does not fit the transaction's state."""


class TransactionClosed(TransactionError):
    """The transaction was already committed or rolled back."""


class ApprovalRefused(TransactionError):
    """An approval that is no longer valid for what waits (expired, changed, judged by another policy),
    or a reviewer who already approved; the commit still waits."""


class NotFinishable(TransactionError):
    """An operator's resume or resolve that does not fit the commit's state (the text says what does)."""


class BackendError(GuardError):
    """The backend (database or upstream server) failed in a way no retry cured."""


class UpstreamDown(BackendError):
    """The upstream MCP server is not connected (the guard is reconnecting): the request was not sent.

    Certainly not applied, so ``transient``: a retry is safe for any call, and a write it stopped is
    recorded as failed, never as "may have been applied".
    """

    error_class = ErrorClass.TRANSIENT


class TransactionLost(TransactionError):
    """The backend lost the transaction (its pinned connection died): its changes are gone."""


class AuditError(GuardError):
    """The audit log could not record something the guard must not do unrecorded."""


class RecordRefused(AuditError):
    """The audit store refused a record for what it holds (a value it cannot store, a constraint), not
    because it is unavailable: writing the same record again would be refused again.

    ``reason`` names the refusal without quoting the record (the store's own words, in the message, may
    quote it); ``record`` is the refused record as text, for the log line that keeps it.
    """

    def __init__(
        self, message: str, *, reason: str = "", record: str = "", transaction_id: str | None = None
    ) -> None:
        super().__init__(message, transaction_id=transaction_id)
        self.reason = reason or message
        self.record = record


class InstanceInUse(GuardError):
    """Another live process holds this instance name (``server.instance``)."""
