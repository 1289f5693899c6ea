"""Policy administration: the policy record, cancellation, reinstatement and document links.

Business rules are the reference's, including what it leaves to the agent:
``policy_schedule_cancellation`` and ``policy_reinstate_policy`` accept any
current status, and reinstating without a lapse keeps an earlier lapse
window. ``policy_generate_document_link`` is idempotent: its id
``DOC-2-<sha256(policy_id, document type, ticket_id)[:8]>`` (the type as
the reference formats its enum, ``DocumentType.ID_CARD``) finds the link made
before, and a new row takes its ``created_at`` from ``expiration_date``.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.auto_insurance import models as m
from benchmark.domains.auto_insurance.common import content_id, create_once, reference_errors
from benchmark.domains.auto_insurance.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_POLICY_ID = "The policy's id, e.g. POL-0012345678"
_PORTAL = "https://portal.horizonshield.com/docs/secure/"


async def find_policy(ctx: ToolContext, policy_id: str) -> dict[str, Any]:
    """The policy row, or the policy tools' ``Policy with ID '…' not found``."""
    policy = await store.first_row(ctx.conn, sql["policies"], id=policy_id)
    if policy is None:
        raise NotFound(f"Policy with ID '{policy_id}' not found")
    return policy


async def policy_rows(
    ctx: ToolContext, table: str, policy_id: str, statuses: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """The rows of ``table`` on a policy (only those whose status is in ``statuses``, when given).

    The policy must exist (:func:`find_policy`).
    """
    await find_policy(ctx, policy_id)
    rows = await store.all_rows(ctx.conn, sql[table], policy_id=policy_id)
    return rows if statuses is None else [row for row in rows if row["status"] in statuses]


class PolicyDetailsArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)


class PolicyDetailsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy_id: str
    customer_id: str
    status: str
    state: str
    effective_date: str
    expiration_date: str
    renewal_date: str
    cancellation_date: str | None = None
    cancellation_reason: str | None = None
    named_insured_id: str
    co_insured_id: str | None = None
    automatic_extension_days: int
    at_fault_claims_3_years: int
    lapse_flag: bool


class ScheduleCancellationArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    cancellation_date: str = Field(description="When the cancellation takes effect, YYYY-MM-DD")
    cancellation_reason: m.CancellationReason = Field(description="Why the policy is cancelled")


class PolicyStatusOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy_id: str
    status: str


class ReinstateArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    lapse_flag: bool = Field(description="Whether coverage lapsed before the reinstatement")
    lapse_start: str | None = Field(None, description="First day of the lapse, YYYY-MM-DD")
    lapse_end: str | None = Field(None, description="Last day of the lapse, YYYY-MM-DD")


class ReinstateOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy_id: str
    status: str
    lapse_flag: bool


class DocumentLinkArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    document_type: m.DocumentType = Field(description="Which document to link")
    ticket_id: str = Field(description="The Zendesk ticket the request is recorded on")
    expiration_date: str = Field(
        description="When the link stops working, ISO 8601 (e.g. 2025-10-02T13:00:00Z)"
    )


class DocumentLinkOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    document_id: str
    url: str
    expires_at: str


@tools.tool(write=False)
async def policy_get_policy_details(ctx: ToolContext, args: PolicyDetailsArgs) -> PolicyDetailsOut:
    """The policy record: status, state, term dates, cancellation, insured parties, lapse flag.

    Vehicles and drivers have their own tools.
    """
    with reference_errors():
        policy = await find_policy(ctx, args.policy_id)
        fields = {k: v for k, v in policy.items() if k not in ("id", "lapse_start", "lapse_end")}
        return PolicyDetailsOut(policy_id=policy["id"], **fields)


@tools.tool(write=True, idempotent=True)
async def policy_schedule_cancellation(ctx: ToolContext, args: ScheduleCancellationArgs) -> PolicyStatusOut:
    """Put a policy in Pending Cancellation with the given effective date and reason."""
    with reference_errors():
        policy = await find_policy(ctx, args.policy_id)
        status = m.PolicyStatus.PENDING_CANCELLATION.value
        await store.update_row(
            ctx.conn,
            sql["policies"],
            {"id": policy["id"]},
            {
                "status": status,
                "cancellation_date": args.cancellation_date,
                "cancellation_reason": args.cancellation_reason.value,
            },
        )
        return PolicyStatusOut(policy_id=policy["id"], status=status)


@tools.tool(write=True, idempotent=True)
async def policy_reinstate_policy(ctx: ToolContext, args: ReinstateArgs) -> ReinstateOut:
    """Return a cancelled policy to Active, clearing the cancellation and recording any lapse window."""
    with reference_errors():
        policy = await find_policy(ctx, args.policy_id)
        changes: dict[str, Any] = {
            "status": m.PolicyStatus.ACTIVE.value,
            "cancellation_date": None,
            "cancellation_reason": None,
            "lapse_flag": args.lapse_flag,
        }
        if args.lapse_flag:
            changes |= {"lapse_start": args.lapse_start, "lapse_end": args.lapse_end}
        await store.update_row(ctx.conn, sql["policies"], {"id": policy["id"]}, changes)
        return ReinstateOut(policy_id=policy["id"], status=changes["status"], lapse_flag=args.lapse_flag)


@tools.tool(write=True, idempotent=True)
async def policy_generate_document_link(ctx: ToolContext, args: DocumentLinkArgs) -> DocumentLinkOut:
    """A temporary secure link to a policy document (proof of insurance, declarations page, ID card).

    Asking again for the same policy, document type and ticket returns the
    link made the first time.
    """
    with reference_errors():
        await find_policy(ctx, args.policy_id)
        try:
            datetime.fromisoformat(args.expiration_date.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidArguments(
                f"Invalid expiration_date format: '{args.expiration_date}'. "
                "Expected ISO 8601 format (e.g., '2024-01-16T10:05:00Z')"
            ) from exc
        url = f"{_PORTAL}{args.policy_id}_{args.document_type.value}_{args.ticket_id}"
        document = await create_once(
            ctx,
            "policy_documents",
            m.PolicyDocument,
            id=content_id("DOC-2-", f"{args.policy_id}_{args.document_type}_{args.ticket_id}", 8),
            policy_id=args.policy_id,
            ticket_id=args.ticket_id,
            document_type=args.document_type,
            url=url,
            created_at=args.expiration_date,
            expires_at=args.expiration_date,
        )
        return DocumentLinkOut(
            document_id=document["id"], url=document["url"], expires_at=document["expires_at"]
        )
