"""Asset management: devices, their assignments, inventory and retirement.

Ages are whole 30-day months up to 2025-12-17T10:00Z (:data:`ASSET_NOW`); a
purchase date without a time zone counts as UTC. An assignment
``ASN-{n+1:08d}`` needs an unassigned device that is not retired, is made
``by "system"`` without a timestamp, and marks the device assigned.
Retiring a device closes its active assignments (``returned_at`` =
2025-12-17T10:00:00Z) and sets it ``retired`` and unassigned. Inventory
counts the devices of a type at a warehouse that are not retired, and lists
those unassigned in ``new`` or ``good`` condition.

As in the reference, listing an employee's devices fails when one of their
assignments has no ``assigned_at`` — which is every assignment this tool
set creates.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.neobank import models as m
from benchmark.domains.neobank.common import ASSET_NOW, employee_by_email, insert_counted, reference_errors
from benchmark.domains.neobank.schema import sql
from guard.errors import InvalidArguments, NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

AssetId = Annotated[str, Field(description="Hardware asset id, e.g. VDB-HW-00001")]
Email = Annotated[str, Field(description="Employee email address")]

_RETIRED_AT = ASSET_NOW.strftime("%Y-%m-%dT%H:%M:%SZ")


class AssignDeviceOut(BaseModel):
    assignment_id: str
    asset_id: str
    employee_id: str


class AssetInfo(BaseModel):
    device_model: str
    asset_id: str


class InventoryOut(BaseModel):
    device_type: str
    warehouse_location: str
    available_count: int
    total_count: int
    asset_ids: list[AssetInfo]


class DeviceDetailsOut(BaseModel):
    asset_id: str
    device_type: str
    device_model: str
    purchase_date: str
    age_months: int
    condition: str
    warehouse_location: str
    is_assigned: bool
    assigned_to: str | None = None


class DeviceInfo(BaseModel):
    asset_id: str
    device_type: str
    device_model: str
    assigned_at: str
    condition: str
    age_months: int


class EmployeeDevicesOut(BaseModel):
    employee_id: str
    devices: list[DeviceInfo]


class RetireDeviceOut(BaseModel):
    asset_id: str
    previous_condition: str
    retired_at: str
    was_assigned: bool


def _age_months(asset: dict[str, Any]) -> int:
    text = asset["purchase_date"]
    problem = PreconditionFailed(f"Invalid purchase_date for asset {asset['id']}: {text!r}")
    if not text:
        raise problem
    try:
        bought = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise problem from exc
    if bought.tzinfo is None:
        bought = bought.replace(tzinfo=UTC)
    return int((ASSET_NOW - bought).days / 30)


async def _asset(ctx: ToolContext, asset_id: str) -> dict[str, Any]:
    asset = await store.first_row(ctx.conn, sql["hardware_assets"], id=asset_id)
    if asset is None:
        raise NotFound(f"Asset not found: {asset_id}")
    return asset


@tools.tool(write=True)
async def asset_management_api_assign_device(
    ctx: ToolContext, asset_id: AssetId, email: Email
) -> AssignDeviceOut:
    """Assign a device to an employee; it must be unassigned and not retired."""
    with reference_errors():
        employee = await employee_by_email(ctx, email, "Employee not found: {}")
        asset = await _asset(ctx, asset_id)
        if asset["is_assigned"]:
            raise PreconditionFailed(f"Asset {asset_id} is already assigned")
        if asset["condition"] == m.DeviceCondition.RETIRED.value:
            raise PreconditionFailed(f"Cannot assign retired asset: {asset_id}")
        row = await insert_counted(
            ctx,
            "asset_assignments",
            "ASN-{:08d}",
            m.AssetAssignment,
            asset_id=asset["id"],
            employee_id=employee["id"],
            assigned_by="system",
            is_active=True,
        )
        await store.update_row(ctx.conn, sql["hardware_assets"], {"id": asset["id"]}, {"is_assigned": True})
        return AssignDeviceOut(assignment_id=row["id"], asset_id=asset["id"], employee_id=employee["id"])


@tools.tool(write=False)
async def asset_management_api_check_inventory(
    ctx: ToolContext,
    device_type: Annotated[str, Field(description="Device type, e.g. laptop_standard, monitor, headset")],
    warehouse_location: Annotated[str, Field(description="Warehouse: sf, nyc, austin or remote_ship")],
) -> InventoryOut:
    """How many devices of a type are available (unassigned, new or good) at a warehouse, and which."""
    with reference_errors():
        if device_type not in {t.value for t in m.DeviceType}:
            raise InvalidArguments(f"Invalid device type: {device_type}")
        if warehouse_location not in {w.value for w in m.WarehouseLocation}:
            raise InvalidArguments(f"Invalid warehouse location: {warehouse_location}")
        stock = [
            asset
            for asset in await store.all_rows(
                ctx.conn,
                sql["hardware_assets"],
                device_type=device_type,
                warehouse_location=warehouse_location,
            )
            if asset["condition"] != m.DeviceCondition.RETIRED.value
        ]
        available = [a for a in stock if not a["is_assigned"] and a["condition"] in ("new", "good")]
        return InventoryOut(
            device_type=device_type,
            warehouse_location=warehouse_location,
            available_count=len(available),
            total_count=len(stock),
            asset_ids=[AssetInfo(device_model=a["device_model"], asset_id=a["id"]) for a in available],
        )


@tools.tool(write=False)
async def asset_management_api_get_device_details(ctx: ToolContext, asset_id: AssetId) -> DeviceDetailsOut:
    """A device's type, model, purchase date, age in months, condition, location and current holder."""
    with reference_errors():
        asset = await _asset(ctx, asset_id)
        age = _age_months(asset)
        holder: str | None = None
        if asset["is_assigned"]:
            active = await store.first_row(
                ctx.conn, sql["asset_assignments"], asset_id=asset["id"], is_active=True
            )
            holder = None if active is None else active["employee_id"]
        return DeviceDetailsOut(
            asset_id=asset["id"],
            device_type=asset["device_type"],
            device_model=asset["device_model"],
            purchase_date=asset["purchase_date"],
            age_months=age,
            condition=asset["condition"],
            warehouse_location=asset["warehouse_location"],
            is_assigned=asset["is_assigned"],
            assigned_to=holder,
        )


