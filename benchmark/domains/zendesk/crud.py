"""The Zendesk table tools: create, update, delete, get one, query many, list tables.

Behaviour follows the reference toolset (see the package docstring for the
per-domain differences, configured by :class:`ZendeskVariant`): new ids count
the rows (``str(n + 1)``; ``ticket_comments`` use a large numeric base), the
timestamps are frozen, an update merges the given fields into the stored row
and re-validates it, and ``ticket_comments`` can be created but neither
updated nor deleted. ``zendesk_get_items`` applies the OData subset of
:mod:`.odata`, then ``$orderby`` (one field), ``$skip``/``$top`` (default 512)
and ``$select``.

The ``item`` of a create or an update is a union of the variant's payload
models, so each variant has its own input models: subclasses of
:class:`CreateItemInput` and :class:`UpdateItemInput` whose ``item`` is that
union (:func:`create_input`, :func:`update_input`). The two tools name the
base models in their signatures, and :func:`register_crud_tools` binds those
names to the variant's subclasses when it derives the tools' schemas.
"""

from __future__ import annotations

import contextlib
import typing
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from benchmark.domains import store
from benchmark.domains.zendesk import models as m
from benchmark.domains.zendesk.odata import ODataError, evaluate, parse_filter
from benchmark.domains.zendesk.variant import ZendeskTables, ZendeskVariant
from guard.errors import InvalidArguments, NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry, build_spec

__all__ = ["CreateItemInput", "UpdateItemInput", "create_input", "register_crud_tools", "update_input"]

_UNSUPPORTED = (
    "Unsupported table: '{}'. "
    "Only tickets, users, organizations, comments, and ticket_comments are supported."
)
_TABLE = Annotated[m.TableName, Field(description="Zendesk table name")]
_LIST_FIELDS = {"tickets": ("tags",), "organizations": ("domain_names",)}
"""The list fields a create stores as ``[]`` when it gives them as null."""


class ItemOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item: dict[str, Any]


class ItemsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[dict[str, Any]]


class DeletedOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    success: bool


class TableInfo(BaseModel):
    Name: str
    DisplayName: str


class TablesOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: list[TableInfo]


class ItemRef(BaseModel):
    table: _TABLE
    id: str = Field(description="The item's id")


