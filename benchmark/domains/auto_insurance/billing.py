"""Billing: a policy's billing account, payment arrangements and their history.

Every tool finds the account by ``policy_id`` (the first account of the
policy). Arrangements count up with no cap (the policy's limit is the
agent's to apply): an extension moves the due date and clears any
installment terms; an installment plan stores its count and amount (cents)
without checking them against the past-due balance. Resetting the account
leaves the arrangement count as it is.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.auto_insurance import models as m
from benchmark.domains.auto_insurance.common import reference_errors
from benchmark.domains.auto_insurance.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class AccountArgs(BaseModel):
    policy_id: str = Field(description="The policy whose billing account to use, e.g. POL-0012345678")


class AccountDetailsOut(BaseModel):
    billing_account_id: str
    policy_id: str
    status: m.BillingAccountStatus
    monthly_payment: int
    past_due_amount: int
    current_due_date: str
    payment_received: bool
    arrangement_type: m.ArrangementType


class ArrangementHistoryOut(BaseModel):
    arrangements_12_months: int


class ExtensionArgs(AccountArgs):
    new_due_date: str = Field(description="The new payment due date, YYYY-MM-DD")


class InstallmentPlanArgs(AccountArgs):
    installment_count: int = Field(description="How many installments the past-due amount is split into")
    installment_amount: int = Field(description="Amount of each installment, in cents")


class ArrangementOut(BaseModel):
    billing_account_id: str
    arrangements_12_months: int


class ResetOut(BaseModel):
    billing_account_id: str
    status: m.BillingAccountStatus


async def _account(ctx: ToolContext, policy_id: str) -> dict[str, Any]:
    account = await store.first_row(ctx.conn, sql["billing_accounts"], policy_id=policy_id)
    if account is None:
        raise NotFound(f"No billing account found for policy_id '{policy_id}'.")
    return account


async def _change(ctx: ToolContext, account: dict[str, Any], changes: dict[str, Any]) -> None:
    await store.update_row(ctx.conn, sql["billing_accounts"], {"id": account["id"]}, changes)


@tools.tool(write=False)
async def billing_get_account_details(ctx: ToolContext, args: AccountArgs) -> AccountDetailsOut:
    """A policy's billing account: status, monthly and past-due amounts (cents), due date, arrangement."""
    with reference_errors():
        account = await _account(ctx, args.policy_id)
        fields = {
            name: account[name] for name in AccountDetailsOut.model_fields if name != "billing_account_id"
        }
        return AccountDetailsOut(billing_account_id=account["id"], **fields)


@tools.tool(write=False)
async def billing_get_arrangement_history(ctx: ToolContext, args: AccountArgs) -> ArrangementHistoryOut:
    """How many payment arrangements the account was granted in the last 12 months."""
    with reference_errors():
        account = await _account(ctx, args.policy_id)
        return ArrangementHistoryOut(arrangements_12_months=account["arrangements_12_months"])


async def _arrange(ctx: ToolContext, policy_id: str, changes: dict[str, Any]) -> ArrangementOut:
    """Record one more payment arrangement on the policy's account, with ``changes``."""
    account = await _account(ctx, policy_id)
    count = account["arrangements_12_months"] + 1
    await _change(ctx, account, {**changes, "arrangements_12_months": count})
    return ArrangementOut(billing_account_id=account["id"], arrangements_12_months=count)


@tools.tool(write=True)
async def billing_grant_extension(ctx: ToolContext, args: ExtensionArgs) -> ArrangementOut:
    """Move the payment due date (an extension arrangement); counts one more arrangement."""
    with reference_errors():
        return await _arrange(
            ctx,
            args.policy_id,
            {
                "current_due_date": args.new_due_date,
                "new_due_date": args.new_due_date,
                "arrangement_type": m.ArrangementType.EXTENSION.value,
                "installment_count": None,
                "installment_amount": None,
            },
        )


@tools.tool(write=True)
async def billing_create_installment_plan(ctx: ToolContext, args: InstallmentPlanArgs) -> ArrangementOut:
    """Split the past-due balance into installments (an installment plan); counts one more arrangement."""
    with reference_errors():
        return await _arrange(
            ctx,
            args.policy_id,
            {
                "arrangement_type": m.ArrangementType.INSTALLMENT_PLAN.value,
                "installment_count": args.installment_count,
                "installment_amount": args.installment_amount,
            },
        )


@tools.tool(write=True, idempotent=True)
async def billing_reset_account_status(ctx: ToolContext, args: AccountArgs) -> ResetOut:
    """Set the account back to Current after payment: no past-due amount, no arrangement or installments."""
    with reference_errors():
        account = await _account(ctx, args.policy_id)
        status = m.BillingAccountStatus.CURRENT
        await _change(
            ctx,
            account,
            {
                "status": status.value,
                "past_due_amount": 0,
                "arrangement_type": m.ArrangementType.NONE.value,
                "new_due_date": None,
                "installment_count": None,
                "installment_amount": None,
            },
        )
        return ResetOut(billing_account_id=account["id"], status=status)
