"""Warranties (Extend): coverage checks and warranty claims.

``check_warranty_coverage`` matches a contract by order and SKU whose
validity window contains *now*. The reference reads the wall clock there;
we use the scenario clock (2025-10-01T13:00Z), so answers do not change with
the calendar. ``file_warranty_claim`` needs an existing contract but does not
check that it is valid; the claim id is the first free ``WCL-2{n:07d}`` from
n = row count, and the issue text is fixed per issue type.
"""

from __future__ import annotations

from datetime import UTC
from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.retail import models as m
from benchmark.domains.retail.common import (
    FIXED_NOW,
    SCENARIO_NOW,
    iso,
    parse_datetime,
    reference_errors,
    row_of,
)
from benchmark.domains.retail.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_ISSUE_TEXT = {
    m.WarrantyIssueType.product_not_functioning: "Product not functioning properly",
    m.WarrantyIssueType.component_failed: "Component failed",
    m.WarrantyIssueType.performance_degradation: "Performance degradation",
    m.WarrantyIssueType.accidental_damage: "Accidental damage",
}


class CoverageOut(BaseModel):
    has_coverage: bool
    contract_id: str | None = None
    warranty_type: m.WarrantyType | None = None
    start_date: str | None = None
    end_date: str | None = None
    coverage_details: str | None = None


class ClaimOut(BaseModel):
    claim_id: str
    status: m.WarrantyClaimStatus
    claim_date: str


@tools.tool(write=False)
async def check_warranty_coverage(ctx: ToolContext, order_id: str, sku: str) -> CoverageOut:
    """Whether a product of an order is under a valid warranty contract now, and its terms."""
    with reference_errors("check warranty coverage"):
        for contract in await store.all_rows(ctx.conn, sql["warranty_contracts"]):
            start = parse_datetime(contract["start_date"])
            end = parse_datetime(contract["end_date"])
            start = start if start.tzinfo else start.replace(tzinfo=UTC)
            end = end if end.tzinfo else end.replace(tzinfo=UTC)
            if contract["order_id"] == order_id and contract["sku"] == sku and start <= SCENARIO_NOW <= end:
                return CoverageOut(
                    has_coverage=True,
                    contract_id=contract["id"],
                    warranty_type=contract["warranty_type"],
                    start_date=iso(contract["start_date"]),
                    end_date=iso(contract["end_date"]),
                    coverage_details=contract["coverage_details"],
                )
        return CoverageOut(has_coverage=False)


@tools.tool(write=True)
async def file_warranty_claim(
    ctx: ToolContext,
    contract_id: Annotated[str, Field(description="Warranty contract id")],
    customer_id: str,
    warranty_issue_type: Annotated[m.WarrantyIssueType, Field(description="What is wrong with the product")],
) -> ClaimOut:
    """File a warranty claim against a contract (status pending)."""
    with reference_errors("file warranty claim"):
        if await store.first_row(ctx.conn, sql["warranty_contracts"], id=contract_id) is None:
            raise NotFound(f"Warranty contract not found: {contract_id}")
        claims = await store.all_rows(ctx.conn, sql["warranty_claims"])
        claim_id = store.first_unused((c["id"] for c in claims), "WCL-2{:07d}", len(claims))
        row = row_of(
            m.WarrantyClaim,
            id=claim_id,
            contract_id=contract_id,
            customer_id=customer_id,
            claim_date=FIXED_NOW,
            issue_description=_ISSUE_TEXT[warranty_issue_type],
            status=m.WarrantyClaimStatus.pending,
            resolution=None,
        )
        await store.insert_row(ctx.conn, sql["warranty_claims"], row)
        return ClaimOut(
            claim_id=claim_id, status=m.WarrantyClaimStatus.pending, claim_date=str(iso(row["claim_date"]))
        )
