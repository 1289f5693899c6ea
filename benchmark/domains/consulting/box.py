"""Documents (Box): folder details and granting folder access.

``grant_folder_access`` needs an existing folder and appends an access-log
row ``FAL-2-nnnnnn`` (first unused from 000000); it checks neither the
folder's confidentiality nor earlier grants.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import append_row, reference_errors, require
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class BoxAction(StrEnum):
    GET_FOLDER_DETAILS = "get_folder_details"
    GRANT_FOLDER_ACCESS = "grant_folder_access"


class FolderDataOut(BaseModel):
    id: str
    folder_name: str
    confidentiality_level: str
    owner_email: str
    client_id: str | None = None
    engagement_code: str | None = None


class BoxOut(BaseModel):
    folder_data: FolderDataOut | None = None
    success: bool | None = None


async def _folder(ctx: ToolContext, folder_id: str | None) -> dict[str, Any]:
    require(folder_id, "folder_id")
    folder = await store.first_row(ctx.conn, sql["box_folders"], id=folder_id)
    if folder is None:
        raise NotFound(f"Folder not found: {folder_id}")
    return folder


@tools.tool(write=True)
async def box_api(
    ctx: ToolContext,
    action: Annotated[BoxAction, Field(description="get_folder_details or grant_folder_access")],
    folder_id: Annotated[str | None, Field(description="Folder id (both actions)")] = None,
    email: Annotated[str | None, Field(description="Employee email (grant_folder_access)")] = None,
    permission_level: Annotated[
        m.PermissionLevel | None, Field(description="viewer, editor or co_owner (grant_folder_access)")
    ] = None,
) -> BoxOut:
    """Document folders. get_folder_details (folder_id): name, confidentiality level, owner, client and
    engagement; grant_folder_access (email, folder_id, permission_level): give an employee access."""
    with reference_errors("execute Box API action"):
        if action is BoxAction.GET_FOLDER_DETAILS:
            return BoxOut(folder_data=FolderDataOut.model_validate(await _folder(ctx, folder_id)))
        require(email, "email")
        require(folder_id, "folder_id")
        require(permission_level, "permission_level")
        folder = await _folder(ctx, folder_id)
        await append_row(
            ctx,
            "box_folder_access_logs",
            "FAL-2",
            m.FolderAccessLog,
            folder_id=folder["id"],
            employee_email=email,
            permission_level=permission_level,
        )
        return BoxOut(success=True)
