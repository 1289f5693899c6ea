"""NDAs: status per employee and client, and sending one for signature.

``send_for_signature`` upserts the record keyed by (employee, client) with
status sent_for_signature, whatever the previous status (a signed NDA is
sent again). No record reads as not_signed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import reference_errors, require, row_of
from benchmark.domains.consulting.schema import sql
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class NdaApiAction(StrEnum):
    CHECK_STATUS = "check_status"
    SEND_FOR_SIGNATURE = "send_for_signature"


class NdaDataOut(BaseModel):
    status: str


class NdaOut(BaseModel):
    signed: bool | None = None
    nda_data: NdaDataOut | None = None
    success: bool | None = None


@tools.tool(write=True)
async def nda_api(
    ctx: ToolContext,
    action: Annotated[NdaApiAction, Field(description="check_status or send_for_signature")],
    email: Annotated[str | None, Field(description="Employee email (both actions)")] = None,
    client_id: Annotated[str | None, Field(description="Client id (both actions)")] = None,
) -> NdaOut:
    """Client NDAs. check_status (email, client_id): whether signed, and the status; send_for_signature
    (email, client_id): send the NDA for electronic signature."""
    with reference_errors("execute NDA API action"):
        require(email, "email")
        require(client_id, "client_id")
        table = sql["client_access_nda_record"]
        key = {"employee_email": email, "client_id": client_id}
        record = await store.first_row(ctx.conn, table, **key)
        if action is NdaApiAction.CHECK_STATUS:
            status = m.NdaStatus.NOT_SIGNED.value if record is None else record["status"]
            return NdaOut(signed=status == m.NdaStatus.SIGNED.value, nda_data=NdaDataOut(status=status))
        sent = m.NdaStatus.SENT_FOR_SIGNATURE.value
        if record is None:
            await store.insert_row(ctx.conn, table, row_of(m.NdaRecord, **key, status=sent))
        else:
            await store.update_row(ctx.conn, table, key, {"status": sent})
        return NdaOut(success=True)
