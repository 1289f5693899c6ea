"""The Zendesk toolset shared by every benchmark domain, configured per domain.

A domain describes how its copy differs with a :class:`ZendeskVariant` and
makes the six Zendesk tables in its ``MetaData`` with :func:`zendesk_tables`;
:func:`zendesk_tools` makes the seven ``zendesk_*`` tools over those tables
(its declaration does that when the domain is built).
"""

from __future__ import annotations

from benchmark.domains.base import envelope_error_text
from benchmark.domains.zendesk.articles import register_article_search, split_query
from benchmark.domains.zendesk.crud import register_crud_tools
from benchmark.domains.zendesk.odata import (
    ALL_COMPARATORS,
    BASE_COMPARATORS,
    ODataError,
    evaluate,
    parse_filter,
)
from benchmark.domains.zendesk.variant import ZendeskTables, ZendeskVariant, zendesk_tables
from guard.tools import ToolRegistry

__all__ = [
    "ALL_COMPARATORS",
    "BASE_COMPARATORS",
    "ODataError",
    "ZendeskTables",
    "ZendeskVariant",
    "evaluate",
    "parse_filter",
    "split_query",
    "zendesk_tables",
    "zendesk_tools",
]


def zendesk_tools(tables: ZendeskTables) -> ToolRegistry:
    """The seven Zendesk tools of ``tables``' variant: the six table tools, then the article search."""
    tools = ToolRegistry("zendesk", error_text=envelope_error_text)
    register_crud_tools(tools, tables)
    register_article_search(tools, tables)
    return tools