class GetItemsArgs(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    table: _TABLE
    filter: str | None = Field(None, alias="$filter", description="OData filter, e.g. status eq 'open'")
    orderby: str | None = Field(None, alias="$orderby", description="One field, optionally 'desc'")
    skip: int | None = Field(None, alias="$skip", ge=0, description="Rows to skip (default 0)")
    top: int | None = Field(None, alias="$top", ge=1, le=1000, description="Rows to return (default 512)")
    select: str | None = Field(None, alias="$select", description="Comma-separated fields to return")


class NoArgs(BaseModel):
    pass


class CreateItemInput(BaseModel):
    """The arguments of ``zendesk_create_item``; a variant's subclass narrows ``item`` to its payloads."""

    table: _TABLE
    item: BaseModel


class UpdateItemInput(BaseModel):
    """The arguments of ``zendesk_update_item``; a variant's subclass narrows ``item`` to its payloads."""

    table: _TABLE
    id: str = Field(description="The item's id")
    item: BaseModel


def _union(members: tuple[type[BaseModel], ...]) -> Any:
    return typing.Union.__getitem__(members)


def create_input(variant: ZendeskVariant) -> type[CreateItemInput]:
    """The variant's create arguments: ``item`` is one of its payloads, in the reference's union order."""
    members = (
        variant.ticket_create,
        m.UserCreateInput,
        variant.organization_create,
        m.CommentCreateInput,
        m.TicketCommentCreateInput,
    )
    return create_model(
        "CreateItemInput",
        __base__=CreateItemInput,
        item=(
            _union(members),
            Field(..., description="The item's fields; which fields apply depends on the table"),
        ),
    )


def update_input(variant: ZendeskVariant) -> type[UpdateItemInput]:
    """The variant's update arguments: ``item`` is one of its update payloads, in the reference's order."""
    members = (variant.ticket_update, m.UserUpdateInput, variant.organization_update, m.CommentUpdateInput)
    return create_model(
        "UpdateItemInput",
        __base__=UpdateItemInput,
        item=(_union(members), Field(..., description="Only the given fields are changed")),
    )


def _crud_table(table: m.TableName) -> str:
    if table.value not in m.CRUD_TABLES:
        raise InvalidArguments(_UNSUPPORTED.format(table.value))
    return table.value


def _enum_text(table: m.TableName) -> str:
    return f"TableName.{table.name}"


def _ordered(rows: list[dict[str, Any]], orderby: str, fields: typing.Container[str]) -> list[dict[str, Any]]:
    """``rows`` sorted by ``$orderby`` (a field, then ``desc`` or not); unchanged if unknown or unsortable."""
    parts = orderby.split()
    if not parts or parts[0] not in fields:
        return rows
    name, descending = parts[0], len(parts) > 1 and parts[1].lower() == "desc"
    with contextlib.suppress(TypeError):
        return sorted(rows, key=lambda row: row[name], reverse=descending)
    return rows


def _selected(rows: list[dict[str, Any]], select: str) -> list[dict[str, Any]]:
    wanted = [part.strip() for part in select.split(",")]
    return [{k: v for k, v in row.items() if k in wanted} for row in rows]


class _Crud:
    """One variant's table tools over its tables (the bound methods are the tools)."""

    def __init__(self, tables: ZendeskTables) -> None:
        self.variant = tables.variant
        self.tables = tables

    async def _find(self, ctx: ToolContext, table: str, item_id: str) -> dict[str, Any] | None:
        sql = self.tables.sql[table]
        if table != "ticket_comments":
            return await store.first_row(ctx.conn, sql, id=item_id)
        try:
            number = int(item_id)
        except ValueError:
            return None
        if str(number) != item_id:
            return None
        return await store.first_row(ctx.conn, sql, id=number)

    async def _existing(self, ctx: ToolContext, args: ItemRef, table: str) -> dict[str, Any]:
        """The item ``args`` names; :class:`NotFound` (the table named as the reference's enum) if none."""
        current = await self._find(ctx, table, args.id)
        if current is None:
            raise NotFound(f"Item with ID '{args.id}' not found in table '{_enum_text(args.table)}'")
        return current

    def _build(self, table: str, data: dict[str, Any], verb: str, *, prepare: bool = True) -> dict[str, Any]:
        model = self.tables.models[table]
        if table == "tickets" and prepare:
            data = self.variant.prepare_ticket(data)
        elif table == "organizations":
            data = self.variant.prepare_organization(data)
        try:
            return model.model_validate(data).model_dump(mode="json")
        except ValidationError as exc:
            raise InvalidArguments(f"Failed to {verb} item: {exc}") from exc

    def _reply(self, table: str, row: dict[str, Any], given_tags: Any) -> ItemOut:
        if table == "tickets" and self.variant.reply_given_tags and given_tags is not None:
            return ItemOut(item={**row, "tags": given_tags if isinstance(given_tags, list) else []})
        return ItemOut(item=row)

    def _new_item(self, table: str, data: dict[str, Any], new_id: int | str) -> dict[str, Any]:
        """A create's fields with the reference's defaults: id, null lists cleared, stamps, comment key."""
        data["id"] = new_id
        for name in _LIST_FIELDS.get(table, ()):
            if name in data and data[name] is None:
                data[name] = []
        data.setdefault("created_at", self.variant.created_at)
        if table != "ticket_comments":
            data.setdefault("updated_at", self.variant.created_at)
            return data
        data.setdefault("key", str(new_id))
        if "html_body" not in data and "body" in data:
            data["html_body"] = f'<div class="zd-comment" dir="auto"><p dir="auto">{data["body"]}</p></div>'
        return data

    def _changes(self, table: str, item: BaseModel) -> dict[str, Any]:
        """An update's given fields: nulls ignored, except the list fields the variant clears with them."""
        clears = self.variant.null_clears.get(table, ())
        changes: dict[str, Any] = {}
        for name, value in item.model_dump(exclude_unset=True).items():
            if value is not None:
                changes[name] = value
            elif name in clears:
                changes[name] = []
        return changes

    async def zendesk_create_item(self, ctx: ToolContext, args: CreateItemInput) -> ItemOut:
        """Create a ticket, user, organization, comment or ticket comment; returns the stored item."""
        table = _crud_table(args.table)
        count = await store.count_rows(ctx.conn, self.tables.sql[table])
        new_id: int | str = (
            self.variant.ticket_comment_base + count if table == "ticket_comments" else str(count + 1)
        )
        data = args.item.model_dump(exclude_unset=True)
        given_tags = data.get("tags")
        row = self._build(table, self._new_item(table, data, new_id), "create")
        try:
            await store.insert_row(ctx.conn, self.tables.sql[table], row)
        except store.DuplicateKey as exc:
            raise PreconditionFailed(str(exc)) from exc
        if table == "tickets" and self.variant.after_ticket_create is not None:
            await self.variant.after_ticket_create(ctx.conn, row)
        return self._reply(table, row, given_tags)

    async def zendesk_update_item(self, ctx: ToolContext, args: UpdateItemInput) -> ItemOut:
        """Change the given fields of an item (ticket comments cannot be changed); returns the item."""
        table = _crud_table(args.table)
        if table == "ticket_comments":
            raise PreconditionFailed("The value is not updatable. Ticket comments cannot be modified.")
        current = await self._find(ctx, table, args.id)
        if current is None:
            raise NotFound(f"Item with ID '{args.id}' not found in table '{table}'")
        changes = self._changes(table, args.item)
        given_tags = changes.get("tags")
        hook = self.variant.prepare_ticket_update if table == "tickets" else None
        if hook is not None:
            changes = hook(changes)
        merged = {**current, **changes}
        merged["updated_at"] = (
            self.variant.ticket_updated_at if table == "tickets" else self.variant.other_updated_at
        )
        row = self._build(table, merged, "update", prepare=hook is None)
        await store.update_row(ctx.conn, self.tables.sql[table], {"id": current["id"]}, row)
        return self._reply(table, row, given_tags)

    async def zendesk_delete_item(self, ctx: ToolContext, args: ItemRef) -> DeletedOut:
        """Delete an item by id (ticket comments cannot be deleted)."""
        table = _crud_table(args.table)
        if table == "ticket_comments":
            raise PreconditionFailed("The value is not updatable. Ticket comments cannot be deleted.")
        current = await self._existing(ctx, args, table)
        await store.delete_row(ctx.conn, self.tables.sql[table], {"id": current["id"]})
        return DeletedOut(success=True)

    async def zendesk_get_item(self, ctx: ToolContext, args: ItemRef) -> ItemOut:
        """One item of a Zendesk table by id, with all its fields."""
        table = _crud_table(args.table)
        return ItemOut(item=await self._existing(ctx, args, table))

    async def zendesk_get_items(self, ctx: ToolContext, args: GetItemsArgs) -> ItemsOut:
        """Items of a Zendesk table, filtered ($filter, OData), sorted ($orderby), paged and projected."""
        table = _crud_table(args.table)
        rows = await store.all_rows(ctx.conn, self.tables.sql[table])
        if args.filter:
            try:
                tree = parse_filter(args.filter)
                rows = [row for row in rows if evaluate(tree, row, self.variant.odata_comparators)]
            except (ODataError, TypeError, ValueError) as exc:
                raise InvalidArguments(f"Failed to parse OData filter: {exc}") from exc
        if args.orderby:
            rows = _ordered(rows, args.orderby, self.tables.models[table].model_fields)
        skip = args.skip or 0
        rows = rows[skip : skip + min(args.top or 512, 1000)]
        return ItemsOut(items=_selected(rows, args.select) if args.select else rows)

    async def zendesk_get_tables(self, ctx: ToolContext, args: NoArgs) -> TablesOut:
        """The Zendesk tables of the site, with display names."""
        names = [t.value for t in m.TableName if t is not m.TableName.COMMENTS]
        return TablesOut(value=[TableInfo(Name=n, DisplayName=n.replace("_", " ").title()) for n in names])


def register_crud_tools(registry: ToolRegistry, tables: ZendeskTables) -> None:
    """Add the six Zendesk table tools of ``tables``' variant to ``registry``, in the reference's order."""
    crud = _Crud(tables)
    creates = {"CreateItemInput": create_input(tables.variant)}
    updates = {"UpdateItemInput": update_input(tables.variant)}
    registry.add(build_spec(crud.zendesk_create_item, localns=creates, write=True))
    registry.add(build_spec(crud.zendesk_update_item, localns=updates, write=True, idempotent=True))
    registry.tool(write=True, destructive=True)(crud.zendesk_delete_item)
    registry.tool(write=False)(crud.zendesk_get_item)
    registry.tool(write=False)(crud.zendesk_get_items)
    registry.tool(write=False)(crud.zendesk_get_tables)
