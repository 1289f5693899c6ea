"""``zendesk_search_articles``: the reference's keyword matching over help-center articles.

A query is split into quoted phrases (all must occur), ``-word`` or
``-"phrase"`` exclusions, and plain terms: with at most two terms all must
occur, with more at least ⌈40 %⌉ of them. Matching is case-insensitive
substring search in title + body. Locale, brand (unless ``multibrand``),
category, section and label filters follow; at most 1000 results.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.zendesk.variant import ZendeskTables
from guard.tools import ToolContext, ToolRegistry

__all__ = ["register_article_search", "split_query"]

_PHRASE = re.compile(r'(-?)"([^"]+)"')
_NEGATIVE = re.compile(r"-(\w+)")


class SearchArticlesArgs(BaseModel):
    query: str = Field(description="Words or quoted phrases to look for")
    locale: str | None = Field(None, description="Only articles in this locale")
    brand_id: int | None = Field(None, description="Only articles of this brand")
    category: int | None = Field(None, description="Only articles in this category id")
    section: int | None = Field(None, description="Only articles in this section id")
    label_names: str | None = Field(None, description="Comma-separated labels; any must match")
    multibrand: bool | None = Field(None, description="Search across all brands")


class SearchArticlesOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    results: list[dict[str, Any]]


def split_query(query: str) -> tuple[list[str], list[str], list[str]]:
    """(phrases, terms, negatives) of a search query, lower-cased."""
    phrases: list[str] = []
    negatives: list[str] = []
    for match in _PHRASE.finditer(query):
        (negatives if match.group(1) == "-" else phrases).append(match.group(2).strip().lower())
    rest = _PHRASE.sub("", query)
    negatives.extend(match.group(1).strip().lower() for match in _NEGATIVE.finditer(rest))
    rest = _NEGATIVE.sub("", rest)
    terms = [t for t in (word.strip().lower().replace("'", "") for word in rest.split()) if t]
    return phrases, terms, negatives


def _matches(text: str, phrases: list[str], terms: list[str], negatives: list[str]) -> bool:
    if any(n in text for n in negatives) or any(p not in text for p in phrases):
        return False
    if len(terms) <= 2:
        return all(t in text for t in terms)
    return sum(t in text for t in terms) >= math.ceil(0.4 * len(terms))


def register_article_search(registry: ToolRegistry, tables: ZendeskTables) -> None:
    """Add ``zendesk_search_articles`` over the domain's ``zendesk_articles`` table."""

    async def zendesk_search_articles(ctx: ToolContext, args: SearchArticlesArgs) -> SearchArticlesOut:
        """Help-center articles matching a keyword query and optional locale/brand/category/section/labels."""
        phrases, terms, negatives = split_query(args.query)
        found = [
            a
            for a in await store.all_rows(ctx.conn, tables.sql["articles"])
            if _matches((a["title"] + " " + a["body"]).lower(), phrases, terms, negatives)
        ]
        if args.locale:
            found = [a for a in found if a["locale"] == args.locale]
        if args.brand_id and not args.multibrand:
            found = [a for a in found if a["brand_id"] == args.brand_id]
        if args.category:
            found = [a for a in found if a["category_id"] == args.category]
        if args.section:
            found = [a for a in found if a["section_id"] == args.section]
        if args.label_names:
            labels = [label.strip() for label in args.label_names.split(",")]
            found = [a for a in found if any(label in a["label_names"] for label in labels)]
        return SearchArticlesOut(results=found[:1000])

    registry.tool(write=False)(zendesk_search_articles)
