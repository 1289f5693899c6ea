"""The Zendesk table tools: create, update, delete, get one, query many, list tables.

Behaviour follows the reference toolset (see the package docstring for the
per-domain differences, configured by :class:`ZendeskVariant`): new ids count
the rows (``str(n + 1)``; ``ticket_comments`` use a large numeric base), the
timestamps are frozen, an update merges the given fields into the stored row
and re-validates it, and ``ticket_comments`` can be created but neither
updated nor deleted. ``zendesk_get_items`` applies the OData subset of
:mod:`.odata`, then ``$orderby`` (one field), ``$skip``/``$top`` (default 512)
and ``$select``.
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
from guard.tools import ToolContext, ToolRegistry

__all__ = ["register_crud_tools"]

_UNSUPPORTED = (
    "Unsupported table: '{}'. "
    "Only tickets, users, organizations, comments, and ticket_comments are supported."
)
_TABLE = Annotated[m.TableName, Field(description="Zendesk table name")]


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


def _crud_table(table: m.TableName) -> str:
    if table.value not in m.CRUD_TABLES:
        raise InvalidArguments(_UNSUPPORTED.format(table.value))
    return table.value


def _enum_text(table: m.TableName) -> str:
    return f"TableName.{table.name}"


def _union(members: tuple[type[BaseModel], ...]) -> Any:
    return typing.Union.__getitem__(members)


def _register(
    registry: ToolRegistry, fn: Any, args: type[BaseModel], out: type[BaseModel], **options: Any
) -> None:
    fn.__annotations__ = {"ctx": ToolContext, "args": args, "return": out}
    registry.tool(**options)(fn)


def register_crud_tools(registry: ToolRegistry, variant: ZendeskVariant, tables: ZendeskTables) -> None:
    """Add the six Zendesk table tools of ``variant`` to ``registry``."""
    create_args = create_model(
        "CreateItemInput",
        table=(_TABLE, ...),
        item=(
            _union(
                (
                    variant.ticket_create,
                    m.UserCreateInput,
                    variant.organization_create,
                    m.CommentCreateInput,
                    m.TicketCommentCreateInput,
                )
            ),
            Field(..., description="The item's fields; which fields apply depends on the table"),
        ),
    )
    update_args = create_model(
        "UpdateItemInput",
        table=(_TABLE, ...),
        id=(str, Field(..., description="The item's id")),
        item=(
            _union(
                (
                    variant.ticket_update,
                    m.UserUpdateInput,
                    variant.organization_update,
                    m.CommentUpdateInput,
                )
            ),
            Field(..., description="Only the given fields are changed"),
        ),
    )

    async def find(ctx: ToolContext, table: str, item_id: str) -> dict[str, Any] | None:
        sql = tables.sql[table]
        if table == "ticket_comments":
            try:
                number = int(item_id)
            except ValueError:
                return None
            if str(number) != item_id:
                return None
            return await store.first_row(ctx.conn, sql, id=number)
        return await store.first_row(ctx.conn, sql, id=item_id)

    def build(table: str, data: dict[str, Any], verb: str, *, prepare: bool = True) -> dict[str, Any]:
        model = tables.models[table]
        if table == "tickets" and prepare:
            data = variant.prepare_ticket(data)
        elif table == "organizations":
            data = variant.prepare_organization(data)
        try:
            return model.model_validate(data).model_dump(mode="json")
        except ValidationError as exc:
            raise InvalidArguments(f"Failed to {verb} item: {exc}") from exc

    def reply(table: str, row: dict[str, Any], given_tags: Any) -> ItemOut:
        if table == "tickets" and variant.reply_given_tags and given_tags is not None:
            return ItemOut(item={**row, "tags": given_tags if isinstance(given_tags, list) else []})
        return ItemOut(item=row)

    async def zendesk_create_item(ctx: ToolContext, args: Any) -> ItemOut:
        """Create a ticket, user, organization, comment or ticket comment; returns the stored item."""
        table = _crud_table(args.table)
        count = await store.count_rows(ctx.conn, tables.sql[table])
        new_id: int | str = (
            variant.ticket_comment_base + count if table == "ticket_comments" else str(count + 1)
        )
        data = args.item.model_dump(exclude_unset=True)
        given_tags = data.get("tags")
        data["id"] = new_id
        for name in {"tickets": ("tags",), "organizations": ("domain_names",)}.get(table, ()):
            if name in data and data[name] is None:
                data[name] = []
        data.setdefault("created_at", variant.created_at)
        if table != "ticket_comments":
            data.setdefault("updated_at", variant.created_at)
        else:
            data.setdefault("key", str(new_id))
            if "html_body" not in data and "body" in data:
                data["html_body"] = (
                    f'<div class="zd-comment" dir="auto"><p dir="auto">{data["body"]}</p></div>'
                )
        row = build(table, data, "create")
        try:
            await store.insert_row(ctx.conn, tables.sql[table], row)
        except store.DuplicateKey as exc:
            raise PreconditionFailed(str(exc)) from exc
        if table == "tickets" and variant.after_ticket_create is not None:
            await variant.after_ticket_create(ctx.conn, row)
        return reply(table, row, given_tags)

    async def zendesk_update_item(ctx: ToolContext, args: Any) -> ItemOut:
        """Change the given fields of an item (ticket comments cannot be changed); returns the item."""
        table = _crud_table(args.table)
        if table == "ticket_comments":
            raise PreconditionFailed("The value is not updatable. Ticket comments cannot be modified.")
        current = await find(ctx, table, args.id)
        if current is None:
            raise NotFound(f"Item with ID '{args.id}' not found in table '{table}'")
        clears = variant.null_clears.get(table, ())
        changes: dict[str, Any] = {}
        for name, value in args.item.model_dump(exclude_unset=True).items():
            if value is not None:
                changes[name] = value
            elif name in clears:
                changes[name] = []
        given_tags = changes.get("tags")
        hook = variant.prepare_ticket_update if table == "tickets" else None
        if hook is not None:
            changes = hook(changes)
        merged = {**current, **changes}
        merged["updated_at"] = variant.ticket_updated_at if table == "tickets" else variant.other_updated_at
        row = build(table, merged, "update", prepare=hook is None)
        await store.update_row(ctx.conn, tables.sql[table], {"id": current["id"]}, row)
        return reply(table, row, given_tags)

    async def zendesk_delete_item(ctx: ToolContext, args: ItemRef) -> DeletedOut:
        """Delete an item by id (ticket comments cannot be deleted)."""
        table = _crud_table(args.table)
        if table == "ticket_comments":
            raise PreconditionFailed("The value is not updatable. Ticket comments cannot be deleted.")
        current = await find(ctx, table, args.id)
        if current is None:
            raise NotFound(f"Item with ID '{args.id}' not found in table '{_enum_text(args.table)}'")
        await store.delete_row(ctx.conn, tables.sql[table], {"id": current["id"]})
        return DeletedOut(success=True)

    async def zendesk_get_item(ctx: ToolContext, args: ItemRef) -> ItemOut:
        """One item of a Zendesk table by id, with all its fields."""
        table = _crud_table(args.table)
        current = await find(ctx, table, args.id)
        if current is None:
            raise NotFound(f"Item with ID '{args.id}' not found in table '{_enum_text(args.table)}'")
        return ItemOut(item=current)

    async def zendesk_get_items(ctx: ToolContext, args: GetItemsArgs) -> ItemsOut:
        """Items of a Zendesk table, filtered ($filter, OData), sorted ($orderby), paged and projected."""
        table = _crud_table(args.table)
        rows = await store.all_rows(ctx.conn, tables.sql[table])
        if args.filter:
            try:
                tree = parse_filter(args.filter)
                rows = [row for row in rows if evaluate(tree, row, variant.odata_comparators)]
            except (ODataError, TypeError, ValueError) as exc:
                raise InvalidArguments(f"Failed to parse OData filter: {exc}") from exc
        if args.orderby:
            parts = args.orderby.split()
            if parts:
                name, descending = parts[0], len(parts) > 1 and parts[1].lower() == "desc"
                if name in tables.models[table].model_fields:
                    with contextlib.suppress(TypeError):
                        rows = sorted(rows, key=lambda row: row[name], reverse=descending)
        skip = args.skip or 0
        rows = rows[skip : skip + min(args.top or 512, 1000)]
        if args.select:
            wanted = [part.strip() for part in args.select.split(",")]
            rows = [{k: v for k, v in row.items() if k in wanted} for row in rows]
        return ItemsOut(items=rows)

    async def zendesk_get_tables(ctx: ToolContext, args: NoArgs) -> TablesOut:
        """The Zendesk tables of the site, with display names."""
        names = [t.value for t in m.TableName if t is not m.TableName.COMMENTS]
        return TablesOut(value=[TableInfo(Name=n, DisplayName=n.replace("_", " ").title()) for n in names])

    _register(registry, zendesk_create_item, create_args, ItemOut, write=True)
    _register(registry, zendesk_update_item, update_args, ItemOut, write=True, idempotent=True)
    _register(registry, zendesk_delete_item, ItemRef, DeletedOut, write=True, destructive=True)
    _register(registry, zendesk_get_item, ItemRef, ItemOut, write=False)
    _register(registry, zendesk_get_items, GetItemsArgs, ItemsOut, write=False)
    _register(registry, zendesk_get_tables, NoArgs, TablesOut, write=False)
