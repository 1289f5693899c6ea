"""What the guard refuses inside a guarded transaction, and the words it says it in.

A statement whose changes no row trigger would capture, or that would end the
transaction behind the judges' back, is refused as it runs: on PostgreSQL with
SQLSTATE ``42501`` (insufficient_privilege, which the error classifier reads as
``permission_denied``, never retried) and a message that contains
:data:`REFUSED`; on SQLite by its authorizer (``SQLITE_AUTH``), whose reason the
capture keeps beside the connection. The ``sql`` backend turns either into a
tool error the agent reads, rolls back the call's savepoint, and the
transaction goes on. What only shows at commit raises :class:`UncapturedChanges`,
and the commit gate blocks the commit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from guard.errors import BackendError

__all__ = [
    "OWN_CHANGES_CHECK",
    "OWN_CHANGES_TEXT",
    "REFUSAL_SQLSTATE",
    "REFUSED",
    "Gate",
    "StatementRefused",
    "UncapturedChanges",
    "ending_refusal",
    "gate_of",
    "refusal",
]

REFUSAL_SQLSTATE = "42501"
"""The SQLSTATE of a statement the guard refuses (insufficient_privilege: read as ``permission_denied``)."""
REFUSED = "is refused inside a guarded transaction"
"""The words every refusal's text contains."""
OWN_CHANGES_CHECK = "guard_changes_from_triggers"
"""The check on PostgreSQL's change table that a row comes from a capture trigger."""
OWN_CHANGES_TEXT = (
    f"writing pg_temp.guard_changes {REFUSED}: it is the guard's record of the transaction's changes"
)

# COMMIT, END, ABORT, ROLLBACK (not ROLLBACK TO a savepoint), BEGIN, START TRANSACTION, PREPARE TRANSACTION
_ENDING = re.compile(
    r"(?:COMMIT|END|ABORT|BEGIN|START|PREPARE\s+TRANSACTION"
    r"|ROLLBACK(?!\s+(?:(?:WORK|TRANSACTION)\s+)?TO\b))\b",
    re.IGNORECASE,
)


class UncapturedChanges(BackendError):
    """The transaction changed the schema, or rows no trigger captured: it must never be committed."""


class StatementRefused(Exception):
    """A statement of a tool's call that the guard refused before sending it (PostgreSQL)."""

    sqlstate = REFUSAL_SQLSTATE


def _statement_start(sql: str) -> int:
    """Where ``sql``'s first keyword is: past whitespace, empty statements and comments (nested, as
    PostgreSQL reads them, so that no comment hides a keyword from this reading)."""
    at, size = 0, len(sql)
    while at < size:
        if sql[at].isspace() or sql[at] == ";":
            at += 1
        elif sql.startswith("--", at):
            end = sql.find("\n", at)
            at = size if end < 0 else end + 1
        elif sql.startswith("/*", at):
            depth, at = 1, at + 2
            while at < size and depth:
                if sql.startswith("/*", at):
                    depth, at = depth + 1, at + 2
                elif sql.startswith("*/", at):
                    depth, at = depth - 1, at + 2
                else:
                    at += 1
        else:
            break
    return at


def ending_refusal(sql: str) -> str | None:
    """Why a tool may not run ``sql`` (it would end the guarded transaction), or None."""
    found = _ENDING.match(sql, _statement_start(sql))
    if found is None:
        return None
    keyword = " ".join(found.group(0).upper().split())
    return (
        f"{keyword} {REFUSED}: only the guard ends the transaction, after the judges "
        "(commit or roll back with the guard's own tools)"
    )


def refusal(error: BaseException) -> str | None:
    """The text of a refusal by the guard on PostgreSQL in ``error`` (as the driver or SQLAlchemy raised
    it), else None: for a caller that wants the agent to read it. SQLite's refusals are read beside their
    connection (:meth:`guard.store.capture.Capture.refusal`)."""
    for candidate in (error, getattr(error, "orig", None)):
        state = getattr(candidate, "sqlstate", None)
        if state == REFUSAL_SQLSTATE and REFUSED in str(candidate):
            return str(candidate).splitlines()[0]
        if state == "23514" and OWN_CHANGES_CHECK in str(candidate):
            return OWN_CHANGES_TEXT
    return None


@dataclass(slots=True)
class Gate:
    """One connection's refusal state, kept in its ``info``: whether a tool's call is running on it (its
    statements may not end the transaction), and on SQLite what it may write, whether the guard is
    running its own statement, and why the authorizer refused last."""

    tables: frozenset[str] = frozenset()
    calling: bool = False
    privileged: bool = False
    refused: str | None = None


_GATE = "guard_refusal_gate"


def gate_of(info: dict[Any, Any]) -> Gate:
    """The gate kept in a connection's ``info`` (created on first use)."""
    gate = info.get(_GATE)
    if not isinstance(gate, Gate):
        gate = info[_GATE] = Gate()
    return gate
