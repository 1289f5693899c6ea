"""Single sign-on (Okta): provisioning application access.

Each call appends an access-log row ``AAL-2-nnnnnn`` (first unused from
000000); ``access_type`` defaults to full_access. Nothing is checked: the
same access can be provisioned twice.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import append_row, reference_errors
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class SuccessOut(BaseModel):
    success: bool


@tools.tool(write=True)
async def okta_provision_access(
    ctx: ToolContext,
    email: Annotated[str, Field(description="Employee email")],
    app_name: Annotated[str, Field(description="Application name, e.g. Tableau")],
    access_type: Annotated[
        m.AccessType | None,
        Field(description="full_access, read_only, contributor or admin (default full_access)"),
    ] = None,
) -> SuccessOut:
    """Grant an employee access to an application through single sign-on (after its license is allocated)."""
    with reference_errors("provision access"):
        await append_row(
            ctx,
            "okta_application_access_logs",
            "AAL-2",
            m.ApplicationAccessLog,
            employee_email=email,
            app_name=app_name,
            access_type=access_type or m.AccessType.FULL_ACCESS,
        )
        return SuccessOut(success=True)
