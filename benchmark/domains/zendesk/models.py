"""Zendesk row models and the item payloads of the create and update tools.

The row models mirror the reference's field for field (names, types,
defaults, ``min_length``); extra keys are ignored, as in the reference. The
item payloads are the members of the ``item`` union of ``zendesk_create_item``
and ``zendesk_update_item``; their order and fields decide which member
pydantic's smart-mode union picks for a given dict, and so which fields are
written, so they follow the reference exactly. Domains with custom ticket
fields subclass :class:`Ticket`, :class:`TicketCreateInput` and
:class:`TicketUpdateInput`, by hand or with :func:`with_custom_fields`.
"""

# ruff: noqa: UP042 - (str, Enum) as in the reference: it formats as "Class.MEMBER", which messages show
from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, Field, create_model

__all__ = [
    "CRUD_TABLES",
    "Article",
    "Comment",
    "CommentCreateInput",
    "CommentUpdateInput",
    "Organization",
    "OrganizationCreateInput",
    "OrganizationUpdateInput",
    "TableName",
    "Ticket",
    "TicketComment",
    "TicketCommentCreateInput",
    "TicketCreateInput",
    "TicketPriority",
    "TicketStatus",
    "TicketType",
    "TicketUpdateInput",
    "User",
    "UserCreateInput",
    "UserRole",
    "UserUpdateInput",
    "with_custom_fields",
]

_M = TypeVar("_M", bound=BaseModel)


class TableName(str, Enum):
    ACTIVITIES = "activities"
    ARTICLES = "articles"
    GROUPS = "groups"
    GROUP_MEMBERSHIPS = "group_memberships"
    ORGANIZATIONS = "organizations"
    REQUESTS = "requests"
    SATISFACTION_RATINGS = "satisfaction_ratings"
    SESSIONS = "sessions"
    TAGS = "tags"
    TARGETS = "targets"
    TICKETS = "tickets"
    TICKET_AUDITS = "ticket_audits"
    TICKET_COMMENTS = "ticket_comments"
    TICKET_FIELDS = "ticket_fields"
    TICKET_METRICS = "ticket_metrics"
    TRIGGERS = "triggers"
    USERS = "users"
    VIEWS = "views"
    COMMENTS = "comments"


CRUD_TABLES = ("tickets", "users", "organizations", "comments", "ticket_comments")


class TicketStatus(str, Enum):
    NEW = "new"
    OPEN = "open"
    PENDING = "pending"
    HOLD = "hold"
    SOLVED = "solved"
    CLOSED = "closed"


class TicketPriority(str, Enum):
    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    URGENT = "urgent"


class TicketType(str, Enum):
    PROBLEM = "problem"
    INCIDENT = "incident"
    QUESTION = "question"
    TASK = "task"


class UserRole(str, Enum):
    END_USER = "end-user"
    AGENT = "agent"
    ADMIN = "admin"


class Ticket(BaseModel):
    id: str
    subject: str = Field(min_length=1)
    description: str | None = None
    status: TicketStatus = TicketStatus.NEW
    priority: TicketPriority | None = None
    type: TicketType | None = None
    requester_id: str | None = None
    assignee_id: str | None = None
    organization_id: str | None = None
    tags: list[str] = Field(default_factory=list)
    created_at: str
    updated_at: str
    due_at: str | None = None


class User(BaseModel):
    id: str
    name: str = Field(min_length=1)
    email: str
    role: UserRole = UserRole.END_USER
    organization_id: str | None = None
    phone: str | None = None
    verified: bool = False
    active: bool = True
    created_at: str
    updated_at: str


class Organization(BaseModel):
    id: str
    name: str = Field(min_length=1)
    domain_names: list[str] = Field(default_factory=list)
    details: str | None = None
    notes: str | None = None
    created_at: str
    updated_at: str


