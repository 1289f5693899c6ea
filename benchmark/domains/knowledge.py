"""Policy search over a scenario's knowledge-base sources, in the database.

The reference answers ``search_policy`` / ``knowledge_base_search_policy``
from a Typesense collection built from the scenario's ``sources`` (hybrid
vector + keyword search, whole policy sections returned). We keep the same
tool and reply shape (``{"snippets": [{"source", "score", "text"}]}``, whole
sections, best first) and rank with the database's full-text search instead:
SQLite FTS5 (``bm25``, Porter stemming) or PostgreSQL ``to_tsvector`` /
``websearch_to_tsquery`` (``ts_rank``). A query matches a section when any of
its words does. The documents table is ours alone and never part of the
graded state.

``max_results`` is treated as the reference does: missing or 0 → 3, below 1
→ 3, above 10 → 10.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import (
    BigInteger,
    Column,
    MetaData,
    Table,
    Text,
    desc,
    func,
    insert,
    literal_column,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.dataset.model import PolicySource
from benchmark.domains.base import SEQ
from guard.errors import PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["documents_table", "load_documents", "register_policy_search", "search_documents"]

_WORD = re.compile(r"\w+", re.UNICODE)
_FTS = "kb_documents_fts"


def documents_table(metadata: MetaData) -> Table:
    return Table(
        "kb_documents",
        metadata,
        Column("id", BigInteger, primary_key=True),
        Column("source", Text, nullable=False),
        Column("text", Text, nullable=False),
        Column(SEQ, BigInteger, nullable=False),
    )


async def load_documents(conn: AsyncConnection, table: Table, sources: Sequence[PolicySource]) -> int:
    """Store one document per snippet and index them; returns the number of documents."""
    rows = [
        {"id": n, "source": source.name, "text": snippet, SEQ: n}
        for n, (source, snippet) in enumerate(
            ((source, snippet) for source in sources for snippet in source.snippets), start=1
        )
    ]
    if rows:
        await conn.execute(insert(table), rows)
    if conn.dialect.name == "sqlite":
        await conn.execute(
            text(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {_FTS} USING fts5(source, text, "
                f"content='{table.name}', content_rowid='id', tokenize='porter unicode61')"
            )
        )
        await conn.execute(text(f"INSERT INTO {_FTS}({_FTS}) VALUES ('rebuild')"))
    return len(rows)


async def search_documents(
    conn: AsyncConnection, table: Table, query: str, limit: int
) -> list[dict[str, Any]]:
    """The best ``limit`` documents for ``query``, best first."""
    words = _WORD.findall(query)
    if not words:
        return []
    if conn.dialect.name == "sqlite":
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in words)
        result = await conn.execute(
            text(
                f"SELECT d.source, d.text, -bm25({_FTS}) AS score FROM {_FTS} "
                f"JOIN {table.name} d ON d.id = {_FTS}.rowid WHERE {_FTS} MATCH :match "
                "ORDER BY score DESC, d.id LIMIT :limit"
            ),
            {"match": match, "limit": limit},
        )
    else:
        config: Any = literal_column("'english'::regconfig")
        vector = func.to_tsvector(config, table.c.text)
        tsquery = func.websearch_to_tsquery(config, " or ".join(words))
        score = func.ts_rank(vector, tsquery).label("score")
        result = await conn.execute(
            select(table.c.source, table.c.text, score)
            .where(vector.op("@@")(tsquery))
            .order_by(desc("score"), table.c.id)
            .limit(limit)
        )
    return [{"source": r.source, "score": round(float(r.score), 6), "text": r.text} for r in result]


class SearchPolicyArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(description="Natural-language question about company policy")
    max_results: int | None = Field(
        3, description="How many policy sections to return (default 3, at most 10)"
    )


class SearchPolicyOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    snippets: list[dict[str, Any]]


def register_policy_search(registry: ToolRegistry, name: str, table: Table) -> None:
    """Add the policy search tool (``search_policy`` or ``knowledge_base_search_policy``)."""

    async def search_policy(ctx: ToolContext, args: SearchPolicyArgs) -> SearchPolicyOut:
        """Search the policy knowledge base in natural language; returns whole policy sections, best first."""
        limit = args.max_results or 3
        limit = 3 if limit < 1 else min(limit, 10)
        if (await ctx.conn.execute(select(func.count()).select_from(table))).scalar_one() == 0:
            raise PreconditionFailed("Search service is not available")
        return SearchPolicyOut(snippets=await search_documents(ctx.conn, table, args.query, limit))

    registry.tool(write=False, name=name)(search_policy)
