"""Email notifications: messages queued for employees, logged for audit.

The recipient must be an employee (by email) who is ``active`` or
``on_leave``. A notification ``NTF-{n+1:08d}`` is stored ``queued``, sent
``by "system"`` without timestamps, priority ``normal`` unless given; CC
addresses arrive comma-separated and are split (an empty text stores none).
Subject and body are free text and not hashed.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains.neobank import models as m
from benchmark.domains.neobank.common import employee_by_email, insert_counted, reference_errors
from guard.errors import PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_REACHABLE = (m.EmploymentStatus.ACTIVE.value, m.EmploymentStatus.ON_LEAVE.value)


class NotificationOut(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    notification_id: str
    delivery_status: m.EmailDeliveryStatus


@tools.tool(write=True)
async def email_notification_api_send_notification(
    ctx: ToolContext,
    recipient_email: Annotated[str, Field(description="Email of the employee to notify")],
    notification_type: Annotated[m.NotificationType, Field(description="What the notification is about")],
    subject: Annotated[str, Field(description="Subject line")],
    body: Annotated[str, Field(description="Message text")],
    ticket_id: Annotated[str | None, Field(description="The Zendesk ticket it belongs to")] = None,
    priority: Annotated[
        m.EmailPriority | None, Field(description="low, normal (default), high or urgent")
    ] = None,
    cc_emails: Annotated[
        str | None, Field(description="CC addresses, comma-separated without spaces")
    ] = None,
) -> NotificationOut:
    """Email an employee (access granted, incident, post-facto manager alert, hardware, escalation, ...)."""
    with reference_errors():
        recipient = await employee_by_email(
            ctx, recipient_email, "Recipient email not found in employee directory: {}"
        )
        if recipient["employment_status"] not in _REACHABLE:
            raise PreconditionFailed(
                f"Recipient is inactive or on extended leave; notification not sent: {recipient_email}"
            )
        row = await insert_counted(
            ctx,
            "email_notifications",
            "NTF-{:08d}",
            m.EmailNotification,
            recipient_id=recipient["id"],
            recipient_email=recipient_email,
            notification_type=notification_type,
            subject=subject,
            body=body,
            ticket_id=ticket_id,
            priority=priority or m.EmailPriority.NORMAL,
            cc_emails=[cc.strip() for cc in cc_emails.split(",")] if cc_emails else None,
            delivery_status=m.EmailDeliveryStatus.QUEUED,
            sent_by="system",
        )
        return NotificationOut(notification_id=row["id"], delivery_status=m.EmailDeliveryStatus.QUEUED)
