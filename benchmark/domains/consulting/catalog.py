"""The internal software catalog: search by name and details by catalog id (read-only)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting.common import reference_errors
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class SoftwareOut(BaseModel):
    id: str
    name: str
    annual_cost: int
    pool_type: str


class SearchOut(BaseModel):
    results: list[SoftwareOut]


def _software(row: dict[str, Any]) -> SoftwareOut:
    return SoftwareOut(
        id=row["id"], name=row["name"], annual_cost=row["annual_cost"], pool_type=row["pool_type"]
    )


@tools.tool(write=False)
async def software_catalog_search(
    ctx: ToolContext,
    software_name: Annotated[str, Field(description="Part of the software's name, any case")],
) -> SearchOut:
    """Approved software whose name contains the text: catalog id, name, annual cost, license pool type."""
    with reference_errors("search software catalog"):
        needle = software_name.lower()
        found = [
            _software(row)
            for row in await store.all_rows(ctx.conn, sql["software_catalog_software_catalog"])
            if needle in row["name"].lower()
        ]
        if not found:
            raise NotFound(f"No matching software found in catalog for: {software_name}")
        return SearchOut(results=found)


@tools.tool(write=False)
async def software_catalog_get_details(
    ctx: ToolContext, catalog_id: Annotated[str, Field(description="Catalog id, e.g. CAT-0012345")]
) -> SoftwareOut:
    """One catalog entry: name, annual cost (for approval thresholds) and license pool type."""
    with reference_errors("retrieve software details"):
        row = await store.first_row(ctx.conn, sql["software_catalog_software_catalog"], id=catalog_id)
        if row is None:
            raise NotFound(f"Software not found in catalog: {catalog_id}")
        return _software(row)
