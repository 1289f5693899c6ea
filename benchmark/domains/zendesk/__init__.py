"""The Zendesk toolset shared by every benchmark domain, configured per domain.

Call :func:`zendesk_toolset` with a :class:`ZendeskVariant`; it returns the
six Zendesk tables and adds the seven ``zendesk_*`` tools to a registry.
"""

from __future__ import annotations

from sqlalchemy import MetaData

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
    "zendesk_toolset",
]


def zendesk_toolset(variant: ZendeskVariant, metadata: MetaData, registry: ToolRegistry) -> ZendeskTables:
    """Create the variant's tables in ``metadata`` and register its tools in ``registry``."""
    tables = zendesk_tables(variant, metadata)
    register_crud_tools(registry, variant, tables)
    register_article_search(registry, tables)
    return tables
