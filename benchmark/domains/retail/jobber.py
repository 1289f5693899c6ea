"""Installation jobs (Jobber): look up, reschedule and cancel appointments.

``cancel_installation`` accepts an ``order_id`` and a reason but stores
neither; it returns the service cost as refunded. ``reschedule_installation``
re-opens a completed job (status scheduled) when the reason is a
workmanship issue.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.retail import models as m
from benchmark.domains.retail.common import iso, reference_errors
from benchmark.domains.retail.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

JobId = Annotated[str, Field(description="Installation job id")]


class JobOut(BaseModel):
    job_id: str
    order_id: str
    customer_id: str
    service_type: m.InstallationServiceType
    scheduled_date: str
    technician_id: str | None = None
    status: m.InstallationJobStatus
    completion_date: str | None = None
    service_cost: float


class CancelInstallationOut(BaseModel):
    job_id: str
    status: m.InstallationJobStatus
    service_cost_refunded: float


class RescheduleOut(BaseModel):
    job_id: str
    old_scheduled_date: str
    new_scheduled_date: str
    status: m.InstallationJobStatus


async def _job(ctx: ToolContext, job_id: str) -> dict[str, Any]:
    job = await store.first_row(ctx.conn, sql["installation_jobs"], id=job_id)
    if job is None:
        raise NotFound(f"Installation job not found: {job_id}")
    return job


@tools.tool(write=False)
async def get_installation_job(
    ctx: ToolContext,
    job_id: Annotated[str | None, Field(description="Installation job id")] = None,
    order_id: Annotated[str | None, Field(description="Order id (used when no job id is given)")] = None,
) -> JobOut:
    """An installation job by job id or by order id: service, date, technician, status, cost."""
    with reference_errors("retrieve installation job"):
        if not job_id and not order_id:
            raise InvalidArguments("Either job_id or order_id must be provided")
        table = sql["installation_jobs"]
        job = await store.first_row(ctx.conn, table, id=job_id) if job_id else None
        if not job_id and order_id:
            job = await store.first_row(ctx.conn, table, order_id=order_id)
        if job is None:
            raise NotFound(f"Installation job not found: {job_id or order_id}")
        return JobOut.model_validate(
            {
                **job,
                "job_id": job["id"],
                "scheduled_date": iso(job["scheduled_date"]),
                "completion_date": iso(job["completion_date"]),
            }
        )


@tools.tool(write=True, destructive=True)
async def cancel_installation(
    ctx: ToolContext,
    job_id: JobId,
    order_id: Annotated[str, Field(description="The order of the job")],
    cancellation_reason: Annotated[
        m.InstallationCancellationReason, Field(description="Why it is cancelled")
    ],
) -> CancelInstallationOut:
    """Cancel an installation appointment; returns the service cost to refund."""
    with reference_errors("cancel installation"):
        job = await _job(ctx, job_id)
        cancelled = m.InstallationJobStatus.CANCELLED
        await store.update_row(
            ctx.conn, sql["installation_jobs"], {"id": job_id}, {"status": cancelled.value}
        )
        return CancelInstallationOut(
            job_id=job_id, status=cancelled, service_cost_refunded=job["service_cost"]
        )


@tools.tool(write=True, idempotent=True)
async def reschedule_installation(
    ctx: ToolContext,
    job_id: JobId,
    new_scheduled_date: Annotated[datetime, Field(description="New appointment date and time, ISO 8601")],
    reschedule_reason: Annotated[m.InstallationRescheduleReason, Field(description="Why it is moved")],
) -> RescheduleOut:
    """Move an installation appointment; a workmanship issue re-opens a completed job."""
    with reference_errors("reschedule installation"):
        job = await _job(ctx, job_id)
        table = sql["installation_jobs"]
        status = m.InstallationJobStatus(job["status"])
        if (
            reschedule_reason is m.InstallationRescheduleReason.WORKMANSHIP_ISSUE
            and status is m.InstallationJobStatus.COMPLETED
        ):
            status = m.InstallationJobStatus.SCHEDULED
            await store.update_row(ctx.conn, table, {"id": job_id}, {"status": status.value})
        stored = m.InstallationJob.model_validate(
            {**job, "status": status, "scheduled_date": new_scheduled_date}
        )
        new_date = stored.model_dump(mode="json")["scheduled_date"]
        await store.update_row(ctx.conn, table, {"id": job_id}, {"scheduled_date": new_date})
        return RescheduleOut(
            job_id=job_id,
            old_scheduled_date=str(iso(job["scheduled_date"])),
            new_scheduled_date=stored.scheduled_date.isoformat(),
            status=status,
        )
