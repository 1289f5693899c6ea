"""Hardware (IT asset management and procurement): devices, assignments, orders.

``reserve_device`` takes the available device of the type at the location
with the lowest id and marks it reserved; ``assign_device`` appends an
assignment ``ASMT-2-nnnnnn`` (first unused from 000000) and marks the device
assigned, without checking that it was available or reserved;
``retire_device`` marks it retired. ``hardware_procurement_create_order``
stores nothing and always answers order ``HWO-0056435``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import append_row, reference_errors, require
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

HARDWARE_ORDER_ID = "HWO-0056435"
"""The reference's constant purchase-order id."""


class AssetManagementAction(StrEnum):
    GET_EMPLOYEE_DEVICES = "get_employee_devices"
    GET_DEVICE_DETAILS = "get_device_details"
    CHECK_INVENTORY = "check_inventory"
    RESERVE_DEVICE = "reserve_device"
    ASSIGN_DEVICE = "assign_device"
    RETIRE_DEVICE = "retire_device"


class DeviceAssignmentOut(BaseModel):
    id: str
    asset_id: str
    employee_email: str
    returned_at: str | None = None


class DeviceDataOut(BaseModel):
    id: str
    device_type: str
    model: str
    age_months: int
    inventory_status: str
    location: str


class AssetManagementOut(BaseModel):
    devices: list[DeviceAssignmentOut] | None = None
    device_data: DeviceDataOut | None = None
    available_count_by_model: dict[str, int] | None = None
    reserved_asset_id: str | None = None
    success: bool | None = None


class OrderOut(BaseModel):
    order_id: str


async def _device(ctx: ToolContext, asset_id: str | None) -> dict[str, Any]:
    require(asset_id, "asset_id")
    device = await store.first_row(ctx.conn, sql["asset_management_devices"], id=asset_id)
    if device is None:
        raise NotFound(f"Device not found: {asset_id}")
    return device


async def _available(
    ctx: ToolContext, device_type: m.DeviceType | None, location: m.OfficeLocation | None
) -> list[dict[str, Any]]:
    require(device_type, "device_type")
    require(location, "location")
    return await store.all_rows(
        ctx.conn,
        sql["asset_management_devices"],
        device_type=str(device_type),
        location=str(location),
        inventory_status=m.InventoryStatus.AVAILABLE.value,
    )


async def _set_status(ctx: ToolContext, device: dict[str, Any], status: m.InventoryStatus) -> None:
    await store.update_row(
        ctx.conn, sql["asset_management_devices"], {"id": device["id"]}, {"inventory_status": status.value}
    )


@tools.tool(write=True)
async def asset_management_api(
    ctx: ToolContext,
    action: Annotated[
        AssetManagementAction,
        Field(
            description="get_employee_devices, get_device_details, check_inventory, reserve_device, "
            "assign_device or retire_device"
        ),
    ],
    email: Annotated[
        str | None, Field(description="Employee email (get_employee_devices, assign_device)")
    ] = None,
    asset_id: Annotated[
        str | None,
        Field(description="Asset id, e.g. MSG00012345 (get_device_details, assign_device, retire_device)"),
    ] = None,
    device_type: Annotated[
        m.DeviceType | None, Field(description="Device type (check_inventory, reserve_device)")
    ] = None,
    location: Annotated[
        m.OfficeLocation | None, Field(description="Office location (check_inventory, reserve_device)")
    ] = None,
) -> AssetManagementOut:
    """Devices and their assignments. get_employee_devices (email): devices the employee holds;
    get_device_details (asset_id): type, model, age in months, status, location; check_inventory
    (device_type, location): available devices counted by model; reserve_device (device_type, location):
    reserve the available device with the lowest asset id; assign_device (email, asset_id): assign a device;
    retire_device (asset_id): retire a device."""
    with reference_errors("execute Asset Management API action"):
        if action is AssetManagementAction.GET_EMPLOYEE_DEVICES:
            require(email, "email")
            rows = await store.all_rows(
                ctx.conn, sql["asset_management_device_assignments"], employee_email=email
            )
            return AssetManagementOut(
                devices=[
                    DeviceAssignmentOut.model_validate(row) for row in rows if row["returned_at"] is None
                ]
            )
        if action is AssetManagementAction.GET_DEVICE_DETAILS:
            return AssetManagementOut(device_data=DeviceDataOut.model_validate(await _device(ctx, asset_id)))
        if action is AssetManagementAction.CHECK_INVENTORY:
            counts: dict[str, int] = {}
            for device in await _available(ctx, device_type, location):
                counts[device["model"]] = counts.get(device["model"], 0) + 1
            return AssetManagementOut(available_count_by_model=counts)
        if action is AssetManagementAction.RESERVE_DEVICE:
            available = await _available(ctx, device_type, location)
            if not available:
                raise PreconditionFailed(f"No available {device_type} devices at {location}")
            chosen = min(available, key=lambda device: str(device["id"]))
            await _set_status(ctx, chosen, m.InventoryStatus.RESERVED)
            return AssetManagementOut(reserved_asset_id=chosen["id"])
        if action is AssetManagementAction.ASSIGN_DEVICE:
            require(email, "email")
            device = await _device(ctx, asset_id)
            await append_row(
                ctx,
                "asset_management_device_assignments",
                "ASMT-2",
                m.DeviceAssignment,
                asset_id=device["id"],
                employee_email=email,
                returned_at=None,
            )
            await _set_status(ctx, device, m.InventoryStatus.ASSIGNED)
            return AssetManagementOut(success=True)
        await _set_status(ctx, await _device(ctx, asset_id), m.InventoryStatus.RETIRED)
        return AssetManagementOut(success=True)


@tools.tool(write=False)
async def hardware_procurement_create_order(
    ctx: ToolContext,
    device_model: Annotated[str, Field(description="Device model to order, e.g. Google Pixel 7a")],
    quantity: Annotated[int, Field(description="How many")],
    deliver_to: Annotated[m.OfficeLocation, Field(description="Office to deliver to")],
) -> OrderOut:
    """Order hardware from the vendor when inventory has none (lead times: laptops 18 days, phones 14,
    other devices 21); returns the purchase order id."""
    return OrderOut(order_id=HARDWARE_ORDER_ID)