class Comment(BaseModel):
    id: str
    ticket_id: str
    author_id: str
    body: str = Field(min_length=1)
    public: bool = True
    created_at: str


class Article(BaseModel):
    id: int
    url: str
    html_url: str
    title: str
    body: str
    snippet: str | None = None
    author_id: int
    section_id: int
    category_id: int | None = None
    brand_id: int | None = None
    locale: str
    source_locale: str
    draft: bool = False
    promoted: bool = False
    position: int = 0
    vote_sum: int = 0
    vote_count: int = 0
    comments_disabled: bool = False
    outdated: bool = False
    outdated_locales: list[str] = Field(default_factory=list)
    label_names: list[str] = Field(default_factory=list)
    content_tag_ids: list[str] = Field(default_factory=list)
    user_segment_id: int | None = None
    permission_group_id: int | None = None
    created_at: str
    updated_at: str
    edited_at: str | None = None
    result_type: str = "article"


class TicketComment(BaseModel):
    id: int
    ticket_id: int
    author_id: int
    body: str = Field(min_length=1)
    html_body: str | None = None
    public: bool = True
    created_at: str
    ItemInternalId: str | None = None
    key: str | None = None


class TicketCreateInput(BaseModel):
    subject: str = Field(min_length=1, description="Ticket subject")
    description: str | None = Field(None, description="Ticket description")
    status: TicketStatus | None = None
    priority: TicketPriority | None = None
    type: TicketType | None = None
    requester_id: str | None = Field(None, description="Zendesk user id of the requester")
    assignee_id: str | None = None
    organization_id: str | None = None
    tags: list[str] | None = None
    due_at: str | None = Field(None, description="Due date, ISO 8601")


class UserCreateInput(BaseModel):
    name: str = Field(min_length=1)
    email: str
    role: UserRole | None = None
    organization_id: str | None = None
    phone: str | None = None
    verified: bool | None = None
    active: bool | None = None


class OrganizationCreateInput(BaseModel):
    name: str = Field(min_length=1)
    domain_names: list[str] | None = None
    details: str | None = None
    notes: str | None = None


class CommentCreateInput(BaseModel):
    ticket_id: str
    author_id: str
    body: str = Field(min_length=1)
    public: bool | None = None


class TicketCommentCreateInput(BaseModel):
    ticket_id: int
    author_id: int
    body: str = Field(min_length=1)
    html_body: str | None = None
    public: bool | None = None
    ItemInternalId: str | None = None


class TicketUpdateInput(BaseModel):
    subject: str | None = Field(None, min_length=1)
    description: str | None = None
    status: TicketStatus | None = None
    priority: TicketPriority | None = None
    type: TicketType | None = None
    requester_id: str | None = None
    assignee_id: str | None = None
    organization_id: str | None = None
    tags: list[str] | None = None
    due_at: str | None = None


class UserUpdateInput(BaseModel):
    name: str | None = Field(None, min_length=1)
    email: str | None = None
    role: UserRole | None = None
    organization_id: str | None = None
    phone: str | None = None
    verified: bool | None = None
    active: bool | None = None


class OrganizationUpdateInput(BaseModel):
    name: str | None = Field(None, min_length=1)
    domain_names: list[str] | None = None
    details: str | None = None
    notes: str | None = None


class CommentUpdateInput(BaseModel):
    ticket_id: str | None = None
    author_id: str | None = None
    body: str | None = Field(None, min_length=1)
    public: bool | None = None


def with_custom_fields(
    base: type[_M], name: str, fields: Mapping[str, Any], *, module: str, doc: str | None = None
) -> type[_M]:
    """``base`` (a ticket row or payload) subclassed as ``name``: its fields, then the custom ``fields``.

    ``fields`` maps each field name to pydantic's ``(annotation, default or Field(...))``; ``module``
    and ``doc`` are the new class's ``__module__`` and docstring.
    """
    return create_model(name, __base__=base, __module__=module, __doc__=doc, **fields)
