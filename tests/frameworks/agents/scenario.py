"""The scripted task every framework agent runs through the guard, and the summary it prints.

Standard library only: this module is imported inside each framework's own virtual environment.
The task, on the demo backend: read ticket 20, set it to ``solved`` (a write), commit (blocked: its
order's shipment is in carrier exception), repair by setting it to ``pending`` with a note, commit
again (allowed). :func:`next_call` is the scripted model's whole policy: it decides from what the
model has seen so far (tool name, whether the framework showed it as an error, the text), so a
blocked commit that never reaches the model as a tool error leaves the script with no repair.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

TICKET = 20
BLOCKED_MARK = "carrier exception"
BLOCKED_STATUS = "blocked, nothing was committed"
SOLVED_SUMMARY = "Ticket 20 solved: the customer's package question is answered."
REPAIRED_SUMMARY = "Ticket 20 pending until the carrier exception on SHP-20000020 is resolved."


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Seen:
    """One tool result as the model saw it: ``is_error`` is whether the framework marked it failed."""

    tool: str
    is_error: bool
    text: str

    @property
    def blocked(self) -> bool:
        """A blocked commit, told by the mark or, for a framework that shows no mark, by the guard's text."""
        return (self.is_error or BLOCKED_STATUS in self.text) and BLOCKED_MARK in self.text


@dataclass
class Summary:
    framework: str
    transaction: str
    versions: dict[str, str]
    seen: list[Seen] = field(default_factory=list)
    sdk_errors: list[bool | None] = field(default_factory=list)
    """Each call's MCP ``isError`` as the framework's client got it, where that is not what the model saw."""
    protocol_versions: list[str] = field(default_factory=list)
    """The ``Mcp-Protocol-Version`` headers the client sent, where the script can see them."""
    sessions: int = 0
    """How many distinct ``Mcp-Session-Id`` values the client sent (0 for a sessionless client)."""
    sessions_ended: int = 0
    """How many of those sessions the client ended with ``DELETE``."""
    final: str = ""

    def emit(self) -> None:
        """Print the summary as one JSON line on stdout (the test reads the last line)."""
        sys.stdout.write(json.dumps(asdict(self)) + "\n")
        sys.stdout.flush()


def versions(*packages: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in packages:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "absent"
    return found


def next_call(seen: list[Seen]) -> Call | None:
    """The next tool call after ``seen``, or ``None`` when the task is over."""
    if not seen:
        return Call("get_ticket", {"ticket_id": TICKET})
    last = seen[-1]
    commits = [s for s in seen if s.tool == "guard_commit"]
    if last.tool != "guard_commit" and last.is_error:
        return None
    if last.tool == "get_ticket":
        return Call("update_ticket", {"ticket_id": TICKET, "status": "solved"})
    if last.tool == "update_ticket" and not commits:
        return Call("guard_commit", {"summary": SOLVED_SUMMARY})
    if last.tool == "guard_commit" and last.blocked and len(commits) == 1:
        note = "waiting for the carrier to resolve the exception on SHP-20000020"
        return Call("update_ticket", {"ticket_id": TICKET, "status": "pending", "note": note})
    if last.tool == "update_ticket":
        return Call("guard_commit", {"summary": REPAIRED_SUMMARY})
    return None


def final_text(seen: list[Seen]) -> str:
    commits = [s for s in seen if s.tool == "guard_commit"]
    if len(commits) == 2 and commits[0].blocked and not commits[1].blocked and not commits[1].is_error:
        return "done: " + REPAIRED_SUMMARY
    return "gave up"
