"""Customers (CRM): lookup by email, the profile, and identity verification.

The profile never shows the SSN digits or the security answer. Verification
compares the SSN's last four digits exactly when they are given, otherwise
the security answer without regard to case; a mismatch is an answer
(``verified: false``), not an error.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.auto_insurance.common import reference_errors
from benchmark.domains.auto_insurance.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_CUSTOMER_ID = "The customer's id, e.g. CUS-00012345"


class EmailArgs(BaseModel):
    email: str = Field(description="The customer's email address")


class CustomerRefOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    customer_id: str
    first_name: str
    last_name: str


class ProfileArgs(BaseModel):
    customer_id: str = Field(description=_CUSTOMER_ID)


class CustomerProfile(BaseModel):
    customer_id: str
    email: str
    first_name: str
    last_name: str
    date_of_birth: str
    phone: str | None = None
    tier: str
    fraud_flag: bool
    security_question: str | None = None
    has_ssn_on_file: bool


class VerifyArgs(BaseModel):
    customer_id: str = Field(description=_CUSTOMER_ID)
    ssn_last_4: str | None = Field(
        None, description="Last four digits of the SSN, as the customer gives them"
    )
    security_answer: str | None = Field(None, description="The customer's answer to their security question")


class VerifyOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verified: bool
    verification_method: str


_NEITHER = "Must provide either ssn_last_4 or security_answer for verification"


@tools.tool(write=False)
async def crm_get_customer_by_email(ctx: ToolContext, args: EmailArgs) -> CustomerRefOut:
    """Find a customer by email address (any case): their id and name. Start here, then get the profile."""
    with reference_errors():
        wanted = args.email.lower()
        for customer in await store.all_rows(ctx.conn, sql["customers"]):
            if customer["email"].lower() == wanted:
                return CustomerRefOut(
                    customer_id=customer["id"],
                    first_name=customer["first_name"],
                    last_name=customer["last_name"],
                )
        raise NotFound(f"No customer found with email '{args.email}'")


@tools.tool(write=False)
async def crm_get_customer_profile(ctx: ToolContext, args: ProfileArgs) -> CustomerProfile:
    """A customer's profile: contact, birth date, tier, fraud flag, security question (never the answer)."""
    with reference_errors():
        customer = await store.first_row(ctx.conn, sql["customers"], id=args.customer_id)
        if customer is None:
            raise NotFound(f"Customer with ID '{args.customer_id}' not found")
        return CustomerProfile(
            customer_id=customer["id"],
            email=customer["email"],
            first_name=customer["first_name"],
            last_name=customer["last_name"],
            date_of_birth=customer["date_of_birth"],
            phone=customer["phone"],
            tier=customer["tier"],
            fraud_flag=customer["fraud_flag"],
            security_question=customer["security_question"],
            has_ssn_on_file=customer["ssn_last_4"] is not None,
        )


@tools.tool(write=False)
async def crm_verify_identity(ctx: ToolContext, args: VerifyArgs) -> VerifyOut:
    """Check a customer's identity by SSN last four digits or, failing those, the security answer."""
    with reference_errors():
        if not args.ssn_last_4 and not args.security_answer:
            raise InvalidArguments(_NEITHER)
        customer = await store.first_row(ctx.conn, sql["customers"], id=args.customer_id)
        if customer is None:
            raise NotFound(f"Customer with ID '{args.customer_id}' not found")
        if args.ssn_last_4:
            return VerifyOut(verified=customer["ssn_last_4"] == args.ssn_last_4, verification_method="ssn")
        stored = customer["security_answer"]
        verified = stored is not None and stored.lower() == str(args.security_answer).lower()
        return VerifyOut(verified=verified, verification_method="security_question")
