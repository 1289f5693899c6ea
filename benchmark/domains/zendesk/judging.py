"""What the domains' ticket judges share about the Zendesk ticket tools."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from judges import CallRecord, Finding, Severity

__all__ = ["tickets_not_created_open"]


def tickets_not_created_open(judge: str, calls: Sequence[CallRecord]) -> list[Finding]:
    """A warning per ticket created in another status than open (creation cannot be redone)."""
    findings = []
    for call in calls:
        if call.tool != "zendesk_create_item" or not call.ok or call.arguments.get("table") != "tickets":
            continue
        item = call.arguments.get("item")
        status = item.get("status") if isinstance(item, Mapping) else None
        if status == "open":
            continue
        findings.append(
            Finding(
                judge,
                Severity.WARN,
                f"a ticket was created with status '{status or 'new'}'",
                hint="allowed: open at creation; pending, hold or solved at resolution",
                rule="ticket-created-open",
                evidence={"tool": call.tool, "status": status},
            )
        )
    return findings