@tools.tool(write=False)
async def asset_management_api_get_employee_devices(ctx: ToolContext, email: Email) -> EmployeeDevicesOut:
    """The devices currently assigned to an employee, with type, model, age and condition."""
    with reference_errors():
        employee = await employee_by_email(ctx, email, "Employee not found: {}")
        assignments = await store.all_rows(
            ctx.conn, sql["asset_assignments"], employee_id=employee["id"], is_active=True
        )
        devices = []
        for assignment in assignments:
            asset = await store.first_row(ctx.conn, sql["hardware_assets"], id=assignment["asset_id"])
            if asset is None:
                continue
            age = _age_months(asset)
            devices.append(
                DeviceInfo(
                    asset_id=asset["id"],
                    device_type=asset["device_type"],
                    device_model=asset["device_model"],
                    assigned_at=assignment["assigned_at"],
                    condition=asset["condition"],
                    age_months=age,
                )
            )
        return EmployeeDevicesOut(employee_id=employee["id"], devices=devices)


@tools.tool(write=True, destructive=True)
async def asset_management_api_retire_device(ctx: ToolContext, asset_id: AssetId) -> RetireDeviceOut:
    """Retire a device; an active assignment of it is closed."""
    with reference_errors():
        asset = await _asset(ctx, asset_id)
        if asset["condition"] == m.DeviceCondition.RETIRED.value:
            raise PreconditionFailed(f"Asset {asset_id} is already retired")
        if asset["is_assigned"]:
            for assignment in await store.all_rows(
                ctx.conn, sql["asset_assignments"], asset_id=asset["id"], is_active=True
            ):
                await store.update_row(
                    ctx.conn,
                    sql["asset_assignments"],
                    {"id": assignment["id"]},
                    {"is_active": False, "returned_at": _RETIRED_AT},
                )
        await store.update_row(
            ctx.conn,
            sql["hardware_assets"],
            {"id": asset["id"]},
            {"condition": m.DeviceCondition.RETIRED.value, "is_assigned": False},
        )
        return RetireDeviceOut(
            asset_id=asset["id"],
            previous_condition=asset["condition"],
            retired_at=_RETIRED_AT,
            was_assigned=asset["is_assigned"],
        )
